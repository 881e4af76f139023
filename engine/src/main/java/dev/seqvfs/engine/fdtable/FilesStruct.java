package dev.seqvfs.engine.fdtable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;

/**
 * A task's descriptor table as tasks share it ({@code struct files_struct}): the published {@link
 * FdTable} and the actor that writes it.
 *
 * <h2>Concurrency</h2>
 *
 * {@code table} is written only by its {@link FdTableActor}, with release ({@link
 * #publishRelease}); readers ({@code fget}, {@code fstat}, {@code read}) load it with acquire
 * ({@link #tableAcquire()}) and never lock or send a message. {@code actor} and {@code
 * rlimitNofile} are set once at construction ({@code actor} right after spawn, before the object is
 * shared). {@code reserved}, the number of descriptors reserved by name by opens in progress, and
 * {@code granted}, the number of unnamed reservations the actor has set aside, are written only by
 * the actor and read by {@code Fsck} (volatile); the reserved descriptors themselves are the
 * actor's private state.
 *
 * <h2>Reservation credits</h2>
 *
 * {@code credits} is the pool of unnamed reservations ({@link #tryTakeCredit}): the actor adds to
 * it ({@link #grantCredits}) and takes back what is left in it ({@link #reclaimCredits}), an {@code
 * open} takes one by CAS (never below zero) and gives it back with {@link #returnCredit} if it
 * fails before it installs. A credit is a free slot below {@code RLIMIT_NOFILE} the actor will not
 * hand to anyone else: its number is chosen when the open installs ({@code
 * FdTableActor.InstallClaimed}), so an open far from the limit reserves its descriptor without a
 * message to the actor. Invariant, kept by the actor: {@code granted} (credits in the pool plus
 * credits taken and not yet installed or given back) is at most the number of free slots below
 * {@code RLIMIT_NOFILE}. All accesses to {@code credits} are atomic read-modify-writes or volatile
 * loads.
 *
 * <h2>Combining queue</h2>
 *
 * Commands reach the actor through {@link #commands()}: {@link #submit} appends to a lock-free
 * queue ({@code ConcurrentLinkedQueue}: the append happens-before the actor's poll) and raises
 * {@code wip}, the count of submits not yet accounted for (atomic read-modify-writes); only the
 * submit that raised it from 0 sends the actor a {@code Drain}. A submit that finds {@code wip} at
 * 0 and raises it to 1 by CAS sends its command as the message itself, with no queue node: nothing
 * is queued before it (0 means every earlier submit is applied), and whatever is submitted after it
 * is queued, so the actor applies it first and then drains. The actor, in one turn, applies every
 * command it finds, publishes one table for the batch and answers the batch, then subtracts what it
 * accounted for and goes round again until {@code wip} is 0 (the drain loop of flat combining). A
 * command is therefore never left in the queue without a {@code Drain} on its way, and the actor
 * stays the only writer: the queue only changes how commands arrive.
 *
 * <h2>The drain token and inline drains</h2>
 *
 * Whoever raised {@code wip} from 0 holds the drain token until {@code wip} is back at 0: the only
 * party that runs the actor's state then. When the actor runs on a calling-thread executor ({@code
 * drainer} is set, once, by the actor at setup: release/acquire), the submit that takes the token
 * runs the drain itself on that executor ({@link FdTableActor#runInline}) instead of sending a
 * message; the actor gets a message only from a holder (a {@code Drain} after a long drain, or the
 * idle command when there is no such executor). {@link #CLOSED}, a bit of {@code wip}, is set when
 * the actor stops ({@link #closeOnStop}): later submits are refused at once ({@code EBADF}, and the
 * files they carried released), and the stop's clean-up runs exactly once, by whichever of the stop
 * and a drain running at that moment comes second ({@link #closedWhileDraining}).
 */
