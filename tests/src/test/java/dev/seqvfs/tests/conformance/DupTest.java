package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.read;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Io.writeFile;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code dup(2)}, {@code dup2(2)}, {@code dup3(2)} and {@code close_range(2)}: the new
 * descriptor shares the open file description (offset, status flags, flock lock) and starts without
 * {@code FD_CLOEXEC} (unless {@code dup3(O_CLOEXEC)}); {@code dup2} onto itself returns it, onto an
 * open descriptor replaces it in one step (the old description is released: a pipe's reader then
 * sees end of file); {@code close_range} takes unsigned bounds ({@code ~0U} is "to the end") and
 * with {@code CLOSE_RANGE_CLOEXEC} marks instead of closing. Errnos: EBADF (old descriptor not
 * open, new one negative or at or past {@code RLIMIT_NOFILE} = 1024), EINVAL ({@code dup3} with
 * equal descriptors, checked before the descriptors, or flags other than {@code O_CLOEXEC}; {@code
 * close_range} with first &gt; last or unknown flags), EMFILE. Measured on Linux 6.18.
 *
 * <pre>
 * /f    regular file "hello", 0644, root
 * /g    regular file "world", 0644, root
 * </pre>
 */
@FileSystemContract
@Timeout(10)
class DupTest {
    private static final int RLIMIT_NOFILE = 1024;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        writeFile(t, "/f", "hello");
        writeFile(t, "/g", "world");
    }

    private boolean open(int fd) {
        try {
            t.fcntl(fd, Fcntl.F_GETFD, 0);
            return true;
        } catch (dev.seqvfs.protocol.VfsException e) {
            assertEquals(Errno.EBADF, e.errno());
            return false;
        }
    }

    // ---------------------------------------------------------------- dup

    @Test
    void dup_returnsTheLowestFreeDescriptor() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        int b = t.open("/f", OpenFlags.O_RDONLY);
        int c = t.open("/f", OpenFlags.O_RDONLY);
        t.close(b);
        assertEquals(b, t.dup(c));
        assertEquals(c + 1, t.dup(a));
        for (int fd = a; fd <= c + 1; fd++) {
            t.close(fd);
        }
    }

    @Test
    void dup_sharesTheOffsetAndStatusFlags() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        int d = t.dup(fd);
        assertEquals("he", read(t, fd, 2));
        assertEquals("ll", read(t, d, 2));
        t.fcntl(fd, Fcntl.F_SETFL, OpenFlags.O_NONBLOCK);
        assertEquals(OpenFlags.O_NONBLOCK | OpenFlags.O_LARGEFILE, t.fcntl(d, Fcntl.F_GETFL, 0));
        t.close(fd);
        assertEquals("o", read(t, d, 2));
        t.close(d);
    }

    @Test
    void dup_clearsCloseOnExecOnTheNewDescriptor() {
        int fd = t.open("/f", OpenFlags.O_RDONLY | OpenFlags.O_CLOEXEC);
        int d = t.dup(fd);
        assertEquals(0, t.fcntl(d, Fcntl.F_GETFD, 0));
        t.exec();
        assertFalse(open(fd));
        assertEquals("hello", read(t, d, 10));
        t.close(d);
    }

    @Test
    void dup_closedDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.dup(5));
        assertErrno(Errno.EBADF, () -> t.dup(-1));
    }

    @Test
    void dup_fullTable_failsWithEMFILE() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        while (t.dup(fd) < RLIMIT_NOFILE - 1) {
            // fill every descriptor up to the limit
        }
        assertErrno(Errno.EMFILE, () -> t.dup(fd));
        t.closeRange(0, -1, 0);
        assertFalse(open(fd));
    }

    // ---------------------------------------------------------------- dup2

    @Test
    void dup2_ontoItself_returnsItAndChangesNothing() {
        int fd = t.open("/f", OpenFlags.O_RDONLY | OpenFlags.O_CLOEXEC);
        assertEquals(fd, t.dup2(fd, fd));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(fd, Fcntl.F_GETFD, 0));
        t.close(fd);
    }

    @Test
    void dup2_ontoItselfWhenClosed_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.dup2(6, 6));
    }

    @Test
    void dup2_ontoAFreeDescriptor_usesExactlyThatOne() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        assertEquals(500, t.dup2(fd, 500));
        assertEquals("hello", read(t, 500, 10));
        assertEquals(fd + 1, t.dup(fd));
        t.close(fd + 1);
        t.close(500);
        t.close(fd);
    }

    @Test
    void dup2_ontoAnOpenDescriptor_replacesItAndClearsCloseOnExec() {
        int f = t.open("/f", OpenFlags.O_RDONLY);
        int g = t.open("/g", OpenFlags.O_RDONLY | OpenFlags.O_CLOEXEC);
        assertEquals(g, t.dup2(f, g));
        assertEquals("hello", read(t, g, 10));
        assertEquals(0, t.fcntl(g, Fcntl.F_GETFD, 0));
        t.close(f);
        t.close(g);
    }

    @Test
    void dup2_ontoThePipesLastWriter_releasesIt_soTheReaderSeesEndOfFile() {
        int[] p = t.pipe();
        int f = t.open("/f", OpenFlags.O_RDONLY);
        write(t, p[1], "x");
        t.dup2(f, p[1]);
        assertEquals("x", read(t, p[0], 10));
        assertEquals(0, t.read(p[0], new byte[1], 0, 1));
        t.close(p[0]);
        t.close(p[1]);
        t.close(f);
    }

    @Test
    void dup2_ontoAnUnlinkedFilesLastDescriptor_freesIt() {
        int g = t.open("/g", OpenFlags.O_RDONLY);
        t.unlink("/g");
        long before = t.statfs("/").ffree();
        int f = t.open("/f", OpenFlags.O_RDONLY);
        t.dup2(f, g);
        assertEquals(before + 1, t.statfs("/").ffree());
        assertFalse(exists(t, "/g"));
        t.close(f);
        t.close(g);
    }

    @Test
    void dup2_ontoADescriptorHoldingAFlockLock_releasesIt() {
        int g = t.open("/g", OpenFlags.O_RDONLY);
        t.flock(g, Flock.LOCK_EX);
        int other = t.open("/g", OpenFlags.O_RDONLY);
        assertErrno(Errno.EAGAIN, () -> t.flock(other, Flock.LOCK_EX | Flock.LOCK_NB));
        int f = t.open("/f", OpenFlags.O_RDONLY);
        t.dup2(f, g);
        t.flock(other, Flock.LOCK_EX | Flock.LOCK_NB);
        t.close(other);
        t.close(f);
        t.close(g);
    }

    @Test
    void dup2_badDescriptors_failWithEBADFAndChangeNothing() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EBADF, () -> t.dup2(9, fd));
        assertErrno(Errno.EBADF, () -> t.dup2(fd, -1));
        assertErrno(Errno.EBADF, () -> t.dup2(fd, RLIMIT_NOFILE));
        assertEquals("hello", read(t, fd, 10));
        t.close(fd);
    }

    // ---------------------------------------------------------------- dup3

    @Test
    void dup3_withOCloexec_setsCloseOnExec() {
        int f = t.open("/f", OpenFlags.O_RDONLY);
        assertEquals(20, t.dup3(f, 20, OpenFlags.O_CLOEXEC));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(20, Fcntl.F_GETFD, 0));
        assertEquals(21, t.dup3(f, 21, 0));
        assertEquals(0, t.fcntl(21, Fcntl.F_GETFD, 0));
        t.closeRange(20, 21, 0);
        t.close(f);
    }

    @Test
    void dup3_equalDescriptors_failsWithEINVAL_evenWhenClosed() {
        int f = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EINVAL, () -> t.dup3(f, f, 0));
        assertErrno(Errno.EINVAL, () -> t.dup3(f, f, OpenFlags.O_CLOEXEC));
        t.close(f);
        assertErrno(Errno.EINVAL, () -> t.dup3(f, f, 0));
    }

    @Test
    void dup3_flagsOtherThanOCloexec_failWithEINVAL() {
        int f = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EINVAL, () -> t.dup3(f, 30, OpenFlags.O_NONBLOCK));
        assertErrno(Errno.EINVAL, () -> t.dup3(f, 30, OpenFlags.O_CLOEXEC | 1));
        assertErrno(Errno.EINVAL, () -> t.dup3(99, 30, OpenFlags.O_APPEND));
        assertFalse(open(30));
        t.close(f);
    }

    @Test
    void dup3_badDescriptors_failWithEBADF() {
        int f = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EBADF, () -> t.dup3(99, 30, 0));
        assertErrno(Errno.EBADF, () -> t.dup3(f, RLIMIT_NOFILE, 0));
        t.close(f);
    }

    // ---------------------------------------------------------------- close_range

    @Test
    void closeRange_closesEveryOpenDescriptorInTheRangeOnly() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        int b = t.dup(a);
        int c = t.dup(a);
        int d = t.dup(a);
        t.dup2(a, 40);
        t.closeRange(b, c, 0);
        assertEquals(
                java.util.List.of(true, false, false, true, true),
                java.util.List.of(open(a), open(b), open(c), open(d), open(40)));
        t.closeRange(d, -1, 0);
        assertFalse(open(d));
        assertFalse(open(40));
        t.close(a);
    }

    @Test
    void closeRange_cloexecFlag_marksInsteadOfClosing() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        int b = t.dup(a);
        t.closeRange(b, b + 10, Fcntl.CLOSE_RANGE_CLOEXEC);
        assertEquals(0, t.fcntl(a, Fcntl.F_GETFD, 0));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(b, Fcntl.F_GETFD, 0));
        t.exec();
        assertFalse(open(b));
        t.close(a);
    }

    @Test
    void closeRange_emptyOrUnsignedRanges_succeed() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        t.closeRange(100, 200, 0);
        // ~0U to ~0U: unsigned bounds, nothing there.
        t.closeRange(-1, -1, 0);
        t.closeRange(a, a, 0);
        assertFalse(open(a));
        t.closeRange(a, a, 0);
    }

    @Test
    void closeRange_firstAboveLast_failsWithEINVAL() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EINVAL, () -> t.closeRange(a + 1, a, 0));
        assertErrno(Errno.EINVAL, () -> t.closeRange(-1, 5, 0));
        assertEquals("hello", read(t, a, 10));
        t.close(a);
    }

    @Test
    void closeRange_unknownFlags_failWithEINVAL() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EINVAL, () -> t.closeRange(a, a, 1));
        assertErrno(Errno.EINVAL, () -> t.closeRange(a, a, 1 << 3));
        assertEquals("hello", read(t, a, 10));
        t.close(a);
    }
}
