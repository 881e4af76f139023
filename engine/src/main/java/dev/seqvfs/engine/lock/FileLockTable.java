package dev.seqvfs.engine.lock;

import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;

/**
 * The advisory locks of one inode ({@code struct file_lock_context}): whole-file {@code flock}
 * locks owned by open file descriptions, and POSIX byte-range locks owned by processes (descriptor
 * tables).
 *
 * <h2>Semantics</h2>
 *
 * <ul>
 *   <li>{@code flock}: shared or exclusive, one per owner; a new request replaces the owner's lock
 *       (conversion is not atomic, as in Linux: the old lock is dropped first).
 *   <li>POSIX: read (shared) or write (exclusive) ranges {@code [start, end]} (inclusive, {@code
 *       end == Long.MAX_VALUE} for "to end of file"); an owner's own ranges never conflict, and
 *       setting a range splits or merges its existing ones; unlocking a range may split one. A
 *       blocking request that would wait for an owner who (through a chain of waits) waits for this
 *       owner fails with {@code EDEADLK}.
 *   <li>{@code flock} and POSIX locks do not interact (Linux).
 * </ul>
 *
 * <h2>Concurrency</h2>
 *
 * Guarded by this object's monitor; blocked callers wait on it ({@code wait}/{@code notifyAll}) and
 * are woken by every release. Waiting is interruptible ({@code EINTR}, the interrupt status left
 * set), and the instance's close wakes every waiter through its {@link Shutdown}: a woken waiter
 * fails with {@code EIO} before it looks at the locks again (a lock the close released is not
 * granted). The global "who waits for whom" map for deadlock detection is the instance's {@link
 * WaitGraph} (one per SeqVFS instance: owners of two instances never wait for each other), guarded
 * by its own monitor, taken after a table's monitor, never before (lock order: table, then graph).
 */
public final class FileLockTable {
    /** Shared lock ({@code F_RDLCK} / {@code LOCK_SH}). */
    public static final int READ = 0;

    /** Exclusive lock ({@code F_WRLCK} / {@code LOCK_EX}). */
    public static final int WRITE = 1;

    /** Unlock ({@code F_UNLCK} / {@code LOCK_UN}). */
    public static final int UNLOCK = 2;

    /**
     * For deadlock detection: POSIX owner → the owner it waits for, for every lock table of one
     * SeqVFS instance. Guarded by its own monitor. Thread-safe.
     */
    public static final class WaitGraph {
        private final IdentityHashMap<Object, Object> edges = new IdentityHashMap<>();

        /** {@return the number of waiting owners (for tests: 0 when nobody waits)} */
        public int size() {
            synchronized (edges) {
                return edges.size();
            }
        }
    }

    private final IdentityHashMap<Object, Object> waitsFor;
    private final Shutdown shutdown;

    /**
     * Creates an empty lock table whose deadlock checks use the instance's {@code graph}.
     *
     * @param graph the instance's wait-for graph
     * @param shutdown the instance's closed state, which ends every wait on this table
     */
    public FileLockTable(WaitGraph graph, Shutdown shutdown) {
        this.waitsFor = graph.edges;
        this.shutdown = shutdown;
    }

    /** One held lock. */
    public record Lock(Object owner, int type, long start, long end, int pid) {
        boolean overlaps(long s, long e) {
            return start <= e && s <= end;
        }
    }

    private final List<Lock> flocks = new ArrayList<>();
    private final List<Lock> posix = new ArrayList<>();

    /**
     * POSIX owners waiting in this table, once per waiting call; their edges are in {@link
     * #waitsFor}.
     */
    private final List<Object> posixWaiters = new ArrayList<>();

    // ---------------------------------------------------------------- flock

