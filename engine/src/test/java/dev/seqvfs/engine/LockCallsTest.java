package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Advisory locks: {@code flock(2)} (per open file description, dropped at its last close) and
 * {@code fcntl(2)} record locks (per process, dropped when it closes any descriptor of the file),
 * conflicts, {@code F_GETLK}, splitting, waiting and {@code EDEADLK}.
 */
class LockCallsTest {
    SeqVfs vfs;
    VfsTask a;
    VfsTask b;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create();
        a = vfs.newTask(Credentials.ROOT);
        b = vfs.newTask(Credentials.ROOT);
        a.close(a.open("/f", O_CREAT | O_RDWR, 0644));
    }

    @AfterEach
    void down() {
        a.close();
        b.close();
        vfs.close();
    }

    private static Errno errno(Runnable r) {
        return assertThrows(VfsException.class, r::run).errno();
    }

    @Test
    void flock_exclusiveConflictsAcrossDescriptions_andDupSharesItUntilTheLastClose() {
        int fa = a.open("/f", O_RDWR);
        int fb = b.open("/f", O_RDWR);
        a.flock(fa, Flock.LOCK_EX);
        assertEquals(Errno.EAGAIN, errno(() -> b.flock(fb, Flock.LOCK_EX | Flock.LOCK_NB)));
        assertEquals(Errno.EAGAIN, errno(() -> b.flock(fb, Flock.LOCK_SH | Flock.LOCK_NB)));
        int dup = a.dup(fa);
        a.close(fa);
        assertEquals(Errno.EAGAIN, errno(() -> b.flock(fb, Flock.LOCK_SH | Flock.LOCK_NB)));
        a.close(dup);
        b.flock(fb, Flock.LOCK_SH | Flock.LOCK_NB);
        int fa2 = a.open("/f", O_RDONLY);
        a.flock(fa2, Flock.LOCK_SH | Flock.LOCK_NB);
        assertEquals(Errno.EINVAL, errno(() -> a.flock(fa2, 3)));
        a.close(fa2);
        b.close(fb);
    }

    @Test
    void posix_conflictGetlkAndSplit() {
        int fa = a.open("/f", O_RDWR);
        int fb = b.open("/f", O_RDWR);
        a.fcntlLock(fa, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 0, 100));
        assertEquals(
                Errno.EAGAIN,
                errno(() -> b.fcntlLock(fb, Fcntl.F_SETLK, Flock.of(Flock.F_RDLCK, 50, 10))));
        Flock blocking = b.fcntlLock(fb, Fcntl.F_GETLK, Flock.of(Flock.F_RDLCK, 50, 10));
        assertEquals(Flock.F_WRLCK, blocking.type());
        assertEquals(0, blocking.start());
        assertEquals(100, blocking.len());
        assertEquals(a.pid(), blocking.pid());
        b.fcntlLock(fb, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 100, 100));
        a.fcntlLock(fa, Fcntl.F_SETLK, Flock.of(Flock.F_UNLCK, 40, 20));
        assertEquals(
                Flock.F_UNLCK,
                b.fcntlLock(fb, Fcntl.F_GETLK, Flock.of(Flock.F_WRLCK, 45, 5)).type());
        assertEquals(
                Flock.F_WRLCK,
                b.fcntlLock(fb, Fcntl.F_GETLK, Flock.of(Flock.F_WRLCK, 30, 5)).type());
        assertEquals(
                Flock.F_WRLCK,
                b.fcntlLock(fb, Fcntl.F_GETLK, Flock.of(Flock.F_WRLCK, 65, 5)).type());
        a.close(fa);
        b.close(fb);
    }

    @Test
    void posix_closingAnyDescriptorOfTheFile_releasesTheProcessLocks() {
        int fa = a.open("/f", O_RDWR);
        int other = a.open("/f", O_RDONLY);
        int fb = b.open("/f", O_RDWR);
        a.fcntlLock(fa, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 0, 0));
        assertEquals(
                Errno.EAGAIN,
                errno(() -> b.fcntlLock(fb, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 5, 1))));
        a.close(other);
        b.fcntlLock(fb, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 5, 1));
        a.close(fa);
        b.close(fb);
    }

    @Test
    void posix_lockTypeMustMatchAccessMode_andBadArgumentsFail() {
        int ro = a.open("/f", O_RDONLY);
        assertEquals(
                Errno.EBADF,
                errno(() -> a.fcntlLock(ro, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 0, 1))));
        assertEquals(Errno.EINVAL, errno(() -> a.fcntlLock(ro, Fcntl.F_SETLK, Flock.of(7, 0, 1))));
        assertEquals(
                Errno.EINVAL,
                errno(() -> a.fcntlLock(ro, Fcntl.F_SETLK, new Flock(Flock.F_RDLCK, 9, 0, 1, 0))));
        assertEquals(
                Errno.EINVAL,
                errno(() -> a.fcntlLock(ro, Fcntl.F_SETLK, Flock.of(Flock.F_RDLCK, 5, -10))));
        assertEquals(
                Errno.EBADF,
                errno(() -> a.fcntlLock(99, Fcntl.F_SETLK, Flock.of(Flock.F_RDLCK, 0, 1))));
        a.close(ro);
    }

    @Test
    void posix_waiterWakesOnRelease_andACycleOfWaitsFailsWithEDEADLK() throws Exception {
        int fa = a.open("/f", O_RDWR);
        int fb = b.open("/f", O_RDWR);
        a.fcntlLock(fa, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 0, 10));
        b.fcntlLock(fb, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 20, 10));
        CompletableFuture<Void> bGot = new CompletableFuture<>();
        Thread bThread =
                new Thread(
                        () -> {
                            try {
                                b.fcntlLock(fb, Fcntl.F_SETLKW, Flock.of(Flock.F_WRLCK, 0, 10));
                                bGot.complete(null);
                            } catch (Throwable e) {
                                bGot.completeExceptionally(e);
                            }
                        });
        bThread.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (bThread.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        // b now waits for a; a waiting for b would close the cycle.
        assertEquals(
                Errno.EDEADLK,
                errno(() -> a.fcntlLock(fa, Fcntl.F_SETLKW, Flock.of(Flock.F_WRLCK, 20, 10))));
        a.fcntlLock(fa, Fcntl.F_SETLK, Flock.of(Flock.F_UNLCK, 0, 10));
        bGot.get(10, TimeUnit.SECONDS);
        assertTrue(bGot.isDone() && !bGot.isCompletedExceptionally());
        a.close(fa);
        b.close(fb);
    }
}
