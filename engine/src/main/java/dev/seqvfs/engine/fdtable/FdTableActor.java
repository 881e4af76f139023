package dev.seqvfs.engine.fdtable;

import dev.seqvfs.engine.dispatch.CallingThreadExecutor;
import dev.seqvfs.engine.dispatch.OutOfMemoryGuard;
import dev.seqvfs.engine.lock.FileLockTable;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.protocol.Errno;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ExtensibleBehavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only writer of one descriptor table: allocates the lowest free descriptor and installs the
 * file in the same message (seed 002's point: no second trip to the table), closes, and publishes
 * each change as one new {@link FdTable} with release.
 *
 * <h2>Concurrency</h2>
 *
 * Its state is run by one party at a time, the holder of the combining queue's drain token ({@link
 * FilesStruct}): the actor handling a message, or the thread whose submit found the queue idle,
 * which runs the drain on this actor's calling-thread executor without a Pekko message ({@link
 * #runInline}: flat combining, issue 9) and hands it to the actor by a {@link Drain} after {@value
 * #MAX_BATCH} commands. Every message the actor gets is sent by the token's holder (the idle
 * submit's command, or a {@code Drain}), so it, too, runs its state only as the holder; the token's
 * atomic hand-overs order one holder's plain writes before the next one's reads. Its stop ({@link
 * PostStop}) cleans up only as the holder ({@link FilesStruct#closeOnStop}). Handlers never use the
 * actor context (they log through a static logger and tell through the reference kept at setup).
 * Never blocks. Readers use {@link FilesStruct#tableAcquire()}. An {@link Install} owns the
 * reference it carries: if it fails ({@code EMFILE}, or its {@link InstallClaim} was withdrawn
 * first) the actor releases it, so no failure leaks an open file. An install with a claim claims it
 * (CAS) just before publishing the table and records the descriptor in it (release) just after.
 *
 * <h2>Reserved descriptors</h2>
 *
 * An {@code open} that changes something before it installs (creates a file, truncates one) first
 * {@link Reserve}s a descriptor, as Linux's {@code get_unused_fd_flags} does, so that a full table
 * fails it with {@code EMFILE} before the change, not after. A reserved descriptor is in no
 * published table ({@code fget} says {@code EBADF}, forks do not copy it, {@code /proc/<pid>/fd}
 * does not list it), but no allocation hands it out and {@code dup2} onto it is {@code EBUSY}, as
 * Linux's {@code do_dup2}. The set of reserved descriptors is this actor's own state (its count is
 * published, for {@code Fsck}). A reservation ends with {@link InstallReserved} ({@code
 * fd_install}) or {@link Unreserve} ({@code put_unused_fd}); a {@link Reserve} whose reply nobody
 * takes (the ask timed out) is undone by the actor at once.
 *
 * <h2>Reservation credits</h2>
 *
 * Far from the limit, an {@code open} reserves without a message: it takes a credit, an unnamed
 * reservation, from the pool this actor keeps in {@link FilesStruct} (see there), and installs with
 * {@link InstallClaimed}, which picks the lowest free descriptor at that moment. The actor counts
 * every credit it granted and not yet saw installed ({@code granted}) and keeps that many free
 * slots below {@code RLIMIT_NOFILE} for them: every allocation by name ({@link Reserve}, {@link
 * Install}, {@link InstallAll}, {@link DupFd}, {@link Dup2} onto a free descriptor) first takes the
 * pool back if the slots left are too few, and then fails ({@code EMFILE}; {@code EBUSY} for {@code
 * dup2}, Linux's answer for a descriptor an open in progress holds) only if opens in progress hold
 * them. The pool is topped up (to {@value #CREDIT_POOL}, at most half the slots left) at start,
 * after each claimed install and after each close, before the reply, so a caller that saw its reply
 * sees the pool settled.
 *
 * <h2>Supervision</h2>
 *
 * Resume: a handler that throws is logged and the actor keeps its state, the published table, which
 * a handler replaces only as its last step (the effect of {@code SupervisorStrategy.resume()}, done
 * by a {@code try} in {@link #receive} rather than a supervising interceptor per message). On stop,
 * every open file still in the table is released.
 */
public final class FdTableActor extends ExtensibleBehavior<FdTableActor.Command> {
    /** A message to a descriptor table. */
    public sealed interface Command {}

    /** A command answered with an {@link FdReply} (every one but {@link CopyForFork}). */
    public sealed interface Answered extends Command {
        /** {@return where the command's {@link FdReply} goes} */
        ReplyTo<FdReply> replyTo();
    }

    /**
     * Allocates the lowest free descriptor {@code >= minFd} and installs {@code file} there.
     *
     * @param file the open file; this command owns one reference to it
     * @param cloexec {@code FD_CLOEXEC}
     * @param minFd lowest acceptable descriptor (0 for open; the argument of {@code F_DUPFD})
     * @param replyTo where the {@link FdReply} goes
     * @param claim {@code null}, or the claim an asynchronous {@code open} may withdraw: the actor
     *     installs only if it claims it first, else it releases {@code file} and replies {@code
     *     EINTR} (to nobody waiting: the open's future was withdrawn)
     */
    public record Install(
            OpenFile file, boolean cloexec, int minFd, ReplyTo<FdReply> replyTo, InstallClaim claim)
            implements Answered {
        /**
         * An install nobody can withdraw.
         *
         * @param file the open file; the command owns one reference to it
         * @param cloexec whether the descriptor gets {@code FD_CLOEXEC}
         * @param minFd the lowest descriptor acceptable
         * @param replyTo where the reply goes
         */
        public Install(OpenFile file, boolean cloexec, int minFd, ReplyTo<FdReply> replyTo) {
            this(file, cloexec, minFd, replyTo, null);
        }
    }

    /**
     * Reserves the lowest free descriptor for an {@code open} that will install into it ({@code
     * get_unused_fd_flags}); see the class comment.
     *
     * @param replyTo the reply's {@code fd} is the reserved descriptor; {@code EMFILE} if none is
     *     below {@code RLIMIT_NOFILE}. A reply nobody takes undoes the reservation.
     */
    public record Reserve(ReplyTo<FdReply> replyTo) implements Answered {}

    /**
     * Installs {@code file} on descriptor {@code fd}, which a {@link Reserve} reserved for the
     * asker ({@code fd_install}), and ends the reservation.
     *
     * @param fd the reserved descriptor
     * @param file the open file; this command owns one reference to it
     * @param cloexec {@code FD_CLOEXEC}
     * @param replyTo the reply's {@code fd}; {@code EINTR} if {@code claim} was withdrawn first
     *     (the file released, the reservation ended, nothing installed); {@code EBADF} if {@code
     *     fd} was not reserved (a caller bug: the file is released)
     * @param claim {@code null}, or the claim of an asynchronous {@code open}, as for {@link
     *     Install}
     */
    public record InstallReserved(
            int fd, OpenFile file, boolean cloexec, ReplyTo<FdReply> replyTo, InstallClaim claim)
            implements Answered {}

    /**
     * Installs {@code file} on the lowest free descriptor for an {@code open} that holds a credit
     * ({@link FilesStruct#tryTakeCredit}), and ends the credit. There is always a descriptor for it
     * (the actor kept one free below {@code RLIMIT_NOFILE} for each credit it granted).
     *
     * @param file the open file; this command owns one reference to it
     * @param cloexec {@code FD_CLOEXEC}
     * @param replyTo the reply's {@code fd}; {@code EINTR} if {@code claim} was withdrawn first
     *     (the file released, the credit ended, nothing installed)
     * @param claim {@code null}, or the claim of an asynchronous {@code open}, as for {@link
     *     Install}
     */
    public record InstallClaimed(
            OpenFile file, boolean cloexec, ReplyTo<FdReply> replyTo, InstallClaim claim)
            implements Answered {}

    /**
     * Ends a reservation without installing anything ({@code put_unused_fd}): the {@code open} that
     * made it failed. No reply.
     *
     * @param fd the reserved descriptor
     */
    public record Unreserve(int fd) implements Command {}

    /**
     * Installs several files on the lowest free descriptors, all or none (the two ends of {@code
     * pipe(2)} or {@code socketpair(2)}): one message for the whole allocation.
     *
     * @param files the open files; this command owns one reference to each
     * @param replyTo the reply's {@code fds} are the descriptors, in order; {@code EMFILE} (every
     *     file released) if they do not all fit
     */
    @SuppressWarnings("ArrayRecordComponent") // a command, never compared
    public record InstallAll(OpenFile[] files, boolean cloexec, ReplyTo<FdReply> replyTo)
            implements Answered {}

    /**
     * Closes {@code fd}: removes it from the table and hands the table's reference to its open file
     * over to the asker, who must drop it with {@link #dropClosed} once the reply arrives (Linux's
     * {@code close_fd} then {@code filp_close}: the table write in the table's critical section,
     * the release of the file outside it, by the closing task). If the reply finds nobody waiting
     * (the request timed out), the actor drops it itself.
     *
     * @param fd the descriptor
     * @param replyTo where the reply goes: {@code fd} and the closed {@code file} (whose reference
     *     the receiver now owns), or {@code EBADF} if not open
     */
    public record Close(int fd, ReplyTo<FdReply> replyTo) implements Answered {}

    /**
     * Duplicates {@code oldFd} onto the lowest free descriptor {@code >= minFd} ({@code dup},
     * {@code F_DUPFD}, {@code F_DUPFD_CLOEXEC}). The new descriptor shares the open file
     * description.
     *
     * @param replyTo {@code EBADF} if {@code oldFd} is not open, {@code EMFILE} at the limit,
     *     {@code EINVAL} if {@code minFd} is negative or at the limit
     */
    public record DupFd(int oldFd, int minFd, boolean cloexec, ReplyTo<FdReply> replyTo)
            implements Answered {}

    /**
     * dup2(2)/dup3(2): makes {@code newFd} point at {@code oldFd}'s description, closing what
     * {@code newFd} held, atomically (no moment where {@code newFd} is free).
     *
     * @param dup3 whether this is {@code dup3} ({@code oldFd == newFd} is then {@code EINVAL})
     * @param replyTo {@code EBADF} if {@code oldFd} is not open or {@code newFd} is out of range;
     *     {@code EBUSY} if {@code newFd} is reserved by an {@code open} in progress
     */
    public record Dup2(
            int oldFd, int newFd, boolean cloexec, boolean dup3, ReplyTo<FdReply> replyTo)
            implements Answered {}

    /**
     * Sets or clears {@code FD_CLOEXEC} on a descriptor ({@code F_SETFD}).
     *
     * @param replyTo {@code EBADF} if not open
     */
    public record SetCloexec(int fd, boolean cloexec, ReplyTo<FdReply> replyTo)
            implements Answered {}

    /**
     * {@code close_range(2)}: closes (or, with {@code cloexecOnly}, marks close-on-exec) every open
     * descriptor in {@code [first, last]}.
     *
     * @param replyTo the reply's {@code fd} is the number of descriptors affected
     */
    public record CloseRange(int first, int last, boolean cloexecOnly, ReplyTo<FdReply> replyTo)
            implements Answered {}

    /**
     * {@code fork}: replies with a copy of the table in which every open file has one more
     * reference (the child's), taken atomically with respect to this table's changes.
     */
    public record CopyForFork(ReplyTo<FdTable> replyTo) implements Command {}

    /**
     * {@code execve}: closes every close-on-exec descriptor; the reply's {@code fd} is how many.
     */
    public record CloseOnExec(ReplyTo<FdReply> replyTo) implements Answered {}

    /**
     * Closes every descriptor ({@code exit}), releasing their open files, and replies once they are
     * released. The table stays usable (it is empty).
     *
     * @param replyTo where the reply goes (its fd is the number of descriptors closed)
     */
    public record CloseAll(ReplyTo<FdReply> replyTo) implements Answered {}

    /**
     * Tells the actor that commands wait in its combining queue ({@link FilesStruct#submit}); sent
     * by the submit that found the queue idle, and by a drain that stopped at {@link #MAX_BATCH}.
     */
    enum Drain implements Command {
        /** The one instance. */
        INSTANCE
    }

    /** Commands one drain applies before it lets other actors run (a fresh {@link Drain}). */
    static final int MAX_BATCH = 256;

    /** The most credits granted at once (pooled plus held by opens in progress). */
    static final int CREDIT_POOL = 16;

    private static final Logger LOG = LoggerFactory.getLogger(FdTableActor.class);

    private final FilesStruct files;

    /** This actor's reference, kept at setup: drains tell through it from any thread. */
    private final ActorRef<Command> self;

    /**
     * The calling-thread executor this actor runs on, on which an idle submit runs its inline
     * drain; {@code null} (another dispatcher, a test kit): every drain is a message.
     */
    private final CallingThreadExecutor executor;

    /** The inline drain of a {@link Drain}'s work (no first command), one object for every run. */
    private final Runnable inlineDrain = () -> drainInline(null);

    /** Descriptors reserved by opens in progress; this actor's own state, never shared. */
    private final BitSet reserved = new BitSet();

    /** {@code reserved.cardinality()}. */
    private int namedReserved;

    /** Credits granted and not yet installed: in the pool, or held by opens in progress. */
    private int granted;

    /** Commands applied in the current batch. */
    private int batchSize;

    /** The batch's working table: the published one plus the batch's changes so far. */
    private FdTable working;

    /**
     * What the batch's handlers deferred until it is published, in order: entry {@code i} is a
     * reply ({@code afterTo[i]} a {@link ReplyTo}, {@code afterMsg[i]} the reply) or an action
     * ({@code afterTo[i]} a {@link Runnable}); parallel arrays, so a plain reply allocates nothing.
     */
    private Object[] afterTo = new Object[16];

    private Object[] afterMsg = new Object[16];
    private int afterCount;

    /** The batch's claimed installs and their descriptors, recorded right after publication. */
    private InstallClaim[] claims = new InstallClaim[8];

    private int[] claimFds = new int[8];
    private int claimCount;

    private FdTableActor(ActorContext<Command> ctx, FilesStruct files) {
        this.files = files;
        this.self = ctx.getSelf();
        this.executor = CallingThreadExecutor.current();
        topUpCredits(files.tableAcquire());
        files.attachDrainer(this);
    }

    /**
     * Runs a drain on this actor's calling-thread executor for the submit that found the queue idle
     * and so holds the drain token ({@link FilesStruct#submit}): on the submitting thread, or after
     * the task already running there (trampolined), never nested in another drain. The actor's own
     * code, with no Pekko message and no mailbox.
     *
     * @param first the idle submit's command, or {@code null} if it is queued (a {@link Drain}'s
     *     work)
     * @return {@code false} if there is no such executor or it refused the task (shut down): the
     *     caller tells the actor instead
     */
    boolean runInline(Command first) {
        CallingThreadExecutor ex = executor;
        if (ex == null) {
            return false;
        }
        try {
            ex.execute(first == null ? inlineDrain : () -> drainInline(first));
            return true;
        } catch (RejectedExecutionException shutDown) {
            return false;
        }
    }

    /** The inline drain: {@link #drain}, guarded so that an unexpected failure keeps the token. */
    private void drainInline(Command first) {
        try {
            drain(first);
        } catch (RuntimeException | Error e) {
            LOG.error("descriptor table: inline drain failed: {}", e.toString());
            self.tell(Drain.INSTANCE); // the actor finishes what is queued
        }
    }

    /**
     * {@return the behavior of the actor owning {@code files}} A handler that throws is logged and
     * the actor goes on with its state (what {@code SupervisorStrategy.resume()} gave), without a
     * supervising interceptor on every message.
     *
     * @param files the descriptor table holder the actor publishes into
     */
    public static Behavior<Command> create(FilesStruct files) {
        return OutOfMemoryGuard.guard(Behaviors.setup(ctx -> new FdTableActor(ctx, files)));
    }

    /**
     * Dispatches one command: a type test per command kind, the frequent ones first, where a built
     * {@code Receive} walks a list of cases through a supervising interceptor.
     */
    @Override
    public Behavior<Command> receive(TypedActorContext<Command> ctx, Command m) {
        return drain(m instanceof Drain ? null : m);
    }

    /**
     * Applies {@code first} (a command sent directly, or {@code null} for a {@link Drain}), then
     * drains the combining queue ({@link FilesStruct#submit}): every command waiting is applied to
     * the working table, in order; the batch is published once and then answered, and commands sent
     * meanwhile (often by the answered callers' own dependent stages) join the next round of this
     * same drain. After {@value #MAX_BATCH} commands the drain hands the rest to a fresh {@link
     * Drain}, so other actors get their turn. The queue's in-progress count ({@code wip}) follows
     * the usual drain loop: a submit that raised it from 0 sent the {@link Drain}; a drain ends
     * only when it has accounted for every submit it saw (so a command is never left behind
     * unannounced).
     */
    private Behavior<Command> drain(Command first) {
        // A command sent directly (FilesStruct.submit found the queue idle) counts for 1.
        int missed = first == null ? files.commandsPending() : 1;
        int done = 0;
        if (first != null) {
            beginBatch();
            apply(first);
            done++;
            endBatch();
            int left = files.commandsAccounted(missed);
            missed = left & ~FilesStruct.CLOSED;
            if (missed == 0) {
                return released(left);
            }
        }
        while (true) {
            beginBatch();
            Command c;
            while ((c = files.pollCommand()) != null) {
                apply(c);
                if (++done >= MAX_BATCH) {
                    endBatch();
                    self.tell(Drain.INSTANCE);
                    return this;
                }
            }
            endBatch();
            int left = files.commandsAccounted(missed);
            missed = left & ~FilesStruct.CLOSED;
            if (missed == 0) {
                return released(left);
            }
        }
    }

    /**
     * The drain gave the token back: if the actor stopped meanwhile (its stop found this drain
     * running and left the clean-up to it), clean up now.
     */
    private Behavior<Command> released(int left) {
        if (FilesStruct.closedWhileDraining(left)) {
            cleanUp();
        }
        return this;
    }

    /**
     * Applies one command to the working table. A handler that throws is logged and the batch goes
     * on: handlers stage their table change only as their last step.
     */
    private void apply(Command m) {
        batchSize++;
        try {
            if (m instanceof Close c) {
                onClose(c);
            } else if (m instanceof InstallAll c) {
                onInstallAll(c);
            } else if (m instanceof InstallClaimed c) {
                onInstallClaimed(c);
            } else if (m instanceof Install c) {
                onInstall(c);
            } else if (m instanceof Reserve c) {
                onReserve(c);
            } else if (m instanceof InstallReserved c) {
                onInstallReserved(c);
            } else if (m instanceof Unreserve c) {
                onUnreserve(c);
            } else if (m instanceof DupFd c) {
                onDupFd(c);
            } else if (m instanceof Dup2 c) {
                onDup2(c);
            } else if (m instanceof SetCloexec c) {
                onSetCloexec(c);
            } else if (m instanceof CloseRange c) {
                onCloseRange(c);
            } else if (m instanceof CopyForFork c) {
                onCopyForFork(c);
            } else if (m instanceof CloseOnExec c) {
                onCloseOnExec(c);
            } else if (m instanceof CloseAll c) {
                onCloseAll(c);
            }
        } catch (RuntimeException e) {
            LOG.error(
                    "descriptor table failed on {}: {}",
                    m.getClass().getSimpleName(),
                    e.toString());
        }
    }

    /** Starts a batch: the working table is the published one. */
    private void beginBatch() {
        batchSize = 0;
        working = files.tableAcquire();
    }

    /** {@return the working table: the published one with this batch's changes so far} */
    private FdTable table() {
        return working;
    }

    /** Makes {@code t} the working table; published at the end of the batch. */
    private void stage(FdTable t) {
        working = t;
    }

    /**
     * Ends a batch: publishes the working table (one release store for the whole batch), refills
     * the credit pool, records the descriptors of claimed installs, then runs what the batch's
     * handlers deferred (replies, releases of closed files), in order, each guarded.
     */
    private void endBatch() {
        FdTable t = working;
        if (t != files.tableAcquire()) {
            files.countBatch(batchSize);
            Runnable hook = files.beforePublishHook();
            if (hook != null) {
                hook.run();
            }
            files.publishRelease(t);
        }
        topUpCredits(t);
        for (int i = 0; i < claimCount; i++) {
            claims[i].installed(claimFds[i]);
            claims[i] = null;
        }
        claimCount = 0;
        for (int i = 0; i < afterCount; i++) {
            Object to = afterTo[i];
            Object msg = afterMsg[i];
            afterTo[i] = null;
            afterMsg[i] = null;
            try {
                if (to instanceof Runnable action) {
                    action.run();
                } else {
                    tellReply(to, msg);
                }
            } catch (RuntimeException e) {
                LOG.error("descriptor table reply failed: {}", e.toString());
            }
        }
        afterCount = 0;
    }

    /** Answers {@code to} with {@code r} once the batch is published. */
    private <R> void reply(ReplyTo<R> to, R r) {
        defer(to, r);
    }

    /** Runs {@code action} once the batch is published, after what was deferred before it. */
    private void later(Runnable action) {
        defer(action, null);
    }

    private void defer(Object to, Object msg) {
        if (afterCount == afterTo.length) {
            afterTo = Arrays.copyOf(afterTo, afterCount * 2);
            afterMsg = Arrays.copyOf(afterMsg, afterCount * 2);
        }
        afterTo[afterCount] = to;
        afterMsg[afterCount++] = msg;
    }

    @SuppressWarnings("unchecked") // defer paired each ReplyTo with a reply of its own type
    private static void tellReply(Object to, Object msg) {
        ((ReplyTo<Object>) to).tell(msg);
    }

    /** Drops a closed descriptor's file ({@link #dropEntry}) once the batch is published. */
    private void dropLater(OpenFile f) {
        later(() -> dropEntry(f));
    }

    /** Records {@code fd} in {@code claim} once the batch is published. */
    private void installedLater(InstallClaim claim, int fd) {
        if (claimCount == claims.length) {
            claims = Arrays.copyOf(claims, claimCount * 2);
            claimFds = Arrays.copyOf(claimFds, claimCount * 2);
        }
        claims[claimCount] = claim;
        claimFds[claimCount++] = fd;
    }

    @Override
    public Behavior<Command> receiveSignal(TypedActorContext<Command> ctx, Signal signal) {
        if (signal instanceof PostStop) {
            return onPostStop();
        }
        return Behaviors.unhandled();
    }

    /** The lowest descriptor {@code >= min} that is neither open in {@code t} nor reserved. */
    private int lowestFree(FdTable t, int min) {
        int fd = t.lowestFree(min);
        while (reserved.get(fd)) {
            fd = t.lowestFree(fd + 1);
        }
        return fd;
    }

    private void setReserved(int fd, boolean on) {
        if (reserved.get(fd) != on) {
            reserved.set(fd, on);
            namedReserved += on ? 1 : -1;
            files.publishReserved(namedReserved);
        }
    }

    /**
     * {@return the free slots below {@code RLIMIT_NOFILE} in {@code t} that are neither reserved by
     * name nor kept for granted credits} Every descriptor is below the limit (each allocation
     * checks it), so this is a count, not a search.
     */
    private int headroom(FdTable t) {
        return files.rlimitNofile() - t.count() - namedReserved - granted;
    }

    /**
     * Whether {@code k} slots can be taken by name from {@code t}, taking the credit pool back
     * first if that is what it takes (the credits opens hold stay kept).
     */
    private boolean haveSlots(FdTable t, int k) {
        if (headroom(t) >= k) {
            return true;
        }
        int back = files.reclaimCredits();
        if (back > 0) {
            granted -= back;
            files.publishGranted(granted);
        }
        return headroom(t) >= k;
    }

    /**
     * Grants credits until {@code granted} (pooled and held) is {@link #CREDIT_POOL} or half the
     * free slots of {@code t} (the current table), whichever is less, so allocations by name near
     * the limit rarely need to take the pool back. Counts the credits in {@code granted} before it
     * adds them to the pool.
     */
    private void topUpCredits(FdTable t) {
        int free = files.rlimitNofile() - t.count() - namedReserved;
        int n = Math.min(CREDIT_POOL, free / 2) - granted;
        if (n > 0) {
            granted += n;
            files.publishGranted(granted);
            files.grantCredits(n);
        }
    }

    private void onReserve(Reserve m) {
        FdTable t = table();
        int fd = lowestFree(t, 0);
        if (fd >= files.rlimitNofile() || !haveSlots(t, 1)) {
            reply(m.replyTo(), FdReply.error(Errno.EMFILE));
            return;
        }
        setReserved(fd, true);
        later(
                () -> {
                    if (!m.replyTo().tryTell(FdReply.ok(fd, null))) {
                        setReserved(fd, false);
                    }
                });
    }

    private void onInstallReserved(InstallReserved m) {
        if (!reserved.get(m.fd())) {
            LOG.error("install into descriptor {}, which is not reserved", m.fd());
            m.file().release();
            reply(m.replyTo(), FdReply.error(Errno.EBADF));
            return;
        }
        setReserved(m.fd(), false);
        if (m.claim() != null && !m.claim().tryBeginInstall()) {
            m.file().release();
            reply(m.replyTo(), FdReply.error(Errno.EINTR));
            return;
        }
        stage(table().with(m.fd(), new FdTable.Entry(m.file(), m.cloexec())));
        if (m.claim() != null) {
            m.claim().installed(m.fd());
        }
        reply(m.replyTo(), FdReply.ok(m.fd(), m.file()));
    }

    private void onInstallClaimed(InstallClaimed m) {
        granted--;
        files.publishGranted(granted);
        FdTable t = table();
        if (m.claim() != null && !m.claim().tryBeginInstall()) {
            m.file().release();
            reply(m.replyTo(), FdReply.error(Errno.EINTR));
            return;
        }
        int fd = lowestFree(t, 0);
        if (fd >= files.rlimitNofile()) {
            // Cannot happen while the credits invariant holds (a free slot was kept for this one).
            LOG.error("no descriptor kept for a granted credit");
            m.file().release();
            reply(m.replyTo(), FdReply.error(Errno.EMFILE));
            return;
        }
        FdTable next = t.with(fd, new FdTable.Entry(m.file(), m.cloexec()));
        stage(next);
        if (m.claim() != null) {
            installedLater(m.claim(), fd);
        }
        reply(m.replyTo(), FdReply.ok(fd, m.file()));
    }

    private void onUnreserve(Unreserve m) {
        if (reserved.get(m.fd())) {
            setReserved(m.fd(), false);
        }
    }

    private void onInstall(Install m) {
        FdTable t = table();
        int fd = lowestFree(t, Math.max(0, m.minFd()));
        if (fd >= files.rlimitNofile() || !haveSlots(t, 1)) {
            m.file().release();
            reply(m.replyTo(), FdReply.error(Errno.EMFILE));
            return;
        }
        if (m.claim() != null && !m.claim().tryBeginInstall()) {
            m.file().release();
            reply(m.replyTo(), FdReply.error(Errno.EINTR));
            return;
        }
        stage(t.with(fd, new FdTable.Entry(m.file(), m.cloexec())));
        if (m.claim() != null) {
            installedLater(m.claim(), fd);
        }
        reply(m.replyTo(), FdReply.ok(fd, m.file()));
    }

    private void onInstallAll(InstallAll m) {
        FdTable t = table();
        int[] fds = new int[m.files().length];
        FdTable next = t;
        boolean fits = haveSlots(t, fds.length);
        for (int i = 0; i < fds.length; i++) {
            int fd = lowestFree(next, 0);
            if (!fits || fd >= files.rlimitNofile()) {
                for (OpenFile f : m.files()) {
                    f.release();
                }
                reply(m.replyTo(), FdReply.error(Errno.EMFILE));
                return;
            }
            fds[i] = fd;
            next = next.with(fd, new FdTable.Entry(m.files()[i], m.cloexec()));
        }
        stage(next);
        reply(m.replyTo(), FdReply.okAll(fds));
    }

    private void onClose(Close m) {
        FdTable t = table();
        FdTable.Entry e = t.get(m.fd());
        if (e == null) {
            reply(m.replyTo(), FdReply.error(Errno.EBADF));
            return;
        }
        stage(t.without(m.fd()));
        later(
                () -> {
                    if (!m.replyTo().tryTell(FdReply.ok(m.fd(), e.file()))) {
                        dropEntry(e.file());
                    }
                });
    }

    private void onDupFd(DupFd m) {
        FdTable t = table();
        FdTable.Entry e = t.get(m.oldFd());
        if (e == null) {
            reply(m.replyTo(), FdReply.error(Errno.EBADF));
            return;
        }
        if (m.minFd() < 0 || m.minFd() >= files.rlimitNofile()) {
            reply(m.replyTo(), FdReply.error(Errno.EINVAL));
            return;
        }
        int fd = lowestFree(t, m.minFd());
        if (fd >= files.rlimitNofile() || !haveSlots(t, 1)) {
            reply(m.replyTo(), FdReply.error(Errno.EMFILE));
            return;
        }
        e.file().retain();
        stage(t.with(fd, new FdTable.Entry(e.file(), m.cloexec())));
        reply(m.replyTo(), FdReply.ok(fd, e.file()));
    }

    private void onDup2(Dup2 m) {
        FdTable t = table();
        FdTable.Entry e = t.get(m.oldFd());
        if (e == null || m.newFd() < 0 || m.newFd() >= files.rlimitNofile()) {
            reply(m.replyTo(), FdReply.error(Errno.EBADF));
            return;
        }
        if (m.oldFd() == m.newFd()) {
            m.replyTo()
                    .tell(m.dup3() ? FdReply.error(Errno.EINVAL) : FdReply.ok(m.newFd(), e.file()));
            return;
        }
        if (reserved.get(m.newFd())) {
            // do_dup2: a descriptor claimed in the bitmap but not yet installed is EBUSY.
            reply(m.replyTo(), FdReply.error(Errno.EBUSY));
            return;
        }
        FdTable.Entry previous = t.get(m.newFd());
        if (previous == null && !haveSlots(t, 1)) {
            // Every free slot is held by an open in progress (a credit): do_dup2's EBUSY.
            reply(m.replyTo(), FdReply.error(Errno.EBUSY));
            return;
        }
        e.file().retain();
        stage(t.with(m.newFd(), new FdTable.Entry(e.file(), m.cloexec())));
        if (previous != null) {
            dropLater(previous.file());
        }
        reply(m.replyTo(), FdReply.ok(m.newFd(), e.file()));
    }

    private void onSetCloexec(SetCloexec m) {
        FdTable t = table();
        FdTable.Entry e = t.get(m.fd());
        if (e == null) {
            reply(m.replyTo(), FdReply.error(Errno.EBADF));
            return;
        }
        if (e.cloexec() != m.cloexec()) {
            stage(t.with(m.fd(), new FdTable.Entry(e.file(), m.cloexec())));
        }
        reply(m.replyTo(), FdReply.ok(m.fd(), e.file()));
    }

    private void onCloseRange(CloseRange m) {
        // Both bounds are unsigned ints, as close_range(2) takes them.
        if (Integer.compareUnsigned(m.first(), m.last()) > 0) {
            reply(m.replyTo(), FdReply.error(Errno.EINVAL));
            return;
        }
        FdTable t = table();
        FdTable next = t;
        List<OpenFile> released = new ArrayList<>();
        int affected = 0;
        for (int fd : t.openFds()) {
            if (Integer.compareUnsigned(fd, m.first()) < 0
                    || Integer.compareUnsigned(fd, m.last()) > 0) {
                continue;
            }
            FdTable.Entry e = t.get(fd);
            affected++;
            if (m.cloexecOnly()) {
                next = next.with(fd, new FdTable.Entry(e.file(), true));
            } else {
                next = next.without(fd);
                released.add(e.file());
            }
        }
        stage(next);
        for (OpenFile f : released) {
            dropLater(f);
        }
        reply(m.replyTo(), FdReply.ok(affected, null));
    }

    private void onCopyForFork(CopyForFork m) {
        FdTable t = table();
        for (int fd : t.openFds()) {
            t.get(fd).file().retain();
        }
        reply(m.replyTo(), t);
    }

    private void onCloseOnExec(CloseOnExec m) {
        FdTable t = table();
        FdTable next = t;
        List<OpenFile> released = new ArrayList<>();
        for (int fd : t.openFds()) {
            FdTable.Entry e = t.get(fd);
            if (e.cloexec()) {
                next = next.without(fd);
                released.add(e.file());
            }
        }
        stage(next);
        for (OpenFile f : released) {
            dropLater(f);
        }
        reply(m.replyTo(), FdReply.ok(released.size(), null));
    }

    private void onCloseAll(CloseAll m) {
        FdTable t = table();
        for (int fd : t.openFds()) {
            dropLater(t.get(fd).file());
        }
        stage(FdTable.empty());
        reply(m.replyTo(), FdReply.ok(t.count(), null));
    }

    /**
     * Drops the reference a closed descriptor held: first the process's POSIX locks on the file
     * (POSIX: closing any descriptor of a file releases the process's locks on it), then the open
     * file (whose last release drops its flock lock and may free the inode). Called by this actor,
     * and by the asker of a {@link Close} with the file of its reply. Thread-safe (the lock context
     * and the open file's count are).
     *
     * @param files the table the descriptor was in (the POSIX locks' owner)
     * @param f the closed descriptor's open file
     * @throws RuntimeException what the file's own release code throws; the reference is dropped
     *     all the same
     */
    public static void dropClosed(FilesStruct files, OpenFile f) {
        FileLockTable locks = f.inode().fileLocksIfAny();
        if (locks != null) {
            locks.releasePosix(files);
        }
        f.release();
    }

    /** {@link #dropClosed} of this table, logging a failure of the file's release code. */
    private void dropEntry(OpenFile f) {
        try {
            dropClosed(files, f);
        } catch (RuntimeException e) {
            // A file's own release code failed (an embedder's FileOps): the descriptor is gone
            // all the same, and the table must answer its caller.
            LOG.error("release of {} failed: {}", f.inode(), e.toString());
        }
    }

    private Behavior<Command> onPostStop() {
        if (files.closeOnStop()) {
            cleanUp(); // else the drain running now cleans up when it gives the token back
        }
        return this;
    }

    /**
     * Drops every open descriptor's file, publishes the empty table and refuses what is queued: the
     * stopped table's clean-up, run once, by the holder of the drain token (see {@link
     * FilesStruct#closeOnStop}).
     */
    private void cleanUp() {
        FdTable t = files.tableAcquire();
        for (int fd : t.openFds()) {
            dropEntry(t.get(fd).file());
        }
        files.publishRelease(FdTable.empty());
        for (Command c; (c = files.pollCommand()) != null; ) {
            refuse(c);
        }
    }

    /**
     * Answers a command the stopped table will never apply: {@code EBADF}, releasing the files it
     * owned, so a late open leaks no reference.
     */
    static void refuse(Command c) {
        if (c instanceof Install m) {
            m.file().release();
        } else if (c instanceof InstallClaimed m) {
            m.file().release();
        } else if (c instanceof InstallReserved m) {
            m.file().release();
        } else if (c instanceof InstallAll m) {
            for (OpenFile f : m.files()) {
                f.release();
            }
        }
        if (c instanceof Answered m) {
            m.replyTo().tryTell(FdReply.error(Errno.EBADF));
        }
    }
}
