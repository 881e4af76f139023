package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code link(2)} and {@code linkat(2)} ({@code AT_SYMLINK_FOLLOW}, {@code
 * AT_EMPTY_PATH}): a new name for the same inode, link counts and ctime, and the man page's errnos
 * that apply: EACCES, EBADF, EEXIST, EINVAL, ELOOP, EMLINK, ENAMETOOLONG, ENOENT, ENOTDIR, EPERM,
 * EROFS, EXDEV. Like Linux, {@code link} does not follow a final symlink of the old path.
 *
 * <pre>
 * /d/          0755
 * /d/f         regular file
 * /e/          directory
 * /lf -> /d/f
 * /le -> /e
 * /dangling -> /nowhere
 * </pre>
 */
@FileSystemContract
class LinkTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/d/f");
        t.mkdir("/e", 0755);
        t.symlink("/d/f", "/lf");
        t.symlink("/e", "/le");
        t.symlink("/nowhere", "/dangling");
    }

    @Test
    void link_file_addsNameForSameInodeAndCountsLinks() {
        t.link("/d/f", "/e/g");
        Stat f = t.stat("/d/f");
        Stat g = t.stat("/e/g");
        assertEquals(f.ino(), g.ino());
        assertEquals(2, f.nlink());
        assertEquals(2, g.nlink());
        assertEquals(2, t.stat("/e").nlink());
    }

    @Test
    void link_file_updatesInodeCtimeAndNewParentMtime() {
        Timespec old = new Timespec(1000, 0);
        t.utimensat(VfsTask.AT_FDCWD, "/d/f", old, old, 0);
        t.utimensat(VfsTask.AT_FDCWD, "/e", old, old, 0);
        t.link("/d/f", "/e/g");
        Stat g = t.stat("/e/g");
        assertTrue(g.ctimeNanos() > old.toNanos());
        assertEquals(old.toNanos(), g.mtimeNanos());
        assertTrue(t.stat("/e").mtimeNanos() > old.toNanos());
    }

    /**
     * tmpfs charges every extra name of a file against nr_inodes (shmem_reserve_inode in
     * shmem_link).
     */
    @Test
    void link_usesAnInodeSlot_asTmpfsDoes() {
        long free = t.statfs("/").ffree();
        t.link("/d/f", "/d/g");
        assertEquals(free - 1, t.statfs("/").ffree());
    }

    @Test
    void link_symlink_linksTheSymlinkItself() {
        t.link("/lf", "/l2");
        assertTrue(t.lstat("/l2").isSymlink());
        assertEquals(t.lstat("/lf").ino(), t.lstat("/l2").ino());
        assertEquals(2, t.lstat("/lf").nlink());
        assertEquals(1, t.stat("/d/f").nlink());
        t.link("/dangling", "/d2");
        t.link("/le", "/le2");
        assertTrue(t.lstat("/le2").isSymlink());
    }

    @Test
    void linkat_symlinkFollow_linksTheTarget() {
        t.linkat(VfsTask.AT_FDCWD, "/lf", VfsTask.AT_FDCWD, "/g", OpenFlags.AT_SYMLINK_FOLLOW);
        assertTrue(t.lstat("/g").isRegular());
        assertEquals(2, t.stat("/d/f").nlink());
        assertEquals(1, t.lstat("/lf").nlink());
    }

    @Test
    void linkat_symlinkFollowOnDanglingLink_failsWithENOENT() {
        assertErrno(
                Errno.ENOENT,
                () ->
                        t.linkat(
                                VfsTask.AT_FDCWD,
                                "/dangling",
                                VfsTask.AT_FDCWD,
                                "/g",
                                OpenFlags.AT_SYMLINK_FOLLOW));
    }

    @Test
    void linkat_symlinkFollowOnLinkToDirectory_failsWithEPERM() {
        assertErrno(
                Errno.EPERM,
                () ->
                        t.linkat(
                                VfsTask.AT_FDCWD,
                                "/le",
                                VfsTask.AT_FDCWD,
                                "/g",
                                OpenFlags.AT_SYMLINK_FOLLOW));
    }

    @Test
    void link_directory_failsWithEPERM() {
        assertErrno(Errno.EPERM, () -> t.link("/e", "/e2"));
        assertErrno(Errno.EPERM, () -> t.link("/d/.", "/e2"));
        assertFalse(exists(t, "/e2"));
        assertEquals(2, t.stat("/e").nlink());
    }

    @Test
    void link_existingNewName_failsWithEEXIST() {
        touch(t, "/d/g");
        assertErrno(Errno.EEXIST, () -> t.link("/d/f", "/d/g"));
        assertErrno(Errno.EEXIST, () -> t.link("/d/f", "/d/f"));
        assertErrno(Errno.EEXIST, () -> t.link("/d/f", "/dangling"));
        assertErrno(Errno.EEXIST, () -> t.link("/d/f", "/e"));
        assertErrno(Errno.EEXIST, () -> t.link("/d/f", "/e/"));
        assertErrno(Errno.EEXIST, () -> t.link("/d/f", "/e/."));
        assertErrno(Errno.EEXIST, () -> t.link("/d/f", "/e/.."));
        assertErrno(Errno.EEXIST, () -> t.link("/d/f", "/"));
        assertEquals(1, t.stat("/d/f").nlink());
    }

    @Test
    void link_missingOldPath_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.link("/d/missing", "/d/g"));
        assertErrno(Errno.ENOENT, () -> t.link("/missing/x", "/d/g"));
    }

    @Test
    void link_missingNewParent_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.link("/d/f", "/missing/g"));
        assertErrno(Errno.ENOENT, () -> t.link("/d/f", "/dangling/g"));
    }

    @Test
    void link_trailingSlashOnNewName_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.link("/d/f", "/d/g/"));
        assertFalse(exists(t, "/d/g"));
    }

    @Test
    void link_emptyPaths_failWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.link("", "/d/g"));
        assertErrno(Errno.ENOENT, () -> t.link("/d/f", ""));
    }

    @Test
    void link_trailingSlashOnFile_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.link("/d/f/", "/d/g"));
    }

    @Test
    void link_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.link("/d/f/x", "/d/g"));
        assertErrno(Errno.ENOTDIR, () -> t.link("/d/f", "/d/f/g"));
    }

    @Test
    void link_acrossMounts_failsWithEXDEV() {
        t.mount("none", "/e", "tmpfs", 0, null);
        assertErrno(Errno.EXDEV, () -> t.link("/d/f", "/e/g"));
        t.umount("/e");
    }

    @Test
    void link_acrossBindMountOfSameFileSystem_failsWithEXDEV() {
        t.mount("/d", "/e", null, MountFlags.MS_BIND, null);
        assertErrno(Errno.EXDEV, () -> t.link("/d/f", "/e/g"));
        assertEquals(1, t.stat("/d/f").nlink());
        t.umount("/e");
    }

    @Test
    void link_readOnlyMount_failsWithEROFS() {
        t.mount("/d", "/e", null, MountFlags.MS_BIND, null);
        t.mount(
                null,
                "/e",
                null,
                MountFlags.MS_REMOUNT | MountFlags.MS_BIND | MountFlags.MS_RDONLY,
                null);
        assertErrno(Errno.EROFS, () -> t.link("/e/f", "/e/g"));
        t.umount("/e");
    }

    @Test
    void link_noWritePermissionOnNewParent_failsWithEACCES() {
        t.chmod("/d/f", 0666);
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.link("/d/f", "/e/g"));
        assertEquals(1, t.stat("/d/f").nlink());
    }

    @Test
    void link_noSearchPermissionOnOldPath_failsWithEACCES() {
        t.chmod("/d", 0700);
        t.mkdir("/w", 0777);
        t.chmod("/w", 0777);
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.link("/d/f", "/w/g"));
    }

    @Test
    void link_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.link("/d/f", "/d/" + "g".repeat(256)));
        t.link("/d/f", "/d/" + "g".repeat(255));
    }

    @Test
    void link_symlinkLoopInPath_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.link("/loop/x", "/d/g"));
        assertErrno(Errno.ELOOP, () -> t.link("/d/f", "/loop/g"));
    }

    @Test
    void link_atLinkMax_failsWithEMLINK() {
        t.mkdir("/m", 0755);
        touch(t, "/m/f");
        // 256 calls in flight at a time: a journaling type commits each drained batch at once
        List<java.util.concurrent.CompletableFuture<Void>> window = new ArrayList<>();
        for (int i = 1; i < Limits.LINK_MAX; i++) {
            window.add(t.async().link("/m/f", "/m/" + i));
            if (window.size() == 256 || i == Limits.LINK_MAX - 1) {
                window.forEach(java.util.concurrent.CompletableFuture::join);
                window.clear();
            }
        }
        assertEquals(Limits.LINK_MAX, t.stat("/m/f").nlink());
        assertErrno(Errno.EMLINK, () -> t.link("/m/f", "/m/over"));
        assertFalse(exists(t, "/m/over"));
    }

    @Test
    void linkat_relativeToDescriptors_links() {
        int d = t.open("/d", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        int e = t.open("/e", OpenFlags.O_PATH);
        try {
            t.linkat(d, "f", e, "g", 0);
        } finally {
            t.close(d);
            t.close(e);
        }
        assertEquals(t.stat("/d/f").ino(), t.stat("/e/g").ino());
    }

    @Test
    void linkat_emptyPathAsRoot_linksTheOpenFile() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            t.linkat(fd, "", VfsTask.AT_FDCWD, "/e/g", OpenFlags.AT_EMPTY_PATH);
        } finally {
            t.close(fd);
        }
        assertEquals(2, t.stat("/e/g").nlink());
    }

    @Test
    void linkat_emptyPathOnOpenSymlink_linksTheSymlink() {
        int fd = t.open("/lf", OpenFlags.O_PATH | OpenFlags.O_NOFOLLOW);
        try {
            t.linkat(fd, "", VfsTask.AT_FDCWD, "/l2", OpenFlags.AT_EMPTY_PATH);
        } finally {
            t.close(fd);
        }
        assertTrue(t.lstat("/l2").isSymlink());
    }

    @Test
    void linkat_emptyPathOnDirectory_failsWithEPERM() {
        int fd = t.open("/e", OpenFlags.O_RDONLY);
        try {
            assertErrno(
                    Errno.EPERM,
                    () -> t.linkat(fd, "", VfsTask.AT_FDCWD, "/g", OpenFlags.AT_EMPTY_PATH));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void linkat_emptyPathOnUnlinkedFile_failsWithENOENT() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            t.unlink("/d/f");
            assertErrno(
                    Errno.ENOENT,
                    () -> t.linkat(fd, "", VfsTask.AT_FDCWD, "/g", OpenFlags.AT_EMPTY_PATH));
            assertFalse(exists(t, "/g"));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void linkat_emptyPathWithoutFlag_failsWithENOENT() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOENT, () -> t.linkat(fd, "", VfsTask.AT_FDCWD, "/g", 0));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void linkat_emptyPathAsNonRoot_failsWithENOENT() {
        VfsTask u = fs.task(1000, 1000);
        t.chmod("/e", 0777);
        int fd = u.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(
                    Errno.ENOENT,
                    () -> u.linkat(fd, "", VfsTask.AT_FDCWD, "/e/g", OpenFlags.AT_EMPTY_PATH));
        } finally {
            u.close(fd);
        }
    }

    @Test
    void linkat_unknownFlag_failsWithEINVAL() {
        assertErrno(
                Errno.EINVAL,
                () ->
                        t.linkat(
                                VfsTask.AT_FDCWD,
                                "/d/f",
                                VfsTask.AT_FDCWD,
                                "/g",
                                OpenFlags.AT_SYMLINK_NOFOLLOW));
    }

    @Test
    void linkat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.linkat(42, "f", VfsTask.AT_FDCWD, "/g", 0));
        assertErrno(Errno.EBADF, () -> t.linkat(VfsTask.AT_FDCWD, "/d/f", 42, "g", 0));
    }
}
