package dev.seqvfs.engine.sb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirSnapshot;
import dev.seqvfs.engine.dir.DirTesting;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryFileOperations;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.PathProof;
import dev.seqvfs.engine.file.RegularFileOperations;
import dev.seqvfs.engine.fs.tmpfs.TmpfsType;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.reply.ReplyCollector;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.VfsClock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cross-directory rename coordinator of {@link SuperblockActor}, against parents whose "actors"
 * are test probes: the test decides whether, when and in which order each parent answers its {@link
 * DirectoryActor.PrepareRename}. Time is Pekko's manual clock, so the prepare watchdog runs only
 * when the test moves the clock.
 *
 * <p>A reply's absence is asserted after a sync point: a {@link SuperblockActor.Remount} answered
 * by the actor proves every message sent to it before (watchdog ticks included) was handled.
 *
 * <pre>
 * /a     source parent (a probe)
 * /a/x   a regular file
 * /b     target parent (a probe)
 * </pre>
 */
class SuperblockActorTest {
    private static final ActorTestKit TK =
            ActorTestKit.create(
                    ManualTime.config().withFallback(ActorTestKit.applicationTestConfig()));
    private static final ManualTime TIME = ManualTime.get(TK.system());
    private static long devs = 100;

    private final ReplyCollector.Pending pending = new ReplyCollector.Pending();
    private Superblock sb;
    private ActorRef<SuperblockActor.Command> coordinator;
    private DirectoryInode a;
    private DirectoryInode b;
    private Inode x;
    private TestProbe<DirectoryActor.Command> pa;
    private TestProbe<DirectoryActor.Command> pb;

    @AfterAll
    static void shutDown() {
        TK.shutdownTestKit();
    }

    @BeforeEach
    void setUp() {
        sb =
                new Superblock(
                        ++devs,
                        TmpfsType.INSTANCE,
                        TmpfsType.superOperations(),
                        SuperblockConfig.UNLIMITED,
                        VfsClock.SYSTEM,
                        new NamespaceLocks(),
                        0755,
                        0,
                        0);
        coordinator = TK.spawn(SuperblockActor.create(sb, DispatcherSelector.defaultDispatcher()));
        sb.publishActorRelease(coordinator);
        a = mkdir(sb.root(), "a");
        b = mkdir(sb.root(), "b");
        x =
                new RegularInode(
                        sb.allocInoBatch(1),
                        sb,
                        sb.ops(),
                        RegularFileOperations.INSTANCE,
                        InodeAttrs.create(Mode.S_IFREG | 0644, 1, 0, 0, 0, 0, sb.now()));
        DirSnapshot as = a.snapshotAcquire();
        assertTrue(DirTesting.casSnapshot(a, as, as.with("x", x)));
        pa = TK.createTestProbe();
        pb = TK.createTestProbe();
        DirTesting.publishActorRelease(a, pa.ref());
        DirTesting.publishActorRelease(b, pb.ref());
    }

    /** Binds a new empty directory, as its parent's actor would. */
    private DirectoryInode mkdir(DirectoryInode parent, String name) {
        DirectoryInode d =
                new DirectoryInode(
                        sb.allocInoBatch(1),
                        sb,
                        sb.ops(),
                        DirectoryFileOperations.INSTANCE,
                        InodeAttrs.create(Mode.S_IFDIR | 0755, 2, 0, 0, 0, 0, sb.now()),
                        parent,
                        name);
        DirSnapshot ps = parent.snapshotAcquire();
        assertTrue(DirTesting.casSnapshot(parent, ps, ps.with(name, d)));
        return d;
    }

    /** A caller waiting for a {@link DirReply}. */
    private final class Reply {
        final CompletableFuture<DirReply> future = new CompletableFuture<>();
        final ReplyTo<DirReply> to =
                new ReplyTo<>(pending, pending.register(future, Long.MAX_VALUE));

        Errno await() throws Exception {
            return future.get(3, TimeUnit.SECONDS).error();
        }
    }

    private Reply rename(
            DirectoryInode from,
            String oldName,
            DirectoryInode to,
            String newName,
            PathProof proof) {
        Reply r = new Reply();
        coordinator.tell(
                new SuperblockActor.CrossRename(
                        from,
                        oldName,
                        to,
                        newName,
                        0,
                        false,
                        false,
                        Credentials.ROOT,
                        proof,
                        r.to));
        return r;
    }

