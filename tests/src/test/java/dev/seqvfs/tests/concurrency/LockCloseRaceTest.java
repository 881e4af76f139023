package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lock call racing the close of its own descriptor by another thread of the task ({@code
 * fcntl(2)} record locks, {@code flock(2)}): once the close has happened, the lock must not be
 * held. POSIX locks go with any close of a descriptor of the file; a flock lock goes with its open
 * file description. Linux re-checks the descriptor after {@code F_SETLK}/{@code F_SETLKW} and drops
 * a lock taken through a descriptor closed meanwhile ({@code EBADF}, {@code fcntl_setlk}); its
 * {@code flock} holds a reference to the file, so the last close's release comes after the grant
 * and drops it. SeqVFS looks descriptors up without taking a reference, so both calls re-check
 * after the grant.
 *
 * <pre>
 * /h   q (another task) holds a lock; t's thread waits for a lock on /h through fd;
 *      t's other thread closes fd; q lets go
 * </pre>
 *
 * Waiting makes the race deterministic: the close lands between the call's look-up of the
 * descriptor and the grant. Found by random rounds of lock-versus-close (about one round in 400
 * left a POSIX lock behind).
 */
class LockCloseRaceTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    @Test
    void setlkw_descriptorClosedByAnotherThreadWhileWaiting_leavesNoLockBehind() throws Exception {
        Fixture x = new Fixture();
        x.q.fcntlLock(x.qfd, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 0, 0));
        CompletableFuture<Void> got =
                x.inThread(
                        () -> x.t2.fcntlLock(x.fd, Fcntl.F_SETLKW, Flock.of(Flock.F_WRLCK, 0, 0)));
        x.t.close(x.fd);
        x.q.fcntlLock(x.qfd, Fcntl.F_SETLK, Flock.of(Flock.F_UNLCK, 0, 0));
        x.outcome(got);
        assertEquals(
                Flock.F_UNLCK,
                x.q.fcntlLock(x.qfd, Fcntl.F_GETLK, Flock.of(Flock.F_WRLCK, 0, 0)).type(),
                "t has no descriptor of /h left, so it holds no POSIX lock on it");
        x.close();
    }

    @Test
    void flock_descriptorClosedByAnotherThreadWhileWaiting_leavesNoLockBehind() throws Exception {
        Fixture x = new Fixture();
        x.q.flock(x.qfd, Flock.LOCK_EX);
        CompletableFuture<Void> got = x.inThread(() -> x.t2.flock(x.fd, Flock.LOCK_EX));
        x.t.close(x.fd);
        x.q.flock(x.qfd, Flock.LOCK_UN);
        x.outcome(got);
        // The description is gone: nobody could ever drop a lock it held.
        x.q.flock(x.qfd, Flock.LOCK_EX | Flock.LOCK_NB);
        x.close();
    }

    /** q with /h open; t with /h open on fd, and its second thread t2 waiting in a call on fd. */
    private final class Fixture {
        final VfsTask q = fs.vfs().newTask(Credentials.ROOT);
        final VfsTask t = fs.vfs().newTask(Credentials.ROOT);
        final VfsTask t2 = t.newThread();
        final int qfd;
        final int fd;

        Fixture() {
            fs.root().close(fs.root().open("/h", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0666));
            qfd = q.open("/h", OpenFlags.O_RDWR);
            fd = t.open("/h", OpenFlags.O_RDWR);
        }

        /** Runs {@code call} in a new thread and returns once that thread waits for the lock. */
        CompletableFuture<Void> inThread(Runnable call) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Thread th =
                    new Thread(
                            () -> {
                                try {
                                    call.run();
                                    done.complete(null);
                                } catch (Throwable e) {
                                    done.completeExceptionally(e);
                                }
                            },
                            "locker");
            th.setDaemon(true);
            th.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (th.getState() != Thread.State.TIMED_WAITING
                    && !done.isDone()
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(
                    Thread.State.TIMED_WAITING, th.getState(), "the locker did not start waiting");
            return done;
        }

        /** The waiting call either failed with EBADF (after the close) or returned (before it). */
        void outcome(CompletableFuture<Void> got) throws Exception {
            try {
                got.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof VfsException v) || v.errno() != Errno.EBADF) {
                    throw e;
                }
            }
        }

        void close() {
            t2.close();
            t.close();
            q.close();
        }
    }
}
