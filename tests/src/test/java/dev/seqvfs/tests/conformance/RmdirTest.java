package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
import static dev.seqvfs.tests.conformance.Sys.names;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code rmdir(2)} (and {@code unlinkat(2)} with {@code AT_REMOVEDIR}): the parent's link
 * count and times afterwards, and the errnos of the man page that apply to an in-memory file
 * system: EACCES, EBUSY, EINVAL, ELOOP, ENAMETOOLONG, ENOENT, ENOTDIR, ENOTEMPTY, EPERM (sticky
 * directory, see PermissionTest), EROFS.
 *
 * <pre>
 * /p/          0755
 * /p/empty/
 * /p/full/x    regular file
 * /f           regular file
 * /le -> /p/empty
 * </pre>
 */
@FileSystemContract
class RmdirTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/p", 0755);
        t.mkdir("/p/empty", 0755);
        t.mkdir("/p/full", 0755);
        touch(t, "/p/full/x");
        touch(t, "/f");
        t.symlink("/p/empty", "/le");
    }

    @Test
    void rmdir_emptyDirectory_removesItAndDecrementsParentLinks() {
        assertEquals(4, t.stat("/p").nlink());
        t.rmdir("/p/empty");
        assertFalse(exists(t, "/p/empty"));
        assertEquals(3, t.stat("/p").nlink());
        assertEquals(Set.of("full"), names(t, "/p"));
    }

    @Test
    void rmdir_emptyDirectory_updatesParentMtimeAndCtime() {
        t.utimensat(VfsTask.AT_FDCWD, "/p", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        t.rmdir("/p/empty");
        Stat p = t.stat("/p");
        assertTrue(p.mtimeNanos() > 1000_000_000_000L);
        assertTrue(p.ctimeNanos() > 1000_000_000_000L);
        assertEquals(1000_000_000_000L, p.atimeNanos());
    }

    @Test
    void rmdir_trailingSlash_removes() {
        t.rmdir("/p/empty/");
        assertFalse(exists(t, "/p/empty"));
    }

    @Test
    void rmdir_freesTheInode() {
        long before = t.statfs("/").ffree();
        t.rmdir("/p/empty");
        assertEquals(before + 1, t.statfs("/").ffree());
    }

    @Test
    void rmdir_openDirectory_removesNameAndDescriptorSeesNoLinks() {
        int fd = t.open("/p/empty", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            t.rmdir("/p/empty");
            assertEquals(0, t.fstat(fd).nlink());
            assertFalse(exists(t, "/p/empty"));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void rmdir_nonEmpty_failsWithENOTEMPTY() {
        assertErrno(Errno.ENOTEMPTY, () -> t.rmdir("/p/full"));
        assertErrno(Errno.ENOTEMPTY, () -> t.rmdir("/p"));
        assertTrue(exists(t, "/p/full/x"));
    }

    @Test
    void rmdir_directoryWithOnlySubdirectory_failsWithENOTEMPTY() {
        t.mkdir("/p/empty/sub", 0755);
        assertErrno(Errno.ENOTEMPTY, () -> t.rmdir("/p/empty"));
    }

    @Test
    void rmdir_dotAsLastComponent_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.rmdir("/p/empty/."));
        t.chdir("/p/empty");
        assertErrno(Errno.EINVAL, () -> t.rmdir("."));
        t.chdir("/");
        assertTrue(exists(t, "/p/empty"));
    }

    @Test
    void rmdir_dotDotAsLastComponent_failsWithENOTEMPTY() {
        assertErrno(Errno.ENOTEMPTY, () -> t.rmdir("/p/empty/.."));
    }

    @Test
    void rmdir_root_failsWithEBUSY() {
        assertErrno(Errno.EBUSY, () -> t.rmdir("/"));
    }

    @Test
    void rmdir_mountpoint_failsWithEBUSY() {
        t.mount("none", "/p/empty", "tmpfs", 0, null);
        assertErrno(Errno.EBUSY, () -> t.rmdir("/p/empty"));
        t.umount("/p/empty");
        t.rmdir("/p/empty");
    }

    @Test
    void rmdir_regularFile_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.rmdir("/f"));
        assertErrno(Errno.ENOTDIR, () -> t.rmdir("/f/"));
        assertTrue(exists(t, "/f"));
    }

    @Test
    void rmdir_symlinkToDirectory_failsWithENOTDIRAndKeepsTarget() {
        assertErrno(Errno.ENOTDIR, () -> t.rmdir("/le"));
        assertErrno(Errno.ENOTDIR, () -> t.rmdir("/le/"));
        assertTrue(exists(t, "/p/empty"));
        assertTrue(exists(t, "/le"));
    }

    @Test
    void rmdir_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.rmdir("/f/x"));
    }

    @Test
    void rmdir_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.rmdir("/p/missing"));
        assertErrno(Errno.ENOENT, () -> t.rmdir("/missing/x"));
        assertErrno(Errno.ENOENT, () -> t.rmdir("/p/missing/"));
    }

    @Test
    void rmdir_emptyPath_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.rmdir(""));
    }

    @Test
    void rmdir_twice_secondFailsWithENOENT() {
        t.rmdir("/p/empty");
        assertErrno(Errno.ENOENT, () -> t.rmdir("/p/empty"));
    }

    @Test
    void rmdir_noWritePermissionOnParent_failsWithEACCES() {
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.rmdir("/p/empty"));
        assertTrue(exists(t, "/p/empty"));
    }

    @Test
    void rmdir_noSearchPermissionOnComponent_failsWithEACCES() {
        t.chmod("/p", 0666);
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.rmdir("/p/empty"));
    }

    @Test
    void rmdir_ownDirectoryInWritableParent_succeedsForNonRoot() {
        t.chmod("/p", 0777);
        VfsTask u = fs.task(1000, 1000);
        u.mkdir("/p/mine", 0700);
        u.rmdir("/p/mine");
        assertFalse(exists(t, "/p/mine"));
    }

    @Test
    void rmdir_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.rmdir("/p/" + "x".repeat(256)));
    }

    @Test
    void rmdir_symlinkLoopInPath_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.rmdir("/loop/x"));
    }

    @Test
    void rmdir_readOnlyMount_failsWithEROFS() {
        t.mount("none", "/p", "tmpfs", 0, null);
        t.mkdir("/p/d", 0755);
        t.mount(null, "/p", null, MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> t.rmdir("/p/d"));
        assertTrue(exists(t, "/p/d"));
        t.umount("/p");
    }

    @Test
    void rmdir_workingDirectory_succeedsAndGetcwdFailsWithENOENT() {
        t.chdir("/p/empty");
        t.rmdir("/p/empty");
        assertErrno(Errno.ENOENT, () -> t.getcwd());
        assertErrno(Errno.ENOENT, () -> t.mkdir("x", 0755));
        t.chdir("/");
        assertEquals("/", t.getcwd());
    }

    @Test
    void unlinkat_removeDirFlag_removesDirectoryRelativeToDescriptor() {
        int fd = t.open("/p", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            t.unlinkat(fd, "empty", OpenFlags.AT_REMOVEDIR);
            assertErrno(Errno.ENOTDIR, () -> t.unlinkat(fd, "full/x", OpenFlags.AT_REMOVEDIR));
        } finally {
            t.close(fd);
        }
        assertFalse(exists(t, "/p/empty"));
    }

    @Test
    void unlinkat_removeDirFlagWithBadDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.unlinkat(77, "empty", OpenFlags.AT_REMOVEDIR));
    }
}
