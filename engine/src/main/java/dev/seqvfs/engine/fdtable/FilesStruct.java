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
 * shared). {@code reserved}, the number of descriptors reserved by opens in progress, is written
 * only by the actor and read by {@code Fsck} (volatile); the reserved descriptors themselves are
 * the actor's private state.
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
        return reserved;
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
