package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Poll;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SeqVfs#close()}: every later call fails at once with {@code EIO} naming the call,
 * lock-free reads and async twins included (a newcomer found blocking calls waiting for the ask
 * timeout and async futures that never completed); closing twice, and ending a task afterwards, are
 * harmless.
 *
 * <p>A call in flight when the instance closes fails with {@code EIO} too, promptly, and leaves no
 * thread parked: one test per kind of wait, on the caller's thread (a pipe, a FIFO open, a socket,
 * an eventfd, a lock, {@code poll}, a request waiting for an actor's reply) and as an async future.
 * Before the fix a FIFO open and an eventfd read stayed parked for good, {@code F_SETLKW} returned
 * success, a pipe read returned 0, {@code poll} returned {@code POLLHUP} or {@code POLLNVAL},
 * {@code flock} failed with {@code EBADF} (async: {@code EINTR}), and futures waiting for a reply
 * failed with an {@code IllegalStateException}.
 *
 * <pre>
 * /f      regular file
 * /fifo   FIFO
 * </pre>
 */
@Timeout(60)
class SeqVfsCloseTest {
    private static final long WAIT_SECONDS = ParkedCall.WAIT_SECONDS;

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
        vfs.close();
        t.close();
    }

    private static void assertEio(Runnable call) {
        VfsException e = assertThrows(VfsException.class, call::run);
        assertEquals(Errno.EIO, e.errno());
    }

    @Test
    void callsAfterClose_failAtOnceWithEIO() {
        t.mkdir("/d", 0755);
        int fd = t.open("/d/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
        assertFalse(vfs.isClosed());
        vfs.close();
        assertTrue(vfs.isClosed());
        long start = System.nanoTime();
        assertEio(() -> t.stat("/d"));
        assertEio(() -> t.open("/d/f", OpenFlags.O_RDONLY, 0));
        assertEio(() -> t.mkdir("/z", 0755));
        assertEio(() -> t.read(fd, new byte[4], 0, 4));
        assertEio(() -> t.close(fd));
        VfsException e = assertThrows(VfsException.class, () -> vfs.newTask(Credentials.ROOT));
        assertEquals(Errno.EIO, e.errno());
        assertEquals(Syscall.NEW_TASK, e.operation());
        // far below the ask timeout (10 s): nothing waited for a reply
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
        vfs.close();
        t.close();
    }

    @Test
    void asyncTwinAfterClose_completesExceptionallyWithEIO() throws Exception {
        vfs.close();
        CompletableFuture<Void> f = t.async().mkdir("/z", 0755);
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        VfsException v = assertInstanceOf(VfsException.class, e.getCause());
        assertEquals(Errno.EIO, v.errno());
        assertEquals(Syscall.MKDIR, v.operation());
        assertEquals("/z", v.path());
        // the pool for parking async calls refuses work after close: EIO, not an exception thrown
        int fd = 0;
        CompletableFuture<Void> lock = t.async().flock(fd, Flock.LOCK_EX);
        assertEquals(Syscall.FLOCK, asyncFailure(lock).operation());
    }

    // ---------------------------------------------------------------- calls parked on the caller

    @Test
    void pipeRead_parkedWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] p = t.pipe();
        ParkedCall read =
                ParkedCall.park(
                        () -> t.read(p[0], new byte[8], 0, 8), "dev.seqvfs.engine.pipe.Pipe");
        vfs.close();
        read.assertFailedWith(Syscall.READ, null);
    }

    @Test
    void pipeWrite_parkedOnAFullPipeWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] p = t.pipe();
        t.write(p[1], new byte[65536]);
        ParkedCall write =
                ParkedCall.park(() -> t.write(p[1], new byte[1]), "dev.seqvfs.engine.pipe.Pipe");
        vfs.close();
        write.assertFailedWith(Syscall.WRITE, null);
    }

    @Test
    void fifoOpenReadOnly_waitingForAWriterWhenTheInstanceCloses_failsWithEIO() throws Exception {
        ParkedCall open =
                ParkedCall.park(
                        () -> t.open("/fifo", OpenFlags.O_RDONLY), "dev.seqvfs.engine.pipe.Pipe");
        SpecialInode fifo = fifoInode();
        vfs.close();
        open.assertFailedWith(Syscall.OPEN, "/fifo");
        assertNull(fifo.pipeIfAny(), "the failed open still holds the FIFO's pipe");
    }

    @Test
    void fifoOpenWriteOnly_waitingForAReaderWhenTheInstanceCloses_failsWithEIO() throws Exception {
        ParkedCall open =
                ParkedCall.park(
                        () -> t.open("/fifo", OpenFlags.O_WRONLY), "dev.seqvfs.engine.pipe.Pipe");
        vfs.close();
        open.assertFailedWith(Syscall.OPEN, "/fifo");
    }

    @Test
    void streamSocketRead_parkedWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] s = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
        ParkedCall read =
                ParkedCall.park(
                        () -> t.read(s[0], new byte[8], 0, 8), "dev.seqvfs.engine.pipe.Pipe");
        vfs.close();
        read.assertFailedWith(Syscall.READ, null);
    }

    @Test
    void datagramSocketRead_parkedWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] s = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_SEQPACKET, 0);
        ParkedCall read =
                ParkedCall.park(
                        () -> t.read(s[0], new byte[8], 0, 8), "dev.seqvfs.engine.anon.DgramQueue");
        vfs.close();
        read.assertFailedWith(Syscall.READ, null);
    }

    @Test
    void eventfdRead_parkedWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int efd = t.eventfd(0, 0);
        ParkedCall read =
                ParkedCall.park(
                        () -> t.read(efd, new byte[8], 0, 8), "dev.seqvfs.engine.anon.EventFd");
        vfs.close();
        read.assertFailedWith(Syscall.READ, null);
    }

    @Test
    void flock_waitingForALockWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int holder = t.open("/f", OpenFlags.O_RDWR);
        int waiter = t.open("/f", OpenFlags.O_RDWR);
        t.flock(holder, Flock.LOCK_EX);
        ParkedCall lock =
                ParkedCall.park(
                        () -> {
                            t.flock(waiter, Flock.LOCK_EX);
                            return null;
                        },
                        "dev.seqvfs.engine.lock.FileLockTable");
        vfs.close();
        lock.assertFailedWith(Syscall.FLOCK, null);
    }

    @Test
    void fcntlSetlkw_waitingForALockWhenTheInstanceCloses_failsWithEIO() throws Exception {
        VfsTask other = vfs.newTask(Credentials.ROOT);
        int holder = other.open("/f", OpenFlags.O_RDWR);
        other.fcntlLock(holder, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, 0, 0, 0, 0));
        int waiter = t.open("/f", OpenFlags.O_RDWR);
        ParkedCall lock =
                ParkedCall.park(
                        () ->
                                t.fcntlLock(
                                        waiter,
                                        Fcntl.F_SETLKW,
                                        new Flock(Flock.F_WRLCK, 0, 0, 0, 0)),
                        "dev.seqvfs.engine.lock.FileLockTable");
        vfs.close();
        lock.assertFailedWith(Syscall.FCNTL, null);
        other.close();
    }

    @Test
    void poll_withoutATimeout_parkedWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] p = t.pipe();
        ParkedCall poll =
                ParkedCall.park(
                        () -> t.poll(new int[] {p[0]}, new int[] {Poll.POLLIN}, -1),
                        "dev.seqvfs.engine.IoCalls");
        vfs.close();
        poll.assertFailedWith(Syscall.POLL, null);
    }

    @Test
    void poll_withATimeout_parkedWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] p = t.pipe();
        ParkedCall poll =
                ParkedCall.park(
                        () -> t.poll(new int[] {p[0]}, new int[] {Poll.POLLIN}, 600_000),
                        "dev.seqvfs.engine.IoCalls");
        vfs.close();
        poll.assertFailedWith(Syscall.POLL, null);
    }

    @Test
    void mkdir_waitingForABusyDirectoryActorWhenTheInstanceCloses_failsWithEIO() throws Exception {
        try (BusyDirectory busy = new BusyDirectory(vfs, t)) {
            ParkedCall mkdir =
                    ParkedCall.park(
                            () -> {
                                t.mkdir("/d/y", 0755);
                                return null;
                            },
                            "dev.seqvfs.engine.Asker");
            Thread closer = busy.closeInstance();
            mkdir.assertFailedWith(Syscall.MKDIR, "/d/y");
            busy.release();
            BusyDirectory.assertReturned(closer);
        }
    }

    // ---------------------------------------------------------------- async calls pending

    @Test
    void asyncPipeRead_pendingWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] p = t.pipe();
        CompletableFuture<Integer> read = t.async().read(p[0], new byte[8], 0, 8);
        assertFalse(read.isDone());
        vfs.close();
        assertAsyncEio(read, Syscall.READ, null);
    }

    @Test
    void asyncPipeWrite_pendingOnAFullPipeWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] p = t.pipe();
        t.write(p[1], new byte[65536]);
        CompletableFuture<Integer> write = t.async().write(p[1], new byte[1]);
        assertFalse(write.isDone());
        vfs.close();
        assertAsyncEio(write, Syscall.WRITE, null);
    }

    @Test
    void asyncFifoOpen_waitingForAWriterWhenTheInstanceCloses_failsWithEIO() throws Exception {
        CompletableFuture<Integer> open = t.async().open("/fifo", OpenFlags.O_RDONLY);
        assertFalse(open.isDone());
        SpecialInode fifo = fifoInode();
        vfs.close();
        assertAsyncEio(open, Syscall.OPEN, "/fifo");
        assertNull(fifo.pipeIfAny(), "the withdrawn open still holds the FIFO's pipe");
    }

    @Test
    void asyncDatagramSocketRead_pendingWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] s = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_SEQPACKET, 0);
        CompletableFuture<Integer> read = t.async().read(s[0], new byte[8], 0, 8);
        assertFalse(read.isDone());
        vfs.close();
        assertAsyncEio(read, Syscall.READ, null);
    }

    @Test
    void asyncEventfdRead_pendingWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int efd = t.eventfd(0, 0);
        CompletableFuture<Integer> read = t.async().read(efd, new byte[8], 0, 8);
        assertFalse(read.isDone());
        vfs.close();
        assertAsyncEio(read, Syscall.READ, null);
    }

    @Test
    void asyncFlock_waitingForALockWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int holder = t.open("/f", OpenFlags.O_RDWR);
        int waiter = t.open("/f", OpenFlags.O_RDWR);
        t.flock(holder, Flock.LOCK_EX);
        CompletableFuture<Void> lock = t.async().flock(waiter, Flock.LOCK_EX);
        awaitPoolThreadParkedIn("dev.seqvfs.engine.lock.FileLockTable");
        vfs.close();
        assertAsyncEio(lock, Syscall.FLOCK, null);
    }

    @Test
    void asyncFcntlSetlkw_waitingForALockWhenTheInstanceCloses_failsWithEIO() throws Exception {
        VfsTask other = vfs.newTask(Credentials.ROOT);
        int holder = other.open("/f", OpenFlags.O_RDWR);
        other.fcntlLock(holder, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, 0, 0, 0, 0));
        int waiter = t.open("/f", OpenFlags.O_RDWR);
        CompletableFuture<Flock> lock =
                t.async().fcntlLock(waiter, Fcntl.F_SETLKW, new Flock(Flock.F_WRLCK, 0, 0, 0, 0));
        awaitPoolThreadParkedIn("dev.seqvfs.engine.lock.FileLockTable");
        vfs.close();
        assertAsyncEio(lock, Syscall.FCNTL, null);
        other.close();
    }

    @Test
    void asyncPoll_waitingWhenTheInstanceCloses_failsWithEIO() throws Exception {
        int[] p = t.pipe();
        CompletableFuture<int[]> poll =
                t.async().poll(new int[] {p[0]}, new int[] {Poll.POLLIN}, -1);
        awaitPoolThreadParkedIn("dev.seqvfs.engine.IoCalls");
        vfs.close();
        assertAsyncEio(poll, Syscall.POLL, null);
    }

    @Test
    void asyncMkdir_waitingForABusyDirectoryActorWhenTheInstanceCloses_failsWithEIO()
            throws Exception {
        try (BusyDirectory busy = new BusyDirectory(vfs, t)) {
            CompletableFuture<Void> mkdir = t.async().mkdir("/d/y", 0755);
            assertFalse(mkdir.isDone());
            Thread closer = busy.closeInstance();
            // a VfsException naming the call, not the collector's IllegalStateException
            VfsException e = asyncFailure(mkdir);
            assertEquals(Errno.EIO, e.errno(), e.getMessage());
            assertEquals(Syscall.MKDIR, e.operation(), e.getMessage());
            assertEquals("/d/y", e.path(), e.getMessage());
            busy.release();
            BusyDirectory.assertReturned(closer);
        }
    }

    @Test
    void callsTheCloseEnds_giveBackTheFileReferenceTheyHeld() throws Exception {
        // fdget/fdput: a read parked on its thread and a pending async read each hold their
        // eventfd (which nothing but a write completes); after the close (the table's
        // references dropped, the calls failed with EIO) nothing holds either
        int parkedFd = t.eventfd(0, 0);
        int asyncFd = t.eventfd(0, 0);
        OpenFile parkedFile = t.context().fget(parkedFd, Syscall.READ);
        OpenFile asyncFile = t.context().fget(asyncFd, Syscall.READ);
        ParkedCall read =
                ParkedCall.park(
                        () -> t.read(parkedFd, new byte[8], 0, 8),
                        "dev.seqvfs.engine.anon.EventFd");
        CompletableFuture<Integer> async = t.async().read(asyncFd, new byte[8], 0, 8);
        assertEquals(2, parkedFile.refs(), "the descriptor's reference and the call's");
        assertEquals(2, asyncFile.refs(), "the descriptor's reference and the call's");
        vfs.close();
        read.assertFailedWith(Syscall.READ, null);
        assertAsyncEio(async, Syscall.READ, null);
        assertEquals(0, parkedFile.refs(), "the read the close woke kept its reference");
        assertEquals(0, asyncFile.refs(), "the async read the close failed kept its reference");
    }

    @Test
    void waitsThatEndNormally_leaveNothingRegisteredForTheClose() throws Exception {
        int[] p = t.pipe();
        ParkedCall read =
                ParkedCall.park(
                        () -> t.read(p[0], new byte[8], 0, 8), "dev.seqvfs.engine.pipe.Pipe");
        t.write(p[1], new byte[3]);
        assertEquals(3, read.end());
        CompletableFuture<Integer> async = t.async().read(p[0], new byte[8], 0, 8);
        assertFalse(async.isDone());
        t.write(p[1], new byte[2]);
        assertEquals(2, async.get(WAIT_SECONDS, TimeUnit.SECONDS));
        ParkedCall poll =
                ParkedCall.park(
                        () -> t.poll(new int[] {p[0]}, new int[] {Poll.POLLIN}, -1),
                        "dev.seqvfs.engine.IoCalls");
        t.write(p[1], new byte[1]);
        assertEquals("[1]", poll.end());
        assertEquals(0, vfs.shutdown().waiting());
    }

    // ---------------------------------------------------------------- helpers

    private SpecialInode fifoInode() {
        return (SpecialInode)
                t.context()
                        .attrs()
                        .resolve(VfsTask.AT_FDCWD, Filename.of("/fifo"), Syscall.STAT, 0, 0)
                        .inode();
    }

    /** Waits until a thread of the instance's pool for parking async calls parks in the class. */
    @SuppressWarnings("ThreadPriorityCheck") // Thread.yield between polls of a state, bounded
    private static void awaitPoolThreadParkedIn(String parkedIn) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true) {
            for (Thread th : Thread.getAllStackTraces().keySet()) {
                if (th.getName().equals("seqvfs-parked") && ParkedCall.isParkedIn(th, parkedIn)) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                fail("no pool thread parked in " + parkedIn);
            }
            Thread.yield();
        }
    }

    private static VfsException asyncFailure(CompletableFuture<?> f) throws Exception {
        try {
            Object v = f.get(WAIT_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("completed with " + v);
        } catch (ExecutionException e) {
            return assertInstanceOf(VfsException.class, e.getCause(), String.valueOf(e.getCause()));
        } catch (TimeoutException e) {
            throw new AssertionError("still pending " + WAIT_SECONDS + " s after close", e);
        }
    }

    /**
     * Asserts that {@code f} failed with {@code EIO} naming {@code op} and {@code path}, and that
     * the instance's pool for parking async calls has no thread left.
     */
    private void assertAsyncEio(CompletableFuture<?> f, Syscall op, String path) throws Exception {
        VfsException e = asyncFailure(f);
        assertEquals(Errno.EIO, e.errno(), e.getMessage());
        assertEquals(op, e.operation(), e.getMessage());
        assertEquals(path, e.path(), e.getMessage());
        assertTrue(
                ((ExecutorService) vfs.blockingExecutor())
                        .awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS),
                "a pool thread is still parked after close");
    }
}
