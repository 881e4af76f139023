package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code chmod(2)}, {@code fchmod(2)} and {@code fchmodat(2)}: the twelve permission bits
 * change, the type does not, ctime moves and mtime does not; only the owner or root may change
 * them; an unprivileged caller outside the file's group loses {@code S_ISGID} silently (on
 * directories too, as Linux 6.18 does); and the man page's errnos that apply: EACCES, EBADF,
 * EINVAL, ELOOP, ENAMETOOLONG, ENOENT, ENOTDIR, EOPNOTSUPP ({@code AT_SYMLINK_NOFOLLOW} on a
 * symlink), EPERM, EROFS.
 *
 * <pre>
 * /d/            0755, owner 1000:1000
 * /d/f           regular file 0644, owner 1000:1000
 * /d/sub/        0755, owner 1000:1000
 * /lf -> /d/f
 * /r             regular file 0644, owner root
 * </pre>
 */
@FileSystemContract
class ChmodTest {
    private static final long OLD = 1000_000_000_000L;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    VfsTask owner;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/d/f", 0644);
        t.mkdir("/d/sub", 0755);
        t.chown("/d", 1000, 1000);
        t.chown("/d/f", 1000, 1000);
        t.chown("/d/sub", 1000, 1000);
        t.symlink("/d/f", "/lf");
        touch(t, "/r", 0644);
        owner = fs.task(1000, 1000);
    }

    @Test
    void chmod_byOwner_setsPermissionBitsKeepsType() {
        owner.chmod("/d/f", 0600);
        assertEquals(Mode.S_IFREG | 0600, t.stat("/d/f").mode());
        owner.chmod("/d/sub", 0700);
        assertEquals(Mode.S_IFDIR | 0700, t.stat("/d/sub").mode());
    }

    @Test
    void chmod_allTwelveBits_areStoredAndTypeBitsInArgumentIgnored() {
        owner.chmod("/d/f", 07777);
        assertEquals(07777, t.stat("/d/f").permissions());
        owner.chmod("/d/f", Mode.S_IFDIR | 0640);
        assertEquals(Mode.S_IFREG | 0640, t.stat("/d/f").mode());
    }

    @Test
    void chmod_updatesCtimeOnly() {
        t.utimensat(VfsTask.AT_FDCWD, "/d/f", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        owner.chmod("/d/f", 0600);
        Stat st = t.stat("/d/f");
        assertTrue(st.ctimeNanos() > OLD);
        assertEquals(OLD, st.mtimeNanos());
        assertEquals(OLD, st.atimeNanos());
    }

    @Test
    void fchmodat_emptyPath_changesTheDescriptorsInode_evenWithNoNameLeft() {
        int fd = owner.open("/d/f", OpenFlags.O_PATH);
        assertErrno(Errno.ENOENT, () -> owner.fchmodat(fd, "", 0600, 0));
        owner.fchmodat(fd, "", 0600, OpenFlags.AT_EMPTY_PATH);
        assertEquals(0600, t.stat("/d/f").permissions());
        owner.unlink("/d/f");
        owner.fchmodat(fd, "", 0640, OpenFlags.AT_EMPTY_PATH);
        assertEquals(0640, owner.fstat(fd).permissions());
        VfsTask other = fs.task(1001, 1001);
        int theirs = other.open("/d", OpenFlags.O_PATH);
        assertErrno(Errno.EPERM, () -> other.fchmodat(theirs, "", 0777, OpenFlags.AT_EMPTY_PATH));
        int link = t.open("/lf", OpenFlags.O_PATH | OpenFlags.O_NOFOLLOW);
        assertErrno(Errno.EOPNOTSUPP, () -> t.fchmodat(link, "", 0777, OpenFlags.AT_EMPTY_PATH));
        assertErrno(Errno.EINVAL, () -> t.fchmodat(fd, "", 0777, 0x10000));
        t.close(link);
        other.close(theirs);
        owner.close(fd);
    }

    @Test
    void chmod_byRoot_changesAnyFile() {
        t.chmod("/d/f", 0);
        assertEquals(0, t.stat("/d/f").permissions());
    }

    @Test
    void chmod_followsSymlink() {
        long linkMode = t.lstat("/lf").mode();
        t.chmod("/lf", 0600);
        assertEquals(0600, t.stat("/d/f").permissions());
        assertEquals(linkMode, t.lstat("/lf").mode());
    }

    @Test
    void chmod_byNonOwner_failsWithEPERM() {
        VfsTask other = fs.task(1001, 1000);
        assertErrno(Errno.EPERM, () -> other.chmod("/d/f", 0777));
        assertErrno(Errno.EPERM, () -> other.chmod("/d/f", 0644));
        assertErrno(Errno.EPERM, () -> owner.chmod("/r", 0644));
        assertEquals(0644, t.stat("/d/f").permissions());
    }

    @Test
    void chmod_byGroupMemberWithWritePermission_failsWithEPERM() {
        t.chmod("/d/f", 0666);
        assertErrno(Errno.EPERM, () -> fs.task(1001, 1000).chmod("/d/f", 0777));
    }

    @Test
    void chmod_setgidByOwnerOutsideFileGroup_isSilentlyCleared() {
        t.chown("/d/f", 1000, 50);
        owner.chmod("/d/f", 02755);
        assertEquals(0755, t.stat("/d/f").permissions());
    }

    @Test
    void chmod_setgidOnDirectoryByOwnerOutsideItsGroup_isSilentlyCleared() {
        t.chown("/d/sub", 1000, 50);
        owner.chmod("/d/sub", 02755);
        assertEquals(0755, t.stat("/d/sub").permissions());
    }

    @Test
    void chmod_setgidByOwnerInFileGroupViaSupplementaryGroup_isKept() {
        t.chown("/d/f", 1000, 50);
        fs.task(1000, 1000, 50).chmod("/d/f", 02755);
        assertEquals(02755, t.stat("/d/f").permissions());
        owner.chmod("/d/sub", 02755);
        assertEquals(02755, t.stat("/d/sub").permissions());
    }

    @Test
    void chmod_setgidByRoot_isKept() {
        t.chown("/d/f", 1000, 50);
        t.chmod("/d/f", 06755);
        assertEquals(06755, t.stat("/d/f").permissions());
    }

    @Test
    void chmod_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.chmod("/d/missing", 0644));
        assertErrno(Errno.ENOENT, () -> t.chmod("", 0644));
    }

    @Test
    void chmod_danglingSymlink_failsWithENOENT() {
        t.symlink("/nowhere", "/dangling");
        assertErrno(Errno.ENOENT, () -> t.chmod("/dangling", 0644));
    }

    @Test
    void chmod_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.chmod("/d/f/x", 0644));
        assertErrno(Errno.ENOTDIR, () -> t.chmod("/d/f/", 0644));
    }

    @Test
    void chmod_withoutSearchPermission_failsWithEACCES() {
        owner.chmod("/d", 0700);
        assertErrno(Errno.EACCES, () -> fs.task(1001, 1001).chmod("/d/f", 0644));
    }

    @Test
    void chmod_symlinkLoop_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.chmod("/loop", 0644));
    }

    @Test
    void chmod_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.chmod("/d/" + "c".repeat(256), 0644));
    }

    @Test
    void chmod_readOnlyMount_failsWithEROFS() {
        t.mkdir("/b", 0755);
        t.mount("/d", "/b", null, MountFlags.MS_BIND, null);
        t.mount(
                null,
                "/b",
                null,
                MountFlags.MS_REMOUNT | MountFlags.MS_BIND | MountFlags.MS_RDONLY,
                null);
        assertErrno(Errno.EROFS, () -> t.chmod("/b/f", 0600));
        assertErrno(Errno.EROFS, () -> t.chmod("/b", 0700));
        assertEquals(0644, t.stat("/d/f").permissions());
        t.umount("/b");
    }

    @Test
    void fchmod_openDescriptor_changesMode() {
        int fd = owner.open("/d/f", OpenFlags.O_RDONLY);
        try {
            owner.fchmod(fd, 0400);
        } finally {
            owner.close(fd);
        }
        assertEquals(0400, t.stat("/d/f").permissions());
    }

    @Test
    void fchmod_directoryDescriptor_changesMode() {
        int fd = owner.open("/d/sub", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            owner.fchmod(fd, 0711);
        } finally {
            owner.close(fd);
        }
        assertEquals(0711, t.stat("/d/sub").permissions());
    }

    @Test
    void fchmod_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fchmod(5, 0644));
    }

    @Test
    void fchmod_pathDescriptor_failsWithEBADF() {
        int fd = t.open("/d/f", OpenFlags.O_PATH);
        try {
            assertErrno(Errno.EBADF, () -> t.fchmod(fd, 0600));
        } finally {
            t.close(fd);
        }
        assertEquals(0644, t.stat("/d/f").permissions());
    }

    @Test
    void fchmodat_symlinkNoFollowOnSymlink_failsWithEOPNOTSUPP() {
        assertErrno(
                Errno.EOPNOTSUPP,
                () -> t.fchmodat(VfsTask.AT_FDCWD, "/lf", 0600, OpenFlags.AT_SYMLINK_NOFOLLOW));
        assertEquals(0644, t.stat("/d/f").permissions());
    }

    @Test
    void fchmodat_symlinkNoFollowOnRegularFile_changesIt() {
        t.fchmodat(VfsTask.AT_FDCWD, "/d/f", 0600, OpenFlags.AT_SYMLINK_NOFOLLOW);
        assertEquals(0600, t.stat("/d/f").permissions());
    }

    @Test
    void fchmodat_relativeToDescriptor_changes() {
        int fd = t.open("/d", OpenFlags.O_RDONLY);
        try {
            t.fchmodat(fd, "f", 0604, 0);
        } finally {
            t.close(fd);
        }
        assertEquals(0604, t.stat("/d/f").permissions());
    }

    @Test
    void fchmodat_unknownFlag_failsWithEINVAL() {
        assertErrno(
                Errno.EINVAL,
                () -> t.fchmodat(VfsTask.AT_FDCWD, "/d/f", 0600, OpenFlags.AT_REMOVEDIR));
    }

    @Test
    void fchmodat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fchmodat(44, "f", 0600, 0));
    }

    @Test
    void fchmodat_fileDescriptorWithRelativePath_failsWithENOTDIR() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.fchmodat(fd, "x", 0600, 0));
        } finally {
            t.close(fd);
        }
    }
}
