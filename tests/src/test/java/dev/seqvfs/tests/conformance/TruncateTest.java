package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.bytes;
import static dev.seqvfs.tests.conformance.Io.content;
import static dev.seqvfs.tests.conformance.Io.writeFile;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
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
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code truncate(2)} and {@code ftruncate(2)}: shrinking drops the tail, extending
 * exposes zeros (also where the tail of a page was cut before), the offset is untouched, mtime and
 * ctime change (also for the same size, as tmpfs on Linux 6.18 does), an unprivileged caller clears
 * set-user-ID, extending allocates nothing, shrinking frees pages; and the errnos that apply:
 * EINVAL (negative length; {@code ftruncate} of a descriptor not open for writing or not on a
 * regular file; {@code truncate} of a non-regular, non-directory file), EISDIR, EACCES (no write
 * permission, no search permission), EROFS, ENOENT, ENOTDIR, ELOOP, EBADF (closed or {@code
 * O_PATH}). Order of checks as {@code vfs_truncate}: EISDIR/EINVAL, then EROFS, then EACCES. EFBIG
 * needs a length past {@code LLONG_MAX}, which a {@code long} cannot hold.
 *
 * <pre>
 * /f          regular file "abcdefgh", 0644, root
 * /d/         directory 0755
 * /fifo       FIFO
 * /lf -> /f
 * /loop -> /loop
 * </pre>
 */
