package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.VfsClock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The fork generations' protocol at its edges (CONCURRENCY.md, "Fork"): a fork taken between a
 * removal's publication and the work its writer does after it, forks of forks whose middle fork and
 * source are closed before they are read, and the source giving back what it kept once no fork
 * reads it.
 */
class ForkGenerationsTest {
    private static final Config CONF = ConfigFactory.parseString("seqvfs.proc.mount = off");
    private static final VfsClock STILL = () -> 7L;

    /**
     * An unlink publishes the name's removal, and a fork is taken right then, before the unlink's
     * actor goes on (held in {@link WriterHooks#entriesPublished}): the fork has the other name
     * only, and its link count says one. A file's link count drops inside the gate section that
     * published its name's removal, so no fork sees the name gone and the count still up.
     */
    @Test
    void forkBetweenAnUnlinksPublicationAndItsAnswer_countsTheNamesItHas() throws Exception {
        try (SeqVfs src = SeqVfs.create(CONF, STILL);
                VfsTask t = src.newTask(Credentials.ROOT)) {
            t.mkdir("/a", 0755);
            t.mkdir("/b", 0755);
            ForkTest.writeFile(t, "/a/f", ForkTest.bytes("two names"));
            t.link("/a/f", "/b/g");
            Inode a =
                    src.namespace()
                            .rootMount()
                            .superblock()
                            .root()
                            .snapshotAcquire()
                            .lookup("a")
                            .inode();
            CompletableFuture<SeqVfs> forked = new CompletableFuture<>();
            Superblock sb = src.namespace().rootMount().superblock();
            sb.installHooks(
                    new WriterHooks() {
                        @Override
                        public void entriesPublished(Inode dir) {
                            if (dir == a && !forked.isDone()) {
                                // another thread forks while this writer waits here
                                Thread th = new Thread(() -> forked.complete(src.fork()), "forker");
                                th.start();
                                try {
                                    th.join(TimeUnit.SECONDS.toMillis(30));
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                        }
                    });
            t.unlink("/a/f");
            sb.installHooks(null);
            try (SeqVfs f = forked.get(30, TimeUnit.SECONDS);
                    VfsTask ft = f.newTask(Credentials.ROOT)) {
                assertEquals(List.of("g"), names(ft, "/b"));
                assertEquals(List.of(), names(ft, "/a"));
                assertEquals(1, ft.stat("/b/g").nlink(), "link count in the fork");
                assertEquals(List.of(), Fsck.check(f, true));
            }
            assertEquals(1, t.stat("/b/g").nlink());
        }
    }

    /**
     * A fork of a fork, neither read, outlives its source and the fork between: the source is
     * written in every way, the middle fork is closed, the source is written again and closed, and
     * only then is the last fork read. It shows the source as it was when the middle fork was
     * taken: the middle fork's hold on the source lasts as long as a fork of it is open.
     */
    @Test
    void closingTheSourceAndTheMiddleFork_leavesAForkOfAForkAtItsCut() {
        SeqVfs src = SeqVfs.create();
        SeqVfs last;
        Map<String, String> before;
        try (VfsTask t = src.newTask(Credentials.ROOT)) {
            ForkTest.fixture(t);
            before = ForkTest.digest(src);
            SeqVfs mid = src.fork();
            last = mid.fork();
            List<Consumer<VfsTask>> writes = ForkTest.writes();
            for (int i = 0; i < writes.size() / 2; i++) {
                writes.get(i).accept(t);
            }
            mid.close();
            for (int i = writes.size() / 2; i < writes.size(); i++) {
                writes.get(i).accept(t);
            }
            assertNotEquals(before, ForkTest.digest(src));
        } finally {
            src.close();
        }
        try {
            assertEquals(before, ForkTest.digest(last));
            assertEquals(List.of(), Fsck.check(last, true));
        } finally {
            last.close();
        }
    }

    /**
     * While a fork is open the source keeps, of what it changes, the version the fork reads (a
     * directory's snapshot, an attribute set, a file's data); once the fork is closed its next
     * change drops them.
     */
    @Test
    void closedForks_letTheSourceDropWhatItKept() {
        try (SeqVfs src = SeqVfs.create(CONF, STILL);
                VfsTask t = src.newTask(Credentials.ROOT)) {
            t.mkdir("/d", 0755);
            ForkTest.writeFile(t, "/d/f", ForkTest.fill(3 * 4096, (byte) 'a'));
            DirectoryInode d =
                    (DirectoryInode)
                            src.namespace()
                                    .rootMount()
                                    .superblock()
                                    .root()
                                    .snapshotAcquire()
                                    .lookup("d")
                                    .inode();
            RegularInode f = (RegularInode) d.snapshotAcquire().lookup("f").inode();
            SeqVfs fork = src.fork();
            t.chmod("/d/f", 0600);
            ForkTest.pwrite(t, "/d/f", ForkTest.bytes("b"), 0);
            t.mknod("/d/g", dev.seqvfs.protocol.Mode.S_IFREG | 0644, 0);
            assertNotNull(f.attrsAcquire().prevAcquire(), "attributes kept for the fork");
            assertNotNull(d.snapshotAcquire().prevAcquire(), "entries kept for the fork");
            assertEquals(1, f.keptDataVersions(), "data kept for the fork");
            try (VfsTask ft = fork.newTask(Credentials.ROOT)) {
                assertEquals(0644, ft.stat("/d/f").mode() & 07777);
                assertEquals('a', ForkTest.read(ft, "/d/f", 0, 1)[0]);
                assertEquals(List.of("f"), names(ft, "/d"));
            }
            fork.close();
            t.chmod("/d/f", 0640);
            ForkTest.pwrite(t, "/d/f", ForkTest.bytes("c"), 0);
            t.unlink("/d/g");
            assertNull(f.attrsAcquire().prevAcquire(), "attributes dropped");
            assertNull(d.snapshotAcquire().prevAcquire(), "entries dropped");
            assertEquals(0, f.keptDataVersions(), "data dropped");
            assertEquals(List.of(), Fsck.check(src, true));
            assertTrue(
                    src.namespace().rootMount().superblock().forks().oldestOpen()
                            == Long.MAX_VALUE);
        }
    }

    private static List<String> names(VfsTask t, String dir) {
        return t.readdir(dir).stream()
                .map(dev.seqvfs.protocol.DirEntry::name)
                .filter(n -> !n.equals(".") && !n.equals("..") && !n.equals("proc"))
                .sorted()
                .toList();
    }
}
