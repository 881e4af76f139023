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
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Mode;
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
 * Specifies {@code unlink(2)} and {@code unlinkat(2)}: the name goes, the link count of the inode
 * drops, the inode lives while it is open and is freed with its last link and last open file; and
 * the errnos of the man page that apply: EACCES, EBADF, EINVAL (flags), EISDIR, ELOOP,
 * ENAMETOOLONG, ENOENT, ENOTDIR, EPERM (sticky, see PermissionTest), EROFS.
 *
 * <pre>
 * /d/          0755
 * /d/f         regular file
 * /d/sub/      directory
 * /lf  -> /d/f
 * /ld  -> /d/sub
 * /dangling -> /nowhere
 * </pre>
 */
@FileSystemContract
class UnlinkTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/d/f");
        t.mkdir("/d/sub", 0755);
        t.symlink("/d/f", "/lf");
        t.symlink("/d/sub", "/ld");
        t.symlink("/nowhere", "/dangling");
    }

    @Test
    void unlink_regularFile_removesNameAndFreesInode() {
        long free = t.statfs("/").ffree();
        t.unlink("/d/f");
        assertFalse(exists(t, "/d/f"));
        assertEquals(Set.of("sub"), names(t, "/d"));
        assertEquals(free + 1, t.statfs("/").ffree());
    }

    @Test
    void unlink_updatesParentMtimeAndCtime() {
        t.utimensat(VfsTask.AT_FDCWD, "/d", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        t.unlink("/d/f");
        Stat d = t.stat("/d");
        assertTrue(d.mtimeNanos() > 1000_000_000_000L);
        assertTrue(d.ctimeNanos() > 1000_000_000_000L);
    }

    @Test
    void unlink_oneOfTwoHardLinks_keepsInodeAndDecrementsLinkCountAndUpdatesCtime() {
        t.link("/d/f", "/d/g");
        long ino = t.stat("/d/f").ino();
        t.utimensat(VfsTask.AT_FDCWD, "/d/g", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        long free = t.statfs("/").ffree();
        t.unlink("/d/f");
        Stat g = t.stat("/d/g");
        assertEquals(ino, g.ino());
        assertEquals(1, g.nlink());
        assertTrue(g.ctimeNanos() > 1000_000_000_000L);
        assertEquals(1000_000_000_000L, g.mtimeNanos());
        // the removed extra name returns its inode slot (tmpfs: shmem_free_inode in shmem_unlink)
        assertEquals(free + 1, t.statfs("/").ffree());
    }

    @Test
    void unlink_openFile_keepsInodeUntilLastClose() {
        long free = t.statfs("/").ffree();
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        t.unlink("/d/f");
        assertFalse(exists(t, "/d/f"));
        Stat st = t.fstat(fd);
        assertEquals(0, st.nlink());
        assertTrue(st.isRegular());
        assertEquals(free, t.statfs("/").ffree());
        t.close(fd);
        assertEquals(free + 1, t.statfs("/").ffree());
    }

    @Test
    void unlink_symlink_removesLinkNotTarget() {
        t.unlink("/lf");
        assertFalse(exists(t, "/lf"));
        assertTrue(exists(t, "/d/f"));
        t.unlink("/dangling");
        assertFalse(exists(t, "/dangling"));
    }

    @Test
    void unlink_fifoAndSocket_remove() {
        t.mknod("/d/fifo", Mode.S_IFIFO | 0644, 0);
        t.mknod("/d/sock", Mode.S_IFSOCK | 0644, 0);
        t.unlink("/d/fifo");
        t.unlink("/d/sock");
        assertEquals(Set.of("f", "sub"), names(t, "/d"));
    }

    @Test
    void unlink_directory_failsWithEISDIR() {
        assertErrno(Errno.EISDIR, () -> t.unlink("/d/sub"));
        assertErrno(Errno.EISDIR, () -> t.unlink("/d/sub/"));
        assertTrue(exists(t, "/d/sub"));
    }

    @Test
    void unlink_dotDotdotAndRoot_failWithEISDIR() {
        assertErrno(Errno.EISDIR, () -> t.unlink("/d/."));
        assertErrno(Errno.EISDIR, () -> t.unlink("/d/.."));
        assertErrno(Errno.EISDIR, () -> t.unlink("/"));
    }

    @Test
    void unlink_trailingSlashOnFile_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.unlink("/d/f/"));
        assertTrue(exists(t, "/d/f"));
    }

    @Test
    void unlink_trailingSlashOnSymlink_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.unlink("/ld/"));
        assertErrno(Errno.ENOTDIR, () -> t.unlink("/dangling/"));
        assertTrue(exists(t, "/ld"));
        assertTrue(exists(t, "/dangling"));
    }

    @Test
    void unlink_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.unlink("/d/f/x"));
    }

    @Test
    void unlink_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.unlink("/d/missing"));
        assertErrno(Errno.ENOENT, () -> t.unlink("/d/missing/"));
        assertErrno(Errno.ENOENT, () -> t.unlink("/missing/x"));
        assertErrno(Errno.ENOENT, () -> t.unlink("/dangling/x"));
    }

    @Test
    void unlink_emptyPath_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.unlink(""));
    }

    @Test
    void unlink_noWritePermissionOnParent_failsWithEACCES() {
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.unlink("/d/f"));
        assertTrue(exists(t, "/d/f"));
    }

    @Test
    void unlink_writeButNoSearchPermissionOnParent_failsWithEACCES() {
        t.chmod("/d", 0777 & ~0111);
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.unlink("/d/f"));
    }

    @Test
    void unlink_otherUsersFileInWritableParent_succeeds() {
        t.chmod("/d", 0777);
        t.chmod("/d/f", 0);
        fs.task(1000, 1000).unlink("/d/f");
        assertFalse(exists(t, "/d/f"));
    }

    @Test
    void unlink_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.unlink("/d/" + "f".repeat(256)));
    }

    @Test
    void unlink_symlinkLoopInPath_failsWithELOOP() {
        t.symlink("/a", "/b");
        t.symlink("/b", "/a");
        assertErrno(Errno.ELOOP, () -> t.unlink("/a/x"));
    }

    @Test
    void unlink_readOnlyBindMount_failsWithEROFS() {
        t.mkdir("/ro", 0755);
        t.mount("/d", "/ro", null, MountFlags.MS_BIND, null);
        t.mount(
                null,
                "/ro",
                null,
                MountFlags.MS_REMOUNT | MountFlags.MS_BIND | MountFlags.MS_RDONLY,
                null);
        assertErrno(Errno.EROFS, () -> t.unlink("/ro/f"));
        t.unlink("/d/f");
        t.umount("/ro");
    }

    @Test
    void unlinkat_relativeToDescriptor_removes() {
        int fd = t.open("/d", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            t.unlinkat(fd, "f", 0);
        } finally {
            t.close(fd);
        }
        assertFalse(exists(t, "/d/f"));
    }

    @Test
    void unlinkat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.unlinkat(55, "f", 0));
    }

    @Test
    void unlinkat_fileDescriptorWithRelativePath_failsWithENOTDIR() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.unlinkat(fd, "x", 0));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void unlinkat_unknownFlag_failsWithEINVAL() {
        assertErrno(
                Errno.EINVAL,
                () -> t.unlinkat(VfsTask.AT_FDCWD, "/d/f", OpenFlags.AT_SYMLINK_NOFOLLOW));
        assertTrue(exists(t, "/d/f"));
    }

    @Test
    void unlinkat_withoutRemoveDirOnDirectory_failsWithEISDIR() {
        assertErrno(Errno.EISDIR, () -> t.unlinkat(VfsTask.AT_FDCWD, "/d/sub", 0));
    }

    @Test
    void unlink_bytePath_removesTheNameThoseBytesSpell() {
        byte[] name = {'/', 'd', '/', (byte) 0xc3, (byte) 0xa9};
        t.close(t.open(Filename.of(name), OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
        assertEquals(Set.of("f", "sub", "é"), names(t, "/d"));
        assertEquals(t.stat("/d/é").ino(), t.stat(Filename.of(name)).ino());
        t.unlink(Filename.of(name));
        assertEquals(Set.of("f", "sub"), names(t, "/d"));
    }
}
