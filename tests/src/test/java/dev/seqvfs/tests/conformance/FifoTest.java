package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.awaitParked;
import static dev.seqvfs.tests.conformance.Io.read;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies named FIFOs made by {@code mknod(2)} as {@code fifo(7)}, {@code open(2)} and {@code
 * pipe(7)} describe them: every opener shares one pipe, attached at the first open and discarded
 * (with any data left in it) at the last close; {@code O_RDONLY} waits for a writer and {@code
 * O_WRONLY} for a reader; {@code O_RDONLY|O_NONBLOCK} opens at once (and reads end of file while no
 * writer is open), {@code O_WRONLY|O_NONBLOCK} without a reader fails with ENXIO, {@code O_RDWR}
 * never waits; access mode 3 is EINVAL; reads see end of file once every writer has closed, writes
 * fail with EPIPE once every reader has; the size stays 0; {@code lseek}, {@code pread} and {@code
 * pwrite} are ESPIPE; {@code F_GETPIPE_SZ}/{@code F_SETPIPE_SZ} work on any end. The asynchronous
 * {@code openAsync} blocks no thread: its future completes when the other side opens, and
 * cancelling that future while the open waits withdraws it (it counts as no reader or writer, holds
 * no pipe, and no descriptor is ever installed for it); a cancel that comes after the descriptor
 * was installed returns false and the future holds the descriptor.
 *
 * <p>Every value was measured on the host (Linux 6.18, a C program on {@code /dev/shm} with {@code
 * mkfifo}): {@code O_RDONLY|O_NONBLOCK} = fd, {@code read} = 0; {@code O_WRONLY|O_NONBLOCK} then =
 * fd; {@code fstat}/{@code stat} size 0; {@code lseek}/{@code pread}/{@code pwrite} ESPIPE; {@code
 * F_GETPIPE_SZ} 65536, {@code F_SETPIPE_SZ(8192)} seen through the other end; empty read EAGAIN,
 * after the writer's close 0, after a new writer's open EAGAIN again; {@code O_WRONLY|O_NONBLOCK}
 * with no reader ENXIO; data written by an {@code O_RDWR} opener and closed is gone at the next
 * open (EAGAIN, capacity back to 65536); a writer whose reader closed gets EPIPE; access mode 3
 * EINVAL; a FIFO unlinked while open still carries data.
 *
 * <p>Times (host, Linux 6.18, tmpfs {@code /dev/shm} mounted {@code relatime}; a C program that
 * {@code fstat}s between calls 20 ms apart): a {@code write} of 3 bytes to a FIFO sets its mtime
 * and ctime (atime unchanged), a {@code read} then sets atime (mtime and ctime unchanged); a second
 * read while atime is newer than mtime and ctime leaves atime ({@code relatime}); a read through an
 * {@code O_NOATIME} descriptor leaves it; a zero-length write and a read failing with EAGAIN change
 * nothing; {@code stat} of the path and {@code fstat} of the descriptor agree. An anonymous pipe
 * from {@code pipe(2)} keeps all three times of both ends through a write and a read.
 *
 * <pre>
 * /p   FIFO, 0666
 * </pre>
 */
@FileSystemContract
@Timeout(20)
class FifoTest {
    private static final long WAIT_SECONDS = 10;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void makeFifo() {
        t = fs.root();
        t.mknod("/p", Mode.S_IFIFO | 0666, 0);
    }

    private SpecialInode fifoInode() {
        return (SpecialInode)
                EngineInternals.namespace(fs.vfs())
                        .rootMount()
                        .root()
                        .snapshotAcquire()
                        .lookup("p")
                        .inode();
    }

    /** Runs {@code open} on a new thread; the reference receives its fd or its exception. */
    private Thread opener(AtomicReference<Object> result, VfsTask task, int flags) {
        Thread th =
                new Thread(
                        () -> {
                            try {
                                result.set(task.open("/p", flags));
                            } catch (RuntimeException e) {
                                result.set(e);
                            }
                        },
                        "fifo-opener");
        th.setDaemon(true);
        th.start();
        return th;
    }

    private static int fdOf(Thread th, AtomicReference<Object> result) throws InterruptedException {
        th.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertFalse(th.isAlive(), "the open did not return");
        Object r = result.get();
        if (r instanceof RuntimeException e) {
            throw e;
        }
        return (Integer) r;
    }

    // ---------------------------------------------------------------- open rules

