package dev.seqvfs.engine;

import static dev.seqvfs.protocol.MountFlags.MNT_DETACH;
import static dev.seqvfs.protocol.MountFlags.MS_BIND;
import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_DIRECTORY;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.PathProof;
import dev.seqvfs.engine.fs.tmpfs.TmpfsType;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.VfsException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An unmounted tmpfs's actors stop: after {@code umount}, or after a lazy {@code
 * umount2(MNT_DETACH)} once the last open file or working directory inside is gone, its {@code
 * SuperblockActor} and every {@code DirectoryActor} of it terminate (watched from inside the
 * instance's actor system), and what was open keeps working until then. A superblock mounted twice
 * (a bind mount) lives while either mount does.
 *
 * <pre>
 * /mnt         the mountpoint, a tmpfs on it
 * /mnt/a/b/f   directories (each written once, so each has an actor) and a file
 * </pre>
 */
@Timeout(60)
class UnmountTest {
    private static final AtomicInteger WATCHERS = new AtomicInteger();
    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"));
        t = vfs.newTask(Credentials.ROOT);
        t.mkdir("/mnt", 0755);
        t.mount("none", "/mnt", "tmpfs", 0, null);
        t.mkdir("/mnt/a", 0755);
        t.mkdir("/mnt/a/b", 0755);
        t.close(t.open("/mnt/a/b/f", O_CREAT | O_RDWR, 0644));
    }

    @AfterEach
    void down() {
        t.close();
        vfs.close();
    }

    /** The tmpfs on /mnt. */
    private Superblock tmpfs() {
        for (VfsMount m : vfs.namespace().mountTableAcquire().mounts()) {
            if (m.parent() != null) {
                return m.superblock();
            }
        }
        throw new AssertionError("no tmpfs mounted");
    }

    private boolean exists(String path) {
        try {
            t.stat(path);
            return true;
        } catch (VfsException e) {
            assertEquals(Errno.ENOENT, e.errno());
            return false;
        }
    }

    private static DirectoryInode dir(DirectoryInode parent, String name) {
        return (DirectoryInode) parent.snapshotAcquire().lookup(name).inode();
    }

    /** The superblock's actor and its directories' actors, each of which must exist now. */
    private List<ActorRef<?>> actorsOf(Superblock sb, DirectoryInode... dirs) {
        List<ActorRef<?>> refs = new ArrayList<>();
        refs.add(sb.actorAcquire());
        for (DirectoryInode d : dirs) {
            assertNotNull(d.actorAcquire(), d + " has an actor");
            refs.add(d.actorAcquire());
        }
        return refs;
    }

    /** Completes when {@code ref} terminates (watched by an actor of the instance's own system). */
    private CompletableFuture<Void> terminated(ActorRef<?> ref) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        vfs.system()
                .systemActorOf(
                        Behaviors.setup(
                                ctx -> {
                                    ctx.watch(ref);
                                    return Behaviors.receive(Object.class)
                                            .onSignal(
                                                    Terminated.class,
                                                    s -> {
                                                        f.complete(null);
                                                        return Behaviors.stopped();
                                                    })
                                            .build();
                                }),
                        "watch-" + WATCHERS.incrementAndGet(),
                        Props.empty());
        return f;
    }

    private List<CompletableFuture<Void>> watch(List<ActorRef<?>> refs) {
        List<CompletableFuture<Void>> out = new ArrayList<>();
        for (ActorRef<?> r : refs) {
            out.add(terminated(r));
        }
        return out;
    }

    private static void assertAllTerminated(List<CompletableFuture<Void>> fs) throws Exception {
        for (CompletableFuture<Void> f : fs) {
            f.get(10, TimeUnit.SECONDS);
        }
    }

    private static void assertNoneTerminated(List<CompletableFuture<Void>> fs) {
        for (CompletableFuture<Void> f : fs) {
            assertFalse(f.isDone(), "an actor stopped while its superblock is in use");
        }
    }

    @Test
    void umount_tmpfs_stopsItsSuperblockAndDirectoryActors() throws Exception {
        Superblock sb = tmpfs();
        DirectoryInode a = dir(sb.root(), "a");
        DirectoryInode b = dir(a, "b");
        List<CompletableFuture<Void>> gone = watch(actorsOf(sb, sb.root(), a, b));
        t.umount("/mnt");
        assertAllTerminated(gone);
        assertTrue(sb.isDeactivated());
        assertNull(sb.root().actorAcquire());
        assertNull(a.actorAcquire());
        assertNull(b.actorAcquire());
    }

    @Test
    void umount_busy_failsWithEBUSY_andKeepsTheActors() {
        Superblock sb = tmpfs();
        List<CompletableFuture<Void>> gone = watch(actorsOf(sb, sb.root()));
        int fd = t.open("/mnt/a/b/f", O_RDONLY);
        assertEquals(Errno.EBUSY, assertThrows(VfsException.class, () -> t.umount("/mnt")).errno());
        t.mkdir("/mnt/c", 0755);
        assertNoneTerminated(gone);
        assertFalse(sb.isDeactivated());
        t.close(fd);
    }

    @Test
    void umount2_lazyWithOpenFiles_keepsEverythingWorkingUntilTheLastClose() throws Exception {
        Superblock sb = tmpfs();
        DirectoryInode a = dir(sb.root(), "a");
        DirectoryInode b = dir(a, "b");
        List<CompletableFuture<Void>> gone = watch(actorsOf(sb, sb.root(), a, b));
        int fd = t.open("/mnt/a/b/f", O_RDWR);
        int dfd = t.open("/mnt/a/b", O_RDONLY | O_DIRECTORY);
        t.umount2("/mnt", MNT_DETACH);
        assertFalse(exists("/mnt/a"), "detached from the namespace");

        t.write(fd, "data".getBytes(StandardCharsets.UTF_8));
        byte[] back = new byte[4];
        t.pread(fd, back, 0, 4, 0);
        assertArrayEquals("data".getBytes(StandardCharsets.UTF_8), back);
        t.mkdirat(dfd, "x", 0755);
        int g = t.openat(dfd, "g", O_CREAT | O_RDWR, 0644);
        t.renameat2(dfd, "g", dfd, "x/g", 0);
        t.close(fd);
        t.close(dfd);
        assertNoneTerminated(gone);
        assertFalse(sb.isDeactivated(), "one file is still open");
        assertEquals(4, t.write(g, "more".getBytes(StandardCharsets.UTF_8)));

        t.close(g);
        assertAllTerminated(gone);
        assertTrue(sb.isDeactivated());
    }

    @Test
    void umount2_lazyWithWorkingDirectoryInside_stopsAfterTheTaskLeaves() throws Exception {
        Superblock sb = tmpfs();
        List<CompletableFuture<Void>> gone = watch(actorsOf(sb, sb.root()));
        t.chdir("/mnt/a");
        t.umount2("/mnt", MNT_DETACH);
        t.mkdir("b/c", 0755);
        assertTrue(exists("b/c"));
        assertNoneTerminated(gone);
        t.chdir("/");
        assertAllTerminated(gone);
    }

    /** {@code sys_getcwd}: the path within the detached mount, after "(unreachable)". */
    @Test
    void getcwd_insideALazilyDetachedMount_isUnreachableAndThePathWithinIt() {
        t.chdir("/mnt/a/b");
        assertEquals("/mnt/a/b", t.getcwd());
        t.umount2("/mnt", MNT_DETACH);
        assertEquals("(unreachable)/a/b", t.getcwd());
        t.chdir("../../..");
        assertEquals("(unreachable)/", t.getcwd(), "'..' stays at the detached mount's root");
        t.chdir("/");
        assertEquals("/", t.getcwd());
    }

    @Test
    void umount_oneOfTwoMountsOfASuperblock_keepsItUntilTheOther() throws Exception {
        Superblock sb = tmpfs();
        List<CompletableFuture<Void>> gone = watch(actorsOf(sb, sb.root()));
        t.mkdir("/bind", 0755);
        t.mount("/mnt/a", "/bind", null, MS_BIND, null);
        t.umount("/mnt");
        t.mkdir("/bind/b/c", 0755);
        assertNoneTerminated(gone);
        assertFalse(sb.isDeactivated());
        t.umount("/bind");
        assertAllTerminated(gone);
        assertTrue(sb.isDeactivated());
    }

    /**
     * A command that reaches an unmounted superblock's directory (its walk raced the umount;
     * nothing pins it) fails at once as a gone directory's does, instead of going to a stopped
     * actor and waiting out the ask timeout.
     */
    @Test
    void askDir_directoryOfAnUnmountedSuperblock_failsAtOnceWithENOENT() throws Exception {
        Superblock sb = tmpfs();
        DirectoryInode a = dir(sb.root(), "a");
        List<CompletableFuture<Void>> gone = watch(actorsOf(sb, sb.root(), a));
        t.umount("/mnt");
        assertAllTerminated(gone);
        CompletableFuture<DirReply> r =
                vfs.asker()
                        .askDir(
                                a,
                                (ReplyTo<DirReply> to) ->
                                        new DirectoryActor.Create(
                                                "late",
                                                Mode.S_IFREG | 0644,
                                                0,
                                                null,
                                                true,
                                                Credentials.ROOT,
                                                PathProof.NONE,
                                                to));
        assertEquals(Errno.ENOENT, r.get(2, TimeUnit.SECONDS).error());
        CompletableFuture<DirReply> stale =
                vfs.asker()
                        .askDir(
                                a,
                                (ReplyTo<DirReply> to) ->
                                        new DirectoryActor.Create(
                                                "late",
                                                Mode.S_IFREG | 0644,
                                                0,
                                                null,
                                                true,
                                                Credentials.ROOT,
                                                () -> false,
                                                to));
        assertEquals(
                Errno.ESTALE,
                stale.get(2, TimeUnit.SECONDS).error(),
                "a walk that no longer holds walks again");
    }

    /**
     * A new tmpfs whose attach fails (its mountpoint was removed meanwhile) is never used: its
     * actor stops.
     */
    @Test
    void attach_newSuperblockOntoARemovedDirectory_failsWithENOENT_andStopsItsActor()
            throws Exception {
        t.mkdir("/gone", 0755);
        DirectoryInode gone = dir(vfs.namespace().rootMount().root(), "gone");
        t.rmdir("/gone");
        Superblock sb = vfs.mount(TmpfsType.INSTANCE, null, "/gone", 0, null, 01777, 0, 0);
        CompletableFuture<Void> stopped = terminated(sb.actorAcquire());
        VfsException e =
                assertThrows(
                        VfsException.class,
                        () ->
                                vfs.namespace()
                                        .attach(
                                                vfs.namespace().rootMount(),
                                                gone,
                                                sb,
                                                sb.root(),
                                                false));
        assertEquals(Errno.ENOENT, e.errno());
        assertTrue(sb.isDeactivated());
        stopped.get(10, TimeUnit.SECONDS);
    }
}
