package dev.seqvfs.tests.conformance;

import static dev.seqvfs.protocol.MountFlags.MNT_DETACH;
import static dev.seqvfs.protocol.MountFlags.MS_BIND;
import static dev.seqvfs.protocol.MountFlags.MS_RDONLY;
import static dev.seqvfs.protocol.MountFlags.MS_REMOUNT;
import static dev.seqvfs.protocol.MountFlags.UMOUNT_NOFOLLOW;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
import static dev.seqvfs.tests.conformance.Sys.names;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code mount(2)} (a new tmpfs instance with {@code size=}, {@code nr_inodes=}, {@code
 * mode=}, {@code uid=}, {@code gid=}; {@code MS_BIND}; {@code MS_REMOUNT} of a superblock and of a
 * bind mount, read-only) and {@code umount2(2)}: what the namespace looks like afterwards, ".." at
 * mount roots, EROFS through read-only mounts, EXDEV across mounts, and the errnos that apply:
 * EBUSY (open file, working directory, submount, namespace root), EINVAL (not a mount root, bad
 * options or flags), ENODEV, ENOENT, ENOTDIR, EPERM (non-root).
 *
 * <pre>
 * /a/b/          directories
 * /a/b/f         regular file
 * /m/            empty directory (the usual mountpoint)
 * /m2/           empty directory
 * /f             regular file
 * </pre>
 */
