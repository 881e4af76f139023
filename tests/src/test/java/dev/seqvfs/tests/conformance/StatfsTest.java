package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code statfs(2)} and {@code fstatfs(2)} for tmpfs: {@code TMPFS_MAGIC}, block size,
 * name length, inode and block totals from {@code nr_inodes=} and {@code size=} (free counts move
 * with creation and removal), the file-system id of the superblock a path is on, {@code ST_RDONLY}
 * for a read-only superblock or mount; and the man page's errnos that apply: EACCES, EBADF, ELOOP,
 * ENAMETOOLONG, ENOENT, ENOTDIR.
 *
 * <pre>
 * /d/        directory (mountpoint in some tests)
 * /f         regular file
 * </pre>
 */
@FileSystemContract
class StatfsTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/f");
    }

    @Test
    void statfs_root_reportsTmpfsConstants() {
        StatFs s = t.statfs("/");
        // f_type: TMPFS_MAGIC for tmpfs, a magic of its own for any other type
        assertEquals(fs.rootType().equals("tmpfs"), s.type() == StatFs.TMPFS_MAGIC, fs.rootType());
        assertNotEquals(0, s.type());
        assertEquals(4096, s.bsize());
        assertEquals(255, s.namelen());
        assertEquals(0, s.flags() & MountFlags.ST_RDONLY);
    }

    @Test
    void statfs_sizedInstance_reportsTotalsAndFreeCounts() {
        t.mount("none", "/d", "tmpfs", 0, "size=64k,nr_inodes=10");
        StatFs s = t.statfs("/d");
        assertEquals(16, s.blocks());
        assertEquals(16, s.bfree());
        assertEquals(16, s.bavail());
        assertEquals(10, s.files());
        assertEquals(9, s.ffree());
        t.umount("/d");
    }

    @Test
    void statfs_freeInodes_followCreationAndRemoval() {
        t.mount("none", "/d", "tmpfs", 0, "nr_inodes=10");
        touch(t, "/d/a");
        t.mkdir("/d/b", 0755);
        t.symlink("x", "/d/c");
        assertEquals(6, t.statfs("/d").ffree());
        t.unlink("/d/a");
        t.rmdir("/d/b");
        t.unlink("/d/c");
        assertEquals(9, t.statfs("/d").ffree());
        t.umount("/d");
    }

    @Test
    void statfs_anyPathOnAFileSystem_reportsThatFileSystem() {
        t.mount("none", "/d", "tmpfs", 0, "nr_inodes=10");
        touch(t, "/d/in");
        assertEquals(t.statfs("/d"), t.statfs("/d/in"));
        assertEquals(t.stat("/d").dev(), t.statfs("/d").fsid());
        assertNotEquals(t.statfs("/").fsid(), t.statfs("/d").fsid());
        assertEquals(t.statfs("/"), t.statfs("/f"));
        t.unlink("/d/in");
        t.umount("/d");
    }

    @Test
    void statfs_followsSymlinks() {
        t.mount("none", "/d", "tmpfs", 0, "nr_inodes=10");
        t.symlink("/d", "/ld");
        assertEquals(10, t.statfs("/ld").files());
        t.umount("/d");
    }

    @Test
    void statfs_readOnlySuperblock_reportsRdonly() {
        t.mount("none", "/d", "tmpfs", MountFlags.MS_RDONLY, null);
        assertEquals(MountFlags.ST_RDONLY, t.statfs("/d").flags() & MountFlags.ST_RDONLY);
        t.mount(null, "/d", null, MountFlags.MS_REMOUNT, null);
        assertEquals(0, t.statfs("/d").flags() & MountFlags.ST_RDONLY);
        t.umount("/d");
    }

    @Test
    void statfs_readOnlyBindMount_reportsRdonlyOnlyThere() {
        t.mkdir("/b", 0755);
        t.mount("/d", "/b", null, MountFlags.MS_BIND, null);
        t.mount(
                null,
                "/b",
                null,
                MountFlags.MS_REMOUNT | MountFlags.MS_BIND | MountFlags.MS_RDONLY,
                null);
        assertEquals(MountFlags.ST_RDONLY, t.statfs("/b").flags() & MountFlags.ST_RDONLY);
        assertEquals(0, t.statfs("/d").flags() & MountFlags.ST_RDONLY);
        t.umount("/b");
    }

    @Test
    void fstatfs_descriptor_reportsItsFileSystem() {
        t.mount("none", "/d", "tmpfs", 0, "nr_inodes=10");
        int fd = t.open("/d", OpenFlags.O_RDONLY);
        int p = t.open("/f", OpenFlags.O_PATH);
        try {
            assertEquals(t.statfs("/d"), t.fstatfs(fd));
            assertEquals(t.statfs("/"), t.fstatfs(p));
        } finally {
            t.close(fd);
            t.close(p);
        }
        t.umount("/d");
    }

    @Test
    void fstatfs_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.fstatfs(3));
    }

    @Test
    void statfs_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.statfs("/missing"));
        assertErrno(Errno.ENOENT, () -> t.statfs(""));
    }

    @Test
    void statfs_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.statfs("/f/x"));
    }

    @Test
    void statfs_withoutSearchPermission_failsWithEACCES() {
        t.mkdir("/d/s", 0755);
        t.chmod("/d", 0700);
        assertErrno(Errno.EACCES, () -> fs.task(1000, 1000).statfs("/d/s"));
    }

    @Test
    void statfs_symlinkLoop_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.statfs("/loop"));
    }

    @Test
    void statfs_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.statfs("/" + "s".repeat(256)));
    }
}
