package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
import static dev.seqvfs.tests.conformance.Sys.names;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies the tmpfs limits {@code seqvfs.tmpfs.max-inodes} and {@code seqvfs.tmpfs.max-bytes} of
 * the root file system: creation past them fails with ENOSPC and leaves nothing behind, the counts
 * come back when inodes are freed (last link and last open file gone), and {@code statfs} reports
 * totals and free counts. The root directory counts as one inode. Symlink targets are the only
 * bytes charged (there is no file data API).
 */
@FileSystemContract
class QuotaTest {
    /** At most 10 inodes: the root and 9 more. */
    @Nested
    class MaxInodes {
        @RegisterExtension final VfsFixture fs = new VfsFixture("seqvfs.tmpfs.max-inodes = 10");

        private VfsTask fill() {
            VfsTask t = fs.root();
            for (int i = 0; i < 9; i++) {
                touch(t, "/f" + i);
            }
            return t;
        }

        @Test
        void statfs_reportsTheLimitAndFreeInodes() {
            VfsTask t = fs.root();
            StatFs s = t.statfs("/");
            assertEquals(10, s.files());
            assertEquals(9, s.ffree());
            touch(t, "/a");
            t.mkdir("/b", 0755);
            assertEquals(7, t.statfs("/").ffree());
        }

        @Test
        void create_pastTheLimit_failsWithENOSPCForEveryKind() {
            VfsTask t = fill();
            assertEquals(0, t.statfs("/").ffree());
            assertErrno(Errno.ENOSPC, () -> touch(t, "/x"));
            assertErrno(Errno.ENOSPC, () -> t.mkdir("/x", 0755));
            assertErrno(Errno.ENOSPC, () -> t.symlink("target", "/x"));
            assertErrno(Errno.ENOSPC, () -> t.mknod("/x", Mode.S_IFIFO | 0644, 0));
            assertFalse(exists(t, "/x"));
            assertEquals(10, names(t, "/").size() + 1);
        }

        @Test
        void openCreat_ofExistingFileWhenFull_stillOpens() {
            VfsTask t = fill();
            t.close(t.open("/f0", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
        }

        @Test
        void unlink_returnsTheInode() {
            VfsTask t = fill();
            t.unlink("/f3");
            assertEquals(1, t.statfs("/").ffree());
            t.mkdir("/d", 0755);
            assertErrno(Errno.ENOSPC, () -> touch(t, "/x"));
        }

        @Test
        void unlinkOfOpenFile_returnsTheInodeOnlyAtLastClose() {
            VfsTask t = fill();
            int fd = t.open("/f0", OpenFlags.O_RDONLY);
            t.unlink("/f0");
            assertEquals(0, t.statfs("/").ffree());
            assertErrno(Errno.ENOSPC, () -> touch(t, "/x"));
            t.close(fd);
            assertEquals(1, t.statfs("/").ffree());
            touch(t, "/x");
        }

        @Test
        void rmdirAndRenameOverTarget_returnInodes() {
            VfsTask t = fs.root();
            for (int i = 0; i < 8; i++) {
                touch(t, "/f" + i);
            }
            t.mkdir("/d", 0755);
            assertErrno(Errno.ENOSPC, () -> touch(t, "/x"));
            t.rmdir("/d");
            t.rename("/f0", "/f1");
            assertEquals(2, t.statfs("/").ffree());
            assertEquals(Set.of("f1", "f2", "f3", "f4", "f5", "f6", "f7"), names(t, "/"));
        }

        @Test
        void limitIsPerFileSystem_aNewMountHasItsOwn() {
            VfsTask t = fs.root();
            t.mkdir("/m", 0755);
            t.mount("none", "/m", "tmpfs", 0, "nr_inodes=100");
            for (int i = 0; i < 20; i++) {
                touch(t, "/m/" + i);
            }
            assertEquals(79, t.statfs("/m").ffree());
            assertEquals(8, t.statfs("/").ffree());
            for (int i = 0; i < 20; i++) {
                t.unlink("/m/" + i);
            }
            t.umount("/m");
        }
    }

    /** At most 8192 bytes: two 4096-byte blocks. */
    @Nested
    class MaxBytes {
        @RegisterExtension final VfsFixture fs = new VfsFixture("seqvfs.tmpfs.max-bytes = 8192");

        @Test
        void statfs_reportsBlocksOfTheLimit() {
            StatFs s = fs.root().statfs("/");
            assertEquals(4096, s.bsize());
            assertEquals(2, s.blocks());
            assertEquals(2, s.bfree());
            assertEquals(2, s.bavail());
        }

        @Test
        void symlinkTargets_areChargedAndReturned() {
            VfsTask t = fs.root();
            t.symlink("a".repeat(4000), "/l1");
            assertEquals(1, t.statfs("/").bfree());
            t.symlink("b".repeat(4000), "/l2");
            assertEquals(0, t.statfs("/").bfree());
            assertErrno(Errno.ENOSPC, () -> t.symlink("c".repeat(200), "/l3"));
            assertFalse(exists(t, "/l3"));
            t.unlink("/l1");
            assertEquals(1, t.statfs("/").bfree());
            t.symlink("c".repeat(200), "/l3");
        }

        @Test
        void symlinkPastTheLimit_leavesItsInodeUncharged() {
            VfsTask t = fs.root();
            t.symlink("a".repeat(4095), "/l1");
            t.symlink("a".repeat(4095), "/l2");
            long free = t.statfs("/").ffree();
            assertErrno(Errno.ENOSPC, () -> t.symlink("z".repeat(10), "/l3"));
            assertEquals(free, t.statfs("/").ffree());
        }

        @Test
        void emptyFilesAndDirectories_chargeNoBytes() {
            VfsTask t = fs.root();
            for (int i = 0; i < 50; i++) {
                touch(t, "/f" + i);
            }
            t.mkdir("/d", 0755);
            assertEquals(2, t.statfs("/").bfree());
        }
    }
}
