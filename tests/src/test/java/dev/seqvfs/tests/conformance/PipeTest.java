package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.bytes;
import static dev.seqvfs.tests.conformance.Io.read;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Io.writeFile;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code pipe(2)} and {@code pipe2(2)} with the semantics of {@code pipe(7)}: a read end
 * and a write end (each refusing the other direction with EBADF), data in order, end of file once
 * every write end is closed and the buffer is drained, EPIPE once every read end is closed, {@code
 * O_NONBLOCK} (EAGAIN instead of waiting; a write of at most {@code PIPE_BUF} bytes is all or
 * nothing, a larger one may be partial), {@code O_CLOEXEC}, EINVAL for other flags, the capacity
 * commands of {@code fcntl(2)} ({@code F_GETPIPE_SZ}, {@code F_SETPIPE_SZ}: rounded up to a power
 * of two of at least a page, EBUSY when the buffered data would not fit, EPERM above {@code
 * /proc/sys/fs/pipe-max-size} = 1 MiB, EINVAL above 2^31, EBADF on a non-pipe), and {@code fstat}
 * (a FIFO of mode 0600, size 0, one link, both ends one inode). Measured on Linux 6.18, where root
 * without {@code CAP_SYS_RESOURCE} also gets EPERM.
 *
 * <p>{@code pipe2(O_DIRECT)} ("packet mode") is specified in PipePacketTest.
 */
@FileSystemContract
@Timeout(10)
class PipeTest {
    private static final int PAGE = 4096;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    int[] p;

    @BeforeEach
    void open() {
        t = fs.root();
        p = t.pipe();
    }

    @AfterEach
    void closePipe() {
        t.closeRange(p[0], p[0], 0);
        t.closeRange(p[1], p[1], 0);
    }

    // ---------------------------------------------------------------- data

    @Test
    void pipe_returnsTheReadEndThenTheWriteEnd_onTheLowestDescriptors() {
        assertEquals(0, p[0]);
        assertEquals(1, p[1]);
        assertEquals(OpenFlags.O_RDONLY, t.fcntl(p[0], Fcntl.F_GETFL, 0));
        assertEquals(OpenFlags.O_WRONLY, t.fcntl(p[1], Fcntl.F_GETFL, 0));
    }

    @Test
    void pipe_dataComesOutInOrder_inAsManyReadsAsAsked() {
        write(t, p[1], "hello ");
        write(t, p[1], "world");
        assertEquals("hel", read(t, p[0], 3));
        assertEquals("lo world", read(t, p[0], 100));
    }

    @Test
    void pipe_readEndCannotWrite_writeEndCannotRead() {
        assertErrno(Errno.EBADF, () -> write(t, p[0], "x"));
        assertErrno(Errno.EBADF, () -> read(t, p[1], 1));
    }

    @Test
    void fstat_pipe_isAFifoOfMode0600WithOneInodeForBothEnds() {
        write(t, p[1], "abc");
        Stat r = t.fstat(p[0]);
        Stat w = t.fstat(p[1]);
        assertEquals(FileType.FIFO, r.type());
        assertEquals(Mode.S_IFIFO | 0600, r.mode());
        assertEquals(0, r.size());
        assertEquals(1, r.nlink());
        assertEquals(r.ino(), w.ino());
        assertEquals(r.dev(), w.dev());
    }

    @Test
    void pipe_eachCallMakesANewInode() {
        int[] q = t.pipe();
        assertNotEquals(t.fstat(p[0]).ino(), t.fstat(q[0]).ino());
        t.close(q[0]);
        t.close(q[1]);
    }

    @Test
    void read_afterTheLastWriterClosed_drainsThenReturnsZero() {
        int w2 = t.dup(p[1]);
        write(t, p[1], "ab");
        t.close(p[1]);
        t.fcntl(p[0], Fcntl.F_SETFL, OpenFlags.O_NONBLOCK);
        assertEquals("ab", read(t, p[0], 10));
        assertErrno(Errno.EAGAIN, () -> read(t, p[0], 10));
        t.close(w2);
        assertEquals(0, t.read(p[0], new byte[10], 0, 10));
        assertEquals(0, t.read(p[0], new byte[10], 0, 10));
    }