    /** Returns once the coordinator has handled every message sent to it so far. */
    private void sync() throws Exception {
        Reply r = new Reply();
        coordinator.tell(new SuperblockActor.Remount(false, r.to));
        assertNull(r.await());
    }

    private static DirectoryActor.PrepareRename expectPrepare(TestProbe<DirectoryActor.Command> p) {
        return p.expectMessageClass(DirectoryActor.PrepareRename.class);
    }

    /** Answers as a live directory's actor does: its current snapshot. */
    private static void prepared(DirectoryActor.PrepareRename pr, DirectoryInode dir) {
        pr.replyTo().tell(new DirectoryActor.Prepared(pr.renameId(), dir, dir.snapshotAcquire()));
    }

    private static void expectFinished(TestProbe<DirectoryActor.Command> p, long id) {
        assertEquals(
                new DirectoryActor.RenameFinished(id),
                p.expectMessageClass(DirectoryActor.RenameFinished.class));
    }

    private void assertXStillInA() {
        assertSame(x, a.snapshotAcquire().lookup("x").inode());
        assertNull(b.snapshotAcquire().lookup("x"));
    }

    // ------------------------------------------------------------------ order of replies

    @Test
    void crossRename_bothParentsPrepare_publishesBothAndReleasesBoth() throws Exception {
        Reply r = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename fromA = expectPrepare(pa);
        DirectoryActor.PrepareRename fromB = expectPrepare(pb);
        assertEquals(fromA.renameId(), fromB.renameId());
        prepared(fromA, a);
        prepared(fromB, b);
        assertNull(r.await());
        assertNull(a.snapshotAcquire().lookup("x"));
        assertSame(x, b.snapshotAcquire().lookup("y").inode());
        expectFinished(pa, fromA.renameId());
        expectFinished(pb, fromA.renameId());
    }

    @Test
    void crossRename_targetParentAnswersFirst_renamesTheSame() throws Exception {
        Reply r = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename fromA = expectPrepare(pa);
        DirectoryActor.PrepareRename fromB = expectPrepare(pb);
        prepared(fromB, b);
        sync();
        assertFalse(r.future.isDone(), "waits for the source parent");
        pb.expectNoMessage(java.time.Duration.ZERO);
        prepared(fromA, a);
        assertNull(r.await());
        assertNull(a.snapshotAcquire().lookup("x"));
        assertSame(x, b.snapshotAcquire().lookup("y").inode());
        expectFinished(pa, fromA.renameId());
        expectFinished(pb, fromA.renameId());
    }

    @Test
    void crossRename_whileAnotherIsPreparing_waitsForIt() throws Exception {
        DirectoryInode c = mkdir(sb.root(), "c");
        TestProbe<DirectoryActor.Command> pc = TK.createTestProbe();
        DirTesting.publishActorRelease(c, pc.ref());
        Reply first = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename fromA = expectPrepare(pa);
        DirectoryActor.PrepareRename fromB = expectPrepare(pb);
        Reply second = rename(b, "y", c, "z", PathProof.NONE);
        sync();
        pc.expectNoMessage(java.time.Duration.ZERO);
        prepared(fromA, a);
        prepared(fromB, b);
        assertNull(first.await());
        expectFinished(pa, fromA.renameId());
        expectFinished(pb, fromA.renameId());
        DirectoryActor.PrepareRename nextB = expectPrepare(pb);
        DirectoryActor.PrepareRename nextC = expectPrepare(pc);
        assertTrue(nextB.renameId() > fromA.renameId(), "a new id per rename");
        prepared(nextC, c);
        prepared(nextB, b);
        assertNull(second.await());
        assertSame(x, c.snapshotAcquire().lookup("z").inode());
    }

    // ------------------------------------------------------------------ the watchdog

    @Test
    void
            crossRename_parentNeverPrepares_failsWithEIOAfterTheTimeout_releasesBoth_nextRenameProceeds()
                    throws Exception {
        Reply r = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename fromA = expectPrepare(pa);
        expectPrepare(pb);
        prepared(fromA, a);
        TIME.timePasses(SuperblockActor.PREPARE_TIMEOUT);
        sync();
        assertFalse(r.future.isDone(), "not before PREPARE_TIMEOUT");
        TIME.timePasses(SuperblockActor.TICK);
        assertEquals(Errno.EIO, r.await(), "abandoned within one tick after it");
        expectFinished(pa, fromA.renameId());
        expectFinished(pb, fromA.renameId());
        assertXStillInA();

        Reply next = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename nextA = expectPrepare(pa);
        DirectoryActor.PrepareRename nextB = expectPrepare(pb);
        prepared(nextA, a);
        prepared(nextB, b);
        assertNull(next.await());
        assertSame(x, b.snapshotAcquire().lookup("y").inode());
    }

