package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code utimensat(2)} and {@code futimens(3)} (a {@code null} path): exact nanosecond
 * times, {@code UTIME_NOW} and {@code UTIME_OMIT}, ctime, symlinks with {@code
 * AT_SYMLINK_NOFOLLOW}, who may set what (owner or root for explicit times and for {@code
 * UTIME_NOW} with {@code UTIME_OMIT}, EPERM; write permission suffices for "both now", EACCES), and
 * the man page's errnos that apply: EACCES, EBADF, EFAULT, EINVAL, ELOOP, ENAMETOOLONG, ENOENT,
 * ENOTDIR, EPERM, EROFS. The order of checks follows Linux 6.18, measured on the host.
 *
 * <pre>
 * /d/            0755
 * /d/f           regular file 0644, owner 1000:1000, times 1000 s
 * /lf -> /d/f
 * /w             regular file 0666, owner root
 * /r             regular file 0644, owner root
 * </pre>
 */
@FileSystemContract
class UtimensatTest {
    private static final Timespec T1 = new Timespec(1_234_567_890L, 123_456_789);
    private static final Timespec T2 = new Timespec(1_111_111_111L, 999_999_999);
    private static final long OLD = 1000_000_000_000L;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    VfsTask owner;
    VfsTask other;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/d/f", 0644);
        t.chown("/d/f", 1000, 1000);
        t.symlink("/d/f", "/lf");
        touch(t, "/w", 0666);
        t.chmod("/w", 0666);
        touch(t, "/r", 0644);
        for (String p : new String[] {"/d/f", "/w", "/r"}) {
            t.utimensat(VfsTask.AT_FDCWD, p, new Timespec(1000, 0), new Timespec(1000, 0), 0);
        }
        owner = fs.task(1000, 1000);
        other = fs.task(1001, 1001);
    }

    private static long nanos(Instant i) {
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    private void set(VfsTask task, String path, Timespec a, Timespec m) {
        task.utimensat(VfsTask.AT_FDCWD, path, a, m, 0);
    }

    @Test
    void utimensat_explicitTimes_storedToTheNanosecondAndCtimeMoves() {
        set(t, "/d/f", T1, T2);
        Stat st = t.stat("/d/f");
        assertEquals(T1.toNanos(), st.atimeNanos());
        assertEquals(T2.toNanos(), st.mtimeNanos());
        assertTrue(st.ctimeNanos() > OLD);
    }

    @Test
    void utimensat_timesBeforeTheEpoch_areStored() {
        set(t, "/d/f", new Timespec(-1, 500_000_000), new Timespec(-100, 0));
        assertEquals(-500_000_000L, t.stat("/d/f").atimeNanos());
        assertEquals(-100_000_000_000L, t.stat("/d/f").mtimeNanos());
    }

    @Test
    void utimensat_nowForBoth_setsAllThreeToTheSameCurrentTime() {
        long before = nanos(Instant.now());
        set(t, "/d/f", Timespec.NOW, Timespec.NOW);
        long after = nanos(Instant.now());
        Stat st = t.stat("/d/f");
        assertTrue(st.mtimeNanos() >= before && st.mtimeNanos() <= after);
        assertEquals(st.mtimeNanos(), st.atimeNanos());
        assertEquals(st.mtimeNanos(), st.ctimeNanos());
    }

    @Test
    void utimensat_nullTimes_meanNow() {
        t.utimensat(VfsTask.AT_FDCWD, "/d/f", null, null, 0);
        Stat st = t.stat("/d/f");
        assertTrue(st.atimeNanos() > OLD);
        assertTrue(st.mtimeNanos() > OLD);
    }

    @Test
    void utimensat_omitOne_leavesIt() {
        set(t, "/d/f", Timespec.OMIT, T2);
        assertEquals(OLD, t.stat("/d/f").atimeNanos());
        assertEquals(T2.toNanos(), t.stat("/d/f").mtimeNanos());
        set(t, "/d/f", Timespec.NOW, Timespec.OMIT);
        assertTrue(t.stat("/d/f").atimeNanos() > OLD);
        assertEquals(T2.toNanos(), t.stat("/d/f").mtimeNanos());
    }

    @Test
    void utimensat_omitBoth_changesNothingNotEvenCtime() {
        long ctime = t.stat("/d/f").ctimeNanos();
        set(other, "/d/f", Timespec.OMIT, Timespec.OMIT);
        Stat st = t.stat("/d/f");
        assertEquals(OLD, st.atimeNanos());
        assertEquals(OLD, st.mtimeNanos());
        assertEquals(ctime, st.ctimeNanos());
    }

    @Test
    void utimensat_omitBothOnMissingPath_succeedsWithoutLookingItUp() {
        set(t, "/d/missing", Timespec.OMIT, Timespec.OMIT);
        assertErrno(Errno.ENOENT, () -> t.stat("/d/missing"));
    }

    @Test
    void utimensat_directory_setsItsTimes() {
        set(t, "/d", T1, T2);
        assertEquals(T1.toNanos(), t.stat("/d").atimeNanos());
        assertEquals(T2.toNanos(), t.stat("/d").mtimeNanos());
    }

    @Test
    void utimensat_followsSymlinkUnlessNoFollow() {
        set(t, "/lf", T1, T1);
        assertEquals(T1.toNanos(), t.stat("/d/f").mtimeNanos());
        t.utimensat(VfsTask.AT_FDCWD, "/lf", T2, T2, OpenFlags.AT_SYMLINK_NOFOLLOW);
        assertEquals(T2.toNanos(), t.lstat("/lf").mtimeNanos());
        assertEquals(T1.toNanos(), t.stat("/d/f").mtimeNanos());
    }

    @Test
    void utimensat_ownerSetsExplicitTimes() {
        set(owner, "/d/f", T1, T2);
        assertEquals(T2.toNanos(), t.stat("/d/f").mtimeNanos());
    }

    @Test
    void utimensat_nonOwnerExplicitTime_failsWithEPERMEvenWithWritePermission() {
        assertErrno(Errno.EPERM, () -> set(other, "/w", T1, T2));
        assertErrno(Errno.EPERM, () -> set(other, "/w", Timespec.OMIT, T2));
        assertErrno(Errno.EPERM, () -> set(other, "/r", T1, T2));
        assertEquals(OLD, t.stat("/w").mtimeNanos());
    }

    @Test
    void utimensat_nonOwnerNowWithWritePermission_succeeds() {
        set(other, "/w", Timespec.NOW, Timespec.NOW);
        assertTrue(t.stat("/w").mtimeNanos() > OLD);
        other.utimensat(VfsTask.AT_FDCWD, "/w", null, null, 0);
    }

    @Test
    void utimensat_nonOwnerNowWithoutWritePermission_failsWithEACCES() {
        assertErrno(Errno.EACCES, () -> set(other, "/r", Timespec.NOW, Timespec.NOW));
        assertErrno(Errno.EACCES, () -> other.utimensat(VfsTask.AT_FDCWD, "/r", null, null, 0));
        assertEquals(OLD, t.stat("/r").mtimeNanos());
    }

    @Test
    void utimensat_nonOwnerNowWithOmit_failsWithEPERMEvenWithWritePermission() {
        assertErrno(Errno.EPERM, () -> set(other, "/w", Timespec.NOW, Timespec.OMIT));
        assertErrno(Errno.EPERM, () -> set(other, "/r", Timespec.OMIT, Timespec.NOW));
        assertEquals(OLD, t.stat("/w").atimeNanos());
    }

    @Test
    void utimensat_rootSetsAnything() {
        set(t, "/d/f", T1, T2);
        set(t, "/r", Timespec.NOW, Timespec.OMIT);
        assertEquals(T2.toNanos(), t.stat("/d/f").mtimeNanos());
    }

    @Test
    void utimensat_nanosecondsOutOfRange_failsWithEINVAL() {
        assertErrno(
                Errno.EINVAL, () -> set(t, "/d/f", new Timespec(1, 1_000_000_000), Timespec.OMIT));
        assertErrno(Errno.EINVAL, () -> set(t, "/d/f", Timespec.OMIT, new Timespec(1, -1)));
        assertErrno(
                Errno.EINVAL,
                () -> set(t, "/d/f", Timespec.NOW, new Timespec(0, (1L << 30) - 3 + 1000)));
        assertEquals(OLD, t.stat("/d/f").mtimeNanos());
    }

    @Test
    void utimensat_nanosecondsOutOfRangeOnMissingPath_failsWithENOENTFirst() {
        assertErrno(
                Errno.ENOENT,
                () -> set(t, "/d/missing", new Timespec(1, 1_000_000_000), Timespec.NOW));
    }

    @Test
    void utimensat_unknownFlag_failsWithEINVAL() {
        assertErrno(
                Errno.EINVAL,
                () -> t.utimensat(VfsTask.AT_FDCWD, "/d/f", T1, T1, OpenFlags.AT_REMOVEDIR));
    }

    @Test
    void futimens_openDescriptor_setsTimes() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            t.utimensat(fd, null, T1, T2, 0);
        } finally {
            t.close(fd);
        }
        assertEquals(T2.toNanos(), t.stat("/d/f").mtimeNanos());
    }

    @Test
    void futimens_withSymlinkNoFollowFlag_failsWithEINVAL() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(
                    Errno.EINVAL,
                    () -> t.utimensat(fd, null, T1, T2, OpenFlags.AT_SYMLINK_NOFOLLOW));
        } finally {
            t.close(fd);
        }
        assertEquals(OLD, t.stat("/d/f").mtimeNanos());
    }

    @Test
    void futimens_pathDescriptor_failsWithEBADF() {
        int fd = t.open("/d/f", OpenFlags.O_PATH);
        try {
            assertErrno(Errno.EBADF, () -> t.utimensat(fd, null, T1, T2, 0));
        } finally {
            t.close(fd);
        }
        assertEquals(OLD, t.stat("/d/f").mtimeNanos());
    }

    @Test
    void futimens_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.utimensat(88, null, T1, T2, 0));
    }

    @Test
    void utimensat_nullPathWithCwd_failsWithEFAULT() {
        assertErrno(Errno.EFAULT, () -> t.utimensat(VfsTask.AT_FDCWD, null, T1, T2, 0));
    }

    @Test
    void utimensat_emptyPathOnPathDescriptor_setsTimes() {
        int fd = t.open("/d/f", OpenFlags.O_PATH);
        try {
            t.utimensat(fd, "", T1, T2, OpenFlags.AT_EMPTY_PATH);
        } finally {
            t.close(fd);
        }
        assertEquals(T2.toNanos(), t.stat("/d/f").mtimeNanos());
    }

    @Test
    void utimensat_relativeToDescriptor_sets() {
        int fd = t.open("/d", OpenFlags.O_RDONLY);
        try {
            t.utimensat(fd, "f", T1, T2, 0);
        } finally {
            t.close(fd);
        }
        assertEquals(T1.toNanos(), t.stat("/d/f").atimeNanos());
    }

    @Test
    void utimensat_badDirDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.utimensat(88, "f", T1, T2, 0));
    }

    @Test
    void utimensat_fileDescriptorWithRelativePath_failsWithENOTDIR() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.utimensat(fd, "x", T1, T2, 0));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void utimensat_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> set(t, "/d/missing", T1, T2));
        assertErrno(Errno.ENOENT, () -> set(t, "", T1, T2));
    }

    @Test
    void utimensat_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> set(t, "/d/f/x", T1, T2));
    }

    @Test
    void utimensat_withoutSearchPermission_failsWithEACCES() {
        t.chmod("/d", 0700);
        assertErrno(Errno.EACCES, () -> set(owner, "/d/f", T1, T2));
    }

    @Test
    void utimensat_symlinkLoop_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> set(t, "/loop", T1, T2));
    }

    @Test
    void utimensat_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> set(t, "/" + "u".repeat(256), T1, T2));
    }

    @Test
    void utimensat_readOnlyMount_failsWithEROFS() {
        t.mount("none", "/d", "tmpfs", MountFlags.MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> set(t, "/d", T1, T2));
        assertErrno(Errno.EROFS, () -> set(t, "/d", Timespec.NOW, Timespec.NOW));
        t.umount("/d");
    }
}
