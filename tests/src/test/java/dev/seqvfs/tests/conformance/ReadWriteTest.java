package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.bytes;
import static dev.seqvfs.tests.conformance.Io.content;
import static dev.seqvfs.tests.conformance.Io.read;
import static dev.seqvfs.tests.conformance.Io.text;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Io.writeFile;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code read(2)}, {@code write(2)}, {@code pread(2)}, {@code pwrite(2)}, {@code
 * readv(2)} and {@code writev(2)} on regular files: offsets, short reads at the end of file, holes
 * that read as zeros, {@code O_APPEND} (also for {@code pwrite}, which appends on Linux), the size
 * limit ({@code MAX_LFS_FILESIZE}, {@code LLONG_MAX} on tmpfs), times (mtime and ctime by writes,
 * atime by reads as {@code relatime} and {@code O_NOATIME} say), the clearing of set-user-ID and
 * set-group-ID by an unprivileged writer ({@code file_remove_privs}), and the errnos of the man
 * pages that apply to memory: EBADF (closed, wrong access mode, {@code O_PATH}), EISDIR, EINVAL
 * (negative offset, offset + count past {@code LLONG_MAX}, more than {@code IOV_MAX} buffers),
 * EFAULT (a {@code null} or too short buffer stands for a bad address), ESPIPE (positional I/O on
 * pipes, sockets and FIFOs), EFBIG (an append at the size limit) and ENOSPC. The order of checks
 * and every value were measured on Linux 6.18 (tmpfs).
 *
 * <p>A write that does not fit under {@code seqvfs.tmpfs.max-bytes} writes the pages that fit and
 * returns the short count, as tmpfs with {@code size=} does; the next one is ENOSPC. Reads and
 * writes on a FIFO made by {@code mknod} are specified by {@code FifoTest}; here only the ESPIPE of
 * positional I/O is.
 *
 * <pre>
 * /f      regular file "hello", 0644, root
 * /d/     directory
 * /fifo   FIFO
 * </pre>
 */
