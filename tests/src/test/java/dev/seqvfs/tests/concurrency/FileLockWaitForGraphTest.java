package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The wait-for graph behind {@code EDEADLK} of {@code fcntl(2)} {@code F_SETLKW}: when a lock
 * holder's ranges shrink, the waiters it blocked are no longer known to wait for it, so its next
 * blocking request does not see a cycle through them (POSIX: {@code EDEADLK} only if waiting "would
 * cause a deadlock"; Linux takes waiters off the blocker in {@code locks_wake_up_blocks}).
 *
 * <p>Each case is deterministic: the test thread holds the lock table's monitor (its documented
 * guard) while the old blocker acts, so the woken waiter cannot run in between. Found by {@link
 * FileLockConcurrencyTest}.
 */
class FileLockWaitForGraphTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    /**
     * Regression: a waiter stayed in the wait-for graph after its blocker released the range, until
     * the waiter's own thread ran again; a request by the old blocker in that window found the
     * stale edge and failed with {@code EDEADLK}, though the waiter was no longer blocked ({@link
     * FileLockConcurrencyTest} saw it with a worker that held no lock at all).
     *
     * <pre>
     * /f  a holds [0,9], waits for [10,19] held by b; b unlocks [10,19]
     * /g  a holds [0,9]; b asks F_SETLKW [0,9] before a has run again
     * </pre>
     *
     * The test thread holds /f's lock-table monitor (the table's documented guard) while b unlocks
     * and asks, so that a, woken, cannot run in between: b must then simply wait for a, and get
     * /g's range once a lets it go.
     */
    @Test
    void setlkw_byTheOldBlockerBeforeTheWokenWaiterRuns_waitsInsteadOfEDEADLK() throws Exception {
        raceAfterTheChange(
                Flock.of(Flock.F_WRLCK, 0, 10),
                Flock.of(Flock.F_WRLCK, 10, 10),
                Flock.of(Flock.F_WRLCK, 10, 10),
                Flock.of(Flock.F_UNLCK, 10, 10));
    }

    /**
     * Regression: a downgrade (a write lock replaced by a read lock on the same range) let waiting
     * readers in without waking them (they slept until their 1 s poll) and left them in the
     * wait-for graph, so the downgrader's next blocking request failed with {@code EDEADLK} though
     * nobody waited for it any more.
     *
     * <pre>
     * /f  b holds a write lock on [0,9]; a waits for a read lock on it; b downgrades to read
     * /g  a holds [0,9]; b asks F_SETLKW [0,9] while a has not run yet
     * </pre>
     *
     * As above, the test thread holds /f's lock-table monitor while b downgrades and asks. The
     * missing wake-up is checked here only as liveness (it cost a waiter its 1 s poll, not a hang);
     * the stale edge fails the test.
     */
    @Test
    void setlkw_byADowngraderBeforeTheUnblockedReaderRuns_waitsInsteadOfEDEADLK() throws Exception {
        raceAfterTheChange(
                null,
                Flock.of(Flock.F_WRLCK, 0, 10),
                Flock.of(Flock.F_RDLCK, 0, 10),
                Flock.of(Flock.F_RDLCK, 0, 10));
    }

    /**
     * The race both tests set up. a holds /g [0,9] (and {@code aHoldsOnF} on /f, if any); b holds
     * {@code bHoldsOnF}; a waits (F_SETLKW) for {@code aWaitsOnF}; then, while this thread holds
     * /f's lock-table monitor so that a, now grantable, cannot run, b sets {@code bSetsOnF} and a
     * second thread of b asks F_SETLKW for /g [0,9]. That request must wait for a (not fail with
     * EDEADLK), and get the range once a has run and let /g go.
     */
    private void raceAfterTheChange(
            Flock aHoldsOnF, Flock bHoldsOnF, Flock aWaitsOnF, Flock bSetsOnF) throws Exception {
        VfsTask root = fs.root();
        root.close(root.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0666));
        root.close(root.open("/g", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0666));
        VfsTask a = fs.vfs().newTask(Credentials.ROOT);
        VfsTask b = fs.vfs().newTask(Credentials.ROOT);
        int af = a.open("/f", OpenFlags.O_RDWR);
        int ag = a.open("/g", OpenFlags.O_RDWR);
        int bf = b.open("/f", OpenFlags.O_RDWR);
        int bg = b.open("/g", OpenFlags.O_RDWR);
        if (aHoldsOnF != null) {
            a.fcntlLock(af, Fcntl.F_SETLK, aHoldsOnF);
        }
        a.fcntlLock(ag, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 0, 10));
        b.fcntlLock(bf, Fcntl.F_SETLK, bHoldsOnF);
        Object fLocks =
                EngineInternals.namespace(fs.vfs())
                        .rootMount()
                        .root()
                        .snapshotAcquire()
                        .lookup("f")
                        .inode()
                        .fileLocksIfAny();
        VfsTask b2 = b.newThread();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Thread[] aThread = new Thread[1];
            Future<?> aGot =
                    pool.submit(
                            () -> {
                                aThread[0] = Thread.currentThread();
                                a.fcntlLock(af, Fcntl.F_SETLKW, aWaitsOnF);
                                return null;
                            });
            awaitState(aThread, Thread.State.TIMED_WAITING);
            Future<?> bGot;
            Thread[] bThread = new Thread[1];
            synchronized (fLocks) {
                b.fcntlLock(bf, Fcntl.F_SETLK, bSetsOnF);
                // a may now be granted, but cannot run: this thread holds /f's table.
                bGot =
                        pool.submit(
                                () -> {
                                    bThread[0] = Thread.currentThread();
                                    b2.fcntlLock(
                                            bg, Fcntl.F_SETLKW, Flock.of(Flock.F_WRLCK, 0, 10));
                                    return null;
                                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!bGot.isDone()
                        && (bThread[0] == null
                                || bThread[0].getState() != Thread.State.TIMED_WAITING)
                        && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                if (bGot.isDone()) {
                    bGot.get();
                }
            }
            aGot.get(10, TimeUnit.SECONDS);
            a.fcntlLock(ag, Fcntl.F_SETLK, Flock.of(Flock.F_UNLCK, 0, 0));
            bGot.get(10, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
            a.close();
            b2.close();
            b.close();
        }
    }

    private static void awaitState(Thread[] t, Thread.State s) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((t[0] == null || t[0].getState() != s) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(s, t[0] == null ? null : t[0].getState(), "the waiter did not start waiting");
    }
}
