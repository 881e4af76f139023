package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.Xattr;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies what {@code XattrDifferentialTest} cannot compare with the host: {@code setxattr(2)}
 * and {@code removexattr(2)} move ctime and nothing else; a read-only mount is {@code EROFS}; a
 * file system without xattr handlers (procfs) is {@code EOPNOTSUPP}; the value is copied in and
 * out; a hard link shares the inode's attributes; a rename keeps them; the async twins answer the
 * same.
 *
 * <pre>
 * /d/     0755 root
 * /d/f    regular 0644 root
 * </pre>
 */
@FileSystemContract
class XattrTest {
    private static final long OLD = 1000_000_000_000L;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/d/f", 0644);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Attribute values take space, as tmpfs's: 1 KiB per free inode ({@code free_ispace}), each
     * attribute 40 bytes plus its name and value ({@code simple_xattr_space}), {@code ENOSPC} past
     * it, given back by a removal. The figures are the host's: a tmpfs mounted with {@code
     * nr_inodes=10} holding two files (Linux 6.18). Without the charge a loop of 64 KiB values
     * ended a FUSE mount's JVM with an {@code OutOfMemoryError} (a newcomer's finding).
     */
    @Test
    void setxattr_takesSpace_ENOSPCPastOneKibPerFreeInode_asTmpfs() {
        t.mkdir("/m", 0755);
        t.mount("none", "/m", "tmpfs", 0, "nr_inodes=10");
        try {
            touch(t, "/m/f", 0644);
            touch(t, "/m/g", 0644);
            for (int n : new int[] {100, 1000, 5000}) {
                t.setxattr("/m/f", "user.a", new byte[n], 0);
            }
            assertErrno(Errno.ENOSPC, () -> t.setxattr("/m/f", "user.a", new byte[8000], 0));
            assertEquals(
                    5000, t.getxattr("/m/f", "user.a").length, "the failed set changed nothing");
            assertErrno(Errno.ENOSPC, () -> t.setxattr("/m/g", "user.b", new byte[5000], 0));
            t.removexattr("/m/f", "user.a");
            t.setxattr("/m/g", "user.b", new byte[5000], 0);
            t.unlink("/m/g"); // the freed inode gives its space back
            t.setxattr("/m/f", "user.a", new byte[6000], 0);
            t.unlink("/m/f");
        } finally {
            t.umount("/m");
        }
    }

    @Test
    void setxattr_movesCtimeOnly_removexattrToo() {
        t.utimensat(OpenFlags.AT_FDCWD, "/d/f", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        Stat before = t.stat("/d/f");
        t.setxattr("/d/f", "user.a", b("1"), 0);
        Stat after = t.stat("/d/f");
        assertTrue(after.ctimeNanos() >= before.ctimeNanos(), "ctime did not go back");
        assertEquals(OLD, after.mtimeNanos());
        assertEquals(OLD, after.atimeNanos());
        assertEquals(before.mode(), after.mode());
        assertEquals(before.size(), after.size());
        t.utimensat(OpenFlags.AT_FDCWD, "/d/f", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        Stat touched = t.stat("/d/f");
        t.removexattr("/d/f", "user.a");
        Stat removed = t.stat("/d/f");
        assertTrue(removed.ctimeNanos() >= touched.ctimeNanos());
        assertEquals(OLD, removed.mtimeNanos());
        assertEquals(List.of(), t.listxattr("/d/f"));
    }

    @Test
    void setxattr_onDirectory_goesThroughItsActor_andSurvivesChmod() {
        t.setxattr("/d", "user.dir", b("x"), 0);
        t.chmod("/d", 0700);
        assertArrayEquals(b("x"), t.getxattr("/d", "user.dir"));
        assertEquals(0700, t.stat("/d").permissions());
    }

    @Test
    void value_isCopiedInAndOut() {
        byte[] v = b("abc");
        t.setxattr("/d/f", "user.a", v, 0);
        v[0] = 'z';
        byte[] got = t.getxattr("/d/f", "user.a");
        got[1] = 'z';
        assertArrayEquals(b("abc"), t.getxattr("/d/f", "user.a"));
    }

    @Test
    void hardLink_sharesAttributes_renameKeepsThem() {
        t.setxattr("/d/f", "user.a", b("1"), 0);
        t.link("/d/f", "/d/g");
        t.setxattr("/d/g", "user.b", b("2"), 0);
        t.rename("/d/f", "/h");
        assertEquals(List.of("user.a", "user.b"), t.listxattr("/h"));
        assertArrayEquals(b("2"), t.getxattr("/d/g", "user.b"));
    }

    @Test
    void setxattr_readOnlyMount_failsWithEROFS_readsStillWork() {
        t.setxattr("/d/f", "user.a", b("1"), 0);
        t.mkdir("/b", 0755);
        t.mount("/d", "/b", null, MountFlags.MS_BIND, null);
        t.mount(
                null,
                "/b",
                null,
                MountFlags.MS_REMOUNT | MountFlags.MS_BIND | MountFlags.MS_RDONLY,
                null);
        assertErrno(Errno.EROFS, () -> t.setxattr("/b/f", "user.b", b("1"), 0));
        assertErrno(Errno.EROFS, () -> t.removexattr("/b/f", "user.a"));
        assertErrno(Errno.EROFS, () -> t.setxattr("/b", "user.b", b("1"), 0));
        assertArrayEquals(b("1"), t.getxattr("/b/f", "user.a"));
        assertEquals(List.of("user.a"), t.listxattr("/b/f"));
    }

    @Test
    void procfs_hasNoXattrs_EOPNOTSUPP_andAnEmptyList() {
        t.mkdir("/proc", 0555);
        t.mount("proc", "/proc", "proc", 0, null);
        assertErrno(Errno.EOPNOTSUPP, () -> t.setxattr("/proc/filesystems", "user.a", b("1"), 0));
        assertErrno(Errno.EOPNOTSUPP, () -> t.getxattr("/proc/filesystems", "user.a"));
        assertEquals(List.of(), t.listxattr("/proc/filesystems"));
        t.umount("/proc");
    }

    @Test
    void nameTooLong_ERANGE_beforeTheLookup_valueTooBig_E2BIG() {
        assertErrno(Errno.ERANGE, () -> t.setxattr("/nope", "user." + "n".repeat(251), b(""), 0));
        assertErrno(
                Errno.E2BIG,
                () -> t.setxattr("/nope", "user.a", new byte[Xattr.XATTR_SIZE_MAX + 1], 0));
        assertErrno(Errno.ENOENT, () -> t.setxattr("/nope", "user.a", b(""), 0));
    }

    @Test
    void xattrat_byDirfdAndPath_orOnAPathDescriptorItself_evenWithNoNameLeft() {
        int d = t.open("/d", OpenFlags.O_PATH);
        t.setxattrat(d, "f", 0, "user.a", b("1"), 0);
        assertArrayEquals(b("1"), t.getxattr("/d/f", "user.a"));
        int f = t.open("/d/f", OpenFlags.O_PATH);
        assertErrno(Errno.ENOENT, () -> t.getxattrat(f, "", 0, "user.a"));
        assertArrayEquals(b("1"), t.getxattrat(f, "", OpenFlags.AT_EMPTY_PATH, "user.a"));
        t.unlink("/d/f");
        t.setxattrat(f, "", OpenFlags.AT_EMPTY_PATH, "user.b", b("2"), Xattr.XATTR_CREATE);
        assertEquals(
                List.of("user.a", "user.b"),
                t.listxattrat(f, "", OpenFlags.AT_EMPTY_PATH).stream().sorted().toList());
        t.removexattrat(f, "", OpenFlags.AT_EMPTY_PATH, "user.a");
        assertEquals(List.of("user.b"), t.listxattrat(f, "", OpenFlags.AT_EMPTY_PATH));
        assertErrno(Errno.ENODATA, () -> t.getxattrat(f, "", OpenFlags.AT_EMPTY_PATH, "user.a"));
        assertErrno(Errno.EINVAL, () -> t.listxattrat(f, "", OpenFlags.AT_EACCESS));
        assertArrayEquals(
                b("2"), t.async().getxattrat(f, "", OpenFlags.AT_EMPTY_PATH, "user.b").join());
        t.close(f);
        t.close(d);
    }

    @Test
    void xattrat_symlinkNoFollow_actsOnTheLinkItself() {
        t.symlink("/d/f", "/d/l");
        int d = t.open("/d", OpenFlags.O_PATH);
        t.setxattrat(d, "l", 0, "user.x", b("followed"), 0);
        assertArrayEquals(b("followed"), t.getxattr("/d/f", "user.x"));
        t.setxattrat(d, "l", OpenFlags.AT_SYMLINK_NOFOLLOW, "trusted.x", b("link"), 0);
        assertArrayEquals(b("link"), t.lgetxattr("/d/l", "trusted.x"));
        assertErrno(
                Errno.ENODATA,
                () -> t.getxattrat(d, "f", OpenFlags.AT_SYMLINK_NOFOLLOW, "trusted.x"));
        t.close(d);
    }

    @Test
    void asyncTwins_answerAsTheBlockingCalls() {
        t.async().setxattr("/d/f", "user.a", b("1"), Xattr.XATTR_CREATE).join();
        assertArrayEquals(b("1"), t.async().getxattr("/d/f", "user.a").join());
        assertEquals(List.of("user.a"), t.async().listxattr("/d/f").join());
        CompletionException e =
                org.junit.jupiter.api.Assertions.assertThrows(
                        CompletionException.class,
                        () ->
                                t.async()
                                        .setxattr("/d/f", "user.a", b("2"), Xattr.XATTR_CREATE)
                                        .join());
        assertEquals(Errno.EEXIST, ((dev.seqvfs.protocol.VfsException) e.getCause()).errno());
        t.async().removexattr("/d/f", "user.a").join();
        assertEquals(List.of(), t.listxattr("/d/f"));
    }
}