@FileSystemContract
@Timeout(10)
class ReadWriteTest {
    private static final int IOV_MAX = 1024;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        writeFile(t, "/f", "hello");
        t.mkdir("/d", 0755);
        t.mknod("/fifo", Mode.S_IFIFO | 0644, 0);
    }

    // ---------------------------------------------------------------- normal results

    @Test
    void read_regularFile_returnsTheBytesAndAdvancesTheOffset() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        assertEquals("hel", read(t, fd, 3));
        assertEquals(3, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        assertEquals("lo", read(t, fd, 10));
        t.close(fd);
    }

    @Test
    void read_nearTheEnd_returnsAShortCountThenZero() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        t.lseek(fd, 3, VfsTask.SEEK_SET);
        byte[] b = new byte[100];
        assertEquals(2, t.read(fd, b, 0, 100));
        assertEquals(0, t.read(fd, b, 0, 100));
        t.lseek(fd, 1000, VfsTask.SEEK_SET);
        assertEquals(0, t.read(fd, b, 0, 100));
        assertEquals(1000, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
    }

    @Test
    void read_intoTheMiddleOfABuffer_fillsOnlyThatRange() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        byte[] b = bytes("..........");
        assertEquals(5, t.read(fd, b, 2, 8));
        assertEquals("..hello...", text(b, 10));
        t.close(fd);
    }

    @Test
    void read_zeroBytes_returnsZeroAndKeepsTheOffset() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        assertEquals(0, t.read(fd, new byte[4], 0, 0));
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
    }

    @Test
    void write_overwritesAndExtends_advancingTheOffset() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.lseek(fd, 3, VfsTask.SEEK_SET);
        assertEquals(6, write(t, fd, "p me!!"));
        assertEquals(9, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        assertEquals(9, t.fstat(fd).size());
        t.close(fd);
        assertEquals("help me!!", content(t, "/f"));
    }

    @Test
    void write_pastTheEnd_leavesAHoleThatReadsAsZeros() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.lseek(fd, 10_000, VfsTask.SEEK_SET);
        write(t, fd, "x");
        assertEquals(10_001, t.fstat(fd).size());
        byte[] b = new byte[10_001];
        assertEquals(10_001, t.pread(fd, b, 0, b.length, 0));
        assertEquals("hello", text(b, 5));
        for (int i = 5; i < 10_000; i++) {
            assertEquals(0, b[i], "byte " + i);
        }
        assertEquals('x', b[10_000]);
        t.close(fd);
    }

    @Test
    void write_descriptionsOfTheSameFile_shareTheDataButNotTheOffset() {
        int a = t.open("/f", OpenFlags.O_RDWR);
        int b = t.open("/f", OpenFlags.O_RDONLY);
        write(t, a, "J");
        assertEquals("Jello", read(t, b, 10));
        t.close(a);
        t.close(b);
    }

    @Test
    void write_withOAppend_writesAtTheEndWhateverTheOffset() {
        int fd = t.open("/f", OpenFlags.O_RDWR | OpenFlags.O_APPEND);
        t.lseek(fd, 1, VfsTask.SEEK_SET);
        write(t, fd, " world");
        assertEquals(11, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
        assertEquals("hello world", content(t, "/f"));
    }

    @Test
    void pread_pwrite_useThePositionAndKeepTheOffset() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.lseek(fd, 2, VfsTask.SEEK_SET);
        assertEquals(1, t.pwrite(fd, bytes("J"), 0, 1, 0));
        byte[] b = new byte[3];
        assertEquals(3, t.pread(fd, b, 0, 3, 1));
        assertEquals("ell", text(b, 3));
        assertEquals(0, t.pread(fd, b, 0, 3, 5));
        assertEquals(2, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
        assertEquals("Jello", content(t, "/f"));
    }

    @Test
    void pread_intoByteBuffers_fillsFromThePositionAndAdvancesIt_holesReadAsZeros() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.pwrite(fd, bytes("Z"), 0, 1, 3 * 4096 + 10); // a hole of three pages, then "Z"
        for (java.nio.ByteBuffer b :
                List.of(
                        java.nio.ByteBuffer.allocate(4 * 4096),
                        java.nio.ByteBuffer.allocateDirect(4 * 4096))) {
            b.put((byte) 7).put((byte) 7); // the read fills from here
            b.limit(2 + 3);
            assertEquals(3, t.pread(fd, b, 1), b.toString());
            assertEquals(5, b.position());
            assertEquals("ell", new String(new byte[] {b.get(2), b.get(3), b.get(4)}));
            assertEquals(7, b.get(1));
            b.clear();
            for (int i = 0; i < b.capacity(); i++) {
                b.put(i, (byte) 9);
            }
            // across the hole: every byte of it reads as zero, then "Z", then the end
            assertEquals(3 * 4096 + 11 - 4096, t.pread(fd, b, 4096));
            for (int i = 0; i < 3 * 4096 + 10 - 4096; i++) {
                assertEquals(0, b.get(i), "byte " + i + " of the hole");
            }
            assertEquals('Z', b.get(3 * 4096 + 10 - 4096));
            assertEquals(0, t.pread(fd, b, 1 << 20), "past the end");
        }
        assertErrno(
                Errno.EFAULT,
                () -> t.pread(fd, java.nio.ByteBuffer.allocate(4).asReadOnlyBuffer(), 0));
        assertErrno(Errno.EINVAL, () -> t.pread(fd, java.nio.ByteBuffer.allocate(4), -1));
        t.close(fd);
        int wr = t.open("/f", OpenFlags.O_WRONLY);
        assertErrno(Errno.EBADF, () -> t.pread(wr, java.nio.ByteBuffer.allocate(4), 0));
        t.close(wr);
        int[] p = t.pipe();
        assertErrno(Errno.ESPIPE, () -> t.pread(p[0], java.nio.ByteBuffer.allocate(4), 0));
        t.close(p[0]);
        t.close(p[1]);
    }

    @Test
    void write_zeroBytesWithOAppend_keepsTheOffset() {
        int fd = t.open("/f", OpenFlags.O_WRONLY | OpenFlags.O_APPEND);
        t.lseek(fd, 1, VfsTask.SEEK_SET);
        assertEquals(0, t.write(fd, new byte[0]));
        assertEquals(0, t.writev(fd, new byte[][] {new byte[0]}));
        assertEquals(1, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
    }

    @Test
    void pwrite_withOAppend_appendsIgnoringThePosition() {
        // pwrite(2) BUGS: "if a file is opened with O_APPEND, pwrite() appends data to the
        // end of the file, regardless of the value of offset".
        int fd = t.open("/f", OpenFlags.O_RDWR | OpenFlags.O_APPEND);
        assertEquals(1, t.pwrite(fd, bytes("!"), 0, 1, 0));
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
        assertEquals("hello!", content(t, "/f"));
    }

    @Test
    void readv_fillsTheBuffersInOrder_andStopsShortAtTheEnd() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        byte[] a = new byte[2];
        byte[] b = new byte[2];
        byte[] c = new byte[4];
        assertEquals(5, t.readv(fd, new byte[][] {a, b, c}));
        assertEquals("he", text(a, 2));
        assertEquals("ll", text(b, 2));
        assertEquals("o", text(c, 1));
        assertEquals(5, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        assertEquals(0, t.readv(fd, new byte[][] {a}));
        t.close(fd);
    }

    @Test
    void writev_writesTheBuffersInOrder_asOneWrite() {
        int fd = t.open("/f", OpenFlags.O_WRONLY | OpenFlags.O_APPEND);
        assertEquals(7, t.writev(fd, new byte[][] {bytes(", "), bytes(""), bytes("world")}));
        assertEquals(12, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
        assertEquals("hello, world", content(t, "/f"));
    }

    @Test
    void readvWritev_noBuffers_transferNothing() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        assertEquals(0, t.readv(fd, new byte[0][]));
        assertEquals(0, t.writev(fd, new byte[0][]));
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
    }

    @Test
    void readvWritev_pipe_transferLikeReadAndWrite() {
        int[] p = t.pipe();
        assertEquals(5, t.writev(p[1], new byte[][] {bytes("ab"), bytes("cde")}));
        byte[] a = new byte[3];
        byte[] b = new byte[3];
        assertEquals(5, t.readv(p[0], new byte[][] {a, b}));
        assertEquals("abc", text(a, 3));
        assertEquals("de", text(b, 2));
        t.close(p[0]);
        t.close(p[1]);
    }

    // ---------------------------------------------------------------- EBADF

    @Test
    void readWrite_closedDescriptor_failWithEBADF() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.close(fd);
        byte[] b = new byte[4];
        assertErrno(Errno.EBADF, () -> t.read(fd, b, 0, 4));
        assertErrno(Errno.EBADF, () -> t.write(fd, b, 0, 4));
        assertErrno(Errno.EBADF, () -> t.pread(fd, b, 0, 4, 0));
        assertErrno(Errno.EBADF, () -> t.pwrite(fd, b, 0, 4, 0));
        assertErrno(Errno.EBADF, () -> t.readv(fd, new byte[][] {b}));
        assertErrno(Errno.EBADF, () -> t.writev(fd, new byte[][] {b}));
        assertErrno(Errno.EBADF, () -> t.read(-1, b, 0, 4));
    }

    @Test
    void read_writeOnlyDescriptor_failsWithEBADF() {
        int fd = t.open("/f", OpenFlags.O_WRONLY);
        byte[] b = new byte[4];
        assertErrno(Errno.EBADF, () -> t.read(fd, b, 0, 4));
        assertErrno(Errno.EBADF, () -> t.pread(fd, b, 0, 4, 0));
        assertErrno(Errno.EBADF, () -> t.readv(fd, new byte[][] {b}));
        t.close(fd);
    }

    @Test
    void write_readOnlyDescriptor_failsWithEBADFAndChangesNothing() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EBADF, () -> write(t, fd, "x"));
        assertErrno(Errno.EBADF, () -> t.pwrite(fd, bytes("x"), 0, 1, 0));
        assertErrno(Errno.EBADF, () -> t.writev(fd, new byte[][] {bytes("x")}));
        t.close(fd);
        assertEquals("hello", content(t, "/f"));
    }

    @Test
    void readWrite_accessModeThree_failWithEBADF() {
        // open(2): mode 3 needs read and write permission and allows neither.
        int fd = t.open("/f", OpenFlags.O_ACCMODE);
        assertErrno(Errno.EBADF, () -> read(t, fd, 1));
        assertErrno(Errno.EBADF, () -> write(t, fd, "x"));
        t.close(fd);
    }

    @Test
    void readWrite_pathDescriptor_failWithEBADF() {
        int fd = t.open("/f", OpenFlags.O_PATH);
        int dir = t.open("/d", OpenFlags.O_PATH);
        byte[] b = new byte[4];
        assertErrno(Errno.EBADF, () -> t.read(fd, b, 0, 4));
        assertErrno(Errno.EBADF, () -> t.write(fd, b, 0, 4));
        assertErrno(Errno.EBADF, () -> t.pread(fd, b, 0, 4, 0));
        assertErrno(Errno.EBADF, () -> t.pwrite(fd, b, 0, 4, 0));
        assertErrno(Errno.EBADF, () -> t.read(dir, b, 0, 4));
        t.close(fd);
        t.close(dir);
    }

    @Test
    void write_directory_failsWithEBADF() {
        int fd = t.open("/d", OpenFlags.O_RDONLY);
        assertErrno(Errno.EBADF, () -> write(t, fd, "x"));
        t.close(fd);
    }

    // ---------------------------------------------------------------- EISDIR, EINVAL, ESPIPE

    @Test
    void read_directory_failsWithEISDIR() {
        int fd = t.open("/d", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        byte[] b = new byte[4];
        assertErrno(Errno.EISDIR, () -> t.read(fd, b, 0, 4));
        assertErrno(Errno.EISDIR, () -> t.pread(fd, b, 0, 4, 0));
        assertErrno(Errno.EISDIR, () -> t.readv(fd, new byte[][] {b}));
        t.close(fd);
    }

    @Test
    void preadPwrite_negativePosition_failWithEINVAL() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        byte[] b = new byte[4];
        assertErrno(Errno.EINVAL, () -> t.pread(fd, b, 0, 4, -1));
        assertErrno(Errno.EINVAL, () -> t.pwrite(fd, b, 0, 4, -1));
        t.close(fd);
        // The position is checked before the descriptor.
        assertErrno(Errno.EINVAL, () -> t.pread(fd, b, 0, 4, -1));
        assertEquals("hello", content(t, "/f"));
    }

    @Test
    void readAndPread_positionPlusCountPastLlongMax_failWithEINVAL() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        byte[] b = new byte[2];
        assertErrno(Errno.EINVAL, () -> t.pread(fd, b, 0, 1, Long.MAX_VALUE));
        assertErrno(Errno.EINVAL, () -> t.pread(fd, b, 0, 2, Long.MAX_VALUE - 1));
        assertEquals(0, t.pread(fd, b, 0, 1, Long.MAX_VALUE - 1));
        assertEquals(0, t.pread(fd, b, 0, 0, Long.MAX_VALUE));
        t.lseek(fd, Long.MAX_VALUE, VfsTask.SEEK_SET);
        assertErrno(Errno.EINVAL, () -> t.read(fd, b, 0, 1));
        assertEquals(Long.MAX_VALUE, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
    }

    @Test
    void readv_moreThanIovMaxBuffers_failsWithEINVAL() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        byte[][] many = new byte[IOV_MAX + 1][];
        for (int i = 0; i < many.length; i++) {
            many[i] = new byte[1];
        }
        assertErrno(Errno.EINVAL, () -> t.readv(fd, many));
        assertErrno(Errno.EINVAL, () -> t.writev(fd, many));
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        byte[][] max = java.util.Arrays.copyOf(many, IOV_MAX);
        assertEquals(5, t.readv(fd, max));
        t.close(fd);
        assertEquals("hello", content(t, "/f"));
    }

    @Test
    void preadPwrite_pipe_failWithESPIPE() {
        int[] p = t.pipe();
        byte[] b = new byte[4];
        assertErrno(Errno.ESPIPE, () -> t.pread(p[0], b, 0, 4, 0));
        assertErrno(Errno.ESPIPE, () -> t.pwrite(p[1], b, 0, 4, 0));
        t.close(p[0]);
        t.close(p[1]);
    }

    @Test
    void preadPwrite_socket_failWithESPIPE() {
        int[] s = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
        int u = t.socket(SocketFlags.AF_INET, SocketFlags.SOCK_STREAM, 0);
        byte[] b = new byte[4];
        assertErrno(Errno.ESPIPE, () -> t.pread(s[0], b, 0, 4, 0));
        assertErrno(Errno.ESPIPE, () -> t.pwrite(s[1], b, 0, 4, 0));
        assertErrno(Errno.ESPIPE, () -> t.pread(u, b, 0, 4, 0));
        t.close(s[0]);
        t.close(s[1]);
        t.close(u);
    }

    @Test
    void preadPwrite_namedFifo_failWithESPIPE() {
        int fd = t.open("/fifo", OpenFlags.O_RDWR);
        byte[] b = new byte[4];
        assertErrno(Errno.ESPIPE, () -> t.pread(fd, b, 0, 4, 0));
        assertErrno(Errno.ESPIPE, () -> t.pwrite(fd, b, 0, 4, 0));
        t.close(fd);
    }

    // ---------------------------------------------------------------- EFAULT

    @Test
    void readWrite_nullBuffer_failWithEFAULTAndChangeNothing() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        assertErrno(Errno.EFAULT, () -> t.read(fd, null, 0, 1));
        assertErrno(Errno.EFAULT, () -> t.write(fd, null, 0, 1));
        assertErrno(Errno.EFAULT, () -> t.pread(fd, null, 0, 1, 0));
        assertErrno(Errno.EFAULT, () -> t.pwrite(fd, null, 0, 1, 0));
        assertErrno(Errno.EFAULT, () -> t.readv(fd, null));
        assertErrno(Errno.EFAULT, () -> t.writev(fd, null));
        assertErrno(Errno.EFAULT, () -> t.readv(fd, new byte[][] {new byte[1], null}));
        assertErrno(Errno.EFAULT, () -> t.writev(fd, new byte[][] {bytes("x"), null}));
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        t.close(fd);
        assertEquals("hello", content(t, "/f"));
    }

    /**
     * Linux: {@code read(fd, NULL, 0)} and {@code write(fd, NULL, 0)} return 0 ({@code access_ok}
     * of 0 bytes).
     */
    @Test
    void readWrite_nullBufferOfZeroBytes_transferNothingAndReturnZero() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        assertEquals(0, t.read(fd, null, 0, 0));
        assertEquals(0, t.write(fd, null, 0, 0));
        assertEquals(0, t.pread(fd, null, 0, 0, 0));
        assertEquals(0, t.pwrite(fd, null, 0, 0, 0));
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        int[] p = t.pipe();
        assertEquals(0, t.read(p[0], null, 0, 0));
        assertEquals(0, t.write(p[1], null, 0, 0));
        t.close(p[0]);
        t.close(p[1]);
        t.close(fd);
        assertEquals("hello", content(t, "/f"));
    }

    @Test
    void readWrite_rangeOutsideTheBuffer_failWithEFAULT() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        byte[] b = new byte[4];
        assertErrno(Errno.EFAULT, () -> t.read(fd, b, 2, 3));
        assertErrno(Errno.EFAULT, () -> t.write(fd, b, 0, 5));
        assertErrno(Errno.EFAULT, () -> t.write(fd, b, -1, 1));
        assertErrno(Errno.EFAULT, () -> t.read(fd, b, 0, -1));
        t.close(fd);
        assertEquals("hello", content(t, "/f"));
    }

    @Test
    void readWrite_badDescriptorAndNullBuffer_failWithEBADFFirst() {
        // Linux looks the descriptor up (and checks its mode) before it touches the buffer.
        int wr = t.open("/f", OpenFlags.O_WRONLY);
        int dir = t.open("/d", OpenFlags.O_RDONLY);
        assertErrno(Errno.EBADF, () -> t.read(99, null, 0, 1));
        assertErrno(Errno.EBADF, () -> t.write(99, null, 0, 1));
        assertErrno(Errno.EBADF, () -> t.read(wr, null, 0, 1));
        assertErrno(Errno.EISDIR, () -> t.read(dir, null, 0, 1));
        t.close(wr);
        t.close(dir);
    }

    // ---------------------------------------------------------------- size limit

    @Test
    void pwrite_lastByteBeforeLlongMax_succeeds() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        assertEquals(1, t.pwrite(fd, bytes("z"), 0, 1, Long.MAX_VALUE - 1));
        assertEquals(Long.MAX_VALUE, t.fstat(fd).size());
        byte[] b = new byte[2];
        assertEquals(1, t.pread(fd, b, 0, 1, Long.MAX_VALUE - 1));
        assertEquals('z', b[0]);
        t.close(fd);
    }

    @Test
    void pwrite_endingPastLlongMax_failsWithEINVAL() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        assertErrno(Errno.EINVAL, () -> t.pwrite(fd, bytes("ab"), 0, 2, Long.MAX_VALUE - 1));
        assertErrno(Errno.EINVAL, () -> t.pwrite(fd, bytes("a"), 0, 1, Long.MAX_VALUE));
        t.lseek(fd, Long.MAX_VALUE, VfsTask.SEEK_SET);
        assertErrno(Errno.EINVAL, () -> write(t, fd, "a"));
        assertEquals(5, t.fstat(fd).size());
        t.close(fd);
    }

    @Test
    void write_appendAtTheSizeLimit_failsWithEFBIG() {
        int fd = t.open("/f", OpenFlags.O_WRONLY | OpenFlags.O_APPEND);
        t.ftruncate(fd, Long.MAX_VALUE);
        assertErrno(Errno.EFBIG, () -> write(t, fd, "a"));
        assertErrno(Errno.EFBIG, () -> t.pwrite(fd, bytes("a"), 0, 1, 0));
        assertEquals(Long.MAX_VALUE, t.fstat(fd).size());
        t.close(fd);
    }

    @Test
    void write_appendCrossingTheSizeLimit_writesWhatFits() {
        int fd = t.open("/f", OpenFlags.O_RDWR | OpenFlags.O_APPEND);
        t.ftruncate(fd, Long.MAX_VALUE - 1);
        assertEquals(1, write(t, fd, "ab"));
        assertEquals(Long.MAX_VALUE, t.fstat(fd).size());
        assertEquals(Long.MAX_VALUE, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        byte[] b = new byte[1];
        assertEquals(1, t.pread(fd, b, 0, 1, Long.MAX_VALUE - 1));
        assertEquals('a', b[0]);
        t.close(fd);
    }

    // ---------------------------------------------------------------- times and privileges

    @Test
    void write_setsMtimeAndCtime() {
        t.utimensat(VfsTask.AT_FDCWD, "/f", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        Stat before = t.stat("/f");
        int fd = t.open("/f", OpenFlags.O_WRONLY);
        write(t, fd, "J");
        Stat after = t.fstat(fd);
        t.close(fd);
        assertTrue(after.mtimeNanos() >= before.ctimeNanos());
        assertEquals(after.mtimeNanos(), after.ctimeNanos());
        assertEquals(before.atimeNanos(), after.atimeNanos());
    }

    @Test
    void write_zeroBytes_changesNoTime() {
        t.utimensat(VfsTask.AT_FDCWD, "/f", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        Stat before = t.stat("/f");
        int fd = t.open("/f", OpenFlags.O_WRONLY);
        assertEquals(0, t.write(fd, new byte[0]));
        assertEquals(0, t.pwrite(fd, new byte[0], 0, 0, 3));
        t.close(fd);
        Stat after = t.stat("/f");
        assertEquals(before.mtimeNanos(), after.mtimeNanos());
        assertEquals(before.ctimeNanos(), after.ctimeNanos());
    }

    @Test
    void read_changesNeitherMtimeNorCtime() {
        Stat before = t.stat("/f");
        assertEquals("hello", content(t, "/f"));
        Stat after = t.stat("/f");
        assertEquals(before.mtimeNanos(), after.mtimeNanos());
        assertEquals(before.ctimeNanos(), after.ctimeNanos());
    }

    @Test
    void write_byUnprivilegedWriter_clearsSetUid() {
        t.chmod("/f", 04666);
        VfsTask u = fs.task(1000, 1000);
        int fd = u.open("/f", OpenFlags.O_WRONLY);
        write(u, fd, "J");
        u.close(fd);
        assertEquals(0666, t.stat("/f").permissions());
    }

    @Test
    void write_byUnprivilegedWriterOutsideTheGroup_clearsSetGidWithoutGroupExecute() {
        // setattr_should_drop_sgid: S_ISGID without S_IXGRP is dropped too when the writer
        // is not in the file's group (and not CAP_FSETID); measured on Linux 6.18.
        t.chmod("/f", 02666);
        VfsTask u = fs.task(1000, 1000);
        int fd = u.open("/f", OpenFlags.O_WRONLY);
        write(u, fd, "J");
        u.close(fd);
        assertEquals(0666, t.stat("/f").permissions());
    }

    @Test
    void write_byGroupMember_keepsSetGidWithoutGroupExecute() {
        t.chown("/f", 0, 1000);
        t.chmod("/f", 02666);
        VfsTask u = fs.task(1000, 1000);
        int fd = u.open("/f", OpenFlags.O_WRONLY);
        write(u, fd, "J");
        u.close(fd);
        assertEquals(02666, t.stat("/f").permissions());
    }

    @Test
    void write_byGroupMember_clearsSetGidWithGroupExecute() {
        t.chown("/f", 0, 1000);
        t.chmod("/f", 06676);
        VfsTask u = fs.task(1000, 1000);
        int fd = u.open("/f", OpenFlags.O_WRONLY);
        write(u, fd, "J");
        u.close(fd);
        assertEquals(0676, t.stat("/f").permissions());
    }

    @Test
    void write_byRoot_keepsSetUidAndSetGid() {
        t.chown("/f", 1000, 4242);
        t.chmod("/f", 06755);
        int fd = t.open("/f", OpenFlags.O_WRONLY);
        write(t, fd, "J");
        t.close(fd);
        assertEquals(06755, t.stat("/f").permissions());
    }

    /**
     * Access times under {@code relatime}, with a clock the test moves: a read sets atime when
     * atime is not after mtime or ctime, or is 24 hours old, and never with {@code O_NOATIME}.
     */
    @Nested
    class Relatime {
        static final long SEC = 1_000_000_000L;
        static final long DAY = 24 * 3600 * SEC;
        final AtomicLong now = new AtomicLong(1_700_000_000L * SEC);
        SeqVfs vfs;
        VfsTask r;

        @BeforeEach
        void start() {
            vfs = SeqVfs.create(ConfigFactory.load(), now::get);
            r = vfs.newTask(Credentials.ROOT);
            writeFile(r, "/g", "data");
        }

        @AfterEach
        void stop() {
            try {
                assertEquals(List.of(), Fsck.check(vfs, true));
            } finally {
                vfs.close();
            }
        }

        private long atime() {
            return r.stat("/g").atimeNanos();
        }

        private void readOnce(int flags) {
            int fd = r.open("/g", OpenFlags.O_RDONLY | flags);
            read(r, fd, 10);
            r.close(fd);
        }

        @Test
        void read_atimeNotAfterMtime_setsAtime() {
            now.addAndGet(SEC);
            readOnce(0);
            assertEquals(now.get(), atime());
        }

        @Test
        void read_atimeAfterMtimeAndCtime_leavesAtime() {
            now.addAndGet(SEC);
            readOnce(0);
            long first = now.get();
            now.addAndGet(SEC);
            readOnce(0);
            assertEquals(first, atime());
        }

        @Test
        void read_atimeADayOld_setsAtime() {
            now.addAndGet(SEC);
            readOnce(0);
            now.addAndGet(DAY);
            readOnce(0);
            assertEquals(now.get(), atime());
        }

        @Test
        void read_afterAWrite_setsAtimeAgain() {
            now.addAndGet(SEC);
            readOnce(0);
            now.addAndGet(SEC);
            int fd = r.open("/g", OpenFlags.O_WRONLY);
            write(r, fd, "D");
            r.close(fd);
            now.addAndGet(SEC);
            int rd = r.open("/g", OpenFlags.O_RDONLY);
            byte[] b = new byte[2];
            r.pread(rd, b, 0, 2, 0);
            r.close(rd);
            assertEquals(now.get(), atime());
        }

        @Test
        void read_withONoatime_leavesAtime() {
            long created = atime();
            now.addAndGet(SEC);
            readOnce(OpenFlags.O_NOATIME);
            assertEquals(created, atime());
        }
    }

    /** A file system of 64 KiB (16 pages) of data. */
    @Nested
    class Full {
        @RegisterExtension final VfsFixture small = new VfsFixture("seqvfs.tmpfs.max-bytes = 64k");
        VfsTask s;

        @BeforeEach
        void fill() {
            s = small.root();
        }

        @Test
        void write_pastMaxBytes_writesWhatFitsThenFailsWithENOSPC() {
            // Linux 6.18, tmpfs size=64k (16 pages), measured: a write crossing the limit
            // writes the pages that fit and returns the short count (generic_perform_write);
            // then every write that needs a new page is ENOSPC and changes nothing.
            int fd = s.open("/g", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            byte[] page = new byte[4096];
            java.util.Arrays.fill(page, (byte) 'a');
            for (int i = 0; i < 15; i++) {
                s.write(fd, page);
            }
            assertEquals(4096, s.write(fd, new byte[8192]));
            Stat full = s.fstat(fd);
            assertEquals(65536, full.size());
            assertEquals(128, full.blocks());
            assertErrno(Errno.ENOSPC, () -> s.write(fd, bytes("x")));
            assertErrno(Errno.ENOSPC, () -> s.pwrite(fd, new byte[8192], 0, 8192, 1 << 20));
            assertErrno(Errno.ENOSPC, () -> s.writev(fd, new byte[][] {page, page}));
            Stat after = s.fstat(fd);
            assertEquals(full.size(), after.size());
            assertEquals(full.blocks(), after.blocks());
            assertEquals(full.mtimeNanos(), after.mtimeNanos());
            assertEquals(65536, s.lseek(fd, 0, VfsTask.SEEK_CUR));
            // Overwrites of charged pages still fit.
            assertEquals(3, s.pwrite(fd, bytes("xyz"), 0, 3, 0));
            s.close(fd);
        }

        @Test
        void write_crossingTheLimitFromInsideAPage_writesUpToTheLastPageThatFits() {
            // Linux 6.18, tmpfs size=64k, empty: write(70000 bytes) at offset 100 returns 65436.
            int fd = s.open("/m", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            s.lseek(fd, 100, VfsTask.SEEK_SET);
            assertEquals(65436, s.write(fd, new byte[70000]));
            assertEquals(65536, s.fstat(fd).size());
            s.close(fd);
        }

        @Test
        void write_afterTruncateFreedPages_succeedsAgain() {
            int fd = s.open("/g", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            assertEquals(65536, s.write(fd, new byte[65536]));
            assertErrno(Errno.ENOSPC, () -> s.pwrite(fd, bytes("x"), 0, 1, 65536));
            s.ftruncate(fd, 4096);
            assertEquals(1, s.pwrite(fd, bytes("x"), 0, 1, 65536));
            s.close(fd);
        }
    }

    @Test
    void write_unlinkedOpenFile_staysReadableThroughTheDescriptor() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.unlink("/f");
        write(t, fd, "J");
        byte[] b = new byte[5];
        assertEquals(5, t.pread(fd, b, 0, 5, 0));
        assertArrayEquals(bytes("Jello"), b);
        t.close(fd);
    }

    @Test
    void write_sharedOffsetOfDupDescriptors_advancesBoth() {
        touch(t, "/e");
        int a = t.open("/e", OpenFlags.O_WRONLY);
        int b = t.dup(a);
        write(t, a, "ab");
        write(t, b, "cd");
        t.close(a);
        t.close(b);
        assertEquals("abcd", content(t, "/e"));
    }
}