    @Test
    void write_afterTheLastReaderClosed_failsWithEPIPE() {
        int r2 = t.dup(p[0]);
        t.close(p[0]);
        assertEquals(1, write(t, p[1], "x"));
        t.close(r2);
        assertErrno(Errno.EPIPE, () -> write(t, p[1], "x"));
        assertErrno(Errno.EPIPE, () -> t.write(p[1], new byte[100_000]));
    }

    @Test
    void read_blocking_completesWhenDataArrives() throws Exception {
        byte[] b = new byte[10];
        CompletableFuture<Integer> pending = t.async().read(p[0], b, 0, 10);
        assertFalse(pending.isDone());
        write(t, p[1], "late");
        assertEquals(4, pending.get(10, TimeUnit.SECONDS));
        assertArrayEquals(bytes("late"), java.util.Arrays.copyOf(b, 4));
    }

    @Test
    void readAndWrite_zeroBytes_returnZero() {
        assertEquals(0, t.read(p[0], new byte[1], 0, 0));
        assertEquals(0, t.write(p[1], new byte[1], 0, 0));
    }

    // ---------------------------------------------------------------- pipe2 flags

    @Test
    void pipe2_nonblock_emptyReadAndFullWriteFailWithEAGAIN() {
        int[] q = t.pipe2(OpenFlags.O_NONBLOCK);
        assertEquals(OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK, t.fcntl(q[0], Fcntl.F_GETFL, 0));
        assertEquals(OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK, t.fcntl(q[1], Fcntl.F_GETFL, 0));
        assertErrno(Errno.EAGAIN, () -> read(t, q[0], 1));
        assertEquals(65536, t.write(q[1], new byte[65536]));
        assertErrno(Errno.EAGAIN, () -> write(t, q[1], "x"));
        t.close(q[0]);
        t.close(q[1]);
    }

