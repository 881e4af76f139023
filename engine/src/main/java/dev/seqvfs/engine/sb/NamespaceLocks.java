package dev.seqvfs.engine.sb;

import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.StampedLock;

/**
 * The two global sequence locks of a SeqVFS instance, the analogues of Linux's {@code rename_lock}
 * and {@code mount_lock} seqlocks.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@link #rename}: write-locked by a superblock's rename coordinator for the few stores that
 *       publish a cross-directory rename (two directory snapshots and the moved directory's parent
 *       link). Path walks sample it with {@code tryOptimisticRead()} and {@code validate()} it at
 *       the end; the ref-walk fallback holds its read lock.
 *   <li>{@link #mount}: write-locked by the namespace while it publishes a new mount table and sets
 *       or clears mountpoint marks; read-locked (briefly, never across a message) by {@code rmdir}
 *       and renames that must not race a mount on the directory they remove; sampled optimistically
 *       by walks.
 *   <li>{@link #publish}: the {@link PublishGate} that directory actors hold from a command's proof
 *       check to its publication, and that rename and mount writers close before they take their
 *       write locks.
 * </ul>
 *
 * Lock order: {@code publish} (the gate), then {@code rename}, then {@code mount}. No holder of any
 * ever waits for a message.
 *
 * <p>{@link #walkRetries} and {@link #refWalks} count the slow paths (striped, so the counting
 * itself does not serialize the threads that fell off the fast path).
 */
public final class NamespaceLocks {
    /** The rename sequence lock. */
    public final StampedLock rename = new StampedLock();

    /** The mount sequence lock. */
    public final StampedLock mount = new StampedLock();

    /** The directory writers' publication gate. */
    public final PublishGate publish = new PublishGate();

    /** Optimistic walks that failed validation and were retried. */
    public final LongAdder walkRetries = new LongAdder();

    /** Walks that fell back to the locked ref-walk. */
    public final LongAdder refWalks = new LongAdder();

    /**
     * Takes the mount read lock, spinning instead of parking: mount-table writers hold the write
     * lock for a handful of stores and never wait for anything, so an actor thread never waits
     * long. Release with {@code mount.unlockRead(stamp)}.
     *
     * @return the read stamp
     */
    public long mountReadLockSpin() {
        long stamp;
        while ((stamp = mount.tryReadLock()) == 0) {
            Thread.onSpinWait();
        }
        return stamp;
    }

    /**
     * Closes the gate, then takes the rename write lock (spinning), in the lock order: what a
     * publisher of a change that can fail another writer's path proof holds around its stores (a
     * cross-directory rename, a directory's change of a name bound to a directory or symbolic link,
     * a fork's cut before it takes the mount lock too). Release with {@link #reopenAfterRename}.
     *
     * @return the rename write stamp
     */
    public long closeForRename() {
        publish.close();
        long stamp;
        while ((stamp = rename.tryWriteLock()) == 0) {
            Thread.onSpinWait();
        }
        return stamp;
    }

    /**
     * Undoes {@link #closeForRename}: releases the rename write lock, then opens the gate.
     *
     * @param stamp what {@link #closeForRename} returned
     */
    public void reopenAfterRename(long stamp) {
        rename.unlockWrite(stamp);
        publish.open();
    }
}
