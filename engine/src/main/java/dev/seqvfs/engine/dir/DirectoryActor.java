package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.dispatch.CallingThreadExecutor;
import dev.seqvfs.engine.dispatch.OutOfMemoryGuard;
import dev.seqvfs.engine.inode.AttrChange;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.engine.notify.Fsnotify;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.PublishGate;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only writer of one directory: creates, links, unlinks and renames names in it, and publishes
 * each change as one new {@link DirSnapshot} (one CAS on its {@link DirectoryInode}), so readers
 * see a change whole or not at all.
 *
 * <h2>Concurrency</h2>
 *
 * Its state is run by one party at a time: the holder of its queue's drain token ({@link
 * DirQueue}). That is the actor itself, handling a {@link Drain} or a command that reached its
 * mailbox (it routes every such command through the queue, {@link DirQueue#submitOwn}), or, for a
 * type without a journal, the thread whose submit found the queue idle, which runs the drain on
 * this actor's calling-thread executor without a Pekko message ({@link #runInline}: flat combining,
 * issue 9) and hands the drain to the actor, by one {@link Drain}, when it meets a command only the
 * actor may handle (a rename's {@link PrepareRename}, {@link Died}, {@link Unmounted}), after
 * {@link #MAX_BATCH} commands, or when the directory died. The token's hand-overs order every
 * holder's writes of these plain fields before the next holder's reads (see {@link DirQueue}).
 * Handlers reachable from a drain never use the actor context (they log through a static logger and
 * tell through the actor's own reference, kept at setup). Publishes by {@link
 * DirectoryInode#casSnapshot} against the version it read; the only other writers of that field are
 * the rename coordinator (only while this actor is prepared and stashing) and a remover killing an
 * empty directory, so a failed CAS means "this directory died": the actor answers {@code ENOENT}
 * from then on and stops after {@link #DEAD_IDLE} without messages. Never blocks: the only lock it
 * touches is the mount read lock, spun for a few stores. Every handler that changes something
 * counts itself a writer of the superblock for its length ({@link Superblock#tryBeginWrite}: {@code
 * EROFS} once it is read-only; a read-only remount is {@code EBUSY} meanwhile), spinning only while
 * a remount holds writers off.
 *
 * <h2>States</h2>
 *
 * <ul>
 *   <li><b>live</b>: handles every command;
 *   <li><b>prepared</b>: a cross-directory rename's coordinator holds this directory; every command
 *       but {@link RenameFinished} waits (a type without a journal keeps the drain token meanwhile,
 *       so commands wait in the queue; a type with one stashes what reaches its mailbox);
 *   <li><b>dead</b>: the directory was removed; every command fails with {@code ENOENT}.
 * </ul>
 *
 * From live or dead, {@link Unmounted} (its superblock's last mount was released) stops it; a
 * prepared actor stashes it like any command.
 *
 * <h2>Supervision</h2>
 *
 * Wrapped in {@code SupervisorStrategy.resume()}: its state lives in the inode it publishes to, and
 * a handler publishes nothing before its last check, so resuming after an unexpected exception
 * keeps a consistent directory. Handlers also catch exceptions themselves and answer {@code EIO},
 * so a caller is never left waiting.
 *
 * <h2>Why one class</h2>
 *
 * Its length is one handler per command, each keeping its whole check, gate and publish sequence in
 * one place so that the order of its steps can be read (and reviewed) there. What handlers share
 * lives outside: names in {@code NameTable}, the published form in {@link DirSnapshot},
 * cross-directory renames in {@link RenamePlan}.
 */
public final class DirectoryActor extends AbstractBehavior<DirectoryActor.Command> {
    /** How long a dead directory's actor lingers, answering ENOENT, before it stops. */
    public static final Duration DEAD_IDLE = Duration.ofSeconds(30);

    private static final int STASH_CAPACITY = 100_000;

    private static final Logger LOG = LoggerFactory.getLogger(DirectoryActor.class);

    /**
     * A message to a directory actor. Every command with a reply address can fail with an errno.
     */
    public sealed interface Command {
        /**
         * Replies to the sender with {@code e}; no-op for commands without a reply address.
         *
         * @param e the errno
         */
        void fail(Errno e);

        /** {@return the proof of the walk behind this command, or {@code null} if it has none} */
        default PathProof proof() {
            return null;
        }

        /**
         * Fails the command because its directory {@code dir} is gone: {@code ESTALE} if the walk
         * that found the directory no longer holds (the path now leads elsewhere, so the caller
         * must walk again) or if its removal is still being published ({@link
         * DirectoryInode#removalInProgress()}: the path is about to lead elsewhere), else {@code
         * ENOENT}.
         *
         * @param dir the directory the command was sent to
         */
        default void failGone(DirectoryInode dir) {
            PathProof p = proof();
            fail(
                    p != null && (!p.stillHolds() || dir.removalInProgress())
                            ? Errno.ESTALE
                            : Errno.ENOENT);
        }
    }

    /**
     * Creates an entry: {@code mkdir}, {@code mknod}, {@code symlink}, {@code open(O_CREAT)}.
     *
     * @param name the component, internal form, already checked against {@code NAME_MAX}
     * @param mode type and permission bits, the umask already applied
     * @param rdev device number for device nodes
     * @param linkTarget target for a symlink (internal form), else {@code null}
     * @param exclusive whether an existing name is an error ({@code EEXIST}); when false the
     *     existing inode is returned
     * @param cred who asks
     * @param proof the walk that found this directory, checked when the command applies ({@code
     *     ESTALE} if stale)
     * @param replyTo where the {@link DirReply} goes
     */
    public record Create(
            String name,
            int mode,
            long rdev,
            String linkTarget,
            boolean exclusive,
            Credentials cred,
            PathProof proof,
            ReplyTo<DirReply> replyTo)
            implements Command {
        @Override
        public void fail(Errno e) {
            replyTo.tell(DirReply.error(e));
        }
    }

    /**
     * Links an existing inode under a new name ({@code link(2)}).
     *
     * @param name the new component
     * @param target the inode, not a directory
     * @param cred who asks
     * @param proof the walks of both paths, checked when the command applies
     * @param replyTo where the reply goes
     */
    public record Link(
            String name, Inode target, Credentials cred, PathProof proof, ReplyTo<DirReply> replyTo)
            implements Command {
        @Override
        public void fail(Errno e) {
            replyTo.tell(DirReply.error(e));
        }
    }

    /**
     * Removes a name: {@code unlink(2)} or, with {@code rmdir}, {@code rmdir(2)}.
     *
     * @param name the component
     * @param rmdir whether this is rmdir (the name must be an empty directory)
     * @param mustBeDir whether the path had a trailing slash (a non-directory is {@code ENOTDIR})
     * @param cred who asks
     * @param proof the walk that found this directory, checked when the command applies
     * @param replyTo where the reply goes; its inode is the removed one
     */
    public record Unlink(
            String name,
            boolean rmdir,
            boolean mustBeDir,
            Credentials cred,
            PathProof proof,
            ReplyTo<DirReply> replyTo)
            implements Command {
        @Override
        public void fail(Errno e) {
            replyTo.tell(DirReply.error(e));
        }
    }

    /**
     * Renames within this directory ({@code renameat2(2)} with both parents here).
     *
     * @param oldName source component
     * @param newName target component
     * @param flags {@code RENAME_NOREPLACE} / {@code RENAME_EXCHANGE} / {@code RENAME_WHITEOUT}
     * @param oldSlash whether the source path had a trailing slash
     * @param newSlash whether the target path had a trailing slash
     * @param cred who asks
     * @param proof the walks of both paths, checked when the command applies
     * @param replyTo where the reply goes; its inode is the moved one
     */
    public record Rename(
            String oldName,
            String newName,
            int flags,
            boolean oldSlash,
            boolean newSlash,
            Credentials cred,
            PathProof proof,
            ReplyTo<DirReply> replyTo)
            implements Command {
        @Override
        public void fail(Errno e) {
            replyTo.tell(DirReply.error(e));
        }
    }

    /**
     * Changes the directory's own attributes ({@code chmod}, {@code chown}, {@code utimensat}).
     *
     * @param change what to change
     * @param cred who asks
     * @param proof the walk that found this directory, checked when the command applies
     * @param replyTo where the reply goes
     */
    public record SetAttrs(
            AttrChange change, Credentials cred, PathProof proof, ReplyTo<DirReply> replyTo)
            implements Command {
        @Override
        public void fail(Errno e) {
            replyTo.tell(DirReply.error(e));
        }
    }

    /**
     * Changes the attributes of {@code target}, a non-directory this directory binds under {@code
     * name} ({@code chmod}, {@code chown}, {@code utimensat} by path). The inode's attributes are
     * changed by CAS, as from anywhere; this actor only makes the change take effect at an instant
     * at which the path still leads to {@code target}: it checks the walk's proof (whose last
     * lookup is {@code name} here) and applies the change in the same handler, while nothing else
     * can rebind {@code name} (this actor is the only writer of its entries). A stale proof answers
     * {@code ESTALE}: the caller walks again.
     *
     * @param name the component the walk found {@code target} by
     * @param target the inode to change, not a directory
     * @param change what to change
     * @param cred who asks
     * @param proof the whole walk (every lookup, the last included), checked when the command
     *     applies
     * @param replyTo where the reply goes; {@code EPERM} (not the owner), {@code ESTALE}
     */
    public record SetChildAttrs(
            String name,
            Inode target,
            AttrChange change,
            Credentials cred,
            PathProof proof,
            ReplyTo<DirReply> replyTo)
            implements Command {
        @Override
        public void fail(Errno e) {
            replyTo.tell(DirReply.error(e));
        }
    }

    /**
     * From the rename coordinator: report the current snapshot and stash everything until {@link
     * RenameFinished}.
     *
     * @param renameId the coordinator's id for this rename
     * @param dir the directory asked, named in a refusal so the coordinator knows which parent
     *     refused
     * @param replyTo the coordinator
     */
    public record PrepareRename(long renameId, DirectoryInode dir, ActorRef<Prepared> replyTo)
            implements Command {
        /**
         * Refuses to prepare ({@code EAGAIN} from a full stash): the coordinator fails the rename
         * at once.
         */
        @Override
        public void fail(Errno e) {
            replyTo.tell(new Prepared(renameId, dir, null, e));
        }

        /**
         * Answers as a dead directory's actor does when the directory is dead (its dead snapshot,
         * from which the coordinator's plan says {@code ENOENT}); else as any command.
         */
        @Override
        public void failGone(DirectoryInode d) {
            DirSnapshot snap = d.snapshotAcquire();
            if (snap.isDead()) {
                replyTo.tell(new Prepared(renameId, d, snap));
            } else {
                Command.super.failGone(d);
            }
        }
    }

    /**
     * The answer to {@link PrepareRename}.
     *
     * @param renameId the coordinator's id
     * @param dir the directory
     * @param snapshot its snapshot, frozen until {@link RenameFinished} (a dead directory's is dead
     *     and frozen for good); {@code null} if it refused
     * @param error why it refused to prepare, or {@code null}
     */
    public record Prepared(long renameId, DirectoryInode dir, DirSnapshot snapshot, Errno error) {
        /**
         * A prepared directory's answer: its snapshot.
         *
         * @param renameId the rename the directory was prepared for
         * @param dir the prepared directory
         * @param snapshot its snapshot
         */
        public Prepared(long renameId, DirectoryInode dir, DirSnapshot snapshot) {
            this(renameId, dir, snapshot, null);
        }
    }

    /**
     * From the rename coordinator: the rename was published or abandoned; resume.
     *
     * @param renameId the coordinator's id
     */
    public record RenameFinished(long renameId) implements Command {
        @Override
        public void fail(Errno e) {}
    }

    /** The directory was removed by its parent: answer ENOENT from now on. */
    public record Died() implements Command {
        @Override
        public void fail(Errno e) {}
    }

    /**
     * From the superblock actor: its last mount was released; stop. Handled after every command
     * that reached the actor before it (a prepared actor stashes it with them).
     */
    public record Unmounted() implements Command {
        @Override
        public void fail(Errno e) {}
    }

    /** From a journal's callback: one append of this actor's changes ended ({@link DirJournal}). */
    private record JournalDone() implements Command {
        @Override
        public void fail(Errno e) {}
    }

    /** A reply held back until the journal has the change it reports ({@link DirJournal}). */
    private record Held(Command command, ReplyTo<DirReply> to, DirReply reply) {}

    private record IdleTimeout() implements Command {
        @Override
        public void fail(Errno e) {}
    }

    /**
     * Tells the actor that commands wait in its directory's combining queue ({@link DirQueue}):
     * sent by the submit that found the queue idle, and by a drain that stopped at {@link
     * #MAX_BATCH}. One instance per queue.
     */
    public static final class Drain implements Command {
        private final DirQueue queue;

        Drain(DirQueue queue) {
            this.queue = queue;
        }

        /** {@return the queue to drain} */
        DirQueue queue() {
            return queue;
        }

        /** Nothing to answer: the queued commands are answered by whoever drains or closes. */
        @Override
        public void fail(Errno e) {}

        /**
         * The directory is gone and has no actor to drain (unmounted, or dead with its actor
         * stopped): closes the queue, answering every queued command as gone.
         */
        @Override
        public void failGone(DirectoryInode dir) {
            queue.close();
        }

        @Override
        public String toString() {
            return "Drain(" + queue.dir().ino() + ")";
        }
    }

    /**
     * Commands one drain applies before it lets other actors run (a fresh {@link Drain}); also the
     * most commands one batch holds the publication gate for.
     */
    static final int MAX_BATCH = 64;

    private final DirectoryInode dir;
    private final Superblock sb;
    private final StashBuffer<Command> stash;

    /** This actor's reference, kept at setup: drains tell through it from any thread. */
    private final ActorRef<Command> self;

    /**
     * The directory's queue, for a type without a journal (whose commands all go through it), else
     * {@code null}.
     */
    private final DirQueue queue;

    /**
     * The calling-thread executor this actor runs on, on which a submit runs its inline drains; or
     * {@code null} (a journal, another dispatcher, a test kit): then every drain is a {@link
     * Drain}.
     */
    private final CallingThreadExecutor executor;

    /** The inline drain, one object for every run. */
    private final Runnable inlineDrain = this::drainInline;

    /**
     * A command an inline drain took from the queue and left to the actor (one only the actor may
     * handle); the {@link Drain} that hands the drain over runs it first.
     */
    private Command handoff;

    /**
     * The highest rename id whose {@link RenameFinished} reached this actor while it was not
     * prepared: the coordinator gave that rename up (a parent refused, a timeout) before this
     * directory prepared, and its {@link PrepareRename}, still queued, must not leave the directory
     * prepared for a finish that has come. Rename ids grow per superblock. Read and written by the
     * actor only, in its messages (never by an inline drain: a prepare is the actor's alone), so it
     * needs no token.
     */
    private long finishedUpTo = -1;

    private long inoNext;
    private long inoEnd;

    /** Whether this directory was found dead during the current message: answer the rest gone. */
    private boolean died;

    /** A {@link Drain} that reached the actor while it was prepared: re-sent when it resumes. */
    private Drain deferredDrain;

    // ---- journaling (a type with a DirJournal; all null / 0 for a memory-backed type)

    /** The directory's journal, or {@code null}: then nothing below is used. */
    private final DirJournal journal;

    /** The changes published during the current message, not yet handed to the journal. */
    private List<DirJournal.Change> journalChanges;

    /** The replies of the changing commands of the current message, held for the journal. */
    private List<Held> heldReplies;

    /**
     * Answers that go out once the message is handled ({@link #journaled}), after the superblock's
     * writer count it took is released: a caller that has its answer finds the write over (a
     * read-only remount, or fsck's count of writers, right after an rmdir that failed with {@code
     * ENOTEMPTY} saw none; found by the conformance suites on PostgreSQL, where a reply sent inside
     * the write raced the caller's fsck).
     */
    private final List<Runnable> afterWrite = new ArrayList<>();

    /** Appends handed to the journal whose callback has not come ({@link JournalDone}). */
    private int journalInFlight;

    /**
     * A {@link Drain} that came while an append was in flight: run when the journal calls back, so
     * that everything queued meanwhile is one batch, one append (group commit).
     */
    private Drain journalDrain;

    // ---- the open batch (see stage / commit); all this actor's own state, never shared

    /** Whether a batch is open: the gate is entered and {@code base} read. */
    private boolean batchOpen;

    /** Whether the open batch counts as a writer of the superblock ({@link #writing}). */
    private boolean batchWriter;

    /** The publication-gate stripe the open batch entered. */
    private int batchGate;

    /**
     * Whether the next batch opened is an exclusive one ({@link #unbindsWalkable}): it closes the
     * gate and takes the rename write lock instead of entering the gate.
     */
    private boolean batchExclusive;

    /** The rename write lock's stamp the open exclusive batch holds. */
    private long batchRenameStamp;

    /** The published snapshot the open batch builds on (its publication CASes against it). */
    private DirSnapshot base;

    /** The working snapshot: {@code base} plus the open batch's changes so far. */
    private DirSnapshot work;

    /** Whether the open batch unlinked a name ({@link dev.seqvfs.engine.inode.WriterHooks}). */
    private boolean batchUnlinked;

    /**
     * The open batch's time (nanoseconds since the epoch), read once when it opens: every inode it
     * creates, every link count it changes and the directory's own times take it, as every change
     * of the batch takes effect at its one publication. One clock read per batch, not two or three
     * per command (the clock was 8% of a create + unlink's profile).
     */
    private long batchNow;

    /**
     * The open batch's commands in order, with what each answers once the batch is published:
     * parallel arrays ({@code stagedKind} one of {@link #ERROR}...{@link #UNLINKED}), so that a
     * command costs no allocation of its own.
     */
    private Command[] stagedCmd = new Command[8];

    private int[] stagedKind = new int[8];
    private Object[] stagedArg = new Object[8];
    private Dentry[] stagedDentry = new Dentry[8];
    private int stagedCount;

    private DirectoryActor(
            ActorContext<Command> ctx,
            StashBuffer<Command> stash,
            DirectoryInode dir,
            Superblock sb) {
        super(ctx);
        this.dir = dir;
        this.sb = sb;
        this.stash = stash;
        this.journal = sb.sop().journal(dir, sb);
        this.self = ctx.getSelf();
        if (journal != null) {
            journalChanges = new ArrayList<>();
            heldReplies = new ArrayList<>();
            this.queue = null;
            this.executor = null;
        } else {
            this.queue = dir.commandQueue();
            this.executor = CallingThreadExecutor.current();
            queue.attach(this);
        }
    }

    /**
     * {@return the behavior of the actor for {@code dir}, supervised with resume}
     *
     * @param dir the directory it will own
     * @param sb its superblock
     */
    public static Behavior<Command> create(DirectoryInode dir, Superblock sb) {
        return create(dir, sb, STASH_CAPACITY);
    }

    /**
     * As {@link #create(DirectoryInode, Superblock)}, with a stash of {@code stashCapacity}
     * commands (tests).
     */
    static Behavior<Command> create(DirectoryInode dir, Superblock sb, int stashCapacity) {
        return OutOfMemoryGuard.guard(
                Behaviors.supervise(
                                Behaviors.<Command>withStash(
                                        stashCapacity,
                                        stash ->
                                                Behaviors.setup(
                                                        ctx ->
                                                                new DirectoryActor(
                                                                        ctx, stash, dir, sb))))
                        .onFailure(SupervisorStrategy.resume()));
    }

    /**
     * Spawns the actor of {@code dir} as a child of the superblock actor whose context is {@code
     * ctx}, running the behavior {@code sb}'s type supplies ({@link
     * dev.seqvfs.engine.fs.SuperOperations#directoryBehavior}), delivers {@code first} to it, and
     * publishes its reference in {@code dir} (release), where later senders find it. The parent
     * watches it: when it stops, {@link #forget} clears the reference again. Called only on the
     * superblock actor's thread.
     *
     * @param ctx the superblock actor's context
     * @param dir the directory
     * @param sb the superblock
     * @param dispatcher the dispatcher the actor runs on
     * @param first the first command, delivered to the new actor
     * @return the new actor
     */
    public static ActorRef<Command> spawn(
            ActorContext<?> ctx,
            DirectoryInode dir,
            Superblock sb,
            DispatcherSelector dispatcher,
            Command first) {
        ActorRef<Command> ref =
                ctx.spawn(sb.sop().directoryBehavior(dir, sb), "d" + dir.ino(), dispatcher);
        ctx.watch(ref);
        ref.tell(first);
        dir.publishActorRelease(ref);
        return ref;
    }

    /**
     * Clears {@code dir}'s actor reference if it is still {@code ref}'s actor (it stopped); by the
     * superblock actor. Compares by {@code equals}: references to one actor may be different
     * objects.
     *
     * @param dir the directory
     * @param ref the actor that stopped
     */
    public static void forget(DirectoryInode dir, ActorRef<?> ref) {
        ActorRef<Command> cur = dir.actorAcquire();
        if (cur != null && cur.equals(ref)) {
            dir.publishActorRelease(null);
        }
    }

    @Override
    public Receive<Command> createReceive() {
        if (queue != null) {
            // Every command goes through the queue, so that this actor runs its state only while
            // it holds the drain token, as an inline drain does (class comment).
            return newReceiveBuilder()
                    .onMessage(Drain.class, m -> journaled(onDrain(m)))
                    .onMessage(RenameFinished.class, this::onStrayRenameFinished)
                    .onMessage(IdleTimeout.class, m -> this)
                    .onMessage(Command.class, this::routed)
                    .onSignal(PostStop.class, s -> onPostStop())
                    .build();
        }
        return newReceiveBuilder()
                .onMessage(Drain.class, m -> journaled(onDrain(m)))
                .onMessage(Create.class, m -> journaled(single(m)))
                .onMessage(Link.class, m -> journaled(single(m)))
                .onMessage(Unlink.class, m -> journaled(settle(onUnlink(m))))
                .onMessage(Rename.class, m -> journaled(settle(onRename(m))))
                .onMessage(SetAttrs.class, m -> journaled(onSetAttrs(m)))
                .onMessage(SetChildAttrs.class, m -> journaled(onSetChildAttrs(m)))
                .onMessage(JournalDone.class, this::onJournalDone)
                .onMessage(PrepareRename.class, this::onPrepareRename)
                .onMessage(RenameFinished.class, this::onStrayRenameFinished)
                .onMessage(Died.class, m -> dead())
                .onMessage(Unmounted.class, m -> Behaviors.stopped())
                .onMessage(IdleTimeout.class, m -> this)
                .onSignal(PostStop.class, s -> onPostStop())
                .build();
    }

    /**
     * A command that reached the mailbox of an actor whose commands go through its queue: queued
     * behind what waits there; if that makes this actor the token holder, it drains now.
     */
    private Behavior<Command> routed(Command m) {
        if (!queue.submitOwn(m)) {
            return this; // the holder of the token reaches it
        }
        return drainLoop(queue);
    }

    /** A {@link RenameFinished} for a rename this directory is not prepared for. */
    private Behavior<Command> onStrayRenameFinished(RenameFinished m) {
        finishedUpTo = Math.max(finishedUpTo, m.renameId());
        return this;
    }

    /** {@return {@code b}, or the dead behavior if the handler found the directory dead} */
    private Behavior<Command> settle(Behavior<Command> b) {
        return died && b == this ? dead() : b;
    }

    /**
     * Answers {@code ESTALE} if the walk behind a command no longer holds; the caller walks again.
     */
    private static boolean stale(PathProof proof, Command c) {
        if (proof != null && !proof.stillHolds()) {
            c.fail(Errno.ESTALE);
            return true;
        }
        return false;
    }

    /**
     * Enters the publication gate and checks {@code c}'s proof there, at one instant with the
     * publication that follows: no cross-directory rename or mount change can publish between the
     * check and the caller's {@link PublishGate#exit} (see {@link PublishGate}). The caller
     * publishes and exits at once: no message, no tell, no wait in between.
     *
     * @return the gate stripe to exit with, or -1 (the gate already left) if the proof no longer
     *     holds
     */
    private int enterChecked(Command c) {
        if (journal != null) {
            dir.markUnjournaled();
        }
        int g = sb.locks().publish.enter();
        PathProof p = c.proof();
        if (p != null && !p.stillHolds()) {
            sb.locks().publish.exit(g);
            return -1;
        }
        return g;
    }

    /**
     * Answers {@code ESTALE}: the walk behind the command no longer holds; the caller walks again.
     */
    private Behavior<Command> stale(Command c) {
        c.fail(Errno.ESTALE);
        return this;
    }

    // ------------------------------------------------------------------ batches

    /** {@link #stagedKind}: answered with an errno ({@code stagedArg}). */
    private static final int ERROR = 0;

    /** {@link #stagedKind}: the directory is gone ({@link Command#failGone}). */
    private static final int GONE = 1;

    /** {@link #stagedKind}: a non-exclusive create found the name ({@code stagedDentry}). */
    private static final int EXISTING = 2;

    /** {@link #stagedKind}: created the inode {@code stagedArg}, bound as {@code stagedDentry}. */
    private static final int CREATED = 3;

    /** {@link #stagedKind}: linked the inode {@code stagedArg}, its link count already raised. */
    private static final int LINKED = 4;

    /** {@link #stagedKind}: unlinked the inode {@code stagedArg} (not a directory). */
    private static final int UNLINKED = 5;

    /** A create, link or unlink sent directly (not through the queue): a batch of one. */
    private Behavior<Command> single(Command c) {
        if (unbindsWalkable(c)) {
            exclusively(c);
        } else {
            stage(c);
            commit();
        }
        return settle(this);
    }

    /**
     * Stages {@code c} in a batch of its own that closes the publication gate and holds the rename
     * write lock from its proof check to its publication ({@link #unbindsWalkable}); no batch may
     * be open.
     */
    private void exclusively(Command c) {
        batchExclusive = true;
        try {
            stage(c);
            commit();
        } finally {
            batchExclusive = false;
        }
    }

    /**
     * {@return whether {@code c}, an unlink that is no rmdir, removes a symbolic link} Such a
     * command unbinds a name a walk may have followed on its way to another directory, so it is
     * published with the gate closed, not in a batch ({@link #closeGate}). Read against the open
     * batch's working snapshot, else the published one: this actor is the only writer of both.
     */
    private boolean unbindsWalkable(Command c) {
        if (!(c instanceof Unlink u) || u.rmdir()) {
            return false;
        }
        DirSnapshot s = batchOpen ? work : dir.snapshotAcquire();
        Dentry d = s.lookup(u.name());
        return d != null && d.inode().type() == FileType.SYMLINK;
    }

    /**
     * {@return whether a change of the binding of a name to {@code i} can invalidate another
     * command's path proof} A walk goes through a name only if it is bound to a directory or a
     * symbolic link.
     */
    private static boolean walkable(Inode i) {
        return i != null && (i.type() == FileType.DIRECTORY || i.type() == FileType.SYMLINK);
    }

    /**
     * Closes the publication gate and takes the rename write lock ({@link
     * dev.seqvfs.engine.sb.NamespaceLocks#closeForRename}) for a change that unbinds or rebinds a
     * name bound to a directory or a symbolic link: a same-directory rename of one (or over one),
     * an rmdir, an unlink of a symbolic link. Such a change can invalidate the path proof of a
     * command another directory's actor has checked and not yet published (a create or unlink in
     * {@code /b/s} while {@code /b} renames {@code s}); closing the gate waits for that
     * publication, so the command takes effect before this change, where its path still led, never
     * after it ({@code AncestorUnbindRaceTest}). The rename lock orders it with the cross-directory
     * renames, which close the gate too. Held for the few stores of one publication; never across a
     * message.
     *
     * @return the rename write lock's stamp, for {@link #openGate}
     */
    private long closeGate() {
        return sb.locks().closeForRename();
    }

    /**
     * Undoes {@link #closeGate}.
     *
     * @param stamp what it returned
     */
    private void openGate(long stamp) {
        sb.locks().reopenAfterRename(stamp);
    }

    /**
     * {@link #enterChecked} for a change that unbinds or rebinds a walkable name: closes the gate
     * ({@link #closeGate}) and checks {@code c}'s proof there.
     *
     * @return the stamp to pass to {@link #openGate}, or 0 (the gate already opened again) if the
     *     proof no longer holds
     */
    private long closeChecked(Command c) {
        if (journal != null) {
            dir.markUnjournaled();
        }
        long stamp = closeGate();
        PathProof p = c.proof();
        if (p != null && !p.stillHoldsHoldingRenameLock()) {
            openGate(stamp);
            return 0;
        }
        return stamp;
    }

    /**
     * {@return whether {@code c} joins a batch: a create, a link, or an unlink that is no rmdir}
     */
    private static boolean batchable(Command c) {
        return c instanceof Create || c instanceof Link || (c instanceof Unlink u && !u.rmdir());
    }

    /**
     * Drains the combining queue ({@link DirQueue}): every create, link and unlink waiting is
     * applied to one working snapshot, which is published once (one CAS, inside the publication
     * gate entered once), and only then are their callers answered (flat combining). Another
     * command (a rename, an attribute change, an rmdir) ends the batch before it and is published
     * on its own. After {@value #MAX_BATCH} commands the drain publishes and hands the rest to a
     * fresh {@link Drain}, so the gate is never held long and other actors get their turn. The
     * queue's in-progress count follows the drain loop of {@link DirQueue}: a drain ends only when
     * it has accounted for every submit it saw.
     */
    private Behavior<Command> onDrain(Drain m) {
        if (journalInFlight > 0) {
            // group commit: what queues up while the journal writes is the next batch
            journalDrain = m;
            return this;
        }
        DirQueue q = m.queue();
        Command h = handoff;
        if (h != null) {
            // an inline drain left this command, and the drain, to the actor
            handoff = null;
            Behavior<Command> b = actorOnly(h);
            if (b != this) {
                return leaving(q, b);
            }
        }
        if (died) {
            q.close();
            return dead();
        }
        return drainLoop(q);
    }

    /** {@link #drainRounds}: the token was given back ({@code wip} back at 0). */
    private static final int RELEASED = 0;

    /** {@link #drainRounds}: stopped holding the token after {@value #MAX_BATCH} commands. */
    private static final int BOUND = 1;

    /** {@link #drainRounds}: the directory died; what is queued is to be answered as gone. */
    private static final int DIED = 2;

    /**
     * {@link #drainRounds}: met a command only the actor may handle; by the actor, it left the live
     * state for {@link #leftFor}; inline, the command is in {@link #handoff}.
     */
    private static final int ACTOR_ONLY = 3;

    /** The behavior an actor drain left the live state for ({@link #ACTOR_ONLY}). */
    private Behavior<Command> leftFor;

    /**
     * The actor's drain, holding the token: applies what waits in {@code q} (see {@link #onDrain});
     * ends when the token is released ({@code wip} back at 0), when the actor leaves the live state
     * (prepared: the token is kept; dead, stopped: the queue is closed), or after {@value
     * #MAX_BATCH} commands (a fresh {@link Drain} to itself).
     */
    private Behavior<Command> drainLoop(DirQueue q) {
        int outcome;
        try {
            outcome = drainRounds(q, false);
        } catch (RuntimeException | Error e) {
            // the token is still held: go on in a fresh Drain rather than wedge the queue
            LOG.error("directory {}: drain failed: {}", dir.ino(), e.toString());
            self.tell(q.drain());
            return this;
        }
        switch (outcome) {
            case RELEASED:
                return this;
            case BOUND:
                self.tell(q.drain());
                return settle(this);
            case DIED:
                // dead for good: answer what is queued, and every later submit at once
                q.close();
                return dead();
            default:
                Behavior<Command> b = leftFor;
                leftFor = null;
                return leaving(q, b);
        }
    }

    /**
     * The rounds of a drain, by the actor or inline: applies every command waiting to the open
     * batch (creates, links, unlinks) or on its own (the rest, after publishing what is staged),
     * answers each round's commands, then gives the token back ({@code accounted}) once a round
     * finds nothing new. Every batch is published and every answer sent before it returns.
     *
     * @param q the queue
     * @param inline whether this is an inline drain: a command only the actor may handle then ends
     *     it (kept in {@link #handoff}); the actor handles it itself and goes on unless it leaves
     *     the live state
     * @return {@link #RELEASED}, {@link #BOUND}, {@link #DIED} or {@link #ACTOR_ONLY}
     */
    private int drainRounds(DirQueue q, boolean inline) {
        int missed = q.pending();
        int done = 0;
        try {
            while (true) {
                Command c;
                while ((c = q.poll()) != null) {
                    done++;
                    if (died) {
                        c.failGone(dir);
                    } else if (batchable(c) && !unbindsWalkable(c)) {
                        stage(c); // a batch never outgrows the drain's bound below
                    } else {
                        commit();
                        if (died) {
                            c.failGone(dir);
                        } else if (!isActorOnly(c)) {
                            handleAlone(c);
                        } else if (inline) {
                            handoff = c;
                            return stopHolding(ACTOR_ONLY);
                        } else {
                            flushAnswers();
                            Behavior<Command> b = actorOnly(c);
                            if (b != this) {
                                leftFor = b;
                                return stopHolding(ACTOR_ONLY);
                            }
                        }
                    }
                    if (done >= MAX_BATCH || (inline && died)) {
                        return stopHolding(died ? DIED : BOUND);
                    }
                }
                commit();
                if (died) {
                    return stopHolding(DIED);
                }
                flushAnswers();
                // Give the token back: from here on the next holder may be running this state.
                missed = q.accounted(missed);
                if (missed == 0) {
                    return RELEASED;
                }
            }
        } catch (RuntimeException | Error e) {
            stopHolding(BOUND); // publish what is staged and answer it; the caller hands over
            throw e;
        }
    }

    /**
     * Ends a drain that keeps the token (for the actor, or for a {@link Drain} to it): publishes
     * what is staged and sends every answer held. {@return {@code outcome}}
     */
    private int stopHolding(int outcome) {
        try {
            commit();
        } finally {
            flushAnswers();
        }
        return outcome;
    }

    /**
     * The drain ends because the actor leaves the live state for {@code b}: a dead directory closes
     * its queue (what waits is answered as gone); a prepared one keeps the token until its rename
     * finishes; a stopped one's queue is closed as it stops ({@link #onPostStop}).
     */
    private Behavior<Command> leaving(DirQueue q, Behavior<Command> b) {
        if (died) {
            q.close();
        }
        return b;
    }

    /** {@return whether only the actor may handle {@code c} (an inline drain hands it over)} */
    private static boolean isActorOnly(Command c) {
        return c instanceof PrepareRename || c instanceof Died || c instanceof Unmounted;
    }

    /**
     * Handles a command only the actor may handle; {@return the next behavior: {@code this} to go
     * on draining}
     */
    private Behavior<Command> actorOnly(Command c) {
        if (c instanceof PrepareRename p) {
            return onPrepareRename(p);
        }
        if (c instanceof Unmounted) {
            return Behaviors.stopped();
        }
        died = true; // Died: its parent removed it
        return dead();
    }

    /** Sends the answers held for after the write ({@code afterWrite}), in order. */
    private void flushAnswers() {
        if (afterWrite.isEmpty()) {
            return;
        }
        for (Runnable r : afterWrite) {
            r.run();
        }
        afterWrite.clear();
    }

    // ------------------------------------------------------------------ inline drains

    /**
     * Runs a drain of this directory's queue on this actor's calling-thread executor, for the
     * submit that found the queue idle and so holds the drain token ({@link DirQueue#submit}): on
     * the submitting thread, or, inside a task already running there, after it (trampolined), never
     * nested in another drain. No Pekko message and no mailbox: the actor's own code, run by the
     * token's holder (class comment). Measured on one thread creating and removing a file in its
     * own directory: 1.7x to 2x the calls per second of a {@link Drain} per idle queue.
     *
     * @return {@code false} if there is no such executor or it refused the task (it shut down): the
     *     caller tells the actor {@link Drain} instead
     */
    boolean runInline() {
        CallingThreadExecutor ex = executor;
        if (ex == null) {
            return false;
        }
        try {
            ex.execute(inlineDrain);
            return true;
        } catch (RejectedExecutionException shutDown) {
            return false;
        }
    }

    /**
     * The inline drain: {@link #drainRounds} for creates, links, unlinks, renames within the
     * directory, rmdir and attribute changes; it hands the drain (the token with it) to the actor
     * by one {@link Drain} when it meets a command only the actor may handle ({@link #handoff}),
     * after {@value #MAX_BATCH} commands, when the directory died, or if it fails unexpectedly
     * (logged).
     */
    private void drainInline() {
        DirQueue q = queue;
        if (died || handoff != null) {
            self.tell(q.drain()); // the actor's to finish (not expected: it holds the token then)
            return;
        }
        int outcome = BOUND;
        try {
            outcome = drainRounds(q, true);
        } catch (RuntimeException | Error e) {
            LOG.error("directory {}: inline drain failed: {}", dir.ino(), e.toString());
        } finally {
            if (outcome != RELEASED) {
                self.tell(q.drain());
            }
        }
    }

    // ------------------------------------------------------------------ journaling

    /** Records a published change for the journal (a type without one: nothing). */
    private void journalChange(DirJournal.Change c) {
        if (journal != null) {
            journalChanges.add(c);
        }
    }

    /**
     * Answers a command that changed something: at once for a type without a journal, else once the
     * journal has the change ({@link #journaled}).
     */
    private void replyChanged(Command c, ReplyTo<DirReply> to, DirReply r) {
        if (journal == null) {
            afterWrite.add(() -> to.tell(r));
        } else {
            heldReplies.add(new Held(c, to, r));
        }
    }

    /**
     * After a message: hands the changes it published to the journal as one append, its held
     * replies going out when the journal calls back (on the journal's thread: a reply completes a
     * future and needs nothing of this actor); {@code EIO} for them if the append failed. Then a
     * {@link JournalDone} tells this actor, which resumes draining.
     */
    private Behavior<Command> journaled(Behavior<Command> next) {
        if (queue != null) {
            // Its drains sent every answer before they gave the token back, and the state is
            // the next holder's now: touch nothing.
            return next;
        }
        if (!afterWrite.isEmpty()) {
            for (Runnable r : afterWrite) {
                r.run();
            }
            afterWrite.clear();
        }
        if (journal == null) {
            return next;
        }
        if (journalChanges.isEmpty()) {
            dir.markJournaled();
            for (Held h : heldReplies) {
                h.to().tell(h.reply());
            }
            heldReplies.clear();
            return next;
        }
        List<DirJournal.Change> changes = journalChanges;
        List<Held> held = heldReplies;
        journalChanges = new ArrayList<>();
        heldReplies = new ArrayList<>();
        journalInFlight++;
        try {
            journal.append(
                    changes,
                    error -> {
                        for (Held h : held) {
                            if (error == null) {
                                h.to().tell(h.reply());
                            } else {
                                h.command().fail(error);
                            }
                        }
                        self.tell(new JournalDone());
                    });
        } catch (RuntimeException e) {
            journalInFlight--;
            LOG.error("directory {}: journal append failed: {}", dir.ino(), e.toString());
            for (Held h : held) {
                h.command().fail(Errno.EIO);
            }
        }
        // after the append: a remover that sees this may journal the removal (DirectoryInode)
        dir.markJournaled();
        return next;
    }

    private Behavior<Command> onJournalDone(JournalDone m) {
        journalInFlight--;
        if (journalInFlight == 0 && journalDrain != null) {
            Drain d = journalDrain;
            journalDrain = null;
            return journaled(onDrain(d));
        }
        return this;
    }

    /** Runs a queued command that publishes on its own (no batch is open). */
    private void handleAlone(Command c) {
        if (c instanceof Unlink u) {
            if (u.rmdir()) {
                onRmdir(u);
            } else {
                exclusively(u);
            }
        } else if (c instanceof Rename r) {
            onRename(r);
        } else if (c instanceof SetAttrs a) {
            onSetAttrs(a);
        } else if (c instanceof SetChildAttrs a) {
            onSetChildAttrs(a);
        } else {
            LOG.error("directory {}: {} is not a queued command", dir.ino(), c);
            c.fail(Errno.EIO);
        }
    }

    /**
     * Opens a batch: counts it a writer of the superblock ({@code EROFS} for its changes if that
     * fails), enters the publication gate, and reads the snapshot it builds on. The gate is held
     * until {@link #commit}: every command's proof is checked inside it, so each check and the
     * batch's publication are one instant for the renames and mount changes that could invalidate a
     * proof (see {@link PublishGate}). Nothing sends, waits or runs a hook while it is held.
     */
    private void open() {
        batchOpen = true;
        if (journal != null) {
            dir.markUnjournaled();
        }
        batchWriter = sb.tryBeginWrite();
        batchNow = sb.now();
        if (batchExclusive) {
            batchRenameStamp = closeGate();
        } else {
            batchGate = sb.locks().publish.enter();
        }
        base = dir.snapshotAcquire();
        work = base;
        batchUnlinked = false;
    }

    /**
     * Applies a create, link or unlink to the open batch's working snapshot (opening a batch if
     * none is), recording what it answers once the batch is published. Never throws: a failure is
     * recorded as the command's errno, and a command that fails changed nothing.
     */
    private void stage(Command c) {
        if (!batchOpen) {
            open();
        }
        if (stagedCount == stagedCmd.length) {
            int n = stagedCount * 2;
            stagedCmd = Arrays.copyOf(stagedCmd, n);
            stagedKind = Arrays.copyOf(stagedKind, n);
            stagedArg = Arrays.copyOf(stagedArg, n);
            stagedDentry = Arrays.copyOf(stagedDentry, n);
        }
        int i = stagedCount++;
        stagedCmd[i] = c;
        try {
            PathProof p = c.proof();
            if (p != null && !p.stillHolds()) {
                staged(i, ERROR, Errno.ESTALE, null);
            } else if (work.isDead()) {
                died = true;
                staged(i, GONE, null, null);
            } else if (c instanceof Create cr) {
                stageCreate(i, cr);
            } else if (c instanceof Link l) {
                stageLink(i, l);
            } else {
                stageUnlink(i, (Unlink) c);
            }
        } catch (VfsException e) {
            if (e.errno() == Errno.ENOSPC && batchUnlinked) {
                // An unlink staged before c gives its inode and bytes back only once the batch is
                // published (its name is visible until then): publish, then try c again, so that c
                // sees the space it would see after that unlink alone.
                stagedCount--;
                stagedCmd[i] = null;
                commit();
                stage(c);
                return;
            }
            staged(i, ERROR, e.errno(), null);
        } catch (RuntimeException e) {
            LOG.error(
                    "directory {} failed on {}: {}",
                    dir.ino(),
                    c.getClass().getSimpleName(),
                    e.toString());
            staged(i, ERROR, Errno.EIO, null);
        } catch (OutOfMemoryError e) {
            // the stage step changes the working snapshot last, so nothing of c is in it
            staged(i, ERROR, Errno.ENOMEM, null);
        }
    }

    private void staged(int i, int kind, Object arg, Dentry d) {
        stagedKind[i] = kind;
        stagedArg[i] = arg;
        stagedDentry[i] = d;
    }

    /**
     * {@return why {@code cred} may not change this directory's entries in the open batch ({@code
     * EROFS}: the superblock is read-only; {@code EACCES}: no write and search permission), or
     * {@code null}}
     */
    private Errno mayChangeEntries(Credentials cred) {
        if (!batchWriter) {
            return Errno.EROFS;
        }
        return Permission.check(dir, Mode.W_OK | Mode.X_OK, cred) ? null : Errno.EACCES;
    }

    private void stageCreate(int i, Create c) {
        Dentry existing = work.lookup(c.name());
        if (existing != null) {
            if (c.exclusive()) {
                staged(i, ERROR, Errno.EEXIST, null);
            } else {
                staged(i, EXISTING, null, existing);
            }
            return;
        }
        Errno denied = mayChangeEntries(c.cred());
        if (denied != null) {
            staged(i, ERROR, denied, null);
            return;
        }
        Inode child = instantiate(c);
        DirSnapshot next;
        try {
            next = work.with(c.name(), child);
        } catch (RuntimeException | OutOfMemoryError e) {
            sb.inodeFreed(child);
            throw e;
        }
        work = next;
        staged(i, CREATED, child, next.lookup(c.name()));
    }

    private void stageLink(int i, Link c) {
        if (work.lookup(c.name()) != null) {
            staged(i, ERROR, Errno.EEXIST, null);
            return;
        }
        Errno denied = mayChangeEntries(c.cred());
        if (denied != null) {
            staged(i, ERROR, denied, null);
            return;
        }
        if (c.target().type() == FileType.DIRECTORY) {
            staged(i, ERROR, Errno.EPERM, null);
            return;
        }
        long now = batchNow;
        // tmpfs charges every extra name against nr_inodes (shmem_reserve_inode in link), but
        // not an O_TMPFILE file's first one: its inode's own charge covers it
        boolean extra = c.target().attrsAcquire().nlink() > 0;
        if (extra) {
            sb.chargeInode(Syscall.LINK);
        }
        try {
            c.target().addLink(now);
        } catch (VfsException e) {
            if (extra) {
                sb.unchargeInode();
            }
            throw e;
        }
        DirSnapshot next;
        try {
            next = work.with(c.name(), c.target());
        } catch (RuntimeException | OutOfMemoryError e) {
            c.target().dropLinks(1, now);
            throw e;
        }
        work = next;
        staged(i, LINKED, c.target(), null);
    }

    private void stageUnlink(int i, Unlink c) {
        if (c.name().length() > Limits.NAME_MAX) {
            staged(i, ERROR, Errno.ENAMETOOLONG, null);
            return;
        }
        Dentry d = work.lookup(c.name());
        if (d == null) {
            staged(i, ERROR, Errno.ENOENT, null);
            return;
        }
        Errno denied = mayChangeEntries(c.cred());
        Inode victim = d.inode();
        if (denied != null) {
            staged(i, ERROR, denied, null);
        } else if (!Permission.stickyAllows(dir.attrsAcquire(), victim.attrsAcquire(), c.cred())) {
            staged(i, ERROR, Errno.EPERM, null);
        } else if (victim.type() == FileType.DIRECTORY) {
            staged(i, ERROR, Errno.EISDIR, null);
        } else if (c.mustBeDir()) {
            staged(i, ERROR, Errno.ENOTDIR, null);
        } else {
            work = work.without(c.name());
            batchUnlinked = true;
            staged(i, UNLINKED, victim, null);
        }
    }

    /**
     * Publishes the open batch, if one is open: one CAS of the working snapshot over {@code base},
     * inside the gate, which it then leaves; then its callers are answered in order, each after its
     * own events (fsnotify: after the publication, before the reply). If the CAS fails, the
     * directory died before the batch (a remover killed it while it was empty): nothing of the
     * batch happened, what its commands did to other inodes is undone, and every one of them is
     * answered as gone.
     */
    private void commit() {
        if (!batchOpen) {
            return;
        }
        batchOpen = false;
        boolean changed = work != base;
        boolean published = true;
        try {
            sb.hooks().batchStaged(dir, stagedCount);
            if (changed) {
                published = dir.casSnapshot(base, work);
            }
            linksInGate(published);
        } finally {
            if (batchExclusive) {
                openGate(batchRenameStamp);
            } else {
                sb.locks().publish.exit(batchGate);
            }
        }
        int n = stagedCount;
        stagedCount = 0;
        DirQueue q = dir.commandQueueIfAny();
        if (q != null) {
            q.countBatch(n);
        }
        try {
            if (!published) {
                died = true;
                for (int i = 0; i < n; i++) {
                    undo(stagedKind[i], stagedArg[i]);
                }
            } else if (changed) {
                if (batchUnlinked) {
                    sb.hooks().entriesPublished(dir);
                }
                afterEntriesChanged(dir, base, work, batchNow);
                if (journal != null) {
                    journalBatch(n);
                }
            }
            for (int i = 0; i < n; i++) {
                Command c = stagedCmd[i];
                int kind = stagedKind[i];
                Object arg = stagedArg[i];
                Dentry d = stagedDentry[i];
                stagedCmd[i] = null;
                stagedArg[i] = null;
                stagedDentry[i] = null;
                if (published) {
                    answer(c, kind, arg, d);
                } else {
                    afterWrite.add(() -> c.failGone(dir));
                }
            }
        } finally {
            base = null;
            work = null;
            if (batchWriter) {
                sb.hooks().writeEnding(dir);
                sb.endWrite();
            }
        }
    }

    /**
     * Inside the gate, right after the batch's CAS: what its publication changed in other inodes'
     * link counts and in the tree's bytes, so that whenever the gate is closed (a fork's cut) a
     * file's link count is the names the published snapshots give it and the tree counts are exact
     * ({@code ForkGenerations}): the last link of an unlinked name drops (the free waits until the
     * answer, outside the gate), a new symbolic link's target joins the tree; if the batch was not
     * published, the link count a staged link raised drops back.
     */
    private void linksInGate(boolean published) {
        for (int i = 0; i < stagedCount; i++) {
            int kind = stagedKind[i];
            if (published ? kind == UNLINKED : kind == LINKED) {
                ((Inode) stagedArg[i]).dropLinksKeptForFree(1, batchNow);
            } else if (published && kind == LINKED) {
                ((Inode) stagedArg[i]).enteredTree(); // an O_TMPFILE file's first name
            } else if (published && kind == CREATED && stagedArg[i] instanceof SymlinkInode l) {
                sb.treeBytesAdd(l.chargedBytesNow());
            }
        }
    }

    /** Records the changes of the {@code n} staged commands of a published batch. */
    private void journalBatch(int n) {
        for (int i = 0; i < n; i++) {
            Command c = stagedCmd[i];
            switch (stagedKind[i]) {
                case CREATED ->
                        journalChange(
                                new DirJournal.Bound(((Create) c).name(), (Inode) stagedArg[i]));
                case LINKED ->
                        journalChange(
                                new DirJournal.Bound(((Link) c).name(), (Inode) stagedArg[i]));
                case UNLINKED ->
                        journalChange(
                                new DirJournal.Unbound(((Unlink) c).name(), (Inode) stagedArg[i]));
                default -> {
                    // failed or found: nothing changed
                }
            }
        }
    }

    /** Undoes what a staged command did outside the snapshot; its batch was never published. */
    private void undo(int kind, Object arg) {
        try {
            if (kind == CREATED) {
                sb.inodeFreed((Inode) arg);
            } else if (kind == LINKED) {
                ((Inode) arg).freeIfUnused(); // its link dropped inside the gate
            }
        } catch (RuntimeException e) {
            LOG.error("directory {}: undo failed: {}", dir.ino(), e.toString());
        }
    }

    /** Answers a command of a published batch, after its events. */
    private void answer(Command c, int kind, Object arg, Dentry d) {
        try {
            switch (kind) {
                case ERROR -> afterWrite.add(() -> c.fail((Errno) arg));
                case GONE -> afterWrite.add(() -> c.failGone(dir));
                case EXISTING ->
                        afterWrite.add(() -> ((Create) c).replyTo().tell(DirReply.existing(d)));
                case CREATED -> {
                    Create cr = (Create) c;
                    Inode child = (Inode) arg;
                    // fsnotify_create / fsnotify_mkdir
                    Fsnotify.entry(dir, Fsnotify.withIsdir(child, Inotify.IN_CREATE), cr.name(), 0);
                    replyChanged(cr, cr.replyTo(), DirReply.created(d));
                }
                case LINKED -> {
                    Link l = (Link) c;
                    // fsnotify_link: the link count's IN_ATTRIB, then IN_CREATE in the directory
                    Fsnotify.inode(l.target(), Inotify.IN_ATTRIB);
                    Fsnotify.entry(dir, Inotify.IN_CREATE, l.name(), 0);
                    replyChanged(l, l.replyTo(), DirReply.ok(l.target()));
                }
                case UNLINKED -> {
                    Unlink u = (Unlink) c;
                    Inode victim = (Inode) arg;
                    // vfs_unlink's fsnotify_link_count; then the last link of an inode not open
                    // gives IN_DELETE_SELF and IN_IGNORED as it is freed, before the directory's
                    // IN_DELETE (as the host orders them: d_delete drops the inode before
                    // fsnotify_delete)
                    Fsnotify.inode(victim, Inotify.IN_ATTRIB);
                    victim.freeIfUnused(); // its link dropped inside the gate
                    Fsnotify.entry(dir, Inotify.IN_DELETE, u.name(), 0);
                    replyChanged(u, u.replyTo(), DirReply.ok(victim));
                }
                default -> throw new IllegalStateException("staged kind " + kind);
            }
        } catch (RuntimeException e) {
            LOG.error(
                    "directory {}: answering {} failed: {}",
                    dir.ino(),
                    c.getClass().getSimpleName(),
                    e.toString());
            c.fail(Errno.EIO);
        }
    }

    private Inode instantiate(Create c) {
        FileType type = FileType.ofMode(c.mode());
        if (type == null) {
            throw new VfsException(Errno.EINVAL, Syscall.CREATE, null);
        }
        sb.chargeInode(Syscall.CREATE);
        long bytes = c.linkTarget() == null ? 0 : c.linkTarget().length();
        try {
            sb.chargeBytes(bytes, Syscall.CREATE);
        } catch (VfsException e) {
            sb.unchargeInode();
            throw e;
        }
        InodeAttrs parent = dir.attrsAcquire();
        Credentials cred = c.cred();
        int gid = InitOwner.gid(parent, cred);
        int perm = InitOwner.perm(c.mode() & Mode.PERMISSION_MASK, type, parent, cred, gid);
        long now = batchNow;
        long ino = nextIno();
        int mode = type.ifmt() | perm;
        InodeAttrs attrs =
                InodeAttrs.create(
                        mode,
                        type == FileType.DIRECTORY ? 2 : 1,
                        cred.uid(),
                        gid,
                        type == FileType.DIRECTORY
                                        || type == FileType.SYMLINK
                                        || type == FileType.REGULAR
                                ? 0
                                : c.rdev(),
                        type == FileType.SYMLINK ? bytes : 0,
                        now);
        try {
            return sb.sop().newInode(sb, ino, attrs, dir, c.name(), c.linkTarget());
        } catch (RuntimeException | OutOfMemoryError e) {
            sb.unchargeBytes(bytes);
            sb.unchargeInode();
            throw e;
        }
    }

    private long nextIno() {
        if (inoNext == inoEnd) {
            int n = sb.configAcquire().inodeBatch();
            inoNext = sb.allocInoBatch(n);
            inoEnd = inoNext + n;
        }
        return inoNext++;
    }

    private Behavior<Command> onUnlink(Unlink c) {
        return c.rmdir() ? onRmdir(c) : single(c);
    }

    /**
     * {@code rmdir}: not batched, since it kills the child directory inside the gate before its
     * parent's entry is gone; published on its own after the batch before it.
     */
    private Behavior<Command> onRmdir(Unlink c) {
        if (stale(c.proof(), c)) {
            return this;
        }
        DirSnapshot snap = dir.snapshotAcquire();
        if (snap.isDead()) {
            return failDead(c);
        }
        if (c.name().length() > Limits.NAME_MAX) {
            c.fail(Errno.ENAMETOOLONG);
            return this;
        }
        Dentry d = snap.lookup(c.name());
        if (d == null) {
            c.fail(Errno.ENOENT);
            return this;
        }
        return writing(
                c,
                () -> {
                    Inode victim = d.inode();
                    if (!Permission.check(dir, Mode.W_OK | Mode.X_OK, c.cred())) {
                        throw new VfsException(Errno.EACCES, Syscall.RMDIR, null);
                    }
                    if (!Permission.stickyAllows(
                            dir.attrsAcquire(), victim.attrsAcquire(), c.cred())) {
                        throw new VfsException(Errno.EPERM, Syscall.RMDIR, null);
                    }
                    if (victim.type() != FileType.DIRECTORY) {
                        throw new VfsException(Errno.ENOTDIR, Syscall.RMDIR, null);
                    }
                    DirectoryInode child = (DirectoryInode) victim;
                    DirSnapshot next = snap.without(c.name());
                    // a walk may have gone through it (by ".."): published with the gate closed
                    long stamp = closeChecked(c);
                    if (stamp == 0) {
                        return stale(c);
                    }
                    boolean killed;
                    try {
                        killed = killChild(child, Syscall.RMDIR);
                        if (killed && !dir.casSnapshot(snap, next)) {
                            throw new IllegalStateException(
                                    dir + " changed under its own actor while holding " + c.name());
                        }
                    } finally {
                        openGate(stamp);
                    }
                    if (!killed) {
                        // its journal first, then this rmdir's (which hands on what it held):
                        // the command comes back once the child's actor has appended
                        child.runWhenJournaled(() -> self.tell(c));
                        return this;
                    }
                    sb.hooks().entriesPublished(dir);
                    long now = sb.now();
                    afterEntriesChanged(dir, snap, next, now);
                    // the removed directory frees as its links go: IN_DELETE_SELF and IN_IGNORED
                    // before the parent's IN_DELETE, as the host orders them
                    victim.dropLinks(2, now);
                    Fsnotify.entry(dir, Inotify.IN_DELETE | Inotify.IN_ISDIR, c.name(), 0);
                    notifyDied(child);
                    journalChange(new DirJournal.Unbound(c.name(), child));
                    replyChanged(c, c.replyTo(), DirReply.ok(victim));
                    return this;
                });
    }

    /**
     * Kills empty directory {@code child} for its removal by {@code op}: {@code EBUSY} if it is a
     * mount point, {@code ENOTEMPTY} if not empty.
     *
     * @return {@code false} if it is empty but its actor has not yet handed its last change to the
     *     journal (nothing done: the removal waits for it, {@link DirectoryInode#runWhenJournaled})
     */
    private boolean killChild(DirectoryInode child, Syscall op) {
        long stamp = sb.locks().mountReadLockSpin();
        try {
            if (child.mountCount() > 0) {
                throw new VfsException(Errno.EBUSY, op, null);
            }
            DirSnapshot cs = child.snapshotAcquire();
            if (cs.isEmpty() && !cs.isDead() && child.unjournaledAcquire()) {
                return false; // its last unlink is published, not yet journaled
            }
            if (!child.tryKill(cs)) {
                throw new VfsException(Errno.ENOTEMPTY, op, null);
            }
            return true;
        } finally {
            sb.locks().mount.unlockRead(stamp);
        }
    }

    private Behavior<Command> onRename(Rename c) {
        if (stale(c.proof(), c)) {
            return this;
        }
        DirSnapshot snap = dir.snapshotAcquire();
        if (snap.isDead()) {
            return failDead(c);
        }
        return writing(
                c,
                () -> {
                    RenamePlan plan =
                            RenamePlan.plan(
                                    dir,
                                    snap,
                                    c.oldName(),
                                    dir,
                                    snap,
                                    c.newName(),
                                    c.flags(),
                                    c.oldSlash(),
                                    c.newSlash(),
                                    c.cred());
                    Inode victim = plan.target;
                    plan.makeWhiteout(sb, c.cred(), sb.now()); // RENAME_WHITEOUT only
                    // a walk may have gone through a directory or symlink it moves or replaces
                    boolean exclusive = walkable(plan.source) || walkable(victim);
                    int g = -1;
                    long stamp = 0;
                    if (exclusive) {
                        stamp = closeChecked(c);
                        if (stamp == 0) {
                            return stale(c);
                        }
                    } else {
                        g = enterChecked(c);
                        if (g < 0) {
                            return stale(c);
                        }
                    }
                    try {
                        plan.publishEntries(sb.locks());
                    } finally {
                        if (exclusive) {
                            openGate(stamp);
                        } else {
                            sb.locks().publish.exit(g);
                        }
                    }
                    sb.hooks().entriesPublished(dir);
                    plan.finish(sb.now());
                    if (!plan.isNoop()
                            && victim instanceof DirectoryInode v
                            && (c.flags() & OpenFlags.RENAME_EXCHANGE) == 0) {
                        notifyDied(v);
                    }
                    if (journal != null && !plan.isNoop()) {
                        DirSnapshot now = dir.snapshotAcquire();
                        if (plan.target != null && (c.flags() & OpenFlags.RENAME_EXCHANGE) == 0) {
                            // the replaced inode lost this name: the journal learns whether it
                            // was its last (its content is then dropped once that is durable)
                            journalChange(new DirJournal.Unbound(c.newName(), plan.target));
                        }
                        for (String n : new String[] {c.oldName(), c.newName()}) {
                            Dentry e = now.lookup(n);
                            journalChange(
                                    e == null
                                            ? new DirJournal.Unbound(n, null)
                                            : new DirJournal.Bound(n, e.inode()));
                        }
                    }
                    replyChanged(c, c.replyTo(), DirReply.ok(plan.source));
                    return this;
                });
    }

    private Behavior<Command> onSetAttrs(SetAttrs c) {
        if (stale(c.proof(), c)) {
            return this;
        }
        return writing(
                c,
                () -> {
                    long now = sb.now();
                    boolean writable = Permission.check(dir, Mode.W_OK, c.cred());
                    int g = enterChecked(c);
                    if (g < 0) {
                        return stale(c);
                    }
                    try {
                        dir.updateDirAttrs(a -> c.change().apply(a, c.cred(), now, writable));
                    } finally {
                        sb.locks().publish.exit(g);
                    }
                    // fsnotify_change: to the parent's watches with the directory's name, then
                    // to its own
                    Fsnotify.directory(dir, Inotify.IN_ATTRIB);
                    journalChange(new DirJournal.Attrs(null, dir));
                    replyChanged(c, c.replyTo(), DirReply.ok(dir));
                    return this;
                });
    }

    private Behavior<Command> onSetChildAttrs(SetChildAttrs c) {
        // The proof's last lookup is (this directory, name): holding now, it holds until this
        // handler returns, since only this actor rebinds the names of a live directory.
        if (stale(c.proof(), c)) {
            return this;
        }
        return writing(
                c,
                () -> {
                    long now = sb.now();
                    Inode target = c.target();
                    boolean writable = Permission.check(target, Mode.W_OK, c.cred());
                    int g = enterChecked(c);
                    if (g < 0) {
                        return stale(c);
                    }
                    try {
                        target.setattr(c.change(), c.cred(), now, writable);
                    } finally {
                        sb.locks().publish.exit(g);
                    }
                    Fsnotify.child(dir, c.name(), target, Inotify.IN_ATTRIB);
                    journalChange(new DirJournal.Attrs(c.name(), target));
                    replyChanged(c, c.replyTo(), DirReply.ok(target));
                    return this;
                });
    }

    private Behavior<Command> onPrepareRename(PrepareRename c) {
        DirSnapshot snap = dir.snapshotAcquire();
        c.replyTo().tell(new Prepared(c.renameId(), dir, snap));
        if (snap.isDead()) {
            died = true;
            return dead();
        }
        if (c.renameId() <= finishedUpTo) {
            return this; // the coordinator already gave this rename up: stay live
        }
        return prepared(c.renameId());
    }

    private Behavior<Command> prepared(long renameId) {
        if (queue != null) {
            // This actor keeps the drain token while prepared: every command waits in the queue
            // (what reaches the mailbox is queued behind it), and the drain goes on when the
            // rename finishes.
            return Behaviors.receive(Command.class)
                    .onMessage(
                            RenameFinished.class,
                            m -> m.renameId() == renameId,
                            m -> journaled(drainLoop(queue)))
                    .onMessage(
                            RenameFinished.class,
                            m -> {
                                onStrayRenameFinished(m);
                                return Behaviors.same();
                            })
                    .onMessage(Drain.class, m -> Behaviors.same()) // not expected: token held
                    .onMessage(IdleTimeout.class, m -> Behaviors.same())
                    .onMessage(
                            Command.class,
                            m -> {
                                queue.submitOwn(m); // false: this actor holds the token
                                return Behaviors.same();
                            })
                    .onSignal(PostStop.class, s -> onPostStop())
                    .build();
        }
        return Behaviors.receive(Command.class)
                .onMessage(
                        RenameFinished.class,
                        m -> m.renameId() == renameId,
                        m -> {
                            if (deferredDrain != null) {
                                // after what is stashed: the queue was waiting longer, but its
                                // commands stay unapplied until then either way
                                self.tell(deferredDrain);
                                deferredDrain = null;
                            }
                            return stash.unstashAll(this);
                        })
                .onMessage(
                        Drain.class,
                        m -> {
                            // the queue waits where it is (it holds no stash space); re-sent on
                            // resuming, since no submit sends another while this one is due
                            deferredDrain = m;
                            return Behaviors.same();
                        })
                .onMessage(
                        Command.class,
                        m -> {
                            if (stash.isFull()) {
                                m.fail(Errno.EAGAIN);
                            } else {
                                stash.stash(m);
                            }
                            return Behaviors.same();
                        })
                .build();
    }

    private Behavior<Command> dead() {
        getContext().setReceiveTimeout(DEAD_IDLE, new IdleTimeout());
        return Behaviors.receive(Command.class)
                .onMessage(IdleTimeout.class, m -> Behaviors.stopped())
                .onMessage(Unmounted.class, m -> Behaviors.stopped())
                .onMessage(
                        PrepareRename.class,
                        m -> {
                            m.replyTo()
                                    .tell(new Prepared(m.renameId(), dir, dir.snapshotAcquire()));
                            return Behaviors.same();
                        })
                .onMessage(
                        Command.class,
                        m -> {
                            m.failGone(dir);
                            return Behaviors.same();
                        })
                .onSignal(PostStop.class, s -> onPostStop())
                .build();
    }

    /**
     * Answers {@code c} as gone: the directory was found dead. The drain that runs the handler
     * leaves the live state after it (a handler reached by a direct message: {@link #settle}).
     */
    private Behavior<Command> failDead(Command c) {
        died = true;
        c.failGone(dir);
        return this;
    }

    /**
     * Stopped (dead and idle, or unmounted): clears the directory's actor reference and closes its
     * queue, answering what is still queued as gone; later submits are answered at once.
     */
    private Behavior<Command> onPostStop() {
        if (queue != null) {
            queue.detach(this);
        }
        if (getContext().getSelf().equals(dir.actorAcquire())) {
            dir.publishActorRelease(null);
        }
        DirQueue q = dir.commandQueueIfAny();
        if (q != null) {
            q.close();
        }
        return Behaviors.same();
    }

    private interface Handler {
        Behavior<Command> run();
    }

    /**
     * Runs a handler that changes something as a writer of the superblock ({@code mnt_want_write}
     * around the change): {@code EROFS} if it is read-only now, and a read-only remount fails with
     * {@code EBUSY} until the handler returns. The callers checked {@code EROFS} before sending;
     * this closes the gap between their check and the instant the change applies.
     */
    private Behavior<Command> writing(Command c, Handler h) {
        if (!sb.tryBeginWrite()) {
            c.fail(Errno.EROFS);
            return this;
        }
        try {
            return guarded(c, h);
        } finally {
            sb.hooks().writeEnding(dir);
            sb.endWrite();
        }
    }

    private Behavior<Command> guarded(Command c, Handler h) {
        try {
            return h.run();
        } catch (VfsException e) {
            Errno errno = e.errno();
            afterWrite.add(() -> c.fail(errno));
            return this;
        } catch (RuntimeException e) {
            LOG.error(
                    "directory {} failed on {}: {}",
                    dir.ino(),
                    c.getClass().getSimpleName(),
                    e.toString());
            afterWrite.add(() -> c.fail(Errno.EIO));
            return this;
        } catch (OutOfMemoryError e) {
            // The heap ran out in this handler: it publishes last, so nothing changed unless the
            // error hit after the publish (then only link counts and times can lag).
            afterWrite.add(() -> c.fail(Errno.ENOMEM));
            return this;
        }
    }

    /**
     * Applies a published change of {@code d}'s entries from {@code prev} to {@code next} to its
     * link count and times: the count changes by the difference in subdirectories, a delta applied
     * to the current count, so a concurrent removal of {@code d} (which drops its two links) and
     * this change add up in either order. Called by the directory's writer of the moment, after it
     * published {@code next}.
     */
    static void afterEntriesChanged(
            DirectoryInode d, DirSnapshot prev, DirSnapshot next, long now) {
        d.entriesChanged(next.subdirs() - prev.subdirs(), now);
    }

    /**
     * Tells a removed directory's actor, if it has one, that it died, so that it stops when idle.
     */
    static void notifyDied(DirectoryInode d) {
        ActorRef<Command> ref = d.actorAcquire();
        if (ref != null) {
            ref.tell(new Died());
        }
    }
}
