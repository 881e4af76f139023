package dev.seqvfs.tests.conformance;

import static dev.seqvfs.protocol.OpenFlags.RENAME_EXCHANGE;
import static dev.seqvfs.protocol.OpenFlags.RENAME_NOREPLACE;
import static dev.seqvfs.protocol.OpenFlags.RENAME_WHITEOUT;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
import static dev.seqvfs.tests.conformance.Sys.names;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code rename(2)}, {@code renameat(2)} and {@code renameat2(2)} with {@code
 * RENAME_NOREPLACE}, {@code RENAME_EXCHANGE} and {@code RENAME_WHITEOUT} (tmpfs's whiteout): the
 * resulting tree, link counts, ".." of moved directories, times, and the man page's errnos that
 * apply: EACCES, EBADF, EBUSY, EEXIST, EINVAL, EISDIR, ELOOP, ENAMETOOLONG, ENOENT, ENOTDIR,
 * ENOTEMPTY, EPERM (sticky, see PermissionTest), EROFS, EXDEV. Where several errors apply, the
 * errno is the one Linux 6.18 returns (checked on the host against /dev/shm).
 *
 * <pre>
 * /a/b/c/       directories
 * /e/           empty directory
 * /ne/x         non-empty directory
 * /f            regular file
 * /g            regular file
 * /dangling -> /nowhere
 * /lf -> /f
 * </pre>
 */
@FileSystemContract
class RenameTest {
    private static final long OLD = 1000_000_000_000L;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/a", 0755);
        t.mkdir("/a/b", 0755);
        t.mkdir("/a/b/c", 0755);
        t.mkdir("/e", 0755);
        t.mkdir("/ne", 0755);
        touch(t, "/ne/x");
        touch(t, "/f");
        touch(t, "/g");
        t.symlink("/nowhere", "/dangling");
        t.symlink("/f", "/lf");
    }

    private void age(String path) {
        t.utimensat(
                VfsTask.AT_FDCWD,
                path,
                new Timespec(1000, 0),
                new Timespec(1000, 0),
                OpenFlags.AT_SYMLINK_NOFOLLOW);
    }

    private static Errno r2(VfsTask t, String from, String to, int flags) {
        return Sys.errno(() -> t.renameat2(VfsTask.AT_FDCWD, from, VfsTask.AT_FDCWD, to, flags));
    }

    // ---------------------------------------------------------------- results

    @Test
    void rename_fileWithinDirectory_movesNameKeepsInode() {
        long ino = t.stat("/f").ino();
        t.rename("/f", "/h");
        assertFalse(exists(t, "/f"));
        assertEquals(ino, t.stat("/h").ino());
        assertEquals(1, t.stat("/h").nlink());
    }

    @Test
    void rename_file_updatesCtimeOfInodeAndMtimeOfBothParents() {
        age("/f");
        age("/");
        age("/e");
        t.rename("/f", "/e/f");
        Stat f = t.stat("/e/f");
        assertTrue(f.ctimeNanos() > OLD);
        assertEquals(OLD, f.mtimeNanos());
        assertTrue(t.stat("/").mtimeNanos() > OLD);
        assertTrue(t.stat("/e").mtimeNanos() > OLD);
        assertTrue(t.stat("/e").ctimeNanos() > OLD);
    }

    @Test
    void rename_fileOverExistingFile_replacesAndFreesOldTarget() {
        long ino = t.stat("/f").ino();
        long free = t.statfs("/").ffree();
        t.rename("/f", "/g");
        assertEquals(ino, t.stat("/g").ino());
        assertFalse(exists(t, "/f"));
        assertEquals(free + 1, t.statfs("/").ffree());
    }

    @Test
    void rename_fileOverOpenFile_keepsReplacedInodeUntilClose() {
        int fd = t.open("/g", OpenFlags.O_RDONLY);
        long free = t.statfs("/").ffree();
        t.rename("/f", "/g");
        assertEquals(0, t.fstat(fd).nlink());
        assertEquals(free, t.statfs("/").ffree());
        t.close(fd);
        assertEquals(free + 1, t.statfs("/").ffree());
    }

    @Test
    void rename_fileOverHardLinkOfItself_doesNothing() {
        t.link("/f", "/h");
        t.rename("/f", "/h");
        assertTrue(exists(t, "/f"));
        assertTrue(exists(t, "/h"));
        assertEquals(2, t.stat("/f").nlink());
    }

    @Test
    void rename_toSameName_doesNothing() {
        t.rename("/f", "/f");
        t.rename("/a", "/a");
        assertTrue(exists(t, "/f"));
        assertTrue(exists(t, "/a/b/c"));
    }

    @Test
    void rename_directoryAcrossDirectories_movesSubtreeAndFixesLinkCountsAndDotDot() {
        t.rename("/a/b", "/e/b");
        assertEquals(2, t.stat("/a").nlink());
        assertEquals(3, t.stat("/e").nlink());
        assertTrue(exists(t, "/e/b/c"));
        assertEquals(t.stat("/e").ino(), t.stat("/e/b/..").ino());
        assertEquals(t.stat("/e/b").ino(), t.stat("/e/b/c/..").ino());
    }

    @Test
    void rename_directoryAcrossDirectories_getdentsDotDotNamesNewParent() {
        t.rename("/a/b", "/e/b");
        int fd = t.open("/e/b", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            List<DirEntry> es = t.getdents(fd, 2);
            assertEquals("..", es.get(1).name());
            assertEquals(t.stat("/e").ino(), es.get(1).ino());
        } finally {
            t.close(fd);
        }
    }

    @Test
    void rename_ancestorOfWorkingDirectory_getcwdShowsNewPath() {
        t.chdir("/a/b/c");
        t.rename("/a", "/e/z");
        assertEquals("/e/z/b/c", t.getcwd());
        t.chdir("/");
    }

    @Test
    void rename_directoryOverEmptyDirectory_replacesIt() {
        long ino = t.stat("/a/b").ino();
        long free = t.statfs("/").ffree();
        t.rename("/a/b", "/e2");
        t.rename("/e2", "/e");
        assertEquals(ino, t.stat("/e").ino());
        assertEquals(free + 1, t.statfs("/").ffree());
        assertEquals(Set.of("a", "dangling", "e", "f", "g", "lf", "ne"), names(t, "/"));
        assertEquals(2, t.stat("/a").nlink());
    }

    @Test
    void rename_directoryOverEmptyDirectoryInOtherParent_updatesBothLinkCounts() {
        long rootLinks = t.stat("/").nlink();
        t.rename("/a/b", "/e");
        assertEquals(2, t.stat("/a").nlink());
        assertEquals(rootLinks, t.stat("/").nlink());
        assertTrue(exists(t, "/e/c"));
    }

    @Test
    void rename_directoryWithTrailingSlashes_moves() {
        t.rename("/e/", "/z/");
        assertTrue(t.stat("/z").isDirectory());
        t.rename("/z", "/y/");
        assertTrue(t.stat("/y").isDirectory());
    }

    @Test
    void rename_symlink_movesLinkItself() {
        t.rename("/lf", "/e/l");
        assertTrue(t.lstat("/e/l").isSymlink());
        assertEquals("/f", t.readlink("/e/l"));
        assertTrue(exists(t, "/f"));
    }

    @Test
    void rename_fileOverDanglingSymlink_replacesSymlink() {
        t.rename("/f", "/dangling");
        assertTrue(t.lstat("/dangling").isRegular());
        assertFalse(exists(t, "/nowhere"));
    }

    @Test
    void renameat_relativeToDescriptors_moves() {
        int a = t.open("/a", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        int e = t.open("/e", OpenFlags.O_PATH);
        try {
            t.renameat2(a, "b", e, "b2", 0);
        } finally {
            t.close(a);
            t.close(e);
        }
        assertTrue(exists(t, "/e/b2/c"));
    }

    // ---------------------------------------------------------------- errors

    @Test
    void rename_directoryIntoOwnSubtree_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.rename("/a", "/a/b/x"));
        assertErrno(Errno.EINVAL, () -> t.rename("/a", "/a/x"));
        assertErrno(Errno.EINVAL, () -> t.rename("/a/b", "/a/b/c/d"));
        assertTrue(exists(t, "/a/b/c"));
    }

    @Test
    void rename_directoryOverItsOwnAncestor_failsWithENOTEMPTY() {
        assertErrno(Errno.ENOTEMPTY, () -> t.rename("/a/b", "/a"));
        assertErrno(Errno.ENOTEMPTY, () -> t.rename("/a/b/c", "/a"));
    }

    @Test
    void rename_directoryOverNonEmptyDirectory_failsWithENOTEMPTY() {
        assertErrno(Errno.ENOTEMPTY, () -> t.rename("/e", "/ne"));
        assertTrue(exists(t, "/ne/x"));
        assertTrue(exists(t, "/e"));
    }

    @Test
    void rename_fileOverDirectory_failsWithEISDIR() {
        assertErrno(Errno.EISDIR, () -> t.rename("/f", "/e"));
        assertErrno(Errno.EISDIR, () -> t.rename("/f", "/a/b"));
    }

    @Test
    void rename_directoryOverFile_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.rename("/e", "/f"));
        assertErrno(Errno.ENOTDIR, () -> t.rename("/e", "/dangling"));
        assertErrno(Errno.ENOTDIR, () -> t.rename("/a/b", "/f"));
    }

    @Test
    void rename_missingSource_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.rename("/missing", "/x"));
        assertErrno(Errno.ENOENT, () -> t.rename("/a/missing", "/e/x"));
    }

    @Test
    void rename_missingTargetParent_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.rename("/f", "/missing/x"));
        assertTrue(exists(t, "/f"));
    }

    @Test
    void rename_emptyPath_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.rename("", "/x"));
        assertErrno(Errno.ENOENT, () -> t.rename("/f", ""));
    }

    @Test
    void rename_trailingSlashOnNonDirectory_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.rename("/f/", "/x"));
        assertErrno(Errno.ENOTDIR, () -> t.rename("/f", "/x/"));
        assertErrno(Errno.ENOTDIR, () -> t.rename("/f", "/g/"));
        assertErrno(Errno.ENOTDIR, () -> t.rename("/lf/", "/x"));
        assertErrno(Errno.ENOTDIR, () -> t.rename("/f", "/lf/"));
        assertTrue(exists(t, "/f"));
    }

    @Test
    void rename_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.rename("/f/x", "/y"));
        assertErrno(Errno.ENOTDIR, () -> t.rename("/g", "/f/y"));
    }

    @Test
    void rename_dotOrDotDot_failsWithEBUSY() {
        assertErrno(Errno.EBUSY, () -> t.rename("/a/.", "/x"));
        assertErrno(Errno.EBUSY, () -> t.rename("/a/b/..", "/x"));
        assertErrno(Errno.EBUSY, () -> t.rename("/e", "/a/."));
        assertErrno(Errno.EBUSY, () -> t.rename("/e", "/a/b/.."));
        assertErrno(Errno.EBUSY, () -> t.rename("/", "/x"));
        assertErrno(Errno.EBUSY, () -> t.rename("/e", "/"));
    }

    @Test
    void rename_mountpoint_failsWithEBUSY() {
        t.mount("none", "/e", "tmpfs", 0, null);
        assertErrno(Errno.EBUSY, () -> t.rename("/e", "/z"));
        assertErrno(Errno.EBUSY, () -> t.rename("/a/b/c", "/e"));
        t.umount("/e");
        t.rename("/e", "/z");
    }

    @Test
    void rename_acrossMounts_failsWithEXDEV() {
        t.mount("none", "/e", "tmpfs", 0, null);
        assertErrno(Errno.EXDEV, () -> t.rename("/f", "/e/f"));
        touch(t, "/e/y");
        assertErrno(Errno.EXDEV, () -> t.rename("/e/y", "/y"));
        assertTrue(exists(t, "/f"));
        t.unlink("/e/y");
        t.umount("/e");
    }

    @Test
    void rename_acrossBindMountsOfSameFileSystem_failsWithEXDEV() {
        t.mount("/a", "/e", null, MountFlags.MS_BIND, null);
        assertErrno(Errno.EXDEV, () -> t.rename("/a/b", "/e/x"));
        assertTrue(exists(t, "/a/b"));
        t.umount("/e");
    }

    @Test
    void rename_readOnlyMount_failsWithEROFS() {
        t.mount("none", "/e", "tmpfs", 0, null);
        touch(t, "/e/y");
        t.mount(null, "/e", null, MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> t.rename("/e/y", "/e/z"));
        t.mount(null, "/e", null, MountFlags.MS_REMOUNT, null);
        t.unlink("/e/y");
        t.umount("/e");
    }

    @Test
    void rename_noWritePermissionOnSourceParent_failsWithEACCES() {
        touch(t, "/a/f");
        t.chmod("/e", 0777);
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.rename("/a/f", "/e/f"));
        assertTrue(exists(t, "/a/f"));
    }

    @Test
    void rename_noWritePermissionOnTargetParent_failsWithEACCES() {
        t.mkdir("/w", 0777);
        t.chmod("/w", 0777);
        VfsTask u = fs.task(1000, 1000);
        touch(u, "/w/mine");
        assertErrno(Errno.EACCES, () -> u.rename("/w/mine", "/e/mine"));
        touch(t, "/a/g");
        assertErrno(Errno.EACCES, () -> u.rename("/w/mine", "/a/g"));
        assertTrue(exists(t, "/w/mine"));
    }

    @Test
    void rename_directoryToOtherParentWithoutWriteOnIt_failsWithEACCES() {
        t.mkdir("/w1", 0777);
        t.mkdir("/w2", 0777);
        t.chmod("/w1", 0777);
        t.chmod("/w2", 0777);
        t.mkdir("/w1/d", 0555);
        t.chown("/w1/d", 1000, 1000);
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.rename("/w1/d", "/w2/d"));
        u.rename("/w1/d", "/w1/d2");
        assertTrue(exists(t, "/w1/d2"));
    }

    @Test
    void rename_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.rename("/f", "/" + "n".repeat(256)));
        assertErrno(Errno.ENAMETOOLONG, () -> t.rename("/" + "n".repeat(256), "/x"));
        t.rename("/f", "/" + "n".repeat(255));
    }

    @Test
    void rename_symlinkLoopInPath_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.rename("/loop/x", "/y"));
        assertErrno(Errno.ELOOP, () -> t.rename("/f", "/loop/y"));
    }

    @Test
    void renameat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.renameat2(99, "f", VfsTask.AT_FDCWD, "/x", 0));
        assertErrno(Errno.EBADF, () -> t.renameat2(VfsTask.AT_FDCWD, "/f", 99, "x", 0));
    }

    @Test
    void renameat_fileDescriptorAsDirectory_failsWithENOTDIR() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.renameat2(fd, "x", VfsTask.AT_FDCWD, "/y", 0));
        } finally {
            t.close(fd);
        }
    }

    // ---------------------------------------------------------------- renameat2 flags

    @Test
    void renameat2_noReplaceOnAbsentTarget_renames() {
        t.renameat2(VfsTask.AT_FDCWD, "/f", VfsTask.AT_FDCWD, "/h", RENAME_NOREPLACE);
        assertTrue(exists(t, "/h"));
        assertFalse(exists(t, "/f"));
    }

    @Test
    void renameat2_noReplaceOnExistingTarget_failsWithEEXIST() {
        assertEquals(Errno.EEXIST, r2(t, "/f", "/g", RENAME_NOREPLACE));
        assertEquals(Errno.EEXIST, r2(t, "/f", "/dangling", RENAME_NOREPLACE));
        assertEquals(Errno.EEXIST, r2(t, "/e", "/ne", RENAME_NOREPLACE));
        assertEquals(Errno.EEXIST, r2(t, "/f", "/f", RENAME_NOREPLACE));
        assertTrue(exists(t, "/f"));
        assertTrue(exists(t, "/g"));
    }

    @Test
    void renameat2_noReplaceOntoDotDot_failsWithEEXIST() {
        assertEquals(Errno.EEXIST, r2(t, "/e", "/a/b/..", RENAME_NOREPLACE));
        assertEquals(Errno.EEXIST, r2(t, "/e", "/a/.", RENAME_NOREPLACE));
    }

    @Test
    void renameat2_exchangeFileAndDirectory_swapsAndFixesLinkCounts() {
        long f = t.stat("/f").ino();
        long b = t.stat("/a/b").ino();
        long rootLinks = t.stat("/").nlink();
        t.renameat2(VfsTask.AT_FDCWD, "/f", VfsTask.AT_FDCWD, "/a/b", RENAME_EXCHANGE);
        assertEquals(b, t.stat("/f").ino());
        assertEquals(f, t.stat("/a/b").ino());
        assertTrue(t.stat("/f/c").isDirectory());
        assertEquals(2, t.stat("/a").nlink());
        assertEquals(rootLinks + 1, t.stat("/").nlink());
        assertEquals(t.stat("/").ino(), t.stat("/f/..").ino());
    }

    @Test
    void renameat2_exchangeTwoDirectoriesAcrossParents_swapsDotDot() {
        t.renameat2(VfsTask.AT_FDCWD, "/e", VfsTask.AT_FDCWD, "/a/b", RENAME_EXCHANGE);
        assertTrue(exists(t, "/e/c"));
        assertEquals(Set.of(), names(t, "/a/b"));
        assertEquals(t.stat("/").ino(), t.stat("/e/..").ino());
        assertEquals(t.stat("/a").ino(), t.stat("/a/b/..").ino());
        assertEquals(3, t.stat("/a").nlink());
    }

    @Test
    void renameat2_exchangeWithinDirectory_swapsAndTouchesBothCtimes() {
        age("/f");
        age("/e");
        long f = t.stat("/f").ino();
        long e = t.stat("/e").ino();
        t.renameat2(VfsTask.AT_FDCWD, "/f", VfsTask.AT_FDCWD, "/e", RENAME_EXCHANGE);
        assertEquals(f, t.stat("/e").ino());
        assertEquals(e, t.stat("/f").ino());
        assertTrue(t.stat("/e").ctimeNanos() > OLD);
        assertTrue(t.stat("/f").ctimeNanos() > OLD);
    }

    @Test
    void renameat2_exchangeNonEmptyDirectories_succeeds() {
        t.renameat2(VfsTask.AT_FDCWD, "/ne", VfsTask.AT_FDCWD, "/a", RENAME_EXCHANGE);
        assertTrue(exists(t, "/a/x"));
        assertTrue(exists(t, "/ne/b/c"));
    }

    @Test
    void renameat2_exchangeWithSameName_doesNothing() {
        t.renameat2(VfsTask.AT_FDCWD, "/f", VfsTask.AT_FDCWD, "/f", RENAME_EXCHANGE);
        assertTrue(t.stat("/f").isRegular());
    }

    @Test
    void renameat2_exchangeWithMissingName_failsWithENOENT() {
        assertEquals(Errno.ENOENT, r2(t, "/f", "/missing", RENAME_EXCHANGE));
        assertEquals(Errno.ENOENT, r2(t, "/missing", "/f", RENAME_EXCHANGE));
        assertTrue(exists(t, "/f"));
        assertFalse(exists(t, "/missing"));
    }

    @Test
    void renameat2_exchangeAncestorWithDescendant_failsWithEINVAL() {
        assertEquals(Errno.EINVAL, r2(t, "/a", "/a/b", RENAME_EXCHANGE));
        assertEquals(Errno.EINVAL, r2(t, "/a/b/c", "/a/b", RENAME_EXCHANGE));
        assertEquals(Errno.EINVAL, r2(t, "/a/b/c", "/a", RENAME_EXCHANGE));
    }

    @Test
    void renameat2_exchangeTrailingSlashOnNonDirectory_failsWithENOTDIR() {
        assertEquals(Errno.ENOTDIR, r2(t, "/e", "/f/", RENAME_EXCHANGE));
        assertEquals(Errno.ENOTDIR, r2(t, "/f/", "/e", RENAME_EXCHANGE));
    }

    @Test
    void renameat2_exchangeTrailingSlashOnDirectory_swaps() {
        t.renameat2(VfsTask.AT_FDCWD, "/e/", VfsTask.AT_FDCWD, "/f", RENAME_EXCHANGE);
        assertTrue(t.stat("/f").isDirectory());
        t.renameat2(VfsTask.AT_FDCWD, "/e", VfsTask.AT_FDCWD, "/f/", RENAME_EXCHANGE);
        assertTrue(t.stat("/e").isDirectory());
    }

    @Test
    void renameat2_exchangeDot_failsWithEBUSY() {
        assertEquals(Errno.EBUSY, r2(t, "/a/.", "/f", RENAME_EXCHANGE));
        assertEquals(Errno.EBUSY, r2(t, "/f", "/a/..", RENAME_EXCHANGE));
    }

    @Test
    void renameat2_exchangeAndNoReplaceTogether_failsWithEINVAL() {
        assertEquals(Errno.EINVAL, r2(t, "/f", "/g", RENAME_EXCHANGE | RENAME_NOREPLACE));
    }

    @Test
    void renameat2_unknownFlag_failsWithEINVAL() {
        assertEquals(Errno.EINVAL, r2(t, "/f", "/g", 8));
        assertEquals(Errno.EINVAL, r2(t, "/f", "/g", 1 << 20));
    }

    // ------------------------------------------------------ RENAME_WHITEOUT (host: tmpfs)

    /** The whiteout: a character device, mode 0 ({@code c---------}), device 0/0, one link. */
    private void assertWhiteout(String path, int uid, int gid) {
        Stat w = t.lstat(path);
        assertEquals(Mode.S_IFCHR, w.mode(), path + "'s mode");
        assertEquals(0, w.rdev());
        assertEquals(1, w.nlink());
        assertEquals(0, w.size());
        assertEquals(uid, w.uid());
        assertEquals(gid, w.gid());
    }

    @Test
    void renameat2_whiteout_movesTheFileAndLeavesAWhiteoutAtTheSource() {
        long ino = t.stat("/f").ino();
        long rootSize = t.stat("/").size();
        t.renameat2(VfsTask.AT_FDCWD, "/f", VfsTask.AT_FDCWD, "/h", RENAME_WHITEOUT);
        assertEquals(ino, t.stat("/h").ino());
        assertWhiteout("/f", 0, 0);
        assertTrue(t.lstat("/f").ino() != ino);
        // one name more in the directory than before (tmpfs counts 20 bytes a name)
        assertEquals(rootSize + 20, t.stat("/").size());
    }

    @Test
    void renameat2_whiteoutOfADirectoryAcrossDirectories_movesItAndLeavesAWhiteout() {
        long ino = t.stat("/a/b").ino();
        t.renameat2(VfsTask.AT_FDCWD, "/a/b", VfsTask.AT_FDCWD, "/e/b", RENAME_WHITEOUT);
        assertEquals(ino, t.stat("/e/b").ino());
        assertTrue(exists(t, "/e/b/c"));
        assertWhiteout("/a/b", 0, 0);
        assertEquals(2, t.stat("/a").nlink(), "the whiteout is no subdirectory");
        assertEquals(3, t.stat("/e").nlink());
    }

    @Test
    void renameat2_whiteoutOverAnExistingFile_replacesItAndLeavesAWhiteout() {
        long ino = t.stat("/f").ino();
        t.renameat2(VfsTask.AT_FDCWD, "/f", VfsTask.AT_FDCWD, "/g", RENAME_WHITEOUT);
        assertEquals(ino, t.stat("/g").ino());
        assertWhiteout("/f", 0, 0);
    }

    @Test
    void renameat2_whiteoutByAnotherUser_isOwnedByTheCaller() {
        // no CAP_MKNOD needed since Linux 5.8 ("vfs: allow unprivileged whiteout creation")
        t.chmod("/e", 0777);
        VfsTask u = fs.vfs().newTask(Credentials.of(1000, 1000));
        touch(u, "/e/u");
        u.renameat2(VfsTask.AT_FDCWD, "/e/u", VfsTask.AT_FDCWD, "/e/v", RENAME_WHITEOUT);
        assertWhiteout("/e/u", 1000, 1000);
    }

    @Test
    void renameat2_whiteoutBetweenLinksOfOneInode_doesNothing() {
        t.link("/f", "/h");
        t.renameat2(VfsTask.AT_FDCWD, "/f", VfsTask.AT_FDCWD, "/h", RENAME_WHITEOUT);
        assertEquals(2, t.stat("/f").nlink());
        assertEquals(Mode.S_IFREG, t.lstat("/f").mode() & Mode.S_IFMT);
    }

    @Test
    void renameat2_whiteoutWithExchange_failsWithEINVAL_withNoreplaceOntoAName_EEXIST() {
        assertEquals(Errno.EINVAL, r2(t, "/f", "/g", RENAME_WHITEOUT | RENAME_EXCHANGE));
        assertEquals(Errno.EEXIST, r2(t, "/f", "/g", RENAME_WHITEOUT | RENAME_NOREPLACE));
        assertEquals(Errno.ENOENT, r2(t, "/missing", "/x", RENAME_WHITEOUT));
        assertEquals(Errno.ENOTEMPTY, r2(t, "/e", "/ne", RENAME_WHITEOUT));
        assertEquals(Mode.S_IFREG, t.lstat("/f").mode() & Mode.S_IFMT);
        assertTrue(exists(t, "/e"));
    }

    @Test
    void whiteout_opensWithENXIO_andUnlinksLikeAnyName() {
        t.renameat2(VfsTask.AT_FDCWD, "/f", VfsTask.AT_FDCWD, "/h", RENAME_WHITEOUT);
        assertEquals(Errno.ENXIO, Sys.errno(() -> t.open("/f", OpenFlags.O_RDONLY, 0)));
        t.unlink("/f");
        assertFalse(exists(t, "/f"));
    }
}
