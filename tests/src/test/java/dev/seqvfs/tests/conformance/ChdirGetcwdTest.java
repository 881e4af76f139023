package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code chdir(2)}, {@code fchdir(2)} and {@code getcwd(3)}: relative paths resolve from
 * the working directory, which is per task, follows the directory through renames, and reads as
 * ENOENT once removed; {@code getcwd} names the directory, not the symlinks used to reach it,
 * across mounts; and the man page's errnos that apply: EACCES, EBADF, ELOOP, ENAMETOOLONG, ENOENT,
 * ENOTDIR.
 *
 * <pre>
 * /a/b/c/        directories, /a/b is 0700 owner 1000
 * /f             regular file
 * /lb -> /a/b
 * </pre>
 */
@FileSystemContract
class ChdirGetcwdTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/a", 0755);
        t.mkdir("/a/b", 0700);
        t.mkdir("/a/b/c", 0755);
        t.chown("/a/b", 1000, 1000);
        touch(t, "/f");
        t.symlink("/a/b", "/lb");
    }

    @Test
    void getcwd_newTask_isRoot() {
        assertEquals("/", fs.task(5, 5).getcwd());
    }

    @Test
    void chdir_absoluteAndRelative_changeWorkingDirectory() {
        t.chdir("/a");
        assertEquals("/a", t.getcwd());
        t.chdir("b/c");
        assertEquals("/a/b/c", t.getcwd());
        t.chdir("..");
        assertEquals("/a/b", t.getcwd());
        t.chdir("./c/../../..");
        assertEquals("/", t.getcwd());
    }

    @Test
    void chdir_relativePathsResolveFromNewDirectory() {
        t.chdir("/a/b");
        t.mkdir("d", 0755);
        touch(t, "d/g");
        assertTrue(t.stat("/a/b/d/g").isRegular());
        assertEquals(t.stat("/a/b/c").ino(), t.stat("c").ino());
        t.chdir("/");
    }

    @Test
    void chdir_throughSymlink_getcwdShowsRealPath() {
        t.chdir("/lb/c");
        assertEquals("/a/b/c", t.getcwd());
        t.chdir("/lb");
        assertEquals("/a/b", t.getcwd());
    }

    @Test
    void chdir_dotDotAtRoot_staysAtRoot() {
        t.chdir("/..");
        assertEquals("/", t.getcwd());
        t.chdir("../../..");
        assertEquals("/", t.getcwd());
    }

    @Test
    void chdir_isPerTask() {
        VfsTask other = fs.task(0, 0);
        t.chdir("/a");
        assertEquals("/", other.getcwd());
        other.chdir("/a/b");
        assertEquals("/a", t.getcwd());
    }

    @Test
    void getcwd_insideMountedFileSystem_showsFullPath() {
        t.mount("none", "/a/b/c", "tmpfs", 0, null);
        t.mkdir("/a/b/c/in", 0755);
        t.chdir("/a/b/c/in");
        assertEquals("/a/b/c/in", t.getcwd());
        t.chdir("../..");
        assertEquals("/a/b", t.getcwd());
        t.rmdir("/a/b/c/in");
        t.umount("/a/b/c");
    }

    @Test
    void getcwd_afterRenameOfWorkingDirectory_showsNewName() {
        t.chdir("/a/b/c");
        t.rename("/a/b/c", "/a/z");
        assertEquals("/a/z", t.getcwd());
        t.rename("/a", "/y");
        assertEquals("/y/z", t.getcwd());
        t.chdir("/");
    }

    @Test
    void getcwd_afterRemovalOfWorkingDirectory_failsWithENOENT() {
        t.chdir("/a/b/c");
        t.rmdir("/a/b/c");
        assertErrno(Errno.ENOENT, () -> t.getcwd());
        assertErrno(Errno.ENOENT, () -> t.chdir("x"));
        t.chdir("/");
    }

    @Test
    void getcwd_afterWorkingDirectoryReplacedByRename_failsWithENOENT() {
        t.mkdir("/e", 0755);
        t.chdir("/e");
        t.mkdir("/e2", 0755);
        t.rename("/e2", "/e");
        assertErrno(Errno.ENOENT, () -> t.getcwd());
        t.chdir("/");
    }

    @Test
    void chdir_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.chdir("/a/missing"));
        assertErrno(Errno.ENOENT, () -> t.chdir(""));
        assertEquals("/", t.getcwd());
    }

    @Test
    void chdir_nonDirectory_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.chdir("/f"));
        assertErrno(Errno.ENOTDIR, () -> t.chdir("/f/x"));
        assertEquals("/", t.getcwd());
    }

    @Test
    void chdir_withoutSearchPermission_failsWithEACCES() {
        VfsTask u = fs.task(2000, 2000);
        assertErrno(Errno.EACCES, () -> u.chdir("/a/b"));
        assertErrno(Errno.EACCES, () -> u.chdir("/a/b/c"));
        assertEquals("/", u.getcwd());
    }

    @Test
    void chdir_searchPermissionOnlyIsEnough() {
        t.chmod("/a/b", 0711);
        VfsTask u = fs.task(2000, 2000);
        u.chdir("/a/b");
        assertEquals("/a/b", u.getcwd());
    }

    @Test
    void chdir_rootIgnoresMissingSearchBits() {
        t.chmod("/a/b", 0);
        t.chdir("/a/b");
        assertEquals("/a/b", t.getcwd());
        t.chdir("/");
    }

    @Test
    void chdir_symlinkLoop_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.chdir("/loop"));
    }

    @Test
    void chdir_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.chdir("/" + "d".repeat(256)));
    }

    @Test
    void fchdir_directoryDescriptor_changesWorkingDirectory() {
        int fd = t.open("/a/b", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        int p = t.open("/a/b/c", OpenFlags.O_PATH);
        try {
            t.fchdir(fd);
            assertEquals("/a/b", t.getcwd());
            t.fchdir(p);
            assertEquals("/a/b/c", t.getcwd());
        } finally {
            t.close(fd);
            t.close(p);
        }
        t.chdir("/");
    }

    @Test
    void fchdir_fileDescriptor_failsWithENOTDIR() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.fchdir(fd));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void fchdir_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fchdir(12));
    }

    @Test
    void fchdir_withoutSearchPermission_failsWithEACCES() {
        VfsTask owner = fs.task(1000, 1000);
        int fd = owner.open("/a/b", OpenFlags.O_RDONLY);
        owner.chmod("/a/b", 0600);
        try {
            assertErrno(Errno.EACCES, () -> owner.fchdir(fd));
        } finally {
            owner.close(fd);
        }
    }
}