    @Test
    void openReadOnlyNonblock_noWriter_opensAtOnce_andReadsEndOfFile() {
        int r = t.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        assertEquals(0, t.read(r, new byte[10], 0, 10));
        t.close(r);
    }

    @Test
    void openWriteOnlyNonblock_noReader_failsWithENXIO_andLeavesNoPipe() {
        assertErrno(Errno.ENXIO, () -> t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK));
        assertNull(fifoInode().pipeIfAny());
    }

    @Test
    void openWriteOnlyNonblock_withAReader_opens_andTheReaderGetsTheData() {
        int r = t.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        int w = t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK);
        assertEquals(5, write(t, w, "hello"));
        assertEquals("hello", read(t, r, 10));
        t.close(w);
        t.close(r);
    }

    @Test
    void openReadOnly_blocksUntilAWriterOpens() throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread th = opener(result, t, OpenFlags.O_RDONLY);
        awaitParked(th);
        assertNull(result.get());
        int w = t.open("/p", OpenFlags.O_WRONLY);
        int r = fdOf(th, result);
        write(t, w, "ping");
        assertEquals("ping", read(t, r, 10));
        t.close(w);
        assertEquals(0, t.read(r, new byte[4], 0, 4));
        t.close(r);
    }

    @Test
    void openWriteOnly_blocksUntilAReaderOpens() throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread th = opener(result, t, OpenFlags.O_WRONLY);
        awaitParked(th);
        assertNull(result.get());
        int r = t.open("/p", OpenFlags.O_RDONLY);
        int w = fdOf(th, result);
        write(t, w, "pong");
        assertEquals("pong", read(t, r, 10));
        t.close(r);
        t.close(w);
    }

    @Test
    void openReadOnly_interrupted_failsWithEINTR_andCountsNoReader() throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread th = opener(result, t, OpenFlags.O_RDONLY);
        awaitParked(th);
        th.interrupt();
        th.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertFalse(th.isAlive());
        assertTrue(
                result.get() instanceof VfsException e && e.errno() == Errno.EINTR,
                () -> "" + result.get());
        assertErrno(Errno.ENXIO, () -> t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK));
        assertNull(fifoInode().pipeIfAny());
    }

    @Test
    void openAsyncReadOnly_completesWhenAWriterOpens_withoutBlockingTheCaller() throws Exception {
        CompletableFuture<Integer> reader = t.async().open("/p", OpenFlags.O_RDONLY, 0);
        assertFalse(reader.isDone());
        int w = t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK);
        int r = reader.get(WAIT_SECONDS, TimeUnit.SECONDS);
        write(t, w, "async");
        assertEquals("async", read(t, r, 10));
        t.close(w);
        t.close(r);
    }

    @Test
    void openAsyncWriteOnly_completesWhenAReaderOpens() throws Exception {
        CompletableFuture<Integer> writer = t.async().open("/p", OpenFlags.O_WRONLY, 0);
        assertFalse(writer.isDone());
        int r = t.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        int w = writer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        write(t, w, "x");
        assertEquals("x", read(t, r, 10));
        t.close(w);
        t.close(r);
    }

    @Test
    void openAsyncWriteOnlyNonblock_noReader_failsWithENXIO() {
        ExecutionException e =
                assertThrows(
                        ExecutionException.class,
                        () ->
                                t.async()
                                        .open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK, 0)
                                        .get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(Errno.ENXIO, ((VfsException) e.getCause()).errno());
    }

    @Test
    void openReadWrite_neverBlocks_andIsItsOwnPartner() {
        int rw = t.open("/p", OpenFlags.O_RDWR);
        write(t, rw, "self");
        assertEquals("self", read(t, rw, 10));
        t.close(rw);
    }

    @Test
    void openAccessMode3_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.open("/p", OpenFlags.O_ACCMODE | OpenFlags.O_NONBLOCK));
        assertNull(fifoInode().pipeIfAny());
    }

    @Test
    void openCreatOfAnExistingFifo_opensItAsAFifo() {
        assertErrno(
                Errno.ENXIO,
                () ->
                        t.open(
                                "/p",
                                OpenFlags.O_CREAT | OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK,
                                0644));
        int r = t.open("/p", OpenFlags.O_CREAT | OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK, 0644);
        int w = t.open("/p", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
        write(t, w, "via creat");
        assertEquals("via creat", read(t, r, 20));
        t.close(w);
        t.close(r);
    }

    // ---------------------------------------------------------------- data, EOF, EPIPE

    @Test
    void read_afterTheLastWriterClosed_isEndOfFile_untilANewWriterOpens() {
        int r = t.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        int w = t.open("/p", OpenFlags.O_WRONLY);
        assertErrno(Errno.EAGAIN, () -> t.read(r, new byte[10], 0, 10));
        t.close(w);
        assertEquals(0, t.read(r, new byte[10], 0, 10));
        int w2 = t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK);
        assertErrno(Errno.EAGAIN, () -> t.read(r, new byte[10], 0, 10));
        t.close(w2);
        t.close(r);
    }

    @Test
    void write_afterTheLastReaderClosed_failsWithEPIPE() {
        int rw = t.open("/p", OpenFlags.O_RDWR);
        int w = t.open("/p", OpenFlags.O_WRONLY);
        t.close(rw);
        assertErrno(Errno.EPIPE, () -> t.write(w, new byte[] {'x'}, 0, 1));
        t.close(w);
    }

    @Test
    void openers_inDifferentTasks_shareOnePipe() {
        VfsTask other = fs.task(1000, 1000);
        int r = other.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        int w = t.open("/p", OpenFlags.O_WRONLY);
        write(t, w, "shared");
        assertEquals("shared", read(other, r, 10));
        t.close(w);
        other.close(r);
        other.close();
    }

    @Test
    void fifoUnlinkedWhileOpen_stillCarriesData() {
        int rw = t.open("/p", OpenFlags.O_RDWR);
        t.unlink("/p");
        write(t, rw, "z");
        assertEquals("z", read(t, rw, 10));
        t.close(rw);
    }

    @Test
    void openReadWriteThenReadOnlyNonblock_inOtherTasks_shareOneBuffer_andSurviveUnlink() {
        VfsTask other = fs.task(1000, 1000);
        SpecialInode inode = fifoInode();
        int rw = t.open("/p", OpenFlags.O_RDWR);
        int r = other.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        write(t, rw, "one");
        assertEquals("one", read(other, r, 10));
        t.unlink("/p");
        assertErrno(Errno.ENOENT, () -> t.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK));
        write(t, rw, "two");
        assertEquals("two", read(other, r, 10));
        write(t, rw, "three");
        assertEquals("three", read(t, rw, 10), "the O_RDWR opener reads the same buffer");
        assertErrno(Errno.EAGAIN, () -> other.read(r, new byte[10], 0, 10));
        t.close(rw);
        assertEquals(0, other.read(r, new byte[10], 0, 10), "end of file: the only writer closed");
        other.close(r);
        assertNull(inode.pipeIfAny());
        assertEquals(0, inode.openCount());
        other.close();
    }

    // ---------------------------------------------------------------- size, seeking, capacity

    @Test
    void stat_ofAFifoHoldingData_showsSizeZero() {
        int rw = t.open("/p", OpenFlags.O_RDWR);
        write(t, rw, "abcdef");
        assertEquals(0, t.fstat(rw).size());
        assertEquals(FileType.FIFO, t.fstat(rw).type());
        assertEquals(0, t.stat("/p").size());
        t.close(rw);
    }

    @Test
    void lseekPreadPwrite_onAFifo_failWithESPIPE() {
        int rw = t.open("/p", OpenFlags.O_RDWR);
        assertErrno(Errno.ESPIPE, () -> t.lseek(rw, 0, VfsTask.SEEK_SET));
        assertErrno(Errno.ESPIPE, () -> t.pread(rw, new byte[1], 0, 1, 0));
        assertErrno(Errno.ESPIPE, () -> t.pwrite(rw, new byte[1], 0, 1, 0));
        t.close(rw);
    }

    @Test
    void pipeSize_setThroughOneEnd_isSeenThroughTheOther() {
        int r = t.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        int w = t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK);
        assertEquals(65536, t.fcntl(w, Fcntl.F_GETPIPE_SZ, 0));
        assertEquals(8192, t.fcntl(r, Fcntl.F_SETPIPE_SZ, 8192));
        assertEquals(8192, t.fcntl(w, Fcntl.F_GETPIPE_SZ, 0));
        t.close(w);
        t.close(r);
    }

    // ---------------------------------------------------------------- the pipe's lifetime

    @Test
    void lastClose_releasesThePipe_andDiscardsItsDataAndCapacity() {
        SpecialInode inode = fifoInode();
        int rw = t.open("/p", OpenFlags.O_RDWR);
        Object pipe = inode.pipeIfAny();
        assertNotNull(pipe);
        write(t, rw, "abc");
        t.fcntl(rw, Fcntl.F_SETPIPE_SZ, 8192);
        t.close(rw);
        assertNull(inode.pipeIfAny());
        assertEquals(0, inode.openCount());

        int again = t.open("/p", OpenFlags.O_RDWR | OpenFlags.O_NONBLOCK);
        assertFalse(pipe == inode.pipeIfAny(), "a new pipe");
        assertErrno(Errno.EAGAIN, () -> t.read(again, new byte[10], 0, 10));
        assertEquals(65536, t.fcntl(again, Fcntl.F_GETPIPE_SZ, 0));
        t.close(again);
        assertNull(inode.pipeIfAny());
    }

    @Test
    void pipe_staysWhileAnyOpenerRemains() {
        SpecialInode inode = fifoInode();
        int r = t.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        int w = t.open("/p", OpenFlags.O_WRONLY);
        write(t, w, "kept");
        t.close(w);
        assertNotNull(inode.pipeIfAny());
        assertEquals("kept", read(t, r, 10));
        t.close(r);
        assertNull(inode.pipeIfAny());
        assertEquals(0, inode.openCount());
    }

    // ---------------------------------------------------------------- withdrawing an async open

    /** The lowest free descriptor of {@code t} (what the next open would get). */
    private int lowestFreeFd() {
        int fd = t.open("/", OpenFlags.O_RDONLY);
        t.close(fd);
        return fd;
    }

    @Test
    void openAsyncReadOnly_cancelledWhileWaiting_countsNoReader_andNeverInstallsAnFd() {
        SpecialInode inode = fifoInode();
        int free = lowestFreeFd();
        CompletableFuture<Integer> reader = t.async().open("/p", OpenFlags.O_RDONLY, 0);
        assertFalse(reader.isDone());
        assertTrue(reader.cancel(false));
        assertTrue(reader.isCancelled());
        assertNull(inode.pipeIfAny(), "nobody else had it open: the pipe is released");
        assertEquals(0, inode.openCount());
        assertErrno(Errno.ENXIO, () -> t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK));
        // The partner the withdrawn open waited for comes now: still no descriptor for it.
        int rw = t.open("/p", OpenFlags.O_RDWR);
        assertEquals(free, rw);
        assertEquals(1, inode.openCount());
        assertEquals(free + 1, lowestFreeFd());
        t.close(rw);
        assertNull(inode.pipeIfAny());
    }

    @Test
    void openAsyncWriteOnly_cancelledWhileWaiting_countsNoWriter() {
        SpecialInode inode = fifoInode();
        CompletableFuture<Integer> writer = t.async().open("/p", OpenFlags.O_WRONLY, 0);
        assertFalse(writer.isDone());
        assertTrue(writer.cancel(true));
        int r = t.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        assertEquals(0, t.read(r, new byte[1], 0, 1), "end of file: no writer is counted");
        assertEquals(1, inode.openCount());
        t.close(r);
        assertNull(inode.pipeIfAny());
        assertEquals(0, inode.openCount());
    }

    @Test
    void openAsync_completedExceptionallyByTheCaller_withdrawsTheOpen() {
        CompletableFuture<Integer> reader = t.async().open("/p", OpenFlags.O_RDONLY, 0);
        assertTrue(reader.completeExceptionally(new IllegalStateException("gave up")));
        assertErrno(Errno.ENXIO, () -> t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK));
        assertNull(fifoInode().pipeIfAny());
    }

    @Test
    void openAsyncCreat_ofAnExistingFifo_cancelledWhileWaiting_countsNoReader() {
        CompletableFuture<Integer> reader =
                t.async().open("/p", OpenFlags.O_CREAT | OpenFlags.O_RDONLY, 0644);
        assertFalse(reader.isDone());
        assertTrue(reader.cancel(false));
        assertErrno(Errno.ENXIO, () -> t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK));
        assertNull(fifoInode().pipeIfAny());
    }

    @Test
    void openAsync_cancelledAfterItCompleted_returnsFalse_andTheCallerOwnsTheFd() throws Exception {
        CompletableFuture<Integer> reader = t.async().open("/p", OpenFlags.O_RDONLY, 0);
        int w = t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK);
        assertFalse(reader.cancel(false));
        assertFalse(reader.isCancelled());
        int r = reader.get(WAIT_SECONDS, TimeUnit.SECONDS);
        write(t, w, "kept");
        assertEquals("kept", read(t, r, 10));
        t.close(w);
        t.close(r);
        assertEquals(0, fifoInode().openCount());
    }

    /**
     * A cancel racing with the partner's open: either the cancel wins (true, no descriptor, nothing
     * counted) or the open does (false, the future holds a working descriptor); never both, never
     * neither, never a leak.
     */
    @Test
    void openAsync_cancelRacingThePartner_eitherWithdrawsOrHandsOverTheFd() throws Exception {
        SpecialInode inode = fifoInode();
        int free = lowestFreeFd();
        for (int i = 0; i < 300; i++) {
            CompletableFuture<Integer> reader = t.async().open("/p", OpenFlags.O_RDONLY, 0);
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            AtomicReference<Object> partner = new AtomicReference<>();
            Thread th =
                    new Thread(
                            () -> {
                                try {
                                    go.await();
                                    partner.set(
                                            t.open(
                                                    "/p",
                                                    OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK));
                                } catch (Exception e) {
                                    partner.set(e);
                                }
                            });
            th.start();
            go.countDown();
            boolean cancelled = reader.cancel(false);
            th.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertTrue(reader.isDone());
            assertEquals(cancelled, reader.isCancelled());
            Object w = partner.get();
            if (cancelled) {
                // The partner either found the reader withdrawn (ENXIO) or opened before it was.
                if (w instanceof Integer fd) {
                    t.close(fd);
                } else {
                    assertTrue(
                            w instanceof VfsException e && e.errno() == Errno.ENXIO, () -> "" + w);
                }
            } else {
                int r = reader.get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertTrue(
                        w instanceof Integer, () -> "the reader opened, so did its partner: " + w);
                int fd = (Integer) w;
                write(t, fd, "r");
                assertEquals("r", read(t, r, 1));
                t.close(fd);
                t.close(r);
            }
            String round =
                    "round " + i + (cancelled ? ": cancelled, partner " : ": opened, partner ") + w;
            assertEquals(free, lowestFreeFd(), round + ": a descriptor leaked");
            assertEquals(0, inode.openCount(), round);
            assertNull(inode.pipeIfAny(), round);
        }
    }

    @Test
    void openCreat_ofAnExistingFifo_blocksTheCallingThread_andAnInterruptCountsNoReader()
            throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread th =
                new Thread(
                        () -> {
                            try {
                                result.set(
                                        t.open("/p", OpenFlags.O_CREAT | OpenFlags.O_RDONLY, 0644));
                            } catch (RuntimeException e) {
                                result.set(e);
                            }
                        },
                        "fifo-creat-opener");
        th.setDaemon(true);
        th.start();
        awaitParked(th);
        th.interrupt();
        th.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertFalse(th.isAlive());
        assertTrue(
                result.get() instanceof VfsException e && e.errno() == Errno.EINTR,
                () -> "" + result.get());
        assertErrno(Errno.ENXIO, () -> t.open("/p", OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK));
        assertNull(fifoInode().pipeIfAny());
    }

    // ---------------------------------------------------------------- times

    /**
     * Times of a FIFO, with a clock the test moves: {@code pipe_write} sets mtime and ctime ({@code
     * file_update_time}), {@code pipe_read} sets atime under {@code relatime} ({@code
     * file_accessed}), only when bytes moved; an anonymous pipe's times never move.
     *
     * <pre>
     * /q   FIFO, 0666
     * </pre>
     */
    @Nested
    class Times {
        static final long SEC = 1_000_000_000L;
        final AtomicLong now = new AtomicLong(1_700_000_000L * SEC);
        SeqVfs vfs;
        VfsTask r;

        @BeforeEach
        void start() {
            vfs = SeqVfs.create(ConfigFactory.load(), now::get);
            r = vfs.newTask(Credentials.ROOT);
            r.mknod("/q", Mode.S_IFIFO | 0666, 0);
            // atime and mtime well in the past, as the host program set them with utimensat
            r.utimensat(VfsTask.AT_FDCWD, "/q", new Timespec(1000, 0), new Timespec(2000, 0), 0);
            now.addAndGet(SEC);
        }

        @AfterEach
        void stop() {
            try {
                assertEquals(List.of(), Fsck.check(vfs, true));
            } finally {
                vfs.close();
            }
        }

        @Test
        void write_toAFifo_setsMtimeAndCtime_notAtime() {
            int fd = r.open("/q", OpenFlags.O_RDWR);
            Stat before = r.fstat(fd);
            now.addAndGet(SEC);
            write(r, fd, "abc");
            Stat after = r.fstat(fd);
            assertEquals(now.get(), after.mtimeNanos());
            assertEquals(now.get(), after.ctimeNanos());
            assertEquals(before.atimeNanos(), after.atimeNanos());
            assertEquals(after.mtimeNanos(), r.stat("/q").mtimeNanos(), "stat of the path agrees");
            r.close(fd);
        }

        @Test
        void read_fromAFifo_setsAtime_thenLeavesItWhileNewerThanMtime() {
            int fd = r.open("/q", OpenFlags.O_RDWR);
            write(r, fd, "ab");
            Stat written = r.fstat(fd);
            now.addAndGet(SEC);
            assertEquals("a", read(r, fd, 1));
            Stat first = r.fstat(fd);
            assertEquals(now.get(), first.atimeNanos());
            assertEquals(written.mtimeNanos(), first.mtimeNanos());
            assertEquals(written.ctimeNanos(), first.ctimeNanos());
            now.addAndGet(SEC);
            assertEquals("b", read(r, fd, 1));
            assertEquals(
                    first.atimeNanos(),
                    r.fstat(fd).atimeNanos(),
                    "relatime: atime is after mtime and ctime");
            r.close(fd);
        }

        @Test
        void read_throughONoatime_leavesAtime() {
            int fd = r.open("/q", OpenFlags.O_RDWR | OpenFlags.O_NOATIME);
            write(r, fd, "j");
            long atime = r.fstat(fd).atimeNanos();
            now.addAndGet(SEC);
            assertEquals("j", read(r, fd, 1));
            assertEquals(atime, r.fstat(fd).atimeNanos());
            r.close(fd);
        }

        @Test
        void emptyWrite_andReadFailingWithEAGAIN_leaveTheTimes() {
            int fd = r.open("/q", OpenFlags.O_RDWR | OpenFlags.O_NONBLOCK);
            Stat before = r.fstat(fd);
            now.addAndGet(SEC);
            assertEquals(0, r.write(fd, new byte[0], 0, 0));
            assertErrno(Errno.EAGAIN, () -> r.read(fd, new byte[1], 0, 1));
            Stat after = r.fstat(fd);
            assertEquals(before.atimeNanos(), after.atimeNanos());
            assertEquals(before.mtimeNanos(), after.mtimeNanos());
            assertEquals(before.ctimeNanos(), after.ctimeNanos());
            r.close(fd);
        }

        @Test
        void writevAndReadv_onAFifo_setTheTimes() {
            int fd = r.open("/q", OpenFlags.O_RDWR);
            now.addAndGet(SEC);
            r.writev(fd, new byte[][] {Io.bytes("x"), Io.bytes("y")});
            assertEquals(now.get(), r.fstat(fd).mtimeNanos());
            now.addAndGet(SEC);
            r.readv(fd, new byte[][] {new byte[1], new byte[1]});
            assertEquals(now.get(), r.fstat(fd).atimeNanos());
            r.close(fd);
        }

        @Test
        void asyncWriteAndRead_onAFifo_setTheTimes() throws Exception {
            int fd = r.open("/q", OpenFlags.O_RDWR);
            now.addAndGet(SEC);
            byte[] in = new byte[2];
            CompletableFuture<Integer> pending = r.async().read(fd, in, 0, 2);
            assertEquals(
                    2,
                    r.async().write(fd, Io.bytes("hi"), 0, 2).get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(2, pending.get(WAIT_SECONDS, TimeUnit.SECONDS));
            Stat after = r.fstat(fd);
            assertEquals(now.get(), after.mtimeNanos());
            assertEquals(now.get(), after.atimeNanos());
            r.close(fd);
        }

        @Test
        void writeAndRead_onAnAnonymousPipe_leaveItsTimes() {
            int[] p = r.pipe();
            Stat readEnd = r.fstat(p[0]);
            Stat writeEnd = r.fstat(p[1]);
            now.addAndGet(SEC);
            write(r, p[1], "x");
            now.addAndGet(SEC);
            assertEquals("x", read(r, p[0], 1));
            for (int i = 0; i < 2; i++) {
                Stat before = i == 0 ? readEnd : writeEnd;
                Stat after = r.fstat(p[i]);
                assertEquals(before.atimeNanos(), after.atimeNanos());
                assertEquals(before.mtimeNanos(), after.mtimeNanos());
                assertEquals(before.ctimeNanos(), after.ctimeNanos());
            }
            r.close(p[0]);
            r.close(p[1]);
        }
    }
}
