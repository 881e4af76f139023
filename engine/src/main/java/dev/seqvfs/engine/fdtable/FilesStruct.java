package dev.seqvfs.engine.fdtable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;

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
 */
public final class FilesStruct {
    private static final VarHandle TABLE;

    static {
        try {
            TABLE = MethodHandles.lookup().findVarHandle(FilesStruct.class, "table", FdTable.class);
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
