package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.content;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Io.writeFile;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies the descriptor commands of {@code fcntl(2)}: {@code F_DUPFD} and {@code
 * F_DUPFD_CLOEXEC} (lowest free descriptor at or above the argument, sharing the open file
 * description, EINVAL for a negative argument or one at or past {@code RLIMIT_NOFILE} = 1024,
 * EMFILE when none is free above it), {@code F_GETFD} and {@code F_SETFD} (only {@code FD_CLOEXEC},
 * per descriptor), {@code F_GETFL} and {@code F_SETFL} (only {@code O_APPEND}, {@code O_NONBLOCK},
 * {@code O_NOATIME}, {@code O_DIRECT}, {@code O_ASYNC} change; the access mode and creation flags
 * are ignored; the flags belong to the open file description; {@code O_NOATIME} needs the file's
 * owner, else EPERM), an unknown command (EINVAL), and EBADF (closed; on an {@code O_PATH}
 * descriptor every command but {@code F_DUPFD}, {@code F_DUPFD_CLOEXEC}, {@code F_GETFD}, {@code
 * F_SETFD}, {@code F_GETFL}). Record locks are in LockTest, pipe sizes in PipeTest. Measured on
 * Linux 6.18.
 *
 * <p>x86-64 Linux adds {@code O_LARGEFILE} (0100000) to every file {@code open(2)} opens (regular
 * files, directories, FIFOs, a pipe reopened through {@code /proc} (see ProcTest); not {@code
 * O_PATH}), never to {@code pipe2}, {@code socket}, {@code socketpair} or {@code eventfd} files,
 * and {@code F_SETFL} cannot clear it; {@code F_GETFL} shows it.
 *
 * <pre>
 * /f    regular file "hello", 0644, root
 * </pre>
 */
