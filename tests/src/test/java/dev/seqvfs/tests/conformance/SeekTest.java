package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.bytes;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code lseek(2)}'s {@code SEEK_DATA} and {@code SEEK_HOLE} on tmpfs files (where data
 * is tracked per 4 KiB page: a page written anywhere is data, a page never written is a hole, and
 * the end of the file is a hole), and {@code ESPIPE} for pipes and sockets with every whence
 * (LseekTest has the other whence values). Errnos: ENXIO (offset at or past the end, or negative,
 * as {@code shmem_file_llseek}; no data after the offset), EINVAL (a directory), ESPIPE. Values
 * measured on Linux 6.18 (/dev/shm).
 *
 * <pre>
 * /f    5 pages (20480 bytes): data in page 0 (byte 0) and page 3 (byte 12293), holes elsewhere
 * /e    empty regular file
 * /d/   directory
 * </pre>
 */
@FileSystemContract
class SeekTest {
    private static final int PAGE = 4096;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    int fd;

    @BeforeEach
    void tree() {
        t = fs.root();
        touch(t, "/e");
        t.mkdir("/d", 0755);
        fd = t.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
        t.ftruncate(fd, 5 * PAGE);
        t.pwrite(fd, bytes("x"), 0, 1, 0);
        t.pwrite(fd, bytes("y"), 0, 1, 3 * PAGE + 5);
    }

    @AfterEach
    void closeFd() {
        t.close(fd);
    }

    @Test
    void seekData_inData_staysPut() {
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_DATA));
        assertEquals(3 * PAGE + 100, t.lseek(fd, 3 * PAGE + 100, VfsTask.SEEK_DATA));
    }

    @Test
    void seekData_inAHole_movesToTheNextDataPage() {
        assertEquals(3 * PAGE, t.lseek(fd, PAGE, VfsTask.SEEK_DATA));
        assertEquals(3 * PAGE, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        assertEquals(3 * PAGE, t.lseek(fd, 2 * PAGE + 17, VfsTask.SEEK_DATA));
    }

    @Test
    void seekHole_inData_movesToTheEndOfTheDataPages() {
        assertEquals(PAGE, t.lseek(fd, 0, VfsTask.SEEK_HOLE));
        assertEquals(4 * PAGE, t.lseek(fd, 3 * PAGE + 100, VfsTask.SEEK_HOLE));
        assertEquals(4 * PAGE, t.lseek(fd, 0, VfsTask.SEEK_CUR));
    }

    @Test
    void seekHole_inAHole_staysPut() {
        assertEquals(PAGE + 1, t.lseek(fd, PAGE + 1, VfsTask.SEEK_HOLE));
        assertEquals(4 * PAGE, t.lseek(fd, 4 * PAGE, VfsTask.SEEK_HOLE));
    }

    @Test
    void seekData_noDataAfterTheOffset_failsWithENXIOAndKeepsTheOffset() {
        t.lseek(fd, 7, VfsTask.SEEK_SET);
        assertErrno(Errno.ENXIO, () -> t.lseek(fd, 4 * PAGE, VfsTask.SEEK_DATA));
        assertEquals(7, t.lseek(fd, 0, VfsTask.SEEK_CUR));
    }

    @Test
    void seekDataAndHole_atOrPastTheEnd_failWithENXIO() {
        assertErrno(Errno.ENXIO, () -> t.lseek(fd, 5 * PAGE, VfsTask.SEEK_DATA));
        assertErrno(Errno.ENXIO, () -> t.lseek(fd, 5 * PAGE, VfsTask.SEEK_HOLE));
        assertErrno(Errno.ENXIO, () -> t.lseek(fd, 1L << 40, VfsTask.SEEK_HOLE));
    }

    @Test
    void seekDataAndHole_negativeOffset_failWithENXIO() {
        assertErrno(Errno.ENXIO, () -> t.lseek(fd, -1, VfsTask.SEEK_DATA));
        assertErrno(Errno.ENXIO, () -> t.lseek(fd, -1, VfsTask.SEEK_HOLE));
    }

    @Test
    void seekDataAndHole_emptyFile_failWithENXIO() {
        int e = t.open("/e", OpenFlags.O_RDONLY);
        assertErrno(Errno.ENXIO, () -> t.lseek(e, 0, VfsTask.SEEK_DATA));
        assertErrno(Errno.ENXIO, () -> t.lseek(e, 0, VfsTask.SEEK_HOLE));
        t.close(e);
    }

    @Test
    void seekHole_fileWithoutHoles_findsTheEnd() {
        int e = t.open("/e", OpenFlags.O_RDWR);
        t.write(e, new byte[PAGE + 10]);
        assertEquals(PAGE + 10, t.lseek(e, 0, VfsTask.SEEK_HOLE));
        assertEquals(PAGE + 3, t.lseek(e, PAGE + 3, VfsTask.SEEK_DATA));
        t.close(e);
    }

    @Test
    void seekHole_lastPageCutByTruncate_findsTheNewEnd() {
        t.ftruncate(fd, 3 * PAGE + 10);
        assertEquals(3 * PAGE + 10, t.lseek(fd, 3 * PAGE, VfsTask.SEEK_HOLE));
    }

    @Test
    void seekData_extendedByTruncate_theNewPartIsAHole() {
        int e = t.open("/e", OpenFlags.O_RDWR);
        t.write(e, bytes("abc"));
        t.ftruncate(e, 3 * PAGE);
        assertEquals(PAGE, t.lseek(e, 0, VfsTask.SEEK_HOLE));
        assertErrno(Errno.ENXIO, () -> t.lseek(e, PAGE, VfsTask.SEEK_DATA));
        t.close(e);
    }

    @Test
    void seekDataAndHole_directory_failWithEINVAL() {
        int d = t.open("/d", OpenFlags.O_RDONLY);
        assertErrno(Errno.EINVAL, () -> t.lseek(d, 0, VfsTask.SEEK_DATA));
        assertErrno(Errno.EINVAL, () -> t.lseek(d, 0, VfsTask.SEEK_HOLE));
        t.close(d);
    }

    @Test
    void lseek_pipeEnds_failWithESPIPEForEveryWhence() {
        int[] p = t.pipe();
        for (int whence = VfsTask.SEEK_SET; whence <= VfsTask.SEEK_HOLE; whence++) {
            final int w = whence;
            assertErrno(Errno.ESPIPE, () -> t.lseek(p[0], 0, w));
            assertErrno(Errno.ESPIPE, () -> t.lseek(p[1], 0, w));
        }
        t.close(p[0]);
        t.close(p[1]);
    }

    @Test
    void lseek_sockets_failWithESPIPE() {
        int s = t.socket(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
        int[] sp = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
        assertErrno(Errno.ESPIPE, () -> t.lseek(s, 0, VfsTask.SEEK_CUR));
        assertErrno(Errno.ESPIPE, () -> t.lseek(sp[0], 0, VfsTask.SEEK_SET));
        assertErrno(Errno.ESPIPE, () -> t.lseek(sp[1], 0, VfsTask.SEEK_DATA));
        t.close(s);
        t.close(sp[0]);
        t.close(sp[1]);
    }
}
