package dev.seqvfs.tests.conformance;

import static dev.seqvfs.protocol.Mode.F_OK;
import static dev.seqvfs.protocol.Mode.R_OK;
import static dev.seqvfs.protocol.Mode.W_OK;
import static dev.seqvfs.protocol.Mode.X_OK;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code access(2)} and {@code faccessat(2)}: the owner/group/other class is chosen by
 * the caller's ids and only that class's bits count; root passes read and write always, and execute
 * when any execute bit is set (search on a directory always); symlinks are followed unless {@code
 * AT_SYMLINK_NOFOLLOW}; and the man page's errnos that apply: EACCES, EBADF, EINVAL, ELOOP,
 * ENAMETOOLONG, ENOENT, ENOTDIR, EROFS.
 *
 * <pre>
 * /d/            0755, owner 1000:100
 * /d/f           regular file 0640, owner 1000:100
 * /d/x           regular file 0100 (owner execute only), owner 1000:100
 * /d/none        regular file 0000
 * /lf  -> /d/f
 * </pre>
 */
@FileSystemContract
class AccessTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    VfsTask owner;
    VfsTask member;
    VfsTask stranger;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/d/f", 0640);
        touch(t, "/d/x", 0100);
        touch(t, "/d/none", 0);
        t.chmod("/d/f", 0640);
        t.chmod("/d/x", 0100);
        t.chmod("/d/none", 0);
        for (String p : new String[] {"/d", "/d/f", "/d/x"}) {
            t.chown(p, 1000, 100);
        }
        t.symlink("/d/f", "/lf");
        owner = fs.task(1000, 100);
        member = fs.task(2000, 2000, 100);
        stranger = fs.task(3000, 3000);
    }

    @Test
    void access_owner_getsOwnerBits() {
        owner.access("/d/f", R_OK | W_OK);
        assertErrno(Errno.EACCES, () -> owner.access("/d/f", X_OK));
        owner.access("/d/x", X_OK);
        assertErrno(Errno.EACCES, () -> owner.access("/d/x", R_OK));
    }

    @Test
    void access_groupMember_getsGroupBitsOnly() {
        member.access("/d/f", R_OK);
        assertErrno(Errno.EACCES, () -> member.access("/d/f", W_OK));
        assertErrno(Errno.EACCES, () -> member.access("/d/f", R_OK | W_OK));
    }

    @Test
    void access_other_getsOtherBits() {
        assertErrno(Errno.EACCES, () -> stranger.access("/d/f", R_OK));
        stranger.access("/d", R_OK | X_OK);
        assertErrno(Errno.EACCES, () -> stranger.access("/d", W_OK));
    }

    @Test
    void access_ownerClassDeniesEvenIfOtherAllows() {
        t.chmod("/d/f", 0047);
        assertErrno(Errno.EACCES, () -> owner.access("/d/f", R_OK));
        assertErrno(Errno.EACCES, () -> member.access("/d/f", W_OK));
        stranger.access("/d/f", R_OK | W_OK | X_OK);
    }

    @Test
    void access_root_passesReadWriteAndSearchAlways() {
        t.access("/d/none", R_OK | W_OK);
        t.chmod("/d", 0);
        t.access("/d", R_OK | W_OK | X_OK);
        t.access("/d/f", R_OK);
    }

    @Test
    void access_rootExecute_needsSomeExecuteBit() {
        assertErrno(Errno.EACCES, () -> t.access("/d/none", X_OK));
        assertErrno(Errno.EACCES, () -> t.access("/d/f", X_OK));
        t.access("/d/x", X_OK);
        t.chmod("/d/f", 0641);
        t.access("/d/f", X_OK);
    }

    @Test
    void access_existenceOnly_needsNoPermissionOnFile() {
        stranger.access("/d/none", F_OK);
        stranger.access("/d/f", F_OK);
    }

    @Test
    void access_followsSymlinks() {
        assertErrno(Errno.EACCES, () -> stranger.access("/lf", R_OK));
        owner.access("/lf", W_OK);
    }

    @Test
    void faccessat_symlinkNoFollow_checksTheLinkItself() {
        stranger.faccessat(VfsTask.AT_FDCWD, "/lf", R_OK | W_OK, OpenFlags.AT_SYMLINK_NOFOLLOW);
        t.symlink("/nowhere", "/dangling");
        stranger.faccessat(VfsTask.AT_FDCWD, "/dangling", F_OK, OpenFlags.AT_SYMLINK_NOFOLLOW);
        assertErrno(Errno.ENOENT, () -> stranger.access("/dangling", F_OK));
    }

    @Test
    void faccessat_effectiveIdsFlag_isAccepted() {
        owner.faccessat(VfsTask.AT_FDCWD, "/d/f", R_OK, OpenFlags.AT_EACCESS);
        assertErrno(
                Errno.EACCES,
                () -> stranger.faccessat(VfsTask.AT_FDCWD, "/d/f", R_OK, OpenFlags.AT_EACCESS));
    }

    @Test
    void faccessat_relativeToDescriptorAndEmptyPath_check() {
        int fd = owner.open("/d", OpenFlags.O_RDONLY);
        int f = owner.open("/d/f", OpenFlags.O_PATH);
        try {
            owner.faccessat(fd, "f", R_OK, 0);
            owner.faccessat(f, "", W_OK, OpenFlags.AT_EMPTY_PATH);
            assertErrno(Errno.EACCES, () -> owner.faccessat(f, "", X_OK, OpenFlags.AT_EMPTY_PATH));
        } finally {
            owner.close(fd);
            owner.close(f);
        }
    }

    @Test
    void access_invalidMode_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.access("/d/f", 8));
        assertErrno(Errno.EINVAL, () -> t.access("/d/f", -1));
    }

    @Test
    void faccessat_invalidFlag_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.faccessat(VfsTask.AT_FDCWD, "/d/f", R_OK, 0x4));
    }

    @Test
    void faccessat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.faccessat(19, "f", R_OK, 0));
    }

    @Test
    void faccessat_fileDescriptorWithRelativePath_failsWithENOTDIR() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.faccessat(fd, "x", F_OK, 0));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void access_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.access("/d/missing", F_OK));
        assertErrno(Errno.ENOENT, () -> t.access("", F_OK));
    }

    @Test
    void access_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.access("/d/f/x", F_OK));
        assertErrno(Errno.ENOTDIR, () -> t.access("/d/f/", F_OK));
    }

    @Test
    void access_withoutSearchPermissionOnComponent_failsWithEACCESEvenForExistence() {
        t.chmod("/d", 0700);
        assertErrno(Errno.EACCES, () -> stranger.access("/d/f", F_OK));
    }

    @Test
    void access_symlinkLoop_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.access("/loop", F_OK));
    }

    @Test
    void access_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.access("/" + "a".repeat(256), F_OK));
    }

    @Test
    void access_writeOnReadOnlySuperblockWithoutPermission_failsWithEROFSBeforeEACCES() {
        t.mkdir("/m", 0755);
        t.mount("none", "/m", "tmpfs", 0, "mode=0755");
        touch(t, "/m/f", 0444);
        t.mount(null, "/m", null, MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> stranger.access("/m/f", W_OK));
        t.mount(null, "/m", null, MountFlags.MS_REMOUNT, null);
        t.unlink("/m/f");
        t.umount("/m");
    }

    @Test
    void access_writeOnReadOnlyBindMountWithoutPermission_failsWithEACCESBeforeEROFS() {
        t.mkdir("/b", 0755);
        t.mount("/d", "/b", null, MountFlags.MS_BIND, null);
        t.mount(
                null,
                "/b",
                null,
                MountFlags.MS_REMOUNT | MountFlags.MS_BIND | MountFlags.MS_RDONLY,
                null);
        assertErrno(Errno.EACCES, () -> stranger.access("/b/f", W_OK));
        assertErrno(Errno.EROFS, () -> owner.access("/b/f", W_OK));
        t.umount("/b");
    }

    @Test
    void access_writeOnReadOnlyMount_failsWithEROFSForFilesButNotForFifos() {
        t.mkdir("/m", 0755);
        t.mount("none", "/m", "tmpfs", 0, null);
        touch(t, "/m/f", 0666);
        t.mkdir("/m/dir", 0777);
        t.mknod("/m/fifo", Mode.S_IFIFO | 0666, 0);
        t.mount(null, "/m", null, MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> t.access("/m/f", W_OK));
        assertErrno(Errno.EROFS, () -> t.access("/m/dir", W_OK));
        t.access("/m/fifo", W_OK);
        t.access("/m/f", R_OK);
        t.mount(null, "/m", null, MountFlags.MS_REMOUNT, null);
        t.unlink("/m/f");
        t.unlink("/m/fifo");
        t.rmdir("/m/dir");
        t.umount("/m");
    }
}
