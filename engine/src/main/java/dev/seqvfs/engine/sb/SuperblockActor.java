package dev.seqvfs.engine.sb;

import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirSnapshot;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.PathProof;
import dev.seqvfs.engine.dir.RenameJournal;
import dev.seqvfs.engine.dir.RenamePlan;
import dev.seqvfs.engine.dispatch.OutOfMemoryGuard;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The actor of one {@link Superblock}: parent of its directory actors (spawned on first use), its
 * cross-directory rename coordinator (the analogue of {@code s_vfs_rename_mutex}), and the writer
 * of its read-only flag.
 *
 * <h2>Cross-directory rename</h2>
 *
 * One at a time per superblock; others are stashed. For a rename it
 *
 * <ol>
 *   <li>sends {@link DirectoryActor.PrepareRename} to both parents, which reply with their current
 *       snapshots and stash everything else;
 *   <li>checks the rename against those frozen snapshots ({@link RenamePlan#plan}), including that
 *       a directory does not move into its own subtree ({@code EINVAL});
 *   <li>takes the rename write lock (spinning; its holders never wait on messages), publishes both
 *       snapshots and the moved directory's parent link ({@link RenamePlan#publish}), releases it;
 *   <li>for a type with a {@link RenameJournal}, hands it the rename and waits for its callback,
 *       both parents still prepared (a failed journal answers {@code EIO});
 *   <li>sends {@link DirectoryActor.RenameFinished} to both and replies.
 * </ol>
 *
 * If a parent does not answer within {@link #PREPARE_TIMEOUT} (checked by a periodic tick, so the
 * within-time case costs no timer), the rename is abandoned with {@code EIO} and both parents are
 * released. A parent that refuses to prepare (a full stash: {@code EAGAIN}) fails the rename at
 * once with that errno, both parents released. No lock is held while waiting.
 *
 * <h2>States</h2>
 *
 * idle; renaming (one {@code InFlight}); both handle {@link SpawnAndForward} and {@link Remount}.
 * Then, once its superblock's last mount is released ({@link Deactivate}): deactivating (a rename
 * in flight finishes; renames not started fail), stopping (every directory actor is told {@link
 * DirectoryActor.Unmounted}, which it handles after what it already holds; commands for directories
 * without an actor fail as gone), stopped when the last one has.
 *
 * <h2>Supervision</h2>
 *
 * {@code SupervisorStrategy.resume()}: an unexpected exception in a handler leaves the state it had
 * (handlers catch and answer {@code EIO} themselves first).
 */
public final class SuperblockActor extends AbstractBehavior<SuperblockActor.Command> {
    /** How long the coordinator waits for both parents to prepare. */
    public static final Duration PREPARE_TIMEOUT = Duration.ofSeconds(5);

    /**
     * The watchdog's period: a rename still preparing at its 6th tick is abandoned (after 5 to 6
     * s).
     */
    static final Duration TICK = PREPARE_TIMEOUT.dividedBy(5);

    private static final int TICKS_PER_TIMEOUT = 5;

    /** A message to a superblock actor. */
    public sealed interface Command {}

    /**
     * Spawns {@code dir}'s actor if it has none, then delivers {@code cmd} to it. Sent by {@link
     * Superblock#tellDirectory} when the directory's actor reference is null.
     *
     * @param dir the directory
     * @param cmd the command for its actor
     */
    public record SpawnAndForward(DirectoryInode dir, DirectoryActor.Command cmd)
            implements Command {}

    /**
     * Renames between two different directories of this superblock.
     *
     * @param oldDir source parent
     * @param oldName source component
     * @param newDir target parent
     * @param newName target component
     * @param flags {@code RENAME_NOREPLACE} / {@code RENAME_EXCHANGE} / {@code RENAME_WHITEOUT}
     * @param oldSlash whether the source path had a trailing slash
     * @param newSlash whether the target path had a trailing slash
     * @param cred who asks
     * @param proof the walks of both parents, checked inside the rename write lock just before
     *     publishing ({@code ESTALE} if they no longer hold)
     * @param replyTo where the reply goes
     */
    public record CrossRename(
            DirectoryInode oldDir,
            String oldName,
            DirectoryInode newDir,
            String newName,
            int flags,
            boolean oldSlash,
            boolean newSlash,
            Credentials cred,
            PathProof proof,
            ReplyTo<DirReply> replyTo)
            implements Command {}

    /**
     * Remounts the superblock ({@code mount(2)} with {@code MS_REMOUNT}): sets or clears its
     * read-only flag and applies what the options change ({@link Superblock#remount}). Going
     * read-only fails with {@code EBUSY}, changing nothing, while a file of the superblock is open
     * for writing or a write is being applied; options that do not fit (a limit below the use) fail
     * with {@code EINVAL}, changing nothing.
     *
     * @param readOnly the new flag
     * @param reconfiguration what the options change, parsed by the type on the caller's thread
     * @param replyTo where the reply goes: success, {@code EBUSY} or {@code EINVAL}
     */
    public record Remount(
            boolean readOnly,
            SuperOperations.Reconfiguration reconfiguration,
            ReplyTo<DirReply> replyTo)
            implements Command {
        /**
         * A remount that changes only the read-only flag.
         *
         * @param readOnly the new flag
         * @param replyTo where the reply goes: success or {@code EBUSY}
         */
        public Remount(boolean readOnly, ReplyTo<DirReply> replyTo) {
            this(readOnly, SuperOperations.Reconfiguration.NONE, replyTo);
        }
    }

    /**
     * From {@link Superblock#mountReleased}: no mount reaches the superblock any more; stop its
     * directory actors, then this actor.
     */
    record Deactivate() implements Command {}

    private record WrappedPrepared(DirectoryActor.Prepared prepared) implements Command {}

    /** The coordinator's watchdog tick: abandons a rename whose parents did not prepare in time. */
    private record Tick() implements Command {}

    /** From the rename journal's callback: the rename {@code renameId} is durable, or not. */
    private record RenameJournaled(long renameId, Errno error) implements Command {}

    private static final class InFlight {
        final long id;
        final CrossRename request;

        /**
         * Watchdog ticks seen while preparing: counted, not timed, so a test's manual clock drives
         * it.
         */
        int ticks;

        DirectoryActor.Prepared oldPrepared;
        DirectoryActor.Prepared newPrepared;

        /**
         * The reply of a published rename whose journal has not called back ({@link
         * RenameJournal}), or {@code null}: the watchdog leaves a rename alone while it is set.
         */
        DirReply journaling;

        InFlight(long id, CrossRename request) {
            this.id = id;
            this.request = request;
        }
    }

    private final Superblock sb;
    private final DispatcherSelector dirDispatcher;
    private final StashBuffer<Command> stash;
    private final ActorRef<DirectoryActor.Prepared> preparedAdapter;
    private long renameIds;

    /** The type's rename journal ({@link SuperOperations#renameJournal}), or {@code null}. */
    private final RenameJournal renameJournal;

    private InFlight inFlight;

    /**
     * The directory actors this actor spawned and watches, by reference; only this actor touches
     * it.
     */
    private final Map<ActorRef<?>, DirectoryInode> directories = new HashMap<>();

    private boolean deactivating;
    private boolean stopping;
    private int stoppingChildren;

    private SuperblockActor(
            ActorContext<Command> ctx,
            StashBuffer<Command> stash,
            TimerScheduler<Command> timers,
            Superblock sb,
            DispatcherSelector dirDispatcher) {
        super(ctx);
        this.sb = sb;
        this.dirDispatcher = dirDispatcher;
        this.stash = stash;
        this.preparedAdapter =
                ctx.messageAdapter(DirectoryActor.Prepared.class, WrappedPrepared::new);
        this.renameJournal = sb.sop().renameJournal(sb);
        // One periodic tick instead of a timer per rename: a timer per rename left a
        // cancelled task in Pekko's scheduler for PREPARE_TIMEOUT, hundreds of thousands of
        // them under a busy renamer.
        timers.startTimerAtFixedRate(new Tick(), TICK);
    }

    /**
     * {@return the behavior for {@code sb}'s actor, supervised with resume}
     *
     * @param sb the superblock
     * @param dirDispatcher the dispatcher its directory actors run on
     */
    public static Behavior<Command> create(Superblock sb, DispatcherSelector dirDispatcher) {
        return OutOfMemoryGuard.guard(
                Behaviors.supervise(
                                Behaviors.<Command>withStash(
                                        100_000,
                                        stash ->
                                                Behaviors.withTimers(
                                                        timers ->
                                                                Behaviors.setup(
                                                                        ctx ->
                                                                                new SuperblockActor(
                                                                                        ctx,
                                                                                        stash,
                                                                                        timers,
                                                                                        sb,
                                                                                        dirDispatcher)))))
                        .onFailure(SupervisorStrategy.resume()));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(SpawnAndForward.class, this::onSpawnAndForward)
                .onMessage(Remount.class, this::onRemount)
                .onMessage(CrossRename.class, this::onCrossRename)
                .onMessage(WrappedPrepared.class, this::onPrepared)
                .onMessage(Tick.class, this::onTick)
                .onMessage(RenameJournaled.class, this::onRenameJournaled)
                .onMessage(Deactivate.class, this::onDeactivate)
                .onSignal(Terminated.class, this::onChildTerminated)
                .onSignal(PostStop.class, s -> onPostStop())
                .build();
    }

    private Behavior<Command> onSpawnAndForward(SpawnAndForward m) {
        DirectoryInode dir = m.dir();
        ActorRef<DirectoryActor.Command> ref = dir.actorAcquire();
        if (stopping) {
            m.cmd().failGone(dir); // unmounted: spawn nothing, answer as gone
            return this;
        }
        if (ref == null) {
            if (dir.isDead()) {
                if (m.cmd() instanceof DirectoryActor.PrepareRename pr) {
                    // Answer as a dead directory's actor does: with the dead snapshot, so that
                    // the coordinator can tell which parent answered (RenamePlan says ENOENT).
                    pr.replyTo()
                            .tell(
                                    new DirectoryActor.Prepared(
                                            pr.renameId(), dir, dir.snapshotAcquire()));
                } else {
                    m.cmd().failGone(dir);
                }
                return this;
            }
            directories.put(
                    DirectoryActor.spawn(getContext(), dir, sb, dirDispatcher, m.cmd()), dir);
        } else {
            ref.tell(m.cmd());
        }
        return this;
    }

    private Behavior<Command> onRemount(Remount m) {
        try {
            sb.remount(m.readOnly(), m.reconfiguration());
        } catch (VfsException e) {
            m.replyTo().tell(DirReply.error(e.errno()));
            return this;
        } catch (RuntimeException e) {
            getContext().getLog().error("remount of {} failed: {}", sb, e.toString());
            m.replyTo().tell(DirReply.error(Errno.EIO));
            return this;
        }
        m.replyTo().tell(DirReply.ok(sb.root()));
        return this;
    }

    private Behavior<Command> onCrossRename(CrossRename r) {
        if (deactivating) {
            failUnmounted(r);
            return this;
        }
        if (inFlight != null) {
            if (stash.isFull()) {
                r.replyTo().tell(DirReply.error(Errno.EAGAIN));
            } else {
                stash.stash(r);
            }
            return this;
        }
        int f = r.flags();
        if (!RenamePlan.validFlags(f)) {
            r.replyTo().tell(DirReply.error(Errno.EINVAL));
            return this;
        }
        inFlight = new InFlight(++renameIds, r);
        sb.tellDirectory(
                r.oldDir(),
                new DirectoryActor.PrepareRename(inFlight.id, r.oldDir(), preparedAdapter));
        sb.tellDirectory(
                r.newDir(),
                new DirectoryActor.PrepareRename(inFlight.id, r.newDir(), preparedAdapter));
        return this;
    }

    private Behavior<Command> onPrepared(WrappedPrepared w) {
        DirectoryActor.Prepared p = w.prepared();
        InFlight f = inFlight;
        if (f == null || p.renameId() != f.id) {
            return this;
        }
        if (p.error() != null) {
            // The parent refused (a full stash): fail now and release the other parent,
            // prepared or not, rather than wait for an answer that will not come.
            return finish(DirReply.error(renameErrno(p.error(), f.request)));
        }
        if (p.dir() == f.request.oldDir() && f.oldPrepared == null) {
            f.oldPrepared = p;
        } else {
            f.newPrepared = p;
        }
        if (f.oldPrepared == null || f.newPrepared == null) {
            return this;
        }
        CrossRename r = f.request;
        DirReply reply;
        try {
            DirSnapshot os = f.oldPrepared.snapshot();
            DirSnapshot ns = f.newPrepared.snapshot();
            if (os == null || ns == null) {
                throw new VfsException(Errno.ENOENT, Syscall.RENAME, null);
            }
            if (r.proof() != null && !r.proof().stillHolds()) {
                throw new VfsException(Errno.ESTALE, Syscall.RENAME, null);
            }
            if (sb.isReadOnly()) {
                // A read-only remount was handled by this actor since the caller checked:
                // it is serialized with this publish, so the flag read here holds through it.
                throw new VfsException(Errno.EROFS, Syscall.RENAME, null);
            }
            RenamePlan plan =
                    RenamePlan.plan(
                            r.oldDir(),
                            os,
                            r.oldName(),
                            r.newDir(),
                            ns,
                            r.newName(),
                            r.flags(),
                            r.oldSlash(),
                            r.newSlash(),
                            r.cred());
            plan.makeWhiteout(sb, r.cred(), sb.now()); // RENAME_WHITEOUT only
            // Close the directory writers' gate first: a command whose proof a directory
            // actor checked publishes before this rename, never after it (PublishGate).
            long stamp = sb.locks().closeForRename();
            try {
                if (r.proof() != null && !r.proof().stillHoldsHoldingRenameLock()) {
                    throw new VfsException(Errno.ESTALE, Syscall.RENAME, null);
                }
                plan.publishEntries(sb.locks());
            } finally {
                sb.locks().reopenAfterRename(stamp);
            }
            sb.hooks().entriesPublished(r.oldDir());
            plan.finish(sb.now());
            reply = DirReply.ok(plan.isNoop() ? null : r.oldDir());
            if (renameJournal != null && !plan.isNoop()) {
                // answer once both parents' journals have it; they stay prepared till then
                f.journaling = reply;
                long id = f.id;
                ActorRef<Command> self = getContext().getSelf();
                renameJournal.append(plan.move(), err -> self.tell(new RenameJournaled(id, err)));
                return this;
            }
        } catch (VfsException e) {
            reply = DirReply.error(renameErrno(e.errno(), r));
        } catch (RuntimeException e) {
            getContext().getLog().error("rename coordinator of {} failed: {}", sb, e.toString());
            reply = DirReply.error(Errno.EIO);
        } catch (OutOfMemoryError e) {
            reply = DirReply.error(Errno.ENOMEM);
        }
        return finish(reply);
    }

    /**
     * Returns the errno a failed rename answers: {@code e}, except that a parent found dead
     * (prepared dead, or killed before the publish) while its own parent still binds it is being
     * removed right now; if a rename over it is the remover, the path will name a live directory
     * again: walk again ({@code ESTALE}).
     */
    private static Errno renameErrno(Errno e, CrossRename r) {
        boolean removing =
                e == Errno.ENOENT
                        && r.proof() != null
                        && (r.oldDir().removalInProgress() || r.newDir().removalInProgress());
        return removing ? Errno.ESTALE : e;
    }

    private Behavior<Command> onRenameJournaled(RenameJournaled m) {
        InFlight f = inFlight;
        if (f == null || f.id != m.renameId() || f.journaling == null) {
            return this;
        }
        if (m.error() != null) {
            getContext()
                    .getLog()
                    .error("rename coordinator of {}: the journal failed: {}", sb, m.error());
        }
        return finish(m.error() == null ? f.journaling : DirReply.error(Errno.EIO));
    }

    private Behavior<Command> onTick(Tick t) {
        // The first tick comes up to one TICK after the start, so the sixth is 5 to 6 s after it.
        // A rename waiting for its journal is not preparing: the journal's own timeout ends it.
        if (inFlight == null
                || inFlight.journaling != null
                || ++inFlight.ticks <= TICKS_PER_TIMEOUT) {
            return this;
        }
        getContext()
                .getLog()
                .error(
                        "rename coordinator of {}: parents did not prepare within {}",
                        sb,
                        PREPARE_TIMEOUT);
        return finish(DirReply.error(Errno.EIO));
    }

    private Behavior<Command> finish(DirReply reply) {
        InFlight f = inFlight;
        inFlight = null;
        sb.tellDirectory(f.request.oldDir(), new DirectoryActor.RenameFinished(f.id));
        sb.tellDirectory(f.request.newDir(), new DirectoryActor.RenameFinished(f.id));
        f.request.replyTo().tell(reply);
        if (deactivating) {
            stash.forEach(m -> failUnmounted((CrossRename) m));
            stash.clear();
            return stopChildren();
        }
        while (inFlight == null && !stash.isEmpty()) {
            stash.unstash(this, 1, m -> m);
        }
        return this;
    }

    /** Fails a rename that reached an unmounted superblock: its walk raced the unmount. */
    private static void failUnmounted(CrossRename r) {
        boolean stale = r.proof() != null && !r.proof().stillHolds();
        r.replyTo().tell(DirReply.error(stale ? Errno.ESTALE : Errno.ENOENT));
    }

    /**
     * Stopped (unmounted, or the instance closed): {@code kill_sb}. Its directory actors, its
     * children, have stopped before it (Pekko stops children first), so their last changes are with
     * their journals.
     */
    private Behavior<Command> onPostStop() {
        try {
            sb.sop().kill(sb);
        } catch (RuntimeException e) {
            getContext()
                    .getLog()
                    .error("superblock {}: kill_sb failed: {}", sb.dev(), e.toString());
        }
        return this;
    }

    private Behavior<Command> onDeactivate(Deactivate d) {
        if (deactivating) {
            return this;
        }
        deactivating = true;
        return inFlight == null ? stopChildren() : this; // else finish() stops them
    }

    /**
     * Tells every directory actor to stop once it has answered what it holds (its mailbox and, if
     * prepared, its stash: the rename in flight has finished, and its RenameFinished went first),
     * and stops when the last has.
     */
    private Behavior<Command> stopChildren() {
        stopping = true;
        for (ActorRef<Void> child : getContext().getChildren()) {
            getContext().watch(child);
            child.<DirectoryActor.Command>unsafeUpcast().tell(new DirectoryActor.Unmounted());
            stoppingChildren++;
        }
        return stoppingChildren == 0 ? Behaviors.stopped() : this;
    }

    /**
     * A directory actor stopped (its directory died and it idled out, or the superblock is being
     * unmounted): clear its published reference, and stop with the last child when unmounting.
     */
    private Behavior<Command> onChildTerminated(Terminated t) {
        DirectoryInode dir = directories.remove(t.getRef());
        if (dir != null) {
            DirectoryActor.forget(dir, t.getRef());
        }
        if (stopping && --stoppingChildren == 0) {
            return Behaviors.stopped();
        }
        return this;
    }
}