    @Test
    void prepared_lateReplyOfAnAbandonedRename_isIgnored() throws Exception {
        Reply abandoned = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename oldA = expectPrepare(pa);
        DirectoryActor.PrepareRename oldB = expectPrepare(pb);
        prepared(oldA, a);
        TIME.timePasses(SuperblockActor.PREPARE_TIMEOUT.plus(SuperblockActor.TICK));
        assertEquals(Errno.EIO, abandoned.await());
        expectFinished(pa, oldA.renameId());
        expectFinished(pb, oldA.renameId());

        Reply next = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename nextA = expectPrepare(pa);
        DirectoryActor.PrepareRename nextB = expectPrepare(pb);
        prepared(nextA, a);
        prepared(oldB, b);
        sync();
        assertFalse(
                next.future.isDone(),
                "the target's Prepared of the abandoned rename is not its Prepared for this one");
        assertXStillInA();
        prepared(nextB, b);
        assertNull(next.await());
        assertSame(x, b.snapshotAcquire().lookup("y").inode());
    }

    // ------------------------------------------------------------------ dead parents

    /** Empties nothing: {@code d} must be empty. Kills it, then unbinds it, as rmdir does. */
    private void remove(DirectoryInode d, boolean unbind) {
        assertTrue(DirTesting.tryKill(d, d.snapshotAcquire()));
        if (unbind) {
            DirSnapshot rs = sb.root().snapshotAcquire();
            assertTrue(DirTesting.casSnapshot(sb.root(), rs, rs.without(d.linkAcquire().name())));
        }
    }

    @Test
    void crossRename_targetParentDead_failsWithENOENT_releasesBoth() throws Exception {
        remove(b, true);
        Reply r = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename fromA = expectPrepare(pa);
        DirectoryActor.PrepareRename fromB = expectPrepare(pb);
        prepared(fromB, b);
        prepared(fromA, a);
        assertEquals(Errno.ENOENT, r.await());
        expectFinished(pa, fromA.renameId());
        expectFinished(pb, fromA.renameId());
        assertXStillInA();
    }