    /**
     * {@code flock(2)}: takes, converts or drops {@code owner}'s whole-file lock.
     *
     * @param owner the open file description
     * @param type {@link #READ}, {@link #WRITE} or {@link #UNLOCK}
     * @param wait whether to wait for a conflicting lock ({@code false}: {@code LOCK_NB})
     * @throws VfsException {@code EAGAIN} ({@code EWOULDBLOCK}) without {@code wait} on a conflict;
     *     {@code EINTR} if interrupted while waiting; {@code EIO} if the instance closed meanwhile
     */
    public synchronized void flock(Object owner, int type, boolean wait) {
        flocks.removeIf(l -> l.owner() == owner);
        notifyAll();
        if (type == UNLOCK) {
            return;
        }
        while (true) {
            Lock blocker = null;
            for (Lock l : flocks) {
                if (type == WRITE || l.type() == WRITE) {
                    blocker = l;
                    break;
                }
            }
            if (blocker == null) {
                flocks.add(new Lock(owner, type, 0, Long.MAX_VALUE, 0));
                return;
            }
            if (!wait) {
                throw new VfsException(Errno.EAGAIN, Syscall.FLOCK, null);
            }
            waitHere(Syscall.FLOCK);
        }
    }

    /**
     * Drops {@code owner}'s {@code flock} lock (last close of its open file description).
     *
     * @param owner the open file description
     */
    public synchronized void releaseFlock(Object owner) {
        if (flocks.removeIf(l -> l.owner() == owner)) {
            notifyAll();
        }
    }

    // ---------------------------------------------------------------- POSIX

    /**
     * {@code F_GETLK}: returns the first lock that would block a {@code type} lock of {@code owner}
     * on {@code [start, end]}, or {@code null} if none would.
     *
     * @param owner the process asking
     * @param type {@link #READ}, {@link #WRITE} or {@link #UNLOCK}
     * @param start the first byte of the range
     * @param end the last byte of the range (inclusive; {@code Long.MAX_VALUE}: to the end)
     * @return the blocking lock, or {@code null}
     */
    public synchronized Lock test(Object owner, int type, long start, long end) {
        return conflict(owner, type, start, end);
    }

    /**
     * {@code F_SETLK} / {@code F_SETLKW}: sets, changes or removes {@code owner}'s locks on {@code
     * [start, end]}.
     *
     * @param owner the process (its descriptor table)
     * @param pid the owner's process id, reported by {@code F_GETLK}
     * @param type {@link #READ}, {@link #WRITE} or {@link #UNLOCK}
     * @param start the first byte of the range
     * @param end the last byte of the range (inclusive; {@code Long.MAX_VALUE}: to the end)
     * @param wait whether to wait for a conflicting lock ({@code F_SETLKW})
     * @throws VfsException {@code EAGAIN} on a conflict without {@code wait}; {@code EDEADLK} if
     *     waiting would deadlock; {@code EINTR} if interrupted; {@code EIO} if the instance closed
     *     while it waited
     */
    public void setPosix(Object owner, int pid, int type, long start, long end, boolean wait) {
        synchronized (this) {
            if (type == UNLOCK) {
                carve(owner, start, end);
                forgetWaitsFor(owner);
                notifyAll();
                return;
            }
            while (true) {
                Lock blocker = conflict(owner, type, start, end);
                if (blocker == null) {
                    boolean replaced = carve(owner, start, end);
                    posix.add(new Lock(owner, type, start, end, pid));
                    mergeAdjacent(owner);
                    if (replaced) {
                        // A downgrade (or a change of type inside a range) may let waiters in.
                        forgetWaitsFor(owner);
                        notifyAll();
                    }
                    return;
                }
                if (!wait) {
                    throw new VfsException(Errno.EAGAIN, Syscall.FCNTL, null);
                }
                synchronized (waitsFor) {
                    if (wouldDeadlock(owner, blocker.owner())) {
                        throw new VfsException(Errno.EDEADLK, Syscall.FCNTL, null);
                    }
                    waitsFor.put(owner, blocker.owner());
                }
                posixWaiters.add(owner);
                try {
                    waitHere(Syscall.FCNTL);
                } finally {
                    posixWaiters.remove(owner);
                    synchronized (waitsFor) {
                        waitsFor.remove(owner);
                    }
                }
            }
        }
    }

