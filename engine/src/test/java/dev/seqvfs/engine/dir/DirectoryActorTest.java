package dev.seqvfs.engine.dir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.fs.tmpfs.TmpfsType;
import dev.seqvfs.engine.inode.AttrChange;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.reply.ReplyCollector;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.NamespaceLocks;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockConfig;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.VfsClock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.apache.pekko.actor.testkit.typed.Effect;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.BehaviorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The states of {@link DirectoryActor} (live, prepared, dead), driven one message at a time with
 * Pekko's synchronous {@link BehaviorTestKit}: a command the actor has not answered when {@code
 * run} returns was stashed, not merely not yet processed.
 *
 * <pre>
 * /          the superblock root; its actor (a kit) makes the fixture
 * /d         the directory under test, its actor a kit with a stash of {@link #STASH} commands
 * /d/f       a regular file
 * /d/e       an empty directory
 * </pre>
 *
 * Replies go through a {@link ReplyCollector.Pending} registry, as in the engine; a {@link Flag}
 * proof stands for a walk that can be made stale at will.
 */
class DirectoryActorTest {
    private static final int STASH = 3;
    private static final Credentials ROOT = Credentials.ROOT;

    private final Superblock sb =
            new Superblock(
                    7,
                    TmpfsType.INSTANCE,
                    TmpfsType.superOperations(),
                    SuperblockConfig.UNLIMITED,
                    VfsClock.SYSTEM,
                    new NamespaceLocks(),
                    0755,
                    0,
                    0);
    private final ReplyCollector.Pending pending = new ReplyCollector.Pending();
    private DirectoryInode d;
    private Inode f;
    private BehaviorTestKit<DirectoryActor.Command> kit;

    /** A walk's proof whose outcome the test decides. */
    static final class Flag implements PathProof {
        volatile boolean holds = true;

        @Override
        public boolean stillHolds() {
            return holds;
        }
    }

    /** A caller waiting for a {@link DirReply}. */
    final class Reply {
        final CompletableFuture<DirReply> future = new CompletableFuture<>();
        final ReplyTo<DirReply> to =
                new ReplyTo<>(pending, pending.register(future, Long.MAX_VALUE));

        boolean answered() {
            return future.isDone();
        }

        DirReply get() {
            assertTrue(future.isDone(), "no reply");
            return future.join();
        }

        Errno errno() {
            return get().error();
        }
    }

    @BeforeEach
    void setUp() {
        BehaviorTestKit<DirectoryActor.Command> rootKit =
                BehaviorTestKit.create(DirectoryActor.create(sb.root(), sb));
        sb.root().publishActorRelease(rootKit.getRef());
        Reply r = new Reply();
        rootKit.run(mkdir("d", PathProof.NONE, r));
        d = (DirectoryInode) r.get().inode();
        kit = BehaviorTestKit.create(DirectoryActor.create(d, sb, STASH));
        d.publishActorRelease(kit.getRef());
        Reply rf = new Reply();
        kit.run(create("f", PathProof.NONE, rf));
        f = rf.get().inode();
        Reply re = new Reply();
        kit.run(mkdir("e", PathProof.NONE, re));
        assertTrue(re.get().isOk());
    }

    /**
     * Replaces the fixture's {@code /d} by a directory of a superblock whose type keeps a journal
     * (one that accepts every append at once), with an actor of a stash of {@link #STASH} commands:
     * the mailbox path a persistent type's directories take.
     */
    private void useJournaledDirectory() {
        SuperOperations tmpfs = TmpfsType.superOperations();
        SuperOperations journaling =
                new SuperOperations() {
                    @Override
                    public long magic() {
                        return tmpfs.magic();
                    }

                    @Override
                    public FileOperations fileOps(FileType type) {
                        return tmpfs.fileOps(type);
                    }

                    @Override
                    public InodeOperations inodeOps() {
                        return tmpfs.inodeOps();
                    }

                    @Override
                    public DirJournal journal(DirectoryInode dir, Superblock s) {
                        return (changes, done) -> done.done(null);
                    }
                };
        Superblock jsb =
                new Superblock(
                        8,
                        TmpfsType.INSTANCE,
                        journaling,
                        SuperblockConfig.UNLIMITED,
                        VfsClock.SYSTEM,
                        new NamespaceLocks(),
                        0755,
                        0,
                        0);
        BehaviorTestKit<DirectoryActor.Command> rootKit =
                BehaviorTestKit.create(DirectoryActor.create(jsb.root(), jsb));
        jsb.root().publishActorRelease(rootKit.getRef());
        Reply r = new Reply();
        rootKit.run(mkdir("d", PathProof.NONE, r));
        d = (DirectoryInode) r.get().inode();
        kit = BehaviorTestKit.create(DirectoryActor.create(d, jsb, STASH));
        d.publishActorRelease(kit.getRef());
    }

    // ------------------------------------------------------------------ commands

    private DirectoryActor.Create create(String name, PathProof proof, Reply r) {
        return new DirectoryActor.Create(
                name, Mode.S_IFREG | 0644, 0, null, true, ROOT, proof, r.to);
    }

    private DirectoryActor.Create mkdir(String name, PathProof proof, Reply r) {
        return new DirectoryActor.Create(
                name, Mode.S_IFDIR | 0755, 0, null, true, ROOT, proof, r.to);
    }

    private DirectoryActor.Unlink unlink(String name, PathProof proof, Reply r) {
        return new DirectoryActor.Unlink(name, false, false, ROOT, proof, r.to);
    }

    private DirectoryActor.Unlink rmdir(String name, PathProof proof, Reply r) {
        return new DirectoryActor.Unlink(name, true, false, ROOT, proof, r.to);
    }

    private DirectoryActor.Rename rename(String from, String to, PathProof proof, Reply r) {
        return new DirectoryActor.Rename(from, to, 0, false, false, ROOT, proof, r.to);
    }

    private DirectoryActor.Link link(String name, PathProof proof, Reply r) {
        return new DirectoryActor.Link(name, f, ROOT, proof, r.to);
    }

    private DirectoryActor.SetAttrs chmod(PathProof proof, Reply r) {
        return new DirectoryActor.SetAttrs(new AttrChange.Chmod(0700), ROOT, proof, r.to);
    }

    /** One command of every kind that has a reply, each changing {@code /d} if applied. */
    private Map<String, BiFunction<PathProof, Reply, DirectoryActor.Command>> everyCommand() {
        Map<String, BiFunction<PathProof, Reply, DirectoryActor.Command>> m = new LinkedHashMap<>();
        m.put("create", (p, r) -> create("n", p, r));
        m.put("mkdir", (p, r) -> mkdir("m", p, r));
        m.put("link", (p, r) -> link("l", p, r));
        m.put("unlink", (p, r) -> unlink("f", p, r));
        m.put("rmdir", (p, r) -> rmdir("e", p, r));
        m.put("rename", (p, r) -> rename("f", "g", p, r));
        m.put("chmod", (p, r) -> chmod(p, r));
        return m;
    }

    private DirectoryActor.Prepared prepare(
            long id, TestInbox<DirectoryActor.Prepared> coordinator) {
        kit.run(new DirectoryActor.PrepareRename(id, d, coordinator.getRef()));
        return coordinator.receiveMessage();
    }

    // ------------------------------------------------------------------ prepared

    @Test
    void prepareRename_live_repliesWithTheCurrentSnapshotAndStashesEveryCommand() {
        DirSnapshot before = d.snapshotAcquire();
        InodeAttrs attrsBefore = d.attrsAcquire();
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        DirectoryActor.Prepared p = prepare(1, coordinator);
        assertEquals(1, p.renameId());
        assertSame(d, p.dir());
        assertSame(
                before, p.snapshot(), "the snapshot the coordinator plans on is the published one");

        List<Reply> replies = new ArrayList<>();
        for (var c :
                List.of(
                        create("n", PathProof.NONE, track(replies)),
                        chmod(PathProof.NONE, track(replies)),
                        unlink("f", PathProof.NONE, track(replies)))) {
            kit.run(c);
        }
        for (Reply r : replies) {
            assertFalse(r.answered(), "stashed, not answered");
        }
        assertSame(before, d.snapshotAcquire(), "frozen while prepared");
        assertSame(attrsBefore, d.attrsAcquire());
    }

    @Test
    @SuppressWarnings("FutureReturnValueIgnored") // the dependent stages only record their order
    void renameFinished_sameId_replaysTheStashInArrivalOrder() {
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        prepare(5, coordinator);
        List<String> order = new ArrayList<>();
        // Each outcome depends on the one before: out of order, unlink would find no "x"
        // or the second create would find one.
        Reply c1 = new Reply();
        Reply u = new Reply();
        Reply c2 = new Reply();
        c1.future.thenRun(() -> order.add("create"));
        u.future.thenRun(() -> order.add("unlink"));
        c2.future.thenRun(() -> order.add("create again"));
        kit.run(create("x", PathProof.NONE, c1));
        kit.run(unlink("x", PathProof.NONE, u));
        kit.run(create("x", PathProof.NONE, c2));
        assertTrue(order.isEmpty());

        kit.run(new DirectoryActor.RenameFinished(5));
        assertEquals(List.of("create", "unlink", "create again"), order);
        assertTrue(c1.get().isOk());
        assertTrue(u.get().isOk());
        assertTrue(c2.get().isOk());
        assertNotNull(d.snapshotAcquire().lookup("x"));
        assertTrue(c2.get().inode() != c1.get().inode(), "the second create made a new inode");

        Reply after = new Reply();
        kit.run(create("y", PathProof.NONE, after));
        assertTrue(after.get().isOk(), "live again");
    }

    @Test
    void renameFinished_otherId_doesNotReleaseTheDirectory() {
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        prepare(8, coordinator);
        Reply before = new Reply();
        kit.run(create("a", PathProof.NONE, before));
        kit.run(new DirectoryActor.RenameFinished(7));
        Reply after = new Reply();
        kit.run(create("b", PathProof.NONE, after));
        assertFalse(before.answered());
        assertFalse(after.answered(), "still prepared after a RenameFinished of another rename");
        assertNull(d.snapshotAcquire().lookup("a"));

        kit.run(new DirectoryActor.RenameFinished(8));
        assertTrue(before.get().isOk());
        assertTrue(after.get().isOk());
        Reply live = new Reply();
        kit.run(create("c", PathProof.NONE, live));
        assertTrue(live.get().isOk(), "the stashed RenameFinished(7) replayed as a no-op");
    }

    /**
     * A directory of a type without a journal keeps its drain token while prepared, so commands
     * wait in its queue, as many as come: none is refused (there is no stash to fill), and they
     * apply in arrival order once the rename finishes.
     */
    @Test
    void create_preparedPastTheStashCapacity_waitsInTheQueue_andAppliesInOrder() {
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        prepare(3, coordinator);
        List<Reply> waiting = new ArrayList<>();
        for (int i = 0; i < STASH * 10; i++) {
            kit.run(create("s" + i, PathProof.NONE, track(waiting)));
        }
        Reply again = new Reply();
        kit.run(create("s0", PathProof.NONE, again)); // after s0's create: EEXIST, not created
        for (Reply r : waiting) {
            assertFalse(r.answered());
        }
        assertFalse(again.answered());

        kit.run(new DirectoryActor.RenameFinished(3));
        for (Reply r : waiting) {
            assertTrue(r.get().isOk());
        }
        assertEquals(Errno.EEXIST, again.errno(), "applied after the first create of s0");
    }

    /**
     * A second rename's prepare that reaches a prepared directory waits in the queue and prepares
     * it once the first rename finished.
     */
    @Test
    void prepareRename_prepared_waitsAndPreparesAfterTheFirstFinishes() {
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        prepare(3, coordinator);
        kit.run(new DirectoryActor.PrepareRename(4, d, coordinator.getRef()));
        assertFalse(coordinator.hasMessages(), "waits while prepared for rename 3");
        kit.run(new DirectoryActor.RenameFinished(3));
        assertEquals(4, coordinator.receiveMessage().renameId());
        Reply r = new Reply();
        kit.run(create("x", PathProof.NONE, r));
        assertFalse(r.answered(), "prepared for rename 4");
        kit.run(new DirectoryActor.RenameFinished(4));
        assertTrue(r.get().isOk());
    }

    /**
     * The coordinator gave a rename up (the other parent refused, or its watchdog fired) and sent
     * {@code RenameFinished} while this directory's prepare still waited in its queue: the
     * directory answers the prepare when it reaches it but does not stay prepared for a finish that
     * already came.
     */
    @Test
    void prepareRename_reachedAfterItsRenameFinished_answersAndStaysLive() {
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        prepare(3, coordinator);
        kit.run(new DirectoryActor.PrepareRename(4, d, coordinator.getRef())); // queued
        kit.run(new DirectoryActor.RenameFinished(4)); // given up before it was prepared
        kit.run(new DirectoryActor.RenameFinished(3));
        assertEquals(4, coordinator.receiveMessage().renameId(), "the prepare is answered");
        Reply r = new Reply();
        kit.run(create("x", PathProof.NONE, r));
        assertTrue(r.get().isOk(), "live: not prepared for the finished rename 4");
    }

    /**
     * A type with a journal stashes what reaches a prepared actor's mailbox (its commands do not
     * all go through the queue): a full stash refuses at once with {@code EAGAIN} and leaves the
     * stash alone.
     */
    @Test
    void create_journaledPreparedWithAFullStash_failsWithEAGAIN_andLeavesTheStashAlone() {
        useJournaledDirectory();
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        prepare(3, coordinator);
        List<Reply> stashed = new ArrayList<>();
        for (int i = 0; i < STASH; i++) {
            kit.run(create("s" + i, PathProof.NONE, track(stashed)));
        }
        Reply refused = new Reply();
        kit.run(create("over", PathProof.NONE, refused));
        assertEquals(Errno.EAGAIN, refused.errno(), "a full stash refuses at once");
        for (Reply r : stashed) {
            assertFalse(r.answered());
        }

        kit.run(new DirectoryActor.RenameFinished(3));
        for (Reply r : stashed) {
            assertTrue(r.get().isOk());
        }
        assertNull(d.snapshotAcquire().lookup("over"), "the refused command was not replayed");
    }

    /**
     * The directory half of "a prepare refused by a full stash" (a type with a journal): the
     * refusal names the directory and says why, so that the coordinator fails that rename at once
     * (see {@code SuperblockActorTest}) instead of filing a directory-less answer as the other
     * parent's and waiting for its watchdog.
     */
    @Test
    void prepareRename_journaledPreparedWithAFullStash_refusesWithEAGAINNamingTheDirectory() {
        useJournaledDirectory();
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        prepare(3, coordinator);
        for (int i = 0; i < STASH; i++) {
            kit.run(create("s" + i, PathProof.NONE, new Reply()));
        }
        kit.run(new DirectoryActor.PrepareRename(4, d, coordinator.getRef()));
        DirectoryActor.Prepared refusal = coordinator.receiveMessage();
        assertEquals(4, refusal.renameId());
        assertSame(d, refusal.dir());
        assertNull(refusal.snapshot());
        assertEquals(Errno.EAGAIN, refusal.error());
        kit.run(new DirectoryActor.RenameFinished(3));
        assertFalse(coordinator.hasMessages(), "the refused prepare is not replayed");
    }

    @Test
    void command_preparedThenProofStaleBeforeReplay_failsWithESTALE() {
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        prepare(4, coordinator);
        Flag proof = new Flag();
        Reply r = new Reply();
        kit.run(create("late", proof, r));
        proof.holds = false;
        kit.run(new DirectoryActor.RenameFinished(4));
        assertEquals(
                Errno.ESTALE,
                r.errno(),
                "the proof is checked when the command applies, not when it arrives");
        assertNull(d.snapshotAcquire().lookup("late"));
    }

    // ------------------------------------------------------------------ stale proof

    @Test
    void everyCommand_staleProof_failsWithESTALE_andChangesNothing() {
        for (var e : everyCommand().entrySet()) {
            DirSnapshot snap = d.snapshotAcquire();
            InodeAttrs attrs = d.attrsAcquire();
            InodeAttrs fileAttrs = f.attrsAcquire();
            Flag proof = new Flag();
            proof.holds = false;
            Reply r = new Reply();
            kit.run(e.getValue().apply(proof, r));
            assertEquals(Errno.ESTALE, r.errno(), e.getKey());
            assertSame(snap, d.snapshotAcquire(), e.getKey() + " published a snapshot");
            assertSame(attrs, d.attrsAcquire(), e.getKey() + " changed the directory's attributes");
            assertSame(fileAttrs, f.attrsAcquire(), e.getKey() + " changed the file's attributes");
        }
        Reply fresh = new Reply();
        kit.run(create("n", new Flag(), fresh));
        assertTrue(fresh.get().isOk(), "a command whose proof holds applies");
    }

    // ------------------------------------------------------------------ dead

    /** Removes {@code /d} as rmdir does: empty it, kill it, unbind it from {@code /}. */
    private void removeD() {
        Reply uf = new Reply();
        kit.run(unlink("f", PathProof.NONE, uf));
        Reply ue = new Reply();
        kit.run(rmdir("e", PathProof.NONE, ue));
        assertTrue(uf.get().isOk() && ue.get().isOk());
        assertTrue(d.tryKill(d.snapshotAcquire()));
        DirSnapshot rs = sb.root().snapshotAcquire();
        assertTrue(sb.root().casSnapshot(rs, rs.without("d")));
    }

    @Test
    void everyCommand_dead_failsAsFailGoneDecides() {
        removeD();
        kit.run(new DirectoryActor.Died());
        for (var e : everyCommand().entrySet()) {
            Reply holds = new Reply();
            kit.run(e.getValue().apply(new Flag(), holds));
            assertEquals(Errno.ENOENT, holds.errno(), e.getKey() + " with a proof that holds");
            Flag stale = new Flag();
            stale.holds = false;
            Reply gone = new Reply();
            kit.run(e.getValue().apply(stale, gone));
            assertEquals(
                    Errno.ESTALE, gone.errno(), e.getKey() + " with a stale proof: walk again");
            Reply none = new Reply();
            kit.run(e.getValue().apply(null, none));
            assertEquals(Errno.ENOENT, none.errno(), e.getKey() + " without a proof");
        }
        assertTrue(d.snapshotAcquire().isDead());
        assertTrue(d.snapshotAcquire().isEmpty(), "nothing applied to a dead directory");
    }

    @Test
    void create_deadWhileParentStillBindsIt_failsWithESTALE() {
        Reply uf = new Reply();
        kit.run(unlink("f", PathProof.NONE, uf));
        Reply ue = new Reply();
        kit.run(rmdir("e", PathProof.NONE, ue));
        assertTrue(
                d.tryKill(d.snapshotAcquire()), "a remover's kill, its parent not yet published");
        Reply r = new Reply();
        kit.run(create("n", new Flag(), r));
        assertEquals(
                Errno.ESTALE,
                r.errno(),
                "found dead by its own CAS while the removal is published");
        Reply later = new Reply();
        kit.run(mkdir("m", new Flag(), later));
        assertEquals(Errno.ESTALE, later.errno(), "and from then on in the dead state");
    }

    @Test
    void prepareRename_dead_repliesWithTheDeadSnapshot() {
        removeD();
        kit.run(new DirectoryActor.Died());
        TestInbox<DirectoryActor.Prepared> coordinator = TestInbox.create();
        DirectoryActor.Prepared p = prepare(9, coordinator);
        assertSame(d, p.dir(), "the coordinator must learn which parent answered");
        assertTrue(p.snapshot().isDead());
        Reply r = new Reply();
        kit.run(create("n", new Flag(), r));
        assertEquals(Errno.ENOENT, r.errno(), "not prepared: a dead directory stashes nothing");
    }

    @Test
    void died_thenIdleTimeout_stops() {
        removeD();
        kit.run(new DirectoryActor.Died());
        Effect.ReceiveTimeoutSet<?> idle = kit.expectEffectClass(Effect.ReceiveTimeoutSet.class);
        assertEquals(DirectoryActor.DEAD_IDLE, idle.duration());
        assertTrue(kit.isAlive());
        assertSame(kit.getRef(), d.actorAcquire());
        @SuppressWarnings("unchecked")
        DirectoryActor.Command timeout = (DirectoryActor.Command) idle.message();
        kit.run(timeout);
        assertFalse(kit.isAlive(), "stops after DEAD_IDLE without messages");
    }

    // ------------------------------------------------------------------ unmounted

    @Test
    void unmounted_live_stops() {
        Reply before = new Reply();
        kit.run(create("n", PathProof.NONE, before));
        kit.run(new DirectoryActor.Unmounted());
        assertTrue(before.get().isOk());
        assertFalse(kit.isAlive());
    }

    /**
     * A prepared actor stashes Unmounted with the rest (real actors: the synchronous kit does not
     * end a behavior that unstashes into a stop).
     */
    @Test
    void unmounted_prepared_isStashed_andStopsAfterItsRenameFinished() {
        ActorTestKit tk = ActorTestKit.create(ActorTestKit.applicationTestConfig());
        try {
            ActorRef<DirectoryActor.Command> ref = tk.spawn(DirectoryActor.create(d, sb));
            d.publishActorRelease(ref);
            TestProbe<DirectoryActor.Prepared> coordinator = tk.createTestProbe();
            ref.tell(new DirectoryActor.PrepareRename(6, d, coordinator.ref()));
            coordinator.receiveMessage();
            Reply before = new Reply();
            ref.tell(create("n", PathProof.NONE, before));
            ref.tell(new DirectoryActor.Unmounted());
            ref.tell(new DirectoryActor.RenameFinished(6));
            coordinator.expectTerminated(ref);
            assertTrue(before.get().isOk(), "answered before the stop");
        } finally {
            tk.shutdownTestKit();
        }
    }

    @Test
    void unmounted_dead_stops() {
        removeD();
        kit.run(new DirectoryActor.Died());
        kit.run(new DirectoryActor.Unmounted());
        assertFalse(kit.isAlive());
    }

    /**
     * The same with real timers (Pekko's manual clock): a message restarts the idle time; the stop
     * clears the reference.
     */
    @Test
    void dead_idleForDeadIdle_stopsAndClearsTheActorReference() {
        ActorTestKit tk =
                ActorTestKit.create(
                        ManualTime.config().withFallback(ActorTestKit.applicationTestConfig()));
        try {
            ManualTime time = ManualTime.get(tk.system());
            removeD();
            ActorRef<DirectoryActor.Command> ref = tk.spawn(DirectoryActor.create(d, sb));
            d.publishActorRelease(ref);
            TestProbe<DirectoryActor.Prepared> coordinator = tk.createTestProbe();
            ref.tell(new DirectoryActor.Died());
            ref.tell(new DirectoryActor.PrepareRename(1, d, coordinator.ref()));
            assertTrue(
                    coordinator.receiveMessage().snapshot().isDead(),
                    "dead, and every message handled so far");

            time.timePasses(DirectoryActor.DEAD_IDLE.minusMillis(1));
            ref.tell(new DirectoryActor.PrepareRename(2, d, coordinator.ref()));
            assertEquals(2, coordinator.receiveMessage().renameId(), "alive just before DEAD_IDLE");

            time.timePasses(DirectoryActor.DEAD_IDLE.minusMillis(1));
            ref.tell(new DirectoryActor.PrepareRename(3, d, coordinator.ref()));
            assertEquals(
                    3,
                    coordinator.receiveMessage().renameId(),
                    "the last message restarted the idle time");

            time.timePasses(DirectoryActor.DEAD_IDLE);
            coordinator.expectTerminated(ref);
            assertNull(
                    d.actorAcquire(),
                    "cleared on stop: the next sender goes through the superblock actor");
        } finally {
            tk.shutdownTestKit();
        }
    }

    /**
     * Regression: the stopping actor cleared {@link DirectoryInode#actorAcquire()} only if it was
     * {@code ==} its own {@code getSelf()}, but the reference its superblock actor spawned and
     * published is another adapter object of the same actor, so the field was never cleared. Every
     * command to the removed directory after its actor's {@code DEAD_IDLE} stop (through an open
     * descriptor) went to dead letters and failed with {@code EIO} after the ask timeout instead of
     * {@code ENOENT}.
     */
    @Test
    void tellDirectory_deadDirectoryAfterItsActorStopped_failsWithENOENT() throws Exception {
        ActorTestKit tk =
                ActorTestKit.create(
                        ManualTime.config().withFallback(ActorTestKit.applicationTestConfig()));
        try {
            ManualTime time = ManualTime.get(tk.system());
            Superblock other =
                    new Superblock(
                            8,
                            TmpfsType.INSTANCE,
                            TmpfsType.superOperations(),
                            SuperblockConfig.UNLIMITED,
                            VfsClock.SYSTEM,
                            new NamespaceLocks(),
                            0755,
                            0,
                            0);
            other.publishActorRelease(
                    tk.spawn(
                            dev.seqvfs.engine.sb.SuperblockActor.create(
                                    other,
                                    org.apache.pekko.actor.typed.DispatcherSelector
                                            .defaultDispatcher())));
            DirectoryInode gone = other.root();
            Reply first = new Reply();
            other.tellDirectory(gone, chmod(PathProof.NONE, first));
            assertTrue(
                    first.future.get(3, java.util.concurrent.TimeUnit.SECONDS).isOk(),
                    "spawned, answered");
            Reply sync0 = new Reply();
            other.actorAcquire()
                    .tell(new dev.seqvfs.engine.sb.SuperblockActor.Remount(false, sync0.to));
            sync0.future.get(
                    3,
                    java.util.concurrent.TimeUnit
                            .SECONDS); // it publishes the reference after the first tell
            ActorRef<DirectoryActor.Command> ref = gone.actorAcquire();
            assertNotNull(ref);

            assertTrue(gone.tryKill(gone.snapshotAcquire()));
            TestProbe<DirectoryActor.Prepared> sync = tk.createTestProbe();
            ref.tell(new DirectoryActor.Died());
            ref.tell(new DirectoryActor.PrepareRename(1, gone, sync.ref()));
            sync.receiveMessage();
            time.timePasses(DirectoryActor.DEAD_IDLE);
            sync.expectTerminated(ref);
            assertNull(
                    gone.actorAcquire(), "the actor the superblock spawned cleared its reference");

            Reply later = new Reply();
            other.tellDirectory(gone, create("x", PathProof.NONE, later));
            assertEquals(
                    Errno.ENOENT,
                    later.future.get(3, java.util.concurrent.TimeUnit.SECONDS).error());
        } finally {
            tk.shutdownTestKit();
        }
    }

    private Reply track(List<Reply> into) {
        Reply r = new Reply();
        into.add(r);
        return r;
    }
}