@FileSystemContract
class TruncateTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        writeFile(t, "/f", "abcdefgh");
        t.mkdir("/d", 0755);
        t.mknod("/fifo", Mode.S_IFIFO | 0644, 0);
        t.symlink("/f", "/lf");
        t.symlink("/loop", "/loop");
    }

    private void oldTimes(String path) {
        t.utimensat(VfsTask.AT_FDCWD, path, new Timespec(1000, 0), new Timespec(1000, 0), 0);
    }

    // ---------------------------------------------------------------- results

    @Test
    void truncate_shrink_dropsTheTail() {
        t.truncate("/f", 3);
        assertEquals(3, t.stat("/f").size());
        assertEquals("abc", content(t, "/f"));
    }

    @Test
    void truncate_shrinkThenExtend_readsZerosWhereTheTailWas() {
        t.truncate("/f", 3);
        t.truncate("/f", 8);
        assertEquals("abc\0\0\0\0\0", content(t, "/f"));
    }

    @Test
    void ftruncate_extend_addsAHoleOfZeros_andKeepsTheOffset() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.lseek(fd, 2, VfsTask.SEEK_SET);
        t.ftruncate(fd, 20_000);
        assertEquals(20_000, t.fstat(fd).size());
        assertEquals(2, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        byte[] b = new byte[20_000];
        assertEquals(20_000, t.pread(fd, b, 0, b.length, 0));
        for (int i = 8; i < b.length; i++) {
            assertEquals(0, b[i], "byte " + i);
        }
        t.close(fd);
    }

    @Test
    void ftruncate_shrinkBelowTheOffset_keepsTheOffsetAndReadsEndOfFile() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.lseek(fd, 6, VfsTask.SEEK_SET);
        t.ftruncate(fd, 2);
        assertEquals(6, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        assertEquals(0, t.read(fd, new byte[4], 0, 4));
        t.close(fd);
    }

    @Test
    void ftruncate_toZero_thenWriteAtTheOldOffset_leavesAHole() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.lseek(fd, 4, VfsTask.SEEK_SET);
        t.ftruncate(fd, 0);
        t.write(fd, bytes("z"));
        t.close(fd);
        assertEquals("\0\0\0\0z", content(t, "/f"));
    }

    @Test
    void truncate_followsASymlink() {
        t.truncate("/lf", 1);
        assertEquals("a", content(t, "/f"));
    }

    @Test
    void ftruncate_appendDescriptor_truncates() {
        int fd = t.open("/f", OpenFlags.O_WRONLY | OpenFlags.O_APPEND);
        t.ftruncate(fd, 4);
        t.close(fd);
        assertEquals("abcd", content(t, "/f"));
    }

    @Test
    void truncate_changesMtimeAndCtime() {
        oldTimes("/f");
        long ctimeBefore = t.stat("/f").ctimeNanos();
        t.truncate("/f", 2);
        Stat s = t.stat("/f");
        assertTrue(s.mtimeNanos() >= ctimeBefore);
        assertEquals(s.mtimeNanos(), s.ctimeNanos());
        assertEquals(1000_000_000_000L, s.atimeNanos());
    }

    @Test
    void truncateAndFtruncate_sameSize_stillChangeMtimeAndCtime() {
        oldTimes("/f");
        t.truncate("/f", 8);
        assertTrue(t.stat("/f").mtimeNanos() > 1000_000_000_000L);
        oldTimes("/f");
        int fd = t.open("/f", OpenFlags.O_WRONLY);
        t.ftruncate(fd, 8);
        assertTrue(t.fstat(fd).mtimeNanos() > 1000_000_000_000L);
        t.close(fd);
    }

    @Test
    void ftruncate_byUnprivilegedCaller_clearsSetUid() {
        t.chmod("/f", 04666);
        VfsTask u = fs.task(1000, 1000);
        int fd = u.open("/f", OpenFlags.O_WRONLY);
        u.ftruncate(fd, 1);
        u.close(fd);
        assertEquals(0666, t.stat("/f").permissions());
    }

    @Test
    void truncate_byRoot_keepsSetUid() {
        t.chmod("/f", 04755);
        t.truncate("/f", 1);
        assertEquals(04755, t.stat("/f").permissions());
    }

    // ---------------------------------------------------------------- EINVAL

    @Test
    void truncate_negativeLength_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.truncate("/f", -1));
        int fd = t.open("/f", OpenFlags.O_RDWR);
        assertErrno(Errno.EINVAL, () -> t.ftruncate(fd, -1));
        t.close(fd);
        // Checked before the path and the descriptor are looked at.
        assertErrno(Errno.EINVAL, () -> t.truncate("/missing", -1));
        assertErrno(Errno.EINVAL, () -> t.ftruncate(fd, -1));
        assertEquals(8, t.stat("/f").size());
    }

    @Test
    void ftruncate_descriptorNotOpenForWriting_failsWithEINVAL() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EINVAL, () -> t.ftruncate(fd, 0));
        t.close(fd);
        assertEquals(8, t.stat("/f").size());
    }

    @Test
    void ftruncate_directoryOrPipe_failsWithEINVAL() {
        int dir = t.open("/d", OpenFlags.O_RDONLY);
        int[] p = t.pipe();
        assertErrno(Errno.EINVAL, () -> t.ftruncate(dir, 0));
        assertErrno(Errno.EINVAL, () -> t.ftruncate(p[1], 0));
        t.close(dir);
        t.close(p[0]);
        t.close(p[1]);
    }

    @Test
    void truncate_fifo_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.truncate("/fifo", 0));
    }

    // ---------------------------------------------------------------- path errors

    @Test
    void truncate_directory_failsWithEISDIR() {
        assertErrno(Errno.EISDIR, () -> t.truncate("/d", 0));
        assertErrno(Errno.EISDIR, () -> fs.task(1000, 1000).truncate("/d", 0));
    }

    @Test
    void truncate_withoutWritePermission_failsWithEACCES() {
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.truncate("/f", 0));
        assertEquals(8, t.stat("/f").size());
    }

    @Test
    void truncate_ownerWithoutWriteBit_failsWithEACCES_rootPasses() {
        t.chown("/f", 1000, 1000);
        t.chmod("/f", 0444);
        assertErrno(Errno.EACCES, () -> fs.task(1000, 1000).truncate("/f", 0));
        t.truncate("/f", 0);
        assertEquals(0, t.stat("/f").size());
    }

    @Test
    void truncate_withoutSearchPermission_failsWithEACCES() {
        writeFile(t, "/d/g", "x");
        t.chmod("/d/g", 0666);
        t.chmod("/d", 0700);
        assertErrno(Errno.EACCES, () -> fs.task(1000, 1000).truncate("/d/g", 0));
    }

    @Test
    void truncate_missingOrThroughAFile_failsWithENOENTOrENOTDIR() {
        assertErrno(Errno.ENOENT, () -> t.truncate("/missing", 0));
        assertErrno(Errno.ENOENT, () -> t.truncate("", 0));
        assertErrno(Errno.ENOTDIR, () -> t.truncate("/f/x", 0));
        assertErrno(Errno.ELOOP, () -> t.truncate("/loop", 0));
    }

    @Test
    void truncate_readOnlyMount_failsWithEROFSBeforeEACCES() {
        t.mount("none", "/d", "tmpfs", 0, null);
        writeFile(t, "/d/g", "xyz");
        t.mount(null, "/d", null, MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> t.truncate("/d/g", 0));
        assertErrno(Errno.EROFS, () -> fs.task(1000, 1000).truncate("/d/g", 0));
        assertErrno(Errno.EISDIR, () -> t.truncate("/d", 0));
        assertEquals("xyz", content(t, "/d/g"));
        t.mount(null, "/d", null, MountFlags.MS_REMOUNT, null);
        t.unlink("/d/g");
        t.umount("/d");
    }

    // ---------------------------------------------------------------- EBADF

    @Test
    void ftruncate_closedOrPathDescriptor_failsWithEBADF() {
        int fd = t.open("/f", OpenFlags.O_RDWR);
        t.close(fd);
        assertErrno(Errno.EBADF, () -> t.ftruncate(fd, 0));
        int p = t.open("/f", OpenFlags.O_PATH);
        assertErrno(Errno.EBADF, () -> t.ftruncate(p, 0));
        t.close(p);
    }

    /** A file system of 64 KiB (16 pages) of data. */
    @Nested
    class Full {
        @RegisterExtension final VfsFixture small = new VfsFixture("seqvfs.tmpfs.max-bytes = 64k");

        @Test
        void ftruncate_extendOnAFullFileSystem_allocatesNothing() {
            VfsTask s = small.root();
            int fd = s.open("/g", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            s.write(fd, new byte[65536]);
            s.ftruncate(fd, 1L << 40);
            assertEquals(1L << 40, s.fstat(fd).size());
            assertEquals(65536 / 512, s.fstat(fd).blocks());
            s.close(fd);
        }

        @Test
        void truncate_shrink_returnsThePages() {
            VfsTask s = small.root();
            int fd = s.open("/g", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            s.write(fd, new byte[65536]);
            assertErrno(Errno.ENOSPC, () -> s.pwrite(fd, bytes("x"), 0, 1, 65536));
            s.truncate("/g", 10);
            assertEquals(8, s.fstat(fd).blocks());
            assertEquals(15 * 4096, s.pwrite(fd, new byte[15 * 4096], 0, 15 * 4096, 4096));
            s.close(fd);
        }
    }
}