    /**
     * Drops every POSIX lock of {@code owner} (it closed a descriptor of this file, or exited).
     *
     * @param owner the process (its descriptor table)
     */
    public synchronized void releasePosix(Object owner) {
        if (posix.removeIf(l -> l.owner() == owner)) {
            forgetWaitsFor(owner);
            notifyAll();
        }
    }

    /**
     * Takes this table's waiters that wait for {@code owner} off the wait-for graph, because {@code
     * owner}'s locks here just shrank: until they run again nobody knows that they still wait, and
     * a stale edge would make {@code owner}'s next request see a cycle that is not there. A waiter
     * still blocked puts its edge back when it re-checks (Linux's {@code locks_wake_up_blocks}
     * likewise takes waiters off the blocker). Caller holds this monitor.
     */
    private void forgetWaitsFor(Object owner) {
        if (posixWaiters.isEmpty()) {
            return;
        }
        synchronized (waitsFor) {
            for (Object w : posixWaiters) {
                if (waitsFor.get(w) == owner) {
                    waitsFor.remove(w);
                }
            }
        }
    }

    /** {@return a copy of the POSIX locks, for tests and {@code /proc/locks}} */
    public synchronized List<Lock> posixLocks() {
        return List.copyOf(posix);
    }

    private Lock conflict(Object owner, int type, long start, long end) {
        for (Lock l : posix) {
            if (l.owner() != owner
                    && l.overlaps(start, end)
                    && (type == WRITE || l.type() == WRITE)) {
                return l;
            }
        }
        return null;
    }

    /**
     * Removes {@code [start, end]} from {@code owner}'s ranges, splitting where needed.
     *
     * @return whether any of {@code owner}'s ranges overlapped it
     */
    private boolean carve(Object owner, long start, long end) {
        boolean any = false;
        List<Lock> added = new ArrayList<>();
        for (Iterator<Lock> it = posix.iterator(); it.hasNext(); ) {
            Lock l = it.next();
            if (l.owner() != owner || !l.overlaps(start, end)) {
                continue;
            }
            it.remove();
            any = true;
            if (l.start() < start) {
                added.add(new Lock(owner, l.type(), l.start(), start - 1, l.pid()));
            }
            if (l.end() > end) {
                added.add(new Lock(owner, l.type(), end + 1, l.end(), l.pid()));
            }
        }
        posix.addAll(added);
        return any;
    }

    /** Merges {@code owner}'s touching ranges of the same type. */
    @SuppressWarnings(
            "ReferenceEquality") // a != b: two entries of the list, which may be equal records
    private void mergeAdjacent(Object owner) {
        boolean merged = true;
        while (merged) {
            merged = false;
            outer:
            for (Lock a : posix) {
                if (a.owner() != owner) {
                    continue;
                }
                for (Lock b : posix) {
                    if (a != b
                            && b.owner() == owner
                            && a.type() == b.type()
                            && a.end() != Long.MAX_VALUE
                            && a.end() + 1 == b.start()) {
                        posix.remove(a);
                        posix.remove(b);
                        posix.add(new Lock(owner, a.type(), a.start(), b.end(), a.pid()));
                        merged = true;
                        break outer;
                    }
                }
            }
        }
    }

    private boolean wouldDeadlock(Object waiter, Object blocker) {
        Object cur = blocker;
        for (int hops = 0; cur != null && hops < 1000; hops++) {
            if (cur == waiter) {
                return true;
            }
            cur = waitsFor.get(cur);
        }
        return false;
    }

    /**
     * Waits on this monitor for at most a second (every caller's loop re-checks), as a waiter of
     * the instance's {@link Shutdown} for the time it waits. Caller holds the monitor, from the
     * registration to the wait, so the close's {@code notifyAll} cannot be lost.
     *
     * @throws VfsException {@code EIO} if the instance is shut down, before the wait or when it
     *     wakes; {@code EINTR} if the thread is interrupted (its interrupt status is set again)
     */
    private void waitHere(Syscall op) {
        shutdown.awaitOn(this, 1000, op);
    }
}
