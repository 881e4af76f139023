package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code stat(2)}, {@code lstat(2)}, {@code fstatat(2)} ({@code AT_EMPTY_PATH}, {@code
 * AT_SYMLINK_NOFOLLOW}) and {@code fstat(2)}: every field of {@code struct stat} (type and mode,
 * nlink, ino, dev, rdev, size, blocks, blksize, nanosecond times) for each file type, and the man
 * page's errnos that apply: EACCES, EBADF, EINVAL, ELOOP, ENAMETOOLONG, ENOENT, ENOTDIR. Directory
 * sizes follow tmpfs (20 bytes per entry, "." and ".." included), as measured on the host.
 *
 * <pre>
 * /d/            0750, owner 7:8
 * /d/f           regular file 0640
 * /d/sub/
 * /lf       -> /d/f
 * /dangling -> /nowhere
 * </pre>
 */
@FileSystemContract
class StatTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.umask(0);
        t.mkdir("/d", 0750);
        t.chown("/d", 7, 8);
        touch(t, "/d/f", 0640);
        t.mkdir("/d/sub", 0755);
        t.symlink("/d/f", "/lf");
        t.symlink("/nowhere", "/dangling");
    }

    private static long nanos(Instant i) {
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    @Test
    void stat_regularFile_reportsEveryField() {
        Stat st = t.stat("/d/f");
        assertEquals(FileType.REGULAR, st.type());
        assertEquals(Mode.S_IFREG | 0640, st.mode());
        assertEquals(1, st.nlink());
        assertEquals(0, st.uid());
        assertEquals(0, st.gid());
        assertEquals(0, st.rdev());
        assertEquals(0, st.size());
        assertEquals(0, st.blocks());
        assertEquals(4096, st.blksize());
        assertEquals(t.stat("/").dev(), st.dev());
    }

    @Test
    void stat_directory_reportsTypeOwnerLinksAndTmpfsSize() {
        Stat st = t.stat("/d");
        assertEquals(Mode.S_IFDIR | 0750, st.mode());
        assertEquals(7, st.uid());
        assertEquals(8, st.gid());
        assertEquals(3, st.nlink());
        assertEquals(20 * (2 + 2), st.size());
        assertEquals(40, t.stat("/d/sub").size());
        assertEquals(0, st.blocks());
    }

    @Test
    void stat_newObjects_haveEqualTimesWithinTheCall() {
        long before = nanos(Instant.now());
        t.mkdir("/d/n", 0755);
        long after = nanos(Instant.now());
        Stat st = t.stat("/d/n");
        assertTrue(st.ctimeNanos() >= before && st.ctimeNanos() <= after);
        assertEquals(st.ctimeNanos(), st.mtimeNanos());
        assertEquals(st.ctimeNanos(), st.atimeNanos());
    }

    @Test
    void stat_timesHaveNanosecondResolution() {
        t.utimensat(
                VfsTask.AT_FDCWD,
                "/d/f",
                new Timespec(1_600_000_000L, 123_456_789),
                new Timespec(1_500_000_000L, 987_654_321),
                0);
        Stat st = t.stat("/d/f");
        assertEquals(1_600_000_000_123_456_789L, st.atimeNanos());
        assertEquals(1_500_000_000_987_654_321L, st.mtimeNanos());
    }

    @Test
    void stat_inodeNumbers_areDistinctAndSharedByHardLinks() {
        Set<Long> inos = new HashSet<>();
        for (String p : new String[] {"/", "/d", "/d/f", "/d/sub"}) {
            assertTrue(inos.add(t.stat(p).ino()), p);
        }
        assertTrue(inos.add(t.lstat("/lf").ino()));
        t.link("/d/f", "/d/g");
        assertEquals(t.stat("/d/f").ino(), t.stat("/d/g").ino());
        assertEquals(2, t.stat("/d/g").nlink());
    }

    @Test
    void stat_followsSymlinkAndLstatDoesNot() {
        assertEquals(t.stat("/d/f"), t.stat("/lf"));
        Stat l = t.lstat("/lf");
        assertEquals(Mode.S_IFLNK | 0777, l.mode());
        assertEquals("/d/f".length(), l.size());
        assertEquals(1, l.nlink());
        assertNotEquals(t.stat("/d/f").ino(), l.ino());
    }

    @Test
    void lstat_nonSymlink_sameAsStat() {
        assertEquals(t.stat("/d/f"), t.lstat("/d/f"));
        assertEquals(t.stat("/d"), t.lstat("/d"));
    }

    @Test
    void lstat_danglingSymlink_succeedsAndStatFailsWithENOENT() {
        assertTrue(t.lstat("/dangling").isSymlink());
        assertErrno(Errno.ENOENT, () -> t.stat("/dangling"));
    }

    @Test
    void lstat_symlinkWithTrailingSlash_followsIt() {
        t.symlink("/d/sub", "/ls");
        assertTrue(t.lstat("/ls/").isDirectory());
        assertErrno(Errno.ENOTDIR, () -> t.lstat("/lf/"));
        assertErrno(Errno.ENOTDIR, () -> t.stat("/lf/"));
    }

    @Test
    void stat_deviceFifoAndSocket_reportTypeAndRdev() {
        t.mknod("/d/chr", Mode.S_IFCHR | 0600, (4L << 8) | 1);
        t.mknod("/d/blk", Mode.S_IFBLK | 0600, (8L << 8) | 2);
        t.mknod("/d/fifo", Mode.S_IFIFO | 0600, 99);
        t.mknod("/d/sock", Mode.S_IFSOCK | 0600, 0);
        assertEquals(FileType.CHAR_DEVICE, t.stat("/d/chr").type());
        assertEquals((4L << 8) | 1, t.stat("/d/chr").rdev());
        assertEquals((8L << 8) | 2, t.stat("/d/blk").rdev());
        assertEquals(FileType.FIFO, t.stat("/d/fifo").type());
        assertEquals(0, t.stat("/d/fifo").rdev());
        assertEquals(FileType.SOCKET, t.stat("/d/sock").type());
    }

    @Test
    void stat_otherMount_hasItsOwnDevAndBindMountSharesSourceDev() {
        t.mkdir("/m", 0755);
        t.mkdir("/b", 0755);
        t.mount("none", "/m", "tmpfs", 0, null);
        t.mount("/d", "/b", null, MountFlags.MS_BIND, null);
        assertNotEquals(t.stat("/").dev(), t.stat("/m").dev());
        assertEquals(t.stat("/").dev(), t.stat("/b").dev());
        assertEquals(t.stat("/d").ino(), t.stat("/b").ino());
        t.umount("/m");
        t.umount("/b");
    }

    @Test
    void stat_dotAndDotDot_nameTheDirectoryAndItsParent() {
        assertEquals(t.stat("/d"), t.stat("/d/sub/.."));
        assertEquals(t.stat("/d/sub"), t.stat("/d/sub/."));
        assertEquals(t.stat("/"), t.stat("/.."));
    }

    @Test
    void fstatat_symlinkNoFollow_isLstat() {
        assertEquals(
                t.lstat("/lf"), t.fstatat(VfsTask.AT_FDCWD, "/lf", OpenFlags.AT_SYMLINK_NOFOLLOW));
        assertEquals(t.stat("/lf"), t.fstatat(VfsTask.AT_FDCWD, "/lf", 0));
    }

    @Test
    void fstatat_relativeToDescriptor_stats() {
        int fd = t.open("/d", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            assertEquals(t.stat("/d/f"), t.fstatat(fd, "f", 0));
            assertEquals(t.stat("/d/f"), t.fstatat(fd, "/d/f", 0));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void fstatat_emptyPath_statsTheDescriptor() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        int l = t.open("/lf", OpenFlags.O_PATH | OpenFlags.O_NOFOLLOW);
        try {
            assertEquals(t.stat("/d/f"), t.fstatat(f, "", OpenFlags.AT_EMPTY_PATH));
            assertEquals(t.lstat("/lf"), t.fstatat(l, "", OpenFlags.AT_EMPTY_PATH));
            assertEquals(t.stat("/"), t.fstatat(VfsTask.AT_FDCWD, "", OpenFlags.AT_EMPTY_PATH));
        } finally {
            t.close(f);
            t.close(l);
        }
    }

    @Test
    void fstatat_emptyPathWithoutFlag_failsWithENOENT() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOENT, () -> t.fstatat(f, "", 0));
            assertErrno(Errno.ENOENT, () -> t.fstatat(999, "", 0));
        } finally {
            t.close(f);
        }
    }

    @Test
    void fstatat_unknownFlag_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.fstatat(VfsTask.AT_FDCWD, "/d/f", 0x4));
        assertErrno(
                Errno.EINVAL, () -> t.fstatat(VfsTask.AT_FDCWD, "/d/f", OpenFlags.AT_REMOVEDIR));
    }

    @Test
    void fstatat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fstatat(999, "f", 0));
        assertErrno(Errno.EBADF, () -> t.fstatat(999, "", OpenFlags.AT_EMPTY_PATH));
    }

    @Test
    void fstatat_fileDescriptorWithRelativePath_failsWithENOTDIR() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.fstatat(f, "x", 0));
        } finally {
            t.close(f);
        }
    }

    @Test
    void fstat_openFile_matchesStatAndWorksOnPathDescriptors() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        int p = t.open("/d/sub", OpenFlags.O_PATH);
        try {
            assertEquals(t.stat("/d/f"), t.fstat(f));
            assertEquals(t.stat("/d/sub"), t.fstat(p));
        } finally {
            t.close(f);
            t.close(p);
        }
    }

    @Test
    void fstat_seesLaterChanges() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            t.chmod("/d/f", 0600);
            t.link("/d/f", "/d/g");
            Stat st = t.fstat(f);
            assertEquals(0600, st.permissions());
            assertEquals(2, st.nlink());
        } finally {
            t.close(f);
        }
    }

    @Test
    void fstat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fstat(0));
        assertErrno(Errno.EBADF, () -> t.fstat(-1));
    }

    @Test
    void stat_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.stat("/d/missing"));
        assertErrno(Errno.ENOENT, () -> t.stat("/missing/x"));
        assertErrno(Errno.ENOENT, () -> t.stat(""));
        assertErrno(Errno.ENOENT, () -> t.lstat(""));
    }

    @Test
    void stat_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.stat("/d/f/x"));
        assertErrno(Errno.ENOTDIR, () -> t.stat("/d/f/"));
        assertErrno(Errno.ENOTDIR, () -> t.lstat("/d/f/."));
    }

    @Test
    void stat_withoutSearchPermission_failsWithEACCES() {
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.stat("/d/f"));
        assertErrno(Errno.EACCES, () -> u.lstat("/d/sub"));
        assertEquals(t.stat("/d"), u.stat("/d"));
    }

    @Test
    void stat_groupSearchPermission_allowsGroupMember() {
        VfsTask u = fs.task(1000, 8);
        assertEquals(t.stat("/d/f"), u.stat("/d/f"));
    }

    @Test
    void stat_symlinkLoop_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.stat("/loop"));
        assertTrue(t.lstat("/loop").isSymlink());
    }

    @Test
    void stat_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.stat("/" + "s".repeat(256)));
        assertErrno(Errno.ENOENT, () -> t.stat("/" + "s".repeat(255)));
    }
}
