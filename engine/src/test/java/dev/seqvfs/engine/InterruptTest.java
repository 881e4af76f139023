package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Poll;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link Thread#interrupt()} (SeqVFS's signal) does to a call, as the {@link VfsTask} class
 * comment states it: a wait for another party (pipe, FIFO, socket, eventfd, lock, {@code poll})
 * fails with {@code EINTR} having changed nothing, but for a pipe write that wrote some bytes (it
 * returns their count, as {@code pipe_write}); a wait for an actor's answer is not interruptible
 * and returns the answer; in every case the thread's interrupt status is still set afterwards, and
 * an interrupt already pending fails at once a call that has to wait, and no call that need not.
 * Before this rule {@code poll} cleared the status, a pipe write interrupted after 64 KiB reported
 * {@code EINTR}, and {@code mkdir} failed with {@code EINTR} though its directory's actor went on
 * to make the directory.
 *
 * <pre>
 * /f      regular file
 * /fifo   FIFO
 * </pre>
 */
@Timeout(60)
class InterruptTest {
    private static final String PIPE = "dev.seqvfs.engine.pipe.Pipe";
    private static final String LOCKS = "dev.seqvfs.engine.lock.FileLockTable";

    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"));
        t = vfs.newTask(Credentials.ROOT);
        t.close(t.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644));
        t.mknod("/fifo", Mode.S_IFIFO | 0644, 0);
    }

    @AfterEach
    void down() {
        Thread.interrupted(); // a test that set the test thread's status clears it
        t.close();
        vfs.close();
    }

    /** Interrupts a parked call and asserts it failed with EINTR naming {@code op}, status set. */
    private static void assertInterruptedWithEINTR(ParkedCall call, Syscall op, String path)
            throws InterruptedException {
        call.thread().interrupt();
        call.assertFailedWith(Errno.EINTR, op, path);
        assertTrue(call.interruptedAtEnd().get(), "the interrupt status was cleared");
    }

    private static Errno errno(Runnable r) {
        return assertThrows(VfsException.class, r::run).errno();
    }

    private static Callable<Object> run(Runnable r) {
        return () -> {
            r.run();
            return null;
        };
    }

    // ---------------------------------------------------------------- waits for another party

    @Test
    void pipeRead_interruptedWhileParked_failsWithEINTR_andTakesNothing() throws Exception {
        int[] p = t.pipe();
        ParkedCall read = ParkedCall.park(() -> t.read(p[0], new byte[8], 0, 8), PIPE);
        assertInterruptedWithEINTR(read, Syscall.READ, null);
        t.write(p[1], new byte[] {7});
        byte[] b = new byte[8];
        assertEquals(1, t.read(p[0], b, 0, 8));
        assertEquals(7, b[0]);
    }

    @Test
    void pipeWrite_interruptedOnAFullPipeBeforeWritingAny_failsWithEINTR() throws Exception {
        int[] p = t.pipe();
        t.write(p[1], new byte[65536]);
        ParkedCall write = ParkedCall.park(() -> t.write(p[1], new byte[1]), PIPE);
        assertInterruptedWithEINTR(write, Syscall.WRITE, null);
        assertEquals(65536, t.read(p[0], new byte[70_000], 0, 70_000));
    }

    @Test
    void pipeWrite_interruptedAfterWritingSome_returnsTheirCount_withTheStatusSet()
            throws Exception {
        int[] p = t.pipe();
        // more than the pipe holds and more than PIPE_BUF: 65536 bytes go in, then it parks
        ParkedCall write = ParkedCall.park(() -> t.write(p[1], new byte[65536 + 100]), PIPE);
        write.thread().interrupt();
        assertEquals(65536, write.end());
        assertTrue(write.interruptedAtEnd().get(), "the interrupt status was cleared");
        assertEquals(65536, t.read(p[0], new byte[70_000], 0, 70_000));
    }

    @Test
    void fifoOpen_interruptedWhileWaitingForAWriter_failsWithEINTR_andCountsNoReader()
            throws Exception {
        ParkedCall open = ParkedCall.park(() -> t.open("/fifo", OpenFlags.O_RDONLY), PIPE);
        assertInterruptedWithEINTR(open, Syscall.OPEN, "/fifo");
        assertEquals(
                Errno.ENXIO,
                errno(() -> t.open("/fifo", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK)));
    }

    @Test
    void datagramSocketRead_interruptedWhileParked_failsWithEINTR() throws Exception {
        int[] s = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_SEQPACKET, 0);
        ParkedCall read =
                ParkedCall.park(
                        () -> t.read(s[0], new byte[8], 0, 8), "dev.seqvfs.engine.anon.DgramQueue");
        assertInterruptedWithEINTR(read, Syscall.READ, null);
        t.write(s[1], new byte[] {1, 2});
        assertEquals(2, t.read(s[0], new byte[8], 0, 8));
    }

    @Test
    void eventfdRead_interruptedWhileParked_failsWithEINTR_andTakesNothing() throws Exception {
        int efd = t.eventfd(0, 0);
        ParkedCall read =
                ParkedCall.park(
                        () -> t.read(efd, new byte[8], 0, 8), "dev.seqvfs.engine.anon.EventFd");
        assertInterruptedWithEINTR(read, Syscall.READ, null);
        t.write(efd, new byte[] {5, 0, 0, 0, 0, 0, 0, 0});
        byte[] b = new byte[8];
        assertEquals(8, t.read(efd, b, 0, 8));
        assertEquals(5, b[0]);
    }

    @Test
    void flock_interruptedWhileWaiting_failsWithEINTR_andTakesNoLock() throws Exception {
        int holder = t.open("/f", OpenFlags.O_RDWR);
        int waiter = t.open("/f", OpenFlags.O_RDWR);
        t.flock(holder, Flock.LOCK_EX);
        ParkedCall lock = ParkedCall.park(run(() -> t.flock(waiter, Flock.LOCK_EX)), LOCKS);
        assertInterruptedWithEINTR(lock, Syscall.FLOCK, null);
        t.flock(holder, Flock.LOCK_UN);
        int third = t.open("/f", OpenFlags.O_RDWR);
        t.flock(third, Flock.LOCK_EX | Flock.LOCK_NB); // the interrupted waiter holds nothing
    }

    @Test
    void fcntlSetlkw_interruptedWhileWaiting_failsWithEINTR_andLeavesNoWaitForEdge()
            throws Exception {
        // t holds byte 10 and waits for other's byte 0; after the interrupt, other's wait for
        // byte 10 must not see a cycle (a stale "t waits for other" edge would say EDEADLK)
        VfsTask other = vfs.newTask(Credentials.ROOT);
        int ofd = other.open("/f", OpenFlags.O_RDWR);
        other.fcntlLock(ofd, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, 0, 0, 1, 0));
        int tfd = t.open("/f", OpenFlags.O_RDWR);
        t.fcntlLock(tfd, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, 0, 10, 1, 0));
        ParkedCall lock =
                ParkedCall.park(
                        () ->
                                t.fcntlLock(
                                        tfd, Fcntl.F_SETLKW, new Flock(Flock.F_WRLCK, 0, 0, 1, 0)),
                        LOCKS);
        assertInterruptedWithEINTR(lock, Syscall.FCNTL, null);
        ParkedCall otherWaits =
                ParkedCall.park(
                        () ->
                                other.fcntlLock(
                                        ofd, Fcntl.F_SETLKW, new Flock(Flock.F_WRLCK, 0, 10, 1, 0)),
                        LOCKS);
        t.fcntlLock(tfd, Fcntl.F_SETLK, new Flock(Flock.F_UNLCK, 0, 10, 1, 0));
        Object granted = otherWaits.end();
        assertTrue(granted instanceof Flock, String.valueOf(granted));
        other.close();
    }

    @Test
    void poll_interruptedWhileParked_failsWithEINTR_andKeepsTheInterruptStatus() throws Exception {
        int[] p = t.pipe();
        ParkedCall poll =
                ParkedCall.park(
                        () -> t.poll(new int[] {p[0]}, new int[] {Poll.POLLIN}, -1),
                        "dev.seqvfs.engine.IoCalls");
        assertInterruptedWithEINTR(poll, Syscall.POLL, null);
    }

    // ---------------------------------------------------------------- an interrupt already pending

    @Test
    void interruptPending_failsAtOnce_aCallThatHasToWait() {
        int[] p = t.pipe();
        Thread.currentThread().interrupt();
        VfsException e = assertThrows(VfsException.class, () -> t.read(p[0], new byte[8], 0, 8));
        assertEquals(Errno.EINTR, e.errno());
        assertEquals(Syscall.READ, e.operation());
        assertTrue(Thread.currentThread().isInterrupted());
        assertEquals(
                Errno.EINTR, errno(() -> t.poll(new int[] {p[0]}, new int[] {Poll.POLLIN}, -1)));
        assertTrue(Thread.interrupted());
    }

    @Test
    void interruptPending_doesNotDisturb_callsThatNeedNotWait() {
        int[] p = t.pipe();
        Thread.currentThread().interrupt();
        t.write(p[1], new byte[] {3});
        assertEquals(Poll.POLLIN, t.poll(new int[] {p[0]}, new int[] {Poll.POLLIN}, -1)[0]);
        assertEquals(1, t.read(p[0], new byte[8], 0, 8));
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.flock(fd, Flock.LOCK_EX);
        t.mkdir("/d", 0755);
        t.close(fd);
        assertTrue(Thread.interrupted());
        t.stat("/d");
    }

    // ---------------------------------------------------------------- waits for an actor

    @Test
    void mkdir_interruptedWhileWaitingForItsActor_waitsForTheAnswer_andSucceeds() throws Exception {
        try (BusyDirectory busy = new BusyDirectory(vfs, t)) {
            ParkedCall mkdir = ParkedCall.park(run(() -> t.mkdir("/d/y", 0755)), ASKER);
            mkdir.interruptAndAwaitParkedAgainIn(ASKER);
            busy.release();
            assertEquals(null, mkdir.end());
            assertTrue(mkdir.interruptedAtEnd().get(), "the interrupt status was cleared");
            t.stat("/d/y");
        }
    }

    @Test
    void mkdir_withAnInterruptPending_whileItsActorIsBusy_waitsForTheAnswer_andSucceeds()
            throws Exception {
        try (BusyDirectory busy = new BusyDirectory(vfs, t)) {
            ParkedCall mkdir =
                    ParkedCall.park(Thread::interrupt, run(() -> t.mkdir("/d/y", 0755)), ASKER);
            busy.release();
            assertEquals(null, mkdir.end());
            assertTrue(mkdir.interruptedAtEnd().get(), "the interrupt status was cleared");
            t.stat("/d/y");
        }
    }

    private static final String ASKER = "dev.seqvfs.engine.Asker";
}