    @Test
    void crossRename_sourceParentDeadWithoutAnActor_isAnsweredByTheSuperblock_failsWithENOENT()
            throws Exception {
        DirectoryInode gone = mkdir(sb.root(), "gone");
        remove(gone, true);
        Reply r = rename(gone, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename fromB = expectPrepare(pb);
        prepared(fromB, b);
        assertEquals(Errno.ENOENT, r.await());
        expectFinished(pb, fromB.renameId());
    }

    @Test
    void crossRename_targetParentDeadInItsRealActor_failsWithENOENT() throws Exception {
        DirectoryInode gone = mkdir(sb.root(), "gone");
        Reply spawn = new Reply();
        sb.tellDirectory(
                gone,
                new DirectoryActor.SetAttrs(
                        new dev.seqvfs.engine.inode.AttrChange.Chmod(0700),
                        Credentials.ROOT,
                        PathProof.NONE,
                        spawn.to));
        assertNull(spawn.await(), "its actor runs");
        sync(); // the coordinator publishes the reference after its first tell
        remove(gone, true);
        gone.actorAcquire().tell(new DirectoryActor.Died());
        Reply r = rename(a, "x", gone, "y", PathProof.NONE);
        prepared(expectPrepare(pa), a);
        assertEquals(Errno.ENOENT, r.await());
        assertXStillInA();
    }

    @Test
    void crossRename_targetParentBeingRemoved_failsWithESTALE() throws Exception {
        remove(b, false);
        Reply r = rename(a, "x", b, "y", () -> true);
        prepared(expectPrepare(pa), a);
        prepared(expectPrepare(pb), b);
        assertEquals(
                Errno.ESTALE,
                r.await(),
                "its parent still binds it: the path is about to lead elsewhere");
    }

    @Test
    void crossRename_proofStale_failsWithESTALE_publishesNothing() throws Exception {
        Reply r = rename(a, "x", b, "y", () -> false);
        prepared(expectPrepare(pa), a);
        prepared(expectPrepare(pb), b);
        assertEquals(Errno.ESTALE, r.await());
        assertXStillInA();
    }

    // ------------------------------------------------------------------ a parent that cannot
    // prepare

    /**
     * Regression: a prepared directory whose stash is full refuses a {@code PrepareRename} with
     * {@code EAGAIN} ({@code Command.fail}, as it refuses every command then). The refusal carried
     * no directory: the coordinator filed a source parent's refusal as the target's answer and
     * waited for the 5 s watchdog ({@code EIO}), and took a target parent's refusal for a dead
     * directory ({@code ENOENT}). It must fail the rename at once with the refusal's errno and
     * release the other parent, without waiting for it.
     */
    @Test
    void crossRename_sourceParentRefusesToPrepare_failsWithEAGAINAtOnce_releasesBoth()
            throws Exception {
        Reply r = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename fromA = expectPrepare(pa);
        DirectoryActor.PrepareRename fromB = expectPrepare(pb);
        fromA.fail(Errno.EAGAIN);
        assertEquals(
                Errno.EAGAIN,
                r.await(),
                "no need to wait for the target parent, nor for the watchdog");
        expectFinished(pa, fromA.renameId());
        expectFinished(pb, fromA.renameId());
        prepared(fromB, b);
        assertXStillInA();

        Reply next = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename nextA = expectPrepare(pa);
        DirectoryActor.PrepareRename nextB = expectPrepare(pb);
        prepared(nextA, a);
        sync();
        assertFalse(
                next.future.isDone(),
                "the target's late Prepared of the failed rename counts for nothing");
        prepared(nextB, b);
        assertNull(next.await());
    }

    @Test
    void crossRename_targetParentRefusesToPrepare_failsWithEAGAIN_releasesBoth() throws Exception {
        Reply r = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename fromA = expectPrepare(pa);
        DirectoryActor.PrepareRename fromB = expectPrepare(pb);
        prepared(fromA, a);
        fromB.fail(Errno.EAGAIN);
        assertEquals(Errno.EAGAIN, r.await(), "busy, not gone");
        expectFinished(pa, fromA.renameId());
        expectFinished(pb, fromA.renameId());
        assertXStillInA();
    }

    // ------------------------------------------------------------------ deactivation

    /**
     * {@code Deactivate} (its last mount was released) while a rename is in flight: the rename
     * finishes as if nothing happened, renames stashed behind it and sent after it fail as gone
     * (their walks raced the unmount), every directory actor is told to stop, and the coordinator
     * stops once they have.
     */
    @Test
    void deactivate_withARenameInFlight_finishesItFailsTheOthersAndStopsWithItsDirectoryActors()
            throws Exception {
        DirectoryInode c = mkdir(sb.root(), "c");
        Reply spawn = new Reply();
        sb.tellDirectory(
                c,
                new DirectoryActor.SetAttrs(
                        new dev.seqvfs.engine.inode.AttrChange.Chmod(0700),
                        Credentials.ROOT,
                        PathProof.NONE,
                        spawn.to));
        assertNull(spawn.await());
        sync(); // the coordinator publishes the reference after its first tell
        ActorRef<DirectoryActor.Command> child = c.actorAcquire();
        TestProbe<Object> watcher = TK.createTestProbe();

        Reply first = rename(a, "x", b, "y", PathProof.NONE);
        DirectoryActor.PrepareRename fromA = expectPrepare(pa);
        DirectoryActor.PrepareRename fromB = expectPrepare(pb);
        Reply stashed = rename(b, "y", a, "x", PathProof.NONE);
        coordinator.tell(new SuperblockActor.Deactivate());
        Reply after = rename(b, "y", a, "x", () -> false);
        assertEquals(Errno.ESTALE, after.await(), "not started: its walk no longer holds");
        assertFalse(first.future.isDone());

        prepared(fromA, a);
        prepared(fromB, b);
        assertNull(first.await(), "the rename in flight completes");
        assertSame(x, b.snapshotAcquire().lookup("y").inode());
        expectFinished(pa, fromA.renameId());
        expectFinished(pb, fromA.renameId());
        assertEquals(Errno.ENOENT, stashed.await(), "stashed behind it: never started");
        watcher.expectTerminated(child);
        watcher.expectTerminated(coordinator);
        assertNull(c.actorAcquire());
    }

    @Test
    void deactivate_idle_stopsAtOnce() {
        TestProbe<Object> watcher = TK.createTestProbe();
        coordinator.tell(new SuperblockActor.Deactivate());
        watcher.expectTerminated(coordinator);
    }
}