public final class FilesStruct {
    private static final VarHandle TABLE;
    private static final VarHandle BATCHES;
    private static final VarHandle SHARED_BATCHES;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TABLE = l.findVarHandle(FilesStruct.class, "table", FdTable.class);
            BATCHES = l.findVarHandle(FilesStruct.class, "batches", long.class);
            SHARED_BATCHES = l.findVarHandle(FilesStruct.class, "sharedBatches", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through TABLE
    private volatile FdTable table;

    private final int rlimitNofile;
    private final AtomicInteger users = new AtomicInteger(1);
    private volatile ActorRef<FdTableActor.Command> actor;
    private volatile int reserved;
    private volatile int granted;
    private final AtomicInteger credits = new AtomicInteger();
    private final ConcurrentLinkedQueue<FdTableActor.Command> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();

    /** The bit of {@code wip} that {@link #closeOnStop} sets. */
    static final int CLOSED = 1 << 30;

    /** The actor that drains inline, or {@code null}; set once by the actor at setup. */
    private volatile FdTableActor drainer;

    private final RecipientRef<FdTableActor.Command> commands = this::submit;
    private volatile Runnable beforePublish;

    @SuppressWarnings("unused") // through BATCHES: opaque stores by the actor, opaque loads
    private long batches;

    @SuppressWarnings("unused") // through SHARED_BATCHES, as batches
    private long sharedBatches;

    /**
     * Creates a table holder.
     *
     * @param initial the first table
     * @param rlimitNofile {@code RLIMIT_NOFILE}: descriptors must be below it ({@code EMFILE})
     */
    public FilesStruct(FdTable initial, int rlimitNofile) {
        TABLE.setRelease(this, initial);
        this.rlimitNofile = rlimitNofile;
    }

    /**
     * Loads the current table with acquire.
     *
     * @return the current table with acquire
     */
    public FdTable tableAcquire() {
        return (FdTable) TABLE.getAcquire(this);
    }

    /** Publishes a table with release; only the table's actor calls this. */
    void publishRelease(FdTable t) {
        TABLE.setRelease(this, t);
    }

    /**
     * {@return how many descriptors are reserved by opens in progress (volatile)} 0 on a quiet
     * table, so {@code Fsck} reports a reservation left behind.
     */
    public int reservedCount() {
        return reserved + (granted - credits.get());
    }

    /**
     * Takes one unnamed reservation from the pool the actor set aside, without a message (CAS;
     * lock-free). On success the caller holds a free slot below {@code RLIMIT_NOFILE}: it ends it
     * by installing with {@code FdTableActor.InstallClaimed} or by {@link #returnCredit}.
     *
     * @return {@code true} if a credit was taken; {@code false} if the pool is empty (reserve by
     *     message instead)
     */
    public boolean tryTakeCredit() {
        for (int c = credits.get(); c > 0; c = credits.get()) {
            if (credits.compareAndSet(c, c - 1)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Gives back a credit taken with {@link #tryTakeCredit} whose open failed before installing.
     */
    public void returnCredit() {
        credits.getAndIncrement();
    }

    /** {@return the credits in the pool now (volatile), for tests and diagnostics} */
    public int creditsAvailable() {
        return credits.get();
    }

    /**
     * Adds {@code n} credits to the pool; only the table's actor calls this, having counted them in
     * {@code granted} first.
     */
    void grantCredits(int n) {
        credits.getAndAdd(n);
    }

    /**
     * Empties the pool; only the table's actor calls this.
     *
     * @return how many credits were in it (now no longer granted)
     */
    int reclaimCredits() {
        return credits.getAndSet(0);
    }

    /** Publishes the number of granted credits (volatile); only the table's actor calls this. */
    void publishGranted(int n) {
        granted = n;
    }

    /**
     * Publishes the number of reserved descriptors (volatile); only the table's actor calls this.
     */
    void publishReserved(int n) {
        reserved = n;
    }

    /** Counts one more task sharing this table (a thread, {@code CLONE_FILES}). */
    public void retainUser() {
        if (users.getAndIncrement() <= 0) {
            users.getAndDecrement();
            throw new IllegalStateException("files struct already released");
        }
    }

    /**
     * Counts one task less.
     *
     * @return {@code true} if that was the last task: the table's actor must be stopped
     */
    public boolean releaseUser() {
        return users.decrementAndGet() == 0;
    }

    /** {@return {@code RLIMIT_NOFILE}} */
    public int rlimitNofile() {
        return rlimitNofile;
    }

    /**
     * {@return where to send this table's commands: its combining queue ({@link #submit})} Use it
     * for every command, with {@code tell} or an ask; the actor itself ({@link #actor()}) is for
     * its lifecycle only.
     */
    public RecipientRef<FdTableActor.Command> commands() {
        return commands;
    }

    /**
     * Queues {@code c} for the table's actor and, if the queue was idle, tells the actor to drain
     * it (which, on the calling-thread dispatcher, may run the actor here before this returns).
     * Lock-free; thread-safe.
     *
     * @param c the command
     */
    public void submit(FdTableActor.Command c) {
        if (wip.compareAndSet(0, 1)) {
            // Idle: this submit holds the drain token; its command goes first, with no queue
            // node, drained here (inline) or as the actor's next message.
            FdTableActor a = drainer;
            if (a == null || !a.runInline(c)) {
                actor.tell(c);
            }
            return;
        }
        if ((wip.get() & CLOSED) != 0) {
            FdTableActor.refuse(c); // the table stopped
            return;
        }
        queue.offer(c);
        int before = wip.getAndIncrement();
        if ((before & CLOSED) != 0) {
            if (queue.remove(c)) {
                FdTableActor.refuse(c);
            }
            return;
        }
        if (before == 0) {
            FdTableActor a = drainer;
            if (a == null || !a.runInline(null)) {
                actor.tell(FdTableActor.Drain.INSTANCE);
            }
        }
    }

    /**
     * Publishes the actor that drains inline (release); by the actor, once, at setup.
     *
     * @param a the table's actor
     */
    void attachDrainer(FdTableActor a) {
        drainer = a;
    }

    /**
     * Marks the table stopped (the {@link #CLOSED} bit); by the actor as it stops.
     *
     * @return whether no drain was running, so that the caller cleans up now; {@code false}: the
     *     running drain cleans up when it gives the token back ({@link #closedWhileDraining})
     */
    boolean closeOnStop() {
        int before = wip.getAndUpdate(w -> w | CLOSED);
        return (before & CLOSED) == 0 && (before & ~CLOSED) == 0;
    }

    /**
     * {@return whether the table was stopped while the drain that just gave the token back was
     * running} Then that drain cleans up.
     *
     * @param accounted what {@link #commandsAccounted} returned, its pending count 0
     */
    static boolean closedWhileDraining(int accounted) {
        return (accounted & CLOSED) != 0;
    }

    /** {@return the next queued command, or null}; the actor only. */
    FdTableActor.Command pollCommand() {
        return queue.poll();
    }

    /**
     * {@return the submits not yet accounted for (volatile)}; the actor only, as a drain starts.
     */
    int commandsPending() {
        return wip.get() & ~CLOSED;
    }

    /**
     * Accounts for {@code n} submits whose commands the actor has applied.
     *
     * @return the submits still unaccounted for, with the {@link #CLOSED} bit: 0 without it ends
     *     the drain
     */
    int commandsAccounted(int n) {
        return wip.addAndGet(-n);
    }

    /**
     * Installs a hook the table's actor runs at the end of each batch, just before it publishes
     * (tests widen the window between a batch's handlers and its publication with it); {@code null}
     * removes it. Volatile.
     *
     * @param hook what to run, on the actor's thread, or {@code null}
     */
    public void installBeforePublishHook(Runnable hook) {
        beforePublish = hook;
    }

    /** {@return the hook run before each publication, or null (volatile)} */
    Runnable beforePublishHook() {
        return beforePublish;
    }

    /**
     * Counts one published batch; only the table's actor calls this (opaque stores: a statistic,
     * not ordered with anything).
     *
     * @param commands how many commands the batch applied
     */
    void countBatch(int commands) {
        BATCHES.setOpaque(this, (long) BATCHES.getOpaque(this) + 1);
        if (commands > 1) {
            SHARED_BATCHES.setOpaque(this, (long) SHARED_BATCHES.getOpaque(this) + 1);
        }
    }

    /**
     * {@return the batches the table's actor has published, and of them those that applied more
     * than one command: {@code {batches, shared}}} Opaque loads: each count is one the actor
     * stored, the pair not a snapshot.
     */
    public long[] batchCounts() {
        return new long[] {(long) BATCHES.getOpaque(this), (long) SHARED_BATCHES.getOpaque(this)};
    }

    /** {@return the actor} */
    public ActorRef<FdTableActor.Command> actor() {
        return actor;
    }

    /**
     * Sets the actor once, before the holder is shared.
     *
     * @param ref the descriptor table's actor
     */
    public void attach(ActorRef<FdTableActor.Command> ref) {
        if (actor != null) {
            throw new IllegalStateException("files struct already attached");
        }
        actor = ref;
    }
}