    @Test
    void pipe2_cloexec_marksBothEnds() {
        int[] q = t.pipe2(OpenFlags.O_CLOEXEC | OpenFlags.O_NONBLOCK);
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(q[0], Fcntl.F_GETFD, 0));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(q[1], Fcntl.F_GETFD, 0));
        assertEquals(0, t.fcntl(p[0], Fcntl.F_GETFD, 0));
        t.exec();
        assertErrno(Errno.EBADF, () -> t.fcntl(q[0], Fcntl.F_GETFD, 0));
        assertErrno(Errno.EBADF, () -> t.fcntl(q[1], Fcntl.F_GETFD, 0));
    }

    @Test
    void pipe2_otherFlags_failWithEINVALAndOpenNothing() {
        assertErrno(Errno.EINVAL, () -> t.pipe2(OpenFlags.O_APPEND));
        assertErrno(Errno.EINVAL, () -> t.pipe2(OpenFlags.O_RDWR));
        assertErrno(Errno.EINVAL, () -> t.pipe2(OpenFlags.O_NONBLOCK | OpenFlags.O_TRUNC));
        assertEquals(2, t.dup(p[0]));
        t.close(2);
    }

    // ---------------------------------------------------------------- PIPE_BUF

    @Test
    void write_upToPipeBufNonblocking_isAllOrNothing() {
        t.fcntl(p[1], Fcntl.F_SETFL, OpenFlags.O_NONBLOCK);
        assertEquals(65536 - 100, t.write(p[1], new byte[65536 - 100]));
        assertErrno(Errno.EAGAIN, () -> t.write(p[1], new byte[Limits.PIPE_BUF]));
        assertEquals(100, t.write(p[1], new byte[100]));
        assertErrno(Errno.EAGAIN, () -> t.write(p[1], new byte[1]));
    }

    @Test
    void write_moreThanPipeBufNonblocking_isPartialWhenSomeFits() {
        t.fcntl(p[1], Fcntl.F_SETFL, OpenFlags.O_NONBLOCK);
        t.fcntl(p[0], Fcntl.F_SETPIPE_SZ, PAGE);
        assertEquals(PAGE, t.write(p[1], new byte[PAGE + 904]));
        assertErrno(Errno.EAGAIN, () -> t.write(p[1], new byte[PAGE + 1]));
    }

    @Test
    void write_ofPipeBufBytes_isReadBackWhole() {
        byte[] block = new byte[Limits.PIPE_BUF];
        java.util.Arrays.fill(block, (byte) 7);
        assertEquals(Limits.PIPE_BUF, t.write(p[1], block));
        byte[] got = new byte[2 * Limits.PIPE_BUF];
        assertEquals(Limits.PIPE_BUF, t.read(p[0], got, 0, got.length));
        assertArrayEquals(block, java.util.Arrays.copyOf(got, Limits.PIPE_BUF));
    }

    // ---------------------------------------------------------------- capacity

    @Test
    void getPipeSz_isSixteenPagesOnBothEnds() {
        assertEquals(65536, t.fcntl(p[0], Fcntl.F_GETPIPE_SZ, 0));
        assertEquals(65536, t.fcntl(p[1], Fcntl.F_GETPIPE_SZ, 0));
    }

    @Test
    void setPipeSz_roundsUpToAPowerOfTwoOfAtLeastAPage() {
        assertEquals(PAGE, t.fcntl(p[0], Fcntl.F_SETPIPE_SZ, 0));
        assertEquals(PAGE, t.fcntl(p[0], Fcntl.F_SETPIPE_SZ, 1));
        assertEquals(2 * PAGE, t.fcntl(p[1], Fcntl.F_SETPIPE_SZ, 5000));
        assertEquals(2 * PAGE, t.fcntl(p[0], Fcntl.F_GETPIPE_SZ, 0));
        assertEquals(1 << 20, t.fcntl(p[1], Fcntl.F_SETPIPE_SZ, 1 << 20));
        assertEquals(65536, t.fcntl(p[1], Fcntl.F_SETPIPE_SZ, 65536));
    }

    @Test
    void setPipeSz_aboveTheMaximum_failsWithEPERMOrEINVAL() {
        assertErrno(Errno.EPERM, () -> t.fcntl(p[0], Fcntl.F_SETPIPE_SZ, (1 << 20) + 1));
        assertErrno(Errno.EPERM, () -> t.fcntl(p[0], Fcntl.F_SETPIPE_SZ, 1L << 31));
        assertErrno(Errno.EINVAL, () -> t.fcntl(p[0], Fcntl.F_SETPIPE_SZ, (1L << 31) + 1));
        assertEquals(65536, t.fcntl(p[0], Fcntl.F_GETPIPE_SZ, 0));
    }

    @Test
    void setPipeSz_smallerThanTheBufferedData_failsWithEBUSY() {
        t.write(p[1], new byte[5000]);
        assertErrno(Errno.EBUSY, () -> t.fcntl(p[1], Fcntl.F_SETPIPE_SZ, PAGE));
        assertEquals(65536, t.fcntl(p[1], Fcntl.F_GETPIPE_SZ, 0));
        assertEquals(2 * PAGE, t.fcntl(p[1], Fcntl.F_SETPIPE_SZ, 8192));
    }

    @Test
    void setPipeSz_keepsTheBufferedDataInOrder() {
        t.fcntl(p[0], Fcntl.F_SETPIPE_SZ, PAGE);
        write(t, p[1], "abc");
        read(t, p[0], 2);
        write(t, p[1], "def");
        t.fcntl(p[0], Fcntl.F_SETPIPE_SZ, 3 * PAGE);
        assertEquals("cdef", read(t, p[0], 10));
    }

    @Test
    void pipeSz_notAPipe_failsWithEBADF() {
        writeFile(t, "/f", "x");
        int f = t.open("/f", OpenFlags.O_RDWR);
        int s = t.socket(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
        int e = t.eventfd(0, 0);
        for (int fd : new int[] {f, s, e}) {
            assertErrno(Errno.EBADF, () -> t.fcntl(fd, Fcntl.F_GETPIPE_SZ, 0));
            assertErrno(Errno.EBADF, () -> t.fcntl(fd, Fcntl.F_SETPIPE_SZ, PAGE));
        }
        t.close(f);
        t.close(s);
        t.close(e);
        assertErrno(Errno.EBADF, () -> t.fcntl(f, Fcntl.F_GETPIPE_SZ, 0));
    }
}