@FileSystemContract
class MountTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/a", 0755);
        t.mkdir("/a/b", 0755);
        touch(t, "/a/b/f");
        t.mkdir("/m", 0755);
        t.mkdir("/m2", 0755);
        touch(t, "/f");
    }

    private void tmpfs(String target, String data) {
        t.mount("none", target, "tmpfs", 0, data);
    }

    // ---------------------------------------------------------------- new instances

    @Test
    void mount_tmpfs_attachesAnEmptyNewFileSystem() {
        tmpfs("/m", null);
        Stat root = t.stat("/m");
        assertNotEquals(t.stat("/").dev(), root.dev());
        assertEquals(Set.of(), names(t, "/m"));
        assertEquals(01777, root.permissions());
        touch(t, "/m/x");
        assertEquals(root.dev(), t.stat("/m/x").dev());
        t.unlink("/m/x");
        t.umount("/m");
        assertEquals(t.stat("/").dev(), t.stat("/m").dev());
    }

    @Test
    void mount_overNonEmptyDirectory_hidesItsContentsUntilUnmounted() {
        tmpfs("/a", null);
        assertFalse(exists(t, "/a/b"));
        t.umount("/a");
        assertTrue(exists(t, "/a/b/f"));
    }

    @Test
    void mount_optionsModeUidGid_setTheRootDirectory() {
        tmpfs("/m", "mode=0750,uid=5,gid=6");
        Stat st = t.stat("/m");
        assertEquals(0750, st.permissions());
        assertEquals(5, st.uid());
        assertEquals(6, st.gid());
        t.umount("/m");
    }

    @Test
    void mount_nrInodes_limitsInodesWithENOSPC() {
        tmpfs("/m", "nr_inodes=3");
        touch(t, "/m/a");
        t.mkdir("/m/b", 0755);
        assertErrno(Errno.ENOSPC, () -> touch(t, "/m/c"));
        assertErrno(Errno.ENOSPC, () -> t.mkdir("/m/c", 0755));
        assertErrno(Errno.ENOSPC, () -> t.symlink("x", "/m/c"));
        t.unlink("/m/a");
        touch(t, "/m/c");
        t.unlink("/m/c");
        t.rmdir("/m/b");
        t.umount("/m");
    }

    @Test
    void mount_size_limitsBytesWithENOSPC() {
        tmpfs("/m", "size=4k");
        assertEquals(1, t.statfs("/m").blocks());
        t.symlink("x".repeat(3000), "/m/l1");
        assertErrno(Errno.ENOSPC, () -> t.symlink("y".repeat(3000), "/m/l2"));
        t.unlink("/m/l1");
        t.symlink("y".repeat(3000), "/m/l2");
        t.unlink("/m/l2");
        t.umount("/m");
    }

    @Test
    void mount_sizeSuffixes_areBinaryMultiples() {
        tmpfs("/m", "size=2m");
        assertEquals(512, t.statfs("/m").blocks());
        t.umount("/m");
        tmpfs("/m", "size=1g");
        assertEquals(262144, t.statfs("/m").blocks());
        t.umount("/m");
    }

    @Test
    void mount_emptyOptions_areSkipped() {
        // shmem_parse_options skips an empty option, wherever it is in the list
        tmpfs("/m", ",size=2m,,");
        assertEquals(512, t.statfs("/m").blocks());
        t.umount("/m");
    }

    @Test
    void mount_badOption_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> tmpfs("/m", "bogus=1"));
        assertErrno(Errno.EINVAL, () -> tmpfs("/m", "size=lots"));
        assertErrno(Errno.EINVAL, () -> tmpfs("/m", "mode=999"));
        assertEquals(t.stat("/").dev(), t.stat("/m").dev());
    }

    @Test
    void mount_unknownFileSystemType_failsWithENODEV() {
        assertErrno(Errno.ENODEV, () -> t.mount("none", "/m", "ext9", 0, null));
    }

    @Test
    void mount_byNonRoot_failsWithEPERM() {
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EPERM, () -> u.mount("none", "/m", "tmpfs", 0, null));
        assertErrno(Errno.EPERM, () -> u.mount("/a", "/m", null, MS_BIND, null));
    }

    @Test
    void mount_missingTarget_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> tmpfs("/missing", null));
    }

    @Test
    void mount_fileTarget_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> tmpfs("/f", null));
        assertErrno(Errno.ENOTDIR, () -> tmpfs("/f/x", null));
    }

    @Test
    void mount_onRemovedWorkingDirectory_failsWithENOENT() {
        t.chdir("/m");
        t.rmdir("/m");
        assertErrno(Errno.ENOENT, () -> tmpfs(".", null));
        t.chdir("/");
    }

    @Test
    void mount_twiceOnSameDirectory_stacksAndUnmountsTopFirst() {
        tmpfs("/m", "nr_inodes=5");
        tmpfs("/m", "nr_inodes=7");
        assertEquals(7, t.statfs("/m").files());
        t.umount("/m");
        assertEquals(5, t.statfs("/m").files());
        t.umount("/m");
        assertEquals(t.stat("/").dev(), t.stat("/m").dev());
    }

    // ---------------------------------------------------------------- bind mounts

    @Test
    void mount_bind_showsTheSameTreeBothWays() {
        t.mount("/a", "/m", null, MS_BIND, null);
        assertEquals(t.stat("/a/b/f"), t.stat("/m/b/f"));
        touch(t, "/m/new");
        assertTrue(exists(t, "/a/new"));
        t.unlink("/a/new");
        assertFalse(exists(t, "/m/new"));
        t.umount("/m");
        assertEquals(Set.of(), names(t, "/m"));
    }

    @Test
    void mount_bind_isNotRecursive() {
        tmpfs("/a/b", null);
        t.mount("/a", "/m", null, MS_BIND, null);
        assertEquals(t.stat("/").dev(), t.stat("/m/b").dev());
        assertTrue(exists(t, "/m/b/f"));
        t.umount("/m");
        t.umount("/a/b");
    }

    @Test
    void mount_bindMissingSource_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.mount("/missing", "/m", null, MS_BIND, null));
    }

    @Test
    void mount_bindFileOntoDirectory_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.mount("/f", "/m", null, MS_BIND, null));
        assertEquals(t.stat("/").dev(), t.stat("/m").dev());
        assertTrue(t.stat("/m").isDirectory());
    }

    // ---------------------------------------------------------------- read-only

    @Test
    void remount_superblockReadOnly_refusesWritesThroughEveryMountOfIt() {
        tmpfs("/m", null);
        t.mkdir("/m/d", 0755);
        t.mount("/m/d", "/m2", null, MS_BIND, null);
        t.mount(null, "/m", null, MS_REMOUNT | MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> t.mkdir("/m/x", 0755));
        assertErrno(Errno.EROFS, () -> t.mkdir("/m2/x", 0755));
        assertErrno(Errno.EROFS, () -> t.rmdir("/m/d"));
        assertTrue(t.stat("/m/d").isDirectory());
        t.mount(null, "/m", null, MS_REMOUNT, null);
        t.mkdir("/m2/x", 0755);
        t.rmdir("/m2/x");
        t.umount("/m2");
        t.rmdir("/m/d");
        t.umount("/m");
    }

    /**
     * {@code sb_prepare_remount_readonly}: a superblock with a file open for writing cannot go
     * read-only ({@code EBUSY}, nothing changed: the descriptor still writes, names can still be
     * made); once the last descriptor of that open file closes it can. Checked against the host by
     * {@code RemountDifferentialTest} (Linux 6.18, tmpfs).
     */
    @Test
    void remount_readOnlyWithAFileOpenForWriting_failsWithEBUSYAndChangesNothing() {
        tmpfs("/m", "size=64k");
        touch(t, "/m/f");
        int w = t.open("/m/f", OpenFlags.O_WRONLY);
        int dup = t.dup(w);
        assertErrno(Errno.EBUSY, () -> t.mount(null, "/m", null, MS_REMOUNT | MS_RDONLY, null));
        assertEquals(0, t.statfs("/m").flags() & dev.seqvfs.protocol.MountFlags.ST_RDONLY);
        assertEquals(3, t.write(w, new byte[3]));
        t.mkdir("/m/d", 0755);
        t.close(w);
        assertErrno(Errno.EBUSY, () -> t.mount(null, "/m", null, MS_REMOUNT | MS_RDONLY, null));
        t.close(dup);
        t.mount(null, "/m", null, MS_REMOUNT | MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> t.open("/m/f", OpenFlags.O_RDWR));
        assertErrno(Errno.EROFS, () -> t.mkdir("/m/e", 0755));
        t.mount(null, "/m", null, MS_REMOUNT, null);
        int rw = t.open("/m/f", OpenFlags.O_RDWR);
        assertErrno(Errno.EBUSY, () -> t.mount(null, "/m", null, MS_REMOUNT | MS_RDONLY, null));
        t.close(rw);
        t.rmdir("/m/d");
        t.unlink("/m/f");
        t.umount("/m");
    }

    /**
     * Files open only for reading (access mode 3 included: it grants neither) and FIFOs open for
     * writing do not hold a superblock writable.
     */
    @Test
    void remount_readOnlyWithFilesOpenForReadingOrFifosForWriting_succeeds() {
        tmpfs("/m", null);
        touch(t, "/m/f");
        t.mknod("/m/p", dev.seqvfs.protocol.Mode.S_IFIFO | 0644, 0);
        int r = t.open("/m/f", OpenFlags.O_RDONLY);
        int three = t.open("/m/f", OpenFlags.O_ACCMODE);
        int p = t.open("/m/p", OpenFlags.O_RDWR);
        t.mount(null, "/m", null, MS_REMOUNT | MS_RDONLY, null);
        t.mount(null, "/m", null, MS_REMOUNT, null);
        t.close(r);
        t.close(three);
        t.close(p);
        t.unlink("/m/p");
        t.unlink("/m/f");
        t.umount("/m");
    }

    /**
     * {@code s_remove_count}: a removed file still open (even only for reading) keeps the
     * superblock writable.
     */
    @Test
    void remount_readOnlyWithARemovedFileStillOpen_failsWithEBUSY() {
        tmpfs("/m", null);
        touch(t, "/m/f");
        int r = t.open("/m/f", OpenFlags.O_RDONLY);
        t.unlink("/m/f");
        assertErrno(Errno.EBUSY, () -> t.mount(null, "/m", null, MS_REMOUNT | MS_RDONLY, null));
        t.close(r);
        t.mount(null, "/m", null, MS_REMOUNT | MS_RDONLY, null);
        t.mount(null, "/m", null, MS_REMOUNT, null);
        t.umount("/m");
    }

    @Test
    void remount_bindMountReadOnly_refusesWritesOnlyThroughThatMount() {
        t.mount("/a", "/m", null, MS_BIND, null);
        t.mount(null, "/m", null, MS_REMOUNT | MS_BIND | MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> touch(t, "/m/x"));
        assertErrno(Errno.EROFS, () -> t.unlink("/m/b/f"));
        assertErrno(Errno.EROFS, () -> t.rename("/m/b/f", "/m/b/g"));
        touch(t, "/a/x");
        assertTrue(exists(t, "/m/x"));
        t.mount(null, "/m", null, MS_REMOUNT | MS_BIND, null);
        t.unlink("/m/x");
        t.umount("/m");
    }

    @Test
    void remount_notAMountRoot_failsWithEINVAL() {
        tmpfs("/m", null);
        t.mkdir("/m/d", 0755);
        assertErrno(Errno.EINVAL, () -> t.mount(null, "/m/d", null, MS_REMOUNT | MS_RDONLY, null));
        assertErrno(
                Errno.EINVAL,
                () -> t.mount(null, "/a", null, MS_REMOUNT | MS_BIND | MS_RDONLY, null));
        t.mkdir("/m/e", 0755);
        t.rmdir("/m/e");
        t.rmdir("/m/d");
        t.umount("/m");
    }

    @Test
    void mount_readOnlyFlagAtCreation_makesItReadOnly() {
        t.mount("none", "/m", "tmpfs", MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> touch(t, "/m/x"));
        t.umount("/m");
    }

    // ---------------------------------------------------------------- crossing

    @Test
    void dotDot_atMountRoot_climbsToTheMountpointsParent() {
        tmpfs("/a/b", null);
        assertEquals(t.stat("/a"), t.stat("/a/b/.."));
        t.mount("/a", "/m", null, MS_BIND, null);
        assertEquals(t.stat("/"), t.stat("/m/.."));
        t.mkdir("/a/b/x", 0755);
        t.chdir("/a/b/x");
        assertEquals(t.stat("/a"), t.stat("../.."));
        t.chdir("/");
        t.rmdir("/a/b/x");
        t.umount("/m");
        t.umount("/a/b");
    }

    @Test
    void dotDot_atRoot_staysAtRoot() {
        assertEquals(t.stat("/"), t.stat("/.."));
        assertEquals(t.stat("/"), t.stat("/../../.."));
        assertEquals(t.stat("/a"), t.stat("/../a"));
    }

    @Test
    void rename_acrossMounts_failsWithEXDEV() {
        tmpfs("/m", null);
        assertErrno(Errno.EXDEV, () -> t.rename("/f", "/m/f"));
        t.umount("/m");
    }

    @Test
    void link_acrossMounts_failsWithEXDEV() {
        t.mount("/a", "/m", null, MS_BIND, null);
        assertErrno(Errno.EXDEV, () -> t.link("/a/b/f", "/m/g"));
        t.umount("/m");
    }

    // ---------------------------------------------------------------- umount

    @Test
    void umount_withOpenFileInside_failsWithEBUSY() {
        tmpfs("/m", null);
        touch(t, "/m/x");
        int fd = t.open("/m/x", OpenFlags.O_RDONLY);
        assertErrno(Errno.EBUSY, () -> t.umount("/m"));
        assertTrue(exists(t, "/m/x"));
        t.close(fd);
        t.unlink("/m/x");
        t.umount("/m");
    }

    @Test
    void umount_withPathDescriptorOnItsRoot_failsWithEBUSY() {
        tmpfs("/m", null);
        int fd = t.open("/m", OpenFlags.O_PATH);
        assertErrno(Errno.EBUSY, () -> t.umount("/m"));
        t.close(fd);
        t.umount("/m");
    }

    @Test
    void umount_withWorkingDirectoryInside_failsWithEBUSY() {
        tmpfs("/m", null);
        t.mkdir("/m/d", 0755);
        VfsTask other = fs.task(0, 0);
        other.chdir("/m/d");
        assertErrno(Errno.EBUSY, () -> t.umount("/m"));
        other.chdir("/");
        t.rmdir("/m/d");
        t.umount("/m");
    }

    @Test
    void umount_withSubmount_failsWithEBUSY() {
        tmpfs("/m", null);
        t.mkdir("/m/d", 0755);
        tmpfs("/m/d", null);
        assertErrno(Errno.EBUSY, () -> t.umount("/m"));
        t.umount("/m/d");
        t.rmdir("/m/d");
        t.umount("/m");
    }

    @Test
    void umount_namespaceRoot_failsWithEBUSY() {
        assertErrno(Errno.EBUSY, () -> t.umount("/"));
    }

    @Test
    void umount_detachWhileBusy_detachesAndKeepsOpenFilesUsable() {
        tmpfs("/m", null);
        touch(t, "/m/x");
        int fd = t.open("/m/x", OpenFlags.O_RDONLY);
        long dev = t.fstat(fd).dev();
        t.umount2("/m", MNT_DETACH);
        assertEquals(t.stat("/").dev(), t.stat("/m").dev());
        assertEquals(dev, t.fstat(fd).dev());
        t.close(fd);
    }

    @Test
    void umount_detachWithSubmount_detachesTheWholeTree() {
        tmpfs("/m", null);
        t.mkdir("/m/d", 0755);
        tmpfs("/m/d", "nr_inodes=9");
        t.umount2("/m", MNT_DETACH);
        assertEquals(t.stat("/").dev(), t.stat("/m").dev());
        assertFalse(exists(t, "/m/d"));
        t.mkdir("/m/d", 0755);
        tmpfs("/m/d", null);
        t.umount("/m/d");
    }

    /**
     * Regression: a lazily detached mount stays reachable through a working directory, and
     * unmounting it again through that path detached it a second time, leaving its old mountpoint's
     * mount count at -1, so the next mount there was invisible to walks. Linux answers EINVAL: the
     * mount is no longer in the namespace ({@code can_umount}, {@code check_mnt}).
     */
    @Test
    void umount_alreadyDetachedMountThroughItsWorkingDirectory_failsWithEINVAL() {
        tmpfs("/m", null);
        t.chdir("/m");
        t.umount2("/m", MNT_DETACH);
        assertErrno(Errno.EINVAL, () -> t.umount2(".", MNT_DETACH));
        assertErrno(Errno.EINVAL, () -> t.umount("."));
        t.chdir("/");
        tmpfs("/m", null);
        assertNotEquals(t.stat("/").dev(), t.stat("/m").dev(), "the next mount on /m is seen");
        t.umount("/m");
    }

    /**
     * Linux refuses a mount onto a directory of a detached mount ({@code do_add_mount}, {@code
     * check_mnt}).
     */
    @Test
    void mount_ontoADirectoryOfADetachedMount_failsWithEINVAL() {
        tmpfs("/m", null);
        t.mkdir("/m/d", 0755);
        t.chdir("/m");
        t.umount2("/m", MNT_DETACH);
        assertErrno(Errno.EINVAL, () -> t.mount("none", "d", "tmpfs", 0, null));
        assertErrno(Errno.EINVAL, () -> t.mount("/a", "d", null, MS_BIND, null));
        t.chdir("/");
    }

    @Test
    void umount_notAMountRoot_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.umount("/a"));
        tmpfs("/m", null);
        t.mkdir("/m/d", 0755);
        assertErrno(Errno.EINVAL, () -> t.umount("/m/d"));
        t.rmdir("/m/d");
        t.umount("/m");
    }

    @Test
    void umount_unknownFlag_failsWithEINVAL() {
        tmpfs("/m", null);
        assertErrno(Errno.EINVAL, () -> t.umount2("/m", 0x100));
        t.umount("/m");
    }

    @Test
    void umount_noFollowOnSymlink_failsWithEINVALAndFollowingUnmounts() {
        tmpfs("/m", null);
        t.symlink("/m", "/lm");
        assertErrno(Errno.EINVAL, () -> t.umount2("/lm", UMOUNT_NOFOLLOW));
        t.umount("/lm");
        assertEquals(t.stat("/").dev(), t.stat("/m").dev());
    }

    @Test
    void umount_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.umount("/missing"));
    }

    @Test
    void umount_byNonRoot_failsWithEPERM() {
        tmpfs("/m", null);
        assertErrno(Errno.EPERM, () -> fs.task(1000, 1000).umount("/m"));
        t.umount("/m");
    }

    @Test
    void umount_twice_secondFailsWithEINVAL() {
        tmpfs("/m", null);
        t.umount("/m");
        assertErrno(Errno.EINVAL, () -> t.umount("/m"));
    }
}
