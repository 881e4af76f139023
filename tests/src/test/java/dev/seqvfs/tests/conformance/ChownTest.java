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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code chown(2)}, {@code lchown(2)} and {@code fchownat(2)}: -1 keeps an id; only root
 * changes the owner; the owner may change the group to one of its groups; a non-directory loses
 * {@code S_ISUID}, and {@code S_ISGID} when group-execute is set, even when root changes it (Linux
 * since 2.2.13; a directory keeps both); ctime moves; and the man page's errnos that apply: EACCES,
 * EBADF, EINVAL, ELOOP, ENAMETOOLONG, ENOENT, ENOTDIR, EPERM, EROFS.
 *
 * <pre>
 * /d/            0755, owner 1000:1000
 * /d/f           regular file 0644, owner 1000:1000
 * /lf -> /d/f
 * /r             regular file 0644, owner root
 * </pre>
 */
@FileSystemContract
class ChownTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    VfsTask owner;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/d/f", 0644);
        t.chown("/d", 1000, 1000);
        t.chown("/d/f", 1000, 1000);
        t.symlink("/d/f", "/lf");
        touch(t, "/r", 0644);
        owner = fs.task(1000, 1000, 2000);
    }

    @Test
    void chown_byRoot_setsOwnerAndGroup() {
        t.chown("/r", 5, 6);
        Stat st = t.stat("/r");
        assertEquals(5, st.uid());
        assertEquals(6, st.gid());
    }

    @Test
    void chown_minusOne_keepsThatId() {
        t.chown("/r", 5, -1);
        assertEquals(0, t.stat("/r").gid());
        t.chown("/r", -1, 6);
        assertEquals(5, t.stat("/r").uid());
        assertEquals(6, t.stat("/r").gid());
    }

    @Test
    void chown_updatesCtimeOnly() {
        t.utimensat(VfsTask.AT_FDCWD, "/r", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        t.chown("/r", -1, -1);
        Stat st = t.stat("/r");
        assertTrue(st.ctimeNanos() > 1000_000_000_000L);
        assertEquals(1000_000_000_000L, st.mtimeNanos());
    }

    @Test
    void chown_followsSymlinkAndLchownDoesNot() {
        t.chown("/lf", 7, 7);
        assertEquals(7, t.stat("/d/f").uid());
        assertEquals(0, t.lstat("/lf").uid());
        t.lchown("/lf", 9, 9);
        assertEquals(9, t.lstat("/lf").uid());
        assertEquals(7, t.stat("/d/f").uid());
    }

    @Test
    void chown_ownerToOwnGroup_changesGroup() {
        owner.chown("/d/f", -1, 2000);
        assertEquals(2000, t.stat("/d/f").gid());
        owner.chown("/d/f", 1000, 1000);
        assertEquals(1000, t.stat("/d/f").gid());
    }

    @Test
    void chown_ownerToForeignGroup_failsWithEPERM() {
        assertErrno(Errno.EPERM, () -> owner.chown("/d/f", -1, 3000));
        assertEquals(1000, t.stat("/d/f").gid());
    }

    @Test
    void chown_ownerGivingFileAway_failsWithEPERM() {
        assertErrno(Errno.EPERM, () -> owner.chown("/d/f", 1001, -1));
        assertEquals(1000, t.stat("/d/f").uid());
    }

    @Test
    void chown_nonOwner_failsWithEPERMEvenForCurrentIds() {
        VfsTask other = fs.task(1001, 1000);
        assertErrno(Errno.EPERM, () -> other.chown("/d/f", 1000, -1));
        assertErrno(Errno.EPERM, () -> other.chown("/d/f", -1, 1000));
        assertErrno(Errno.EPERM, () -> other.chown("/d/f", 1001, 1000));
    }

    @Test
    void chown_nonOwnerWithBothMinusOne_succeeds() {
        fs.task(1001, 1001).chown("/d/f", -1, -1);
        assertEquals(1000, t.stat("/d/f").uid());
    }

    @Test
    void chown_byRoot_clearsSetuidAndGroupExecutableSetgidOfFile() {
        t.chmod("/r", 06755);
        t.chown("/r", 0, 0);
        assertEquals(0755, t.stat("/r").permissions());
        t.chmod("/r", 06745);
        t.chown("/r", -1, 5);
        assertEquals(02745, t.stat("/r").permissions());
    }

    @Test
    void chown_byOwner_clearsSetuidOfFile() {
        owner.chmod("/d/f", 04755);
        owner.chown("/d/f", -1, 2000);
        assertEquals(0755, t.stat("/d/f").permissions());
    }

    @Test
    void chown_directory_keepsSetIdBits() {
        t.mkdir("/dd", 0755);
        t.chmod("/dd", 06755);
        t.chown("/dd", 5, 5);
        assertEquals(06755, t.stat("/dd").permissions());
    }

    @Test
    void chown_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.chown("/d/missing", 1, 1));
        assertErrno(Errno.ENOENT, () -> t.chown("", 1, 1));
    }

    @Test
    void chown_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.chown("/d/f/x", 1, 1));
    }

    @Test
    void chown_withoutSearchPermission_failsWithEACCES() {
        owner.chmod("/d", 0700);
        assertErrno(Errno.EACCES, () -> fs.task(1001, 1001).chown("/d/f", -1, -1));
    }

    @Test
    void chown_symlinkLoop_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.chown("/loop", 1, 1));
        t.lchown("/loop", 1, 1);
        assertEquals(1, t.lstat("/loop").uid());
    }

    @Test
    void chown_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.chown("/" + "o".repeat(256), 1, 1));
    }

    @Test
    void chown_readOnlyMount_failsWithEROFS() {
        t.mkdir("/m", 0755);
        t.mount("none", "/m", "tmpfs", MountFlags.MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> t.chown("/m", 1, 1));
        t.umount("/m");
    }

    @Test
    void fchownat_emptyPathOnDescriptor_changesTheOpenFile() {
        int fd = t.open("/r", OpenFlags.O_PATH);
        try {
            t.fchownat(fd, "", 3, 4, OpenFlags.AT_EMPTY_PATH);
        } finally {
            t.close(fd);
        }
        assertEquals(3, t.stat("/r").uid());
        assertEquals(4, t.stat("/r").gid());
    }

    @Test
    void fchownat_symlinkNoFollow_changesTheLink() {
        t.fchownat(VfsTask.AT_FDCWD, "/lf", 3, 3, OpenFlags.AT_SYMLINK_NOFOLLOW);
        assertEquals(3, t.lstat("/lf").uid());
        assertEquals(1000, t.stat("/lf").uid());
    }

    @Test
    void fchownat_relativeToDescriptor_changes() {
        int fd = t.open("/d", OpenFlags.O_RDONLY);
        try {
            t.fchownat(fd, "f", 8, -1, 0);
        } finally {
            t.close(fd);
        }
        assertEquals(8, t.stat("/d/f").uid());
    }

    @Test
    void fchownat_unknownFlag_failsWithEINVAL() {
        assertErrno(
                Errno.EINVAL,
                () -> t.fchownat(VfsTask.AT_FDCWD, "/r", 1, 1, OpenFlags.AT_REMOVEDIR));
    }

    @Test
    void fchownat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fchownat(61, "r", 1, 1, 0));
        assertErrno(Errno.EBADF, () -> t.fchownat(61, "", 1, 1, OpenFlags.AT_EMPTY_PATH));
    }

    @Test
    void fchownat_fileDescriptorWithRelativePath_failsWithENOTDIR() {
        int fd = t.open("/r", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.fchownat(fd, "x", 1, 1, 0));
        } finally {
            t.close(fd);
        }
    }
}
