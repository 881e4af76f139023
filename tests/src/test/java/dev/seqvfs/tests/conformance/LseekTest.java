package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code lseek(2)} on regular files (directories, whose offsets are readdir cookies, are
 * in GetdentsTest): the three whence values, offsets past the end, the offset shared by one open
 * file description but not by two opens; and the errnos that apply: EBADF (also {@code O_PATH}),
 * EINVAL (bad whence, negative result), ESPIPE (a FIFO). EOVERFLOW needs offsets beyond {@code
 * long}.
 *
 * <pre>
 * /f      empty regular file
 * /fifo   FIFO
 * </pre>
 */
@FileSystemContract
class LseekTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    int fd = -1;

    @BeforeEach
    void tree() {
        t = fs.root();
        touch(t, "/f");
        t.mknod("/fifo", Mode.S_IFIFO | 0644, 0);
    }

    @AfterEach
    void closeFd() {
        if (fd >= 0) {
            t.close(fd);
        }
    }

    @Test
    void lseek_set_movesToTheOffsetEvenPastTheEnd() {
        fd = t.open("/f", OpenFlags.O_RDWR);
        assertEquals(100_000, t.lseek(fd, 100_000, VfsTask.SEEK_SET));
        assertEquals(100_000, t.lseek(fd, 0, VfsTask.SEEK_CUR));
    }

    @Test
    void lseek_cur_movesRelativeToTheCurrentOffset() {
        fd = t.open("/f", OpenFlags.O_RDONLY);
        t.lseek(fd, 10, VfsTask.SEEK_SET);
        assertEquals(15, t.lseek(fd, 5, VfsTask.SEEK_CUR));
        assertEquals(3, t.lseek(fd, -12, VfsTask.SEEK_CUR));
    }

    @Test
    void lseek_end_movesRelativeToTheSize() {
        fd = t.open("/f", OpenFlags.O_RDONLY);
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_END));
        assertEquals(42, t.lseek(fd, 42, VfsTask.SEEK_END));
    }

    @Test
    void lseek_offsetBelongsToTheOpenFileDescription() {
        fd = t.open("/f", OpenFlags.O_RDONLY);
        int other = t.open("/f", OpenFlags.O_RDONLY);
        try {
            t.lseek(fd, 7, VfsTask.SEEK_SET);
            assertEquals(0, t.lseek(other, 0, VfsTask.SEEK_CUR));
        } finally {
            t.close(other);
        }
    }

    @Test
    void lseek_negativeResult_failsWithEINVALAndKeepsTheOffset() {
        fd = t.open("/f", OpenFlags.O_RDONLY);
        t.lseek(fd, 5, VfsTask.SEEK_SET);
        assertErrno(Errno.EINVAL, () -> t.lseek(fd, -6, VfsTask.SEEK_CUR));
        assertErrno(Errno.EINVAL, () -> t.lseek(fd, -1, VfsTask.SEEK_END));
        assertErrno(Errno.EINVAL, () -> t.lseek(fd, -1, VfsTask.SEEK_SET));
        assertEquals(5, t.lseek(fd, 0, VfsTask.SEEK_CUR));
    }

    @Test
    void lseek_badWhence_failsWithEINVAL() {
        fd = t.open("/f", OpenFlags.O_RDONLY);
        // 3 and 4 are SEEK_DATA and SEEK_HOLE; 5 is past SEEK_MAX.
        assertErrno(Errno.EINVAL, () -> t.lseek(fd, 0, 5));
        assertErrno(Errno.EINVAL, () -> t.lseek(fd, 0, -1));
    }

    @Test
    void lseek_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.lseek(9, 0, VfsTask.SEEK_SET));
    }

    @Test
    void lseek_pathDescriptor_failsWithEBADF() {
        fd = t.open("/f", OpenFlags.O_PATH);
        assertErrno(Errno.EBADF, () -> t.lseek(fd, 0, VfsTask.SEEK_SET));
    }

    @Test
    void lseek_fifo_failsWithESPIPE() {
        fd = t.open("/fifo", OpenFlags.O_RDWR);
        assertErrno(Errno.ESPIPE, () -> t.lseek(fd, 0, VfsTask.SEEK_SET));
        assertErrno(Errno.ESPIPE, () -> t.lseek(fd, 0, VfsTask.SEEK_CUR));
    }
}
