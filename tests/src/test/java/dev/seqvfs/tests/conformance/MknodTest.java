package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code mknod(2)} and {@code mknodat(2)}: regular files (type 0 or {@code S_IFREG}),
 * FIFOs, sockets and (root only) device nodes with their {@code rdev}; the umask; and the man
 * page's errnos that apply: EACCES, EBADF, EEXIST, EINVAL (a type mknod cannot make), ELOOP,
 * ENAMETOOLONG, ENOENT, ENOTDIR, EPERM (directories; devices for unprivileged callers), EROFS.
 * ENOSPC is in QuotaTest.
 *
 * <pre>
 * /d/          0777
 * /f           regular file
 * /dangling -> /nowhere
 * </pre>
 */
@FileSystemContract
class MknodTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0777);
        t.chmod("/d", 0777);
        touch(t, "/f");
        t.symlink("/nowhere", "/dangling");
    }

    @Test
    void mknod_typeZero_makesRegularFileWithUmaskAppliedAndSpecialBitsKept() {
        t.umask(022);
        t.mknod("/d/r", 07777, 0);
        Stat st = t.stat("/d/r");
        assertEquals(FileType.REGULAR, st.type());
        assertEquals(07755, st.permissions());
        assertEquals(0, st.rdev());
        assertEquals(1, st.nlink());
    }

    @Test
    void mknod_fifoAndSocket_ignoreTheDeviceNumber() {
        t.mknod("/d/p", Mode.S_IFIFO | 0640, 0x0102);
        t.mknod("/d/s", Mode.S_IFSOCK | 0640, 0x0102);
        assertEquals(Mode.S_IFIFO | 0640, t.stat("/d/p").mode());
        assertEquals(0, t.stat("/d/p").rdev());
        assertEquals(Mode.S_IFSOCK | 0640, t.stat("/d/s").mode());
        assertEquals(0, t.stat("/d/s").rdev());
    }

    @Test
    void mknod_devicesByRoot_keepTheirNumber() {
        t.mknod("/d/c", Mode.S_IFCHR | 0600, (4L << 8) | 1);
        t.mknod("/d/b", Mode.S_IFBLK | 0600, (8L << 8) | 16);
        assertEquals((4L << 8) | 1, t.stat("/d/c").rdev());
        assertEquals(FileType.BLOCK_DEVICE, t.stat("/d/b").type());
        assertEquals((8L << 8) | 16, t.stat("/d/b").rdev());
    }

    @Test
    void mknod_byUnprivilegedCaller_makesFifosOwnedByIt() {
        VfsTask u = fs.task(1000, 100);
        u.mknod("/d/p", Mode.S_IFIFO | 0600, 0);
        assertEquals(1000, t.stat("/d/p").uid());
        assertEquals(100, t.stat("/d/p").gid());
    }

    @Test
    void mknod_deviceByUnprivilegedCaller_failsWithEPERM() {
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EPERM, () -> u.mknod("/d/c", Mode.S_IFCHR | 0600, (1L << 8) | 3));
        assertErrno(Errno.EPERM, () -> u.mknod("/d/b", Mode.S_IFBLK | 0600, (8L << 8)));
        assertFalse(exists(t, "/d/c"));
    }

    @Test
    void mknod_deviceByUnprivilegedCallerOnExistingOrMissingPath_reportsThePathFirst() {
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EEXIST, () -> u.mknod("/f", Mode.S_IFCHR | 0600, (1L << 8) | 3));
        assertErrno(Errno.ENOENT, () -> u.mknod("/missing/c", Mode.S_IFBLK | 0600, (8L << 8)));
    }

    @Test
    void mknod_directory_failsWithEPERMEvenForRoot() {
        assertErrno(Errno.EPERM, () -> t.mknod("/d/x", Mode.S_IFDIR | 0755, 0));
        assertFalse(exists(t, "/d/x"));
    }

    @Test
    void mknod_symlinkOrUnknownType_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.mknod("/d/x", Mode.S_IFLNK | 0777, 0));
        assertErrno(Errno.EINVAL, () -> t.mknod("/d/x", Mode.S_IFMT | 0777, 0));
        assertErrno(Errno.EINVAL, () -> t.mknod("/d/x", 0030000 | 0644, 0));
    }

    @Test
    void mknod_existingName_failsWithEEXIST() {
        assertErrno(Errno.EEXIST, () -> t.mknod("/f", 0644, 0));
        assertErrno(Errno.EEXIST, () -> t.mknod("/dangling", Mode.S_IFIFO | 0644, 0));
        assertErrno(Errno.EEXIST, () -> t.mknod("/d", 0644, 0));
        assertErrno(Errno.EEXIST, () -> t.mknod("/f/", 0644, 0));
        assertFalse(exists(t, "/nowhere"));
    }

    @Test
    void mknod_trailingSlashOnNewName_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.mknod("/d/x/", 0644, 0));
    }

    @Test
    void mknod_missingParent_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.mknod("/missing/x", 0644, 0));
        assertErrno(Errno.ENOENT, () -> t.mknod("", 0644, 0));
    }

    @Test
    void mknod_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.mknod("/f/x", 0644, 0));
    }

    @Test
    void mknod_withoutWritePermission_failsWithEACCES() {
        t.chmod("/d", 0755);
        assertErrno(Errno.EACCES, () -> fs.task(1000, 1000).mknod("/d/p", Mode.S_IFIFO | 0644, 0));
    }

    @Test
    void mknod_symlinkLoop_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.mknod("/loop/x", 0644, 0));
    }

    @Test
    void mknod_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.mknod("/d/" + "k".repeat(256), 0644, 0));
    }

    @Test
    void mknod_readOnlyMount_failsWithEROFS() {
        t.mount("none", "/d", "tmpfs", MountFlags.MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> t.mknod("/d/p", Mode.S_IFIFO | 0644, 0));
        t.umount("/d");
    }

    @Test
    void mknodat_relativeToDescriptor_creates() {
        int fd = t.open("/d", OpenFlags.O_PATH);
        try {
            t.mknodat(fd, "p", Mode.S_IFIFO | 0600, 0);
        } finally {
            t.close(fd);
        }
        assertEquals(FileType.FIFO, t.stat("/d/p").type());
    }

    @Test
    void mknodat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.mknodat(70, "p", Mode.S_IFIFO | 0600, 0));
    }

    @Test
    void mknodat_fileDescriptorWithRelativePath_failsWithENOTDIR() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.mknodat(fd, "p", Mode.S_IFIFO | 0600, 0));
        } finally {
            t.close(fd);
        }
    }
}