@FileSystemContract
class FcntlTest {
    private static final int O_DIRECT = 040000;
    private static final int O_ASYNC = 020000;
    private static final int LF = OpenFlags.O_LARGEFILE;
    private static final int RLIMIT_NOFILE = 1024;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        writeFile(t, "/f", "hello");
    }

    // ---------------------------------------------------------------- F_DUPFD

    @Test
    void dupfd_returnsTheLowestFreeDescriptorAtOrAboveTheArgument() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        int a = t.fcntl(fd, Fcntl.F_DUPFD, 10);
        int b = t.fcntl(fd, Fcntl.F_DUPFD, 10);
        int c = t.fcntl(fd, Fcntl.F_DUPFD, 0);
        assertEquals(10, a);
        assertEquals(11, b);
        assertEquals(fd + 1, c);
        for (int x : new int[] {fd, a, b, c}) {
            t.close(x);
        }
    }

    @Test
    void dupfd_sharesTheOffsetAndStatusFlags_butNotCloseOnExec() {
        int fd = t.open("/f", OpenFlags.O_RDONLY | OpenFlags.O_CLOEXEC);
        int d = t.fcntl(fd, Fcntl.F_DUPFD, 0);
        t.lseek(fd, 3, VfsTask.SEEK_SET);
        assertEquals(3, t.lseek(d, 0, VfsTask.SEEK_CUR));
        t.fcntl(d, Fcntl.F_SETFL, OpenFlags.O_NONBLOCK);
        assertEquals(OpenFlags.O_NONBLOCK, t.fcntl(fd, Fcntl.F_GETFL, 0) & OpenFlags.O_NONBLOCK);
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(fd, Fcntl.F_GETFD, 0));
        assertEquals(0, t.fcntl(d, Fcntl.F_GETFD, 0));
        t.close(fd);
        t.close(d);
    }

    @Test
    void dupfdCloexec_setsCloseOnExecOnTheNewDescriptorOnly() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        int d = t.fcntl(fd, Fcntl.F_DUPFD_CLOEXEC, 5);
        assertEquals(5, d);
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(d, Fcntl.F_GETFD, 0));
        assertEquals(0, t.fcntl(fd, Fcntl.F_GETFD, 0));
        t.exec();
        assertErrno(Errno.EBADF, () -> t.fcntl(d, Fcntl.F_GETFD, 0));
        t.close(fd);
    }

    @Test
    void dupfd_negativeOrTooLargeMinimum_failsWithEINVAL() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EINVAL, () -> t.fcntl(fd, Fcntl.F_DUPFD, -1));
        assertErrno(Errno.EINVAL, () -> t.fcntl(fd, Fcntl.F_DUPFD, RLIMIT_NOFILE));
        assertErrno(Errno.EINVAL, () -> t.fcntl(fd, Fcntl.F_DUPFD_CLOEXEC, -5));
        assertErrno(Errno.EINVAL, () -> t.fcntl(fd, Fcntl.F_DUPFD_CLOEXEC, 1L << 40));
        int last = t.fcntl(fd, Fcntl.F_DUPFD, RLIMIT_NOFILE - 1);
        assertEquals(RLIMIT_NOFILE - 1, last);
        t.close(last);
        t.close(fd);
    }

    @Test
    void dupfd_noFreeDescriptorAboveTheMinimum_failsWithEMFILE() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        int last = t.dup2(fd, RLIMIT_NOFILE - 1);
        assertErrno(Errno.EMFILE, () -> t.fcntl(fd, Fcntl.F_DUPFD, RLIMIT_NOFILE - 1));
        assertErrno(Errno.EMFILE, () -> t.fcntl(fd, Fcntl.F_DUPFD_CLOEXEC, RLIMIT_NOFILE - 1));
        t.close(last);
        t.close(fd);
    }

    @Test
    void dupfd_closedDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fcntl(7, Fcntl.F_DUPFD, 0));
        assertErrno(Errno.EBADF, () -> t.fcntl(7, Fcntl.F_DUPFD_CLOEXEC, 0));
        assertErrno(Errno.EBADF, () -> t.fcntl(-1, Fcntl.F_DUPFD, 0));
    }

    // ---------------------------------------------------------------- F_GETFD / F_SETFD

    @Test
    void getfd_reflectsOCloexec() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        int b = t.open("/f", OpenFlags.O_RDONLY | OpenFlags.O_CLOEXEC);
        assertEquals(0, t.fcntl(a, Fcntl.F_GETFD, 0));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(b, Fcntl.F_GETFD, 0));
        t.close(a);
        t.close(b);
    }

    @Test
    void setfd_setsAndClearsOnlyFdCloexec_perDescriptor() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        int d = t.dup(fd);
        assertEquals(0, t.fcntl(fd, Fcntl.F_SETFD, 0xff));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(fd, Fcntl.F_GETFD, 0));
        assertEquals(0, t.fcntl(d, Fcntl.F_GETFD, 0));
        t.fcntl(fd, Fcntl.F_SETFD, 0);
        assertEquals(0, t.fcntl(fd, Fcntl.F_GETFD, 0));
        t.fcntl(d, Fcntl.F_SETFD, Fcntl.FD_CLOEXEC);
        t.exec();
        assertEquals("hello", Io.read(t, fd, 10));
        assertErrno(Errno.EBADF, () -> t.fcntl(d, Fcntl.F_GETFD, 0));
        t.close(fd);
    }

    @Test
    void getfdSetfd_closedDescriptor_failWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fcntl(9, Fcntl.F_GETFD, 0));
        assertErrno(Errno.EBADF, () -> t.fcntl(9, Fcntl.F_SETFD, Fcntl.FD_CLOEXEC));
    }

    // ---------------------------------------------------------------- F_GETFL / F_SETFL

    @Test
    void getfl_showsTheAccessModeAndStatusFlags_notTheCreationFlags() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        int b = t.open("/f", OpenFlags.O_WRONLY | OpenFlags.O_APPEND | OpenFlags.O_CLOEXEC);
        int c =
                t.open(
                        "/g",
                        OpenFlags.O_RDWR
                                | OpenFlags.O_CREAT
                                | OpenFlags.O_EXCL
                                | OpenFlags.O_TRUNC
                                | OpenFlags.O_NONBLOCK,
                        0644);
        assertEquals(OpenFlags.O_RDONLY | LF, t.fcntl(a, Fcntl.F_GETFL, 0));
        assertEquals(OpenFlags.O_WRONLY | OpenFlags.O_APPEND | LF, t.fcntl(b, Fcntl.F_GETFL, 0));
        assertEquals(OpenFlags.O_RDWR | OpenFlags.O_NONBLOCK | LF, t.fcntl(c, Fcntl.F_GETFL, 0));
        t.close(a);
        t.close(b);
        t.close(c);
    }

    @Test
    void setfl_changesTheFiveStatusFlags() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        int all =
                OpenFlags.O_APPEND
                        | OpenFlags.O_NONBLOCK
                        | OpenFlags.O_NOATIME
                        | O_DIRECT
                        | O_ASYNC;
        assertEquals(0, t.fcntl(fd, Fcntl.F_SETFL, all));
        assertEquals(OpenFlags.O_RDWR | all | LF, t.fcntl(fd, Fcntl.F_GETFL, 0));
        t.fcntl(fd, Fcntl.F_SETFL, OpenFlags.O_NONBLOCK);
        assertEquals(OpenFlags.O_RDWR | OpenFlags.O_NONBLOCK | LF, t.fcntl(fd, Fcntl.F_GETFL, 0));
        t.close(fd);
    }

    @Test
    void setfl_ignoresTheAccessModeAndOtherFlags() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        t.fcntl(
                fd,
                Fcntl.F_SETFL,
                OpenFlags.O_RDWR
                        | OpenFlags.O_TRUNC
                        | OpenFlags.O_CREAT
                        | OpenFlags.O_SYNC
                        | OpenFlags.O_CLOEXEC
                        | OpenFlags.O_PATH);
        assertEquals(OpenFlags.O_RDONLY | LF, t.fcntl(fd, Fcntl.F_GETFL, 0));
        assertErrno(Errno.EBADF, () -> write(t, fd, "x"));
        assertEquals(0, t.fcntl(fd, Fcntl.F_GETFD, 0));
        t.close(fd);
        assertEquals("hello", content(t, "/f"));
    }

    @Test
    void setflAppend_makesLaterWritesAppend() {
        int fd = t.open("/f", OpenFlags.O_WRONLY);
        t.fcntl(fd, Fcntl.F_SETFL, OpenFlags.O_APPEND);
        write(t, fd, "!");
        t.fcntl(fd, Fcntl.F_SETFL, 0);
        t.lseek(fd, 0, VfsTask.SEEK_SET);
        write(t, fd, "J");
        t.close(fd);
        assertEquals("Jello!", content(t, "/f"));
    }

    @Test
    void setflODirect_directorySocketOrEventfd_failsWithEINVAL() {
        t.mkdir("/d", 0755);
        int d = t.open("/d", OpenFlags.O_RDONLY);
        int s =
                t.socket(
                        dev.seqvfs.protocol.SocketFlags.AF_UNIX,
                        dev.seqvfs.protocol.SocketFlags.SOCK_STREAM,
                        0);
        int e = t.eventfd(0, 0);
        for (int fd : new int[] {d, s, e}) {
            int before = t.fcntl(fd, Fcntl.F_GETFL, 0);
            assertErrno(
                    Errno.EINVAL, () -> t.fcntl(fd, Fcntl.F_SETFL, O_DIRECT | OpenFlags.O_APPEND));
            assertEquals(before, t.fcntl(fd, Fcntl.F_GETFL, 0));
        }
        // Pipes take it (packet mode), regular tmpfs files too (FMODE_CAN_ODIRECT).
        int[] p = t.pipe();
        t.fcntl(p[1], Fcntl.F_SETFL, O_DIRECT);
        assertEquals(OpenFlags.O_WRONLY | O_DIRECT, t.fcntl(p[1], Fcntl.F_GETFL, 0));
        t.closeRange(0, -1, 0);
    }

    @Test
    void setfl_belongsToTheOpenFileDescription() {
        int a = t.open("/f", OpenFlags.O_RDONLY);
        int dup = t.dup(a);
        int other = t.open("/f", OpenFlags.O_RDONLY);
        t.fcntl(a, Fcntl.F_SETFL, OpenFlags.O_NONBLOCK);
        assertEquals(OpenFlags.O_NONBLOCK | LF, t.fcntl(dup, Fcntl.F_GETFL, 0));
        assertEquals(LF, t.fcntl(other, Fcntl.F_GETFL, 0));
        t.close(a);
        t.close(dup);
        t.close(other);
    }

    @Test
    void setflNoatime_notTheOwner_failsWithEPERM() {
        t.chmod("/f", 0666);
        VfsTask u = fs.task(1000, 1000);
        int fd = u.open("/f", OpenFlags.O_RDWR);
        assertErrno(
                Errno.EPERM,
                () -> u.fcntl(fd, Fcntl.F_SETFL, OpenFlags.O_NOATIME | OpenFlags.O_APPEND));
        assertEquals(OpenFlags.O_RDWR | LF, u.fcntl(fd, Fcntl.F_GETFL, 0));
        u.close(fd);
        t.chown("/f", 1000, 1000);
        int own = u.open("/f", OpenFlags.O_RDWR);
        u.fcntl(own, Fcntl.F_SETFL, OpenFlags.O_NOATIME);
        assertEquals(OpenFlags.O_RDWR | OpenFlags.O_NOATIME | LF, u.fcntl(own, Fcntl.F_GETFL, 0));
        u.close(own);
    }

    @Test
    void getfl_filesOpenedByOpen_carryOLargefile_thoseMadeByTheirOwnCallsDoNot() {
        // measured on x86-64 Linux 6.18: open/openat add O_LARGEFILE (force_o_largefile)
        t.mkdir("/d", 0755);
        int dir = t.open("/d", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        int path = t.open("/d", OpenFlags.O_PATH);
        assertEquals(OpenFlags.O_DIRECTORY | LF, t.fcntl(dir, Fcntl.F_GETFL, 0));
        assertEquals(OpenFlags.O_PATH, t.fcntl(path, Fcntl.F_GETFL, 0));
        int[] p = t.pipe();
        int[] sp =
                t.socketpair(
                        dev.seqvfs.protocol.SocketFlags.AF_UNIX,
                        dev.seqvfs.protocol.SocketFlags.SOCK_STREAM,
                        0);
        int s =
                t.socket(
                        dev.seqvfs.protocol.SocketFlags.AF_INET,
                        dev.seqvfs.protocol.SocketFlags.SOCK_DGRAM,
                        0);
        int e = t.eventfd(0, 0);
        assertEquals(OpenFlags.O_RDONLY, t.fcntl(p[0], Fcntl.F_GETFL, 0));
        assertEquals(OpenFlags.O_WRONLY, t.fcntl(p[1], Fcntl.F_GETFL, 0));
        assertEquals(OpenFlags.O_RDWR, t.fcntl(sp[0], Fcntl.F_GETFL, 0));
        assertEquals(OpenFlags.O_RDWR, t.fcntl(s, Fcntl.F_GETFL, 0));
        assertEquals(OpenFlags.O_RDWR, t.fcntl(e, Fcntl.F_GETFL, 0));
        t.closeRange(0, -1, 0);
    }

    @Test
    void setfl_zero_keepsOLargefile() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        t.fcntl(fd, Fcntl.F_SETFL, 0);
        assertEquals(LF, t.fcntl(fd, Fcntl.F_GETFL, 0));
        t.close(fd);
    }

    @Test
    void getflSetfl_closedDescriptor_failWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fcntl(9, Fcntl.F_GETFL, 0));
        assertErrno(Errno.EBADF, () -> t.fcntl(9, Fcntl.F_SETFL, OpenFlags.O_APPEND));
    }

    // ---------------------------------------------------------------- O_PATH, unknown commands

    @Test
    void fcntl_pathDescriptor_allowsOnlyDupAndFlagQueries() {
        int fd = t.open("/f", OpenFlags.O_PATH);
        assertEquals(OpenFlags.O_PATH, t.fcntl(fd, Fcntl.F_GETFL, 0));
        assertEquals(0, t.fcntl(fd, Fcntl.F_SETFD, Fcntl.FD_CLOEXEC));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(fd, Fcntl.F_GETFD, 0));
        int d = t.fcntl(fd, Fcntl.F_DUPFD, 0);
        assertNotEquals(fd, d);
        assertErrno(Errno.EBADF, () -> t.fcntl(fd, Fcntl.F_SETFL, OpenFlags.O_APPEND));
        assertErrno(Errno.EBADF, () -> t.fcntl(fd, Fcntl.F_GETPIPE_SZ, 0));
        assertErrno(Errno.EBADF, () -> t.fcntl(fd, 9999, 0));
        t.close(d);
        t.close(fd);
    }

    @Test
    void fcntl_unknownCommand_failsWithEINVAL() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EINVAL, () -> t.fcntl(fd, 9999, 0));
        assertErrno(Errno.EINVAL, () -> t.fcntl(fd, -1, 0));
        t.close(fd);
    }

    @Test
    void fcntl_unknownCommandOnClosedDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fcntl(9, 9999, 0));
    }
}
