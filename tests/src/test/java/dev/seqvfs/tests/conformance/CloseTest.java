package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code close(2)}: the descriptor becomes free (and is the lowest one reused), other
 * descriptors and other tasks are unaffected, the last close of an unlinked file frees its inode
 * and the last close on a mount lets it be unmounted; and its one errno that applies to memory,
 * EBADF. EINTR, EIO, ENOSPC and EDQUOT come from I/O that an in-memory file system does not do at
 * close. Also the task's exit, which closes all.
 *
 * <pre>
 * /f    regular file
 * /m/   directory (a mountpoint in some tests)
 * </pre>
 */
@FileSystemContract
class CloseTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        touch(t, "/f");
        t.mkdir("/m", 0755);
    }

    @Test
    void close_openDescriptor_makesItInvalid() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        t.close(fd);
        assertErrno(Errno.EBADF, () -> t.fstat(fd));
        assertErrno(Errno.EBADF, () -> t.close(fd));
    }

    @Test
    void close_freesTheNumberForReuse() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        int b = t.open("/f", OpenFlags.O_RDONLY);
        t.close(a);
        assertEquals(a, t.open("/m", OpenFlags.O_RDONLY));
        t.close(a);
        t.close(b);
    }

    @Test
    void close_oneDescriptor_leavesOthersOnSameFileOpen() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        int b = t.open("/f", OpenFlags.O_RDONLY);
        t.close(a);
        assertEquals(t.stat("/f").ino(), t.fstat(b).ino());
        t.close(b);
    }

    @Test
    void close_neverOpened_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.close(0));
        assertErrno(Errno.EBADF, () -> t.close(5000));
    }

    @Test
    void close_negative_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.close(-1));
        assertErrno(Errno.EBADF, () -> t.close(VfsTask.AT_FDCWD));
    }

    @Test
    void close_descriptorOfAnotherTask_failsWithEBADFAndLeavesItOpen() {
        VfsTask other = fs.task(0, 0);
        int fd = other.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EBADF, () -> t.close(fd));
        assertEquals(t.stat("/f").ino(), other.fstat(fd).ino());
        other.close(fd);
    }

    @Test
    void close_pathAndDirectoryDescriptors_close() {
        int p = t.open("/f", OpenFlags.O_PATH);
        int d = t.open("/m", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        t.close(p);
        t.close(d);
        assertErrno(Errno.EBADF, () -> t.fstat(p));
        assertErrno(Errno.EBADF, () -> t.fstat(d));
    }

    @Test
    void close_lastDescriptorOfUnlinkedFile_freesTheInode() {
        long free = t.statfs("/").ffree();
        int a = t.open("/f", OpenFlags.O_RDONLY);
        int b = t.open("/f", OpenFlags.O_WRONLY);
        t.unlink("/f");
        t.close(a);
        assertEquals(free, t.statfs("/").ffree());
        t.close(b);
        assertEquals(free + 1, t.statfs("/").ffree());
    }

    @Test
    void close_lastDescriptorOnMount_letsItBeUnmounted() {
        t.mount("none", "/m", "tmpfs", 0, null);
        int fd = t.open("/m", OpenFlags.O_RDONLY);
        assertErrno(Errno.EBUSY, () -> t.umount("/m"));
        t.close(fd);
        t.umount("/m");
        assertEquals(t.stat("/").dev(), t.stat("/m").dev());
    }

    @Test
    void taskExit_closesEveryDescriptorAndFreesUnlinkedFiles() {
        VfsTask u = fs.task(0, 0);
        long free = t.statfs("/").ffree();
        u.open("/f", OpenFlags.O_RDONLY);
        u.open("/f", OpenFlags.O_RDONLY);
        t.unlink("/f");
        assertEquals(free, t.statfs("/").ffree());
        u.close();
        u.close();
        assertEquals(free + 1, t.statfs("/").ffree());
    }

    @Test
    void closeAsync_badDescriptor_completesExceptionallyWithEBADF() {
        Throwable cause =
                assertThrows(CompletionException.class, () -> t.async().close(9).join()).getCause();
        assertEquals(Errno.EBADF, ((VfsException) cause).errno());
    }
}
