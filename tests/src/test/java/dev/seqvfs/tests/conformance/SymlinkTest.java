package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.exists;
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
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code symlink(2)} and {@code symlinkat(2)}: a link whose target is stored as given
 * (not resolved, may dangle), with mode 0777 whatever the umask and a size equal to the target's
 * length in bytes; and the man page's errnos that apply: EACCES, EBADF, EEXIST, ELOOP,
 * ENAMETOOLONG, ENOENT, ENOSPC (see QuotaTest), ENOTDIR, EROFS.
 *
 * <pre>
 * /d/          0755
 * /f           regular file
 * /dangling -> /nowhere
 * </pre>
 */
@FileSystemContract
class SymlinkTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/f");
        t.symlink("/nowhere", "/dangling");
    }

    @Test
    void symlink_new_hasModeLrwxrwxrwxSizeOfTargetAndOneLink() {
        t.umask(077);
        t.symlink("target", "/d/l");
        Stat st = t.lstat("/d/l");
        assertTrue(st.isSymlink());
        assertEquals(0777, st.permissions());
        assertEquals(6, st.size());
        assertEquals(1, st.nlink());
        assertEquals("target", t.readlink("/d/l"));
    }

    @Test
    void symlink_multiByteTarget_sizeCountsUtf8Bytes() {
        t.symlink("Ünïcødé", "/d/l");
        assertEquals("Ünïcødé".getBytes(StandardCharsets.UTF_8).length, t.lstat("/d/l").size());
        assertEquals("Ünïcødé", t.readlink("/d/l"));
    }

    @Test
    void symlink_ownedByCaller() {
        t.chmod("/d", 0777);
        fs.task(1000, 50).symlink("x", "/d/l");
        assertEquals(1000, t.lstat("/d/l").uid());
        assertEquals(50, t.lstat("/d/l").gid());
    }

    @Test
    void symlink_targetStoredVerbatimNotResolved() {
        t.symlink("../f//./x/..", "/d/l");
        assertEquals("../f//./x/..", t.readlink("/d/l"));
        t.symlink("missing/file", "/d/m");
        assertEquals("missing/file", t.readlink("/d/m"));
        assertErrno(Errno.ENOENT, () -> t.stat("/d/m"));
    }

    @Test
    void symlink_relativeTarget_resolvesFromLinksDirectory() {
        t.symlink("../f", "/d/l");
        assertEquals(t.stat("/f").ino(), t.stat("/d/l").ino());
    }

    @Test
    void symlink_updatesParentMtime() {
        t.utimensat(VfsTask.AT_FDCWD, "/d", new Timespec(1000, 0), new Timespec(1000, 0), 0);
        t.symlink("x", "/d/l");
        assertTrue(t.stat("/d").mtimeNanos() > 1000_000_000_000L);
    }

    @Test
    void symlink_existingName_failsWithEEXIST() {
        assertErrno(Errno.EEXIST, () -> t.symlink("x", "/f"));
        assertErrno(Errno.EEXIST, () -> t.symlink("x", "/dangling"));
        assertErrno(Errno.EEXIST, () -> t.symlink("x", "/d"));
        assertErrno(Errno.EEXIST, () -> t.symlink("x", "/d/"));
        assertErrno(Errno.EEXIST, () -> t.symlink("x", "/d/."));
        assertErrno(Errno.EEXIST, () -> t.symlink("x", "/d/.."));
        assertEquals("/nowhere", t.readlink("/dangling"));
    }

    @Test
    void symlink_emptyTarget_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.symlink("", "/d/l"));
        assertFalse(exists(t, "/d/l"));
    }

    @Test
    void symlink_missingParent_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.symlink("x", "/missing/l"));
        assertErrno(Errno.ENOENT, () -> t.symlink("x", "/dangling/l"));
    }

    @Test
    void symlink_emptyLinkPath_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.symlink("x", ""));
    }

    @Test
    void symlink_trailingSlashOnNewName_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.symlink("x", "/d/l/"));
        assertFalse(exists(t, "/d/l"));
    }

    @Test
    void symlink_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.symlink("x", "/f/l"));
    }

    @Test
    void symlink_targetOf4095Bytes_isStored() {
        String target = "a/".repeat(2047) + "b";
        t.symlink(target, "/d/l");
        assertEquals(4095, t.lstat("/d/l").size());
        assertEquals(target, t.readlink("/d/l"));
    }

    @Test
    void symlink_targetOf4096Bytes_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.symlink("a/".repeat(2048), "/d/l"));
        assertErrno(Errno.ENAMETOOLONG, () -> t.symlink("é".repeat(2048), "/d/l"));
        assertFalse(exists(t, "/d/l"));
    }

    @Test
    void symlink_targetWithOverlongComponent_isCreatedButResolvingItFailsWithENAMETOOLONG() {
        t.symlink("x".repeat(300), "/d/l");
        assertEquals(300, t.lstat("/d/l").size());
        assertErrno(Errno.ENAMETOOLONG, () -> t.stat("/d/l"));
    }

    @Test
    void symlink_linkNameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.symlink("x", "/d/" + "l".repeat(256)));
    }

    @Test
    void symlink_noWritePermission_failsWithEACCES() {
        assertErrno(Errno.EACCES, () -> fs.task(1000, 1000).symlink("x", "/d/l"));
        assertFalse(exists(t, "/d/l"));
    }

    @Test
    void symlink_loopInLinkPathDirectory_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.symlink("x", "/loop/l"));
    }

    @Test
    void symlink_readOnlyMount_failsWithEROFS() {
        t.mount("none", "/d", "tmpfs", MountFlags.MS_RDONLY, null);
        assertErrno(Errno.EROFS, () -> t.symlink("x", "/d/l"));
        t.umount("/d");
    }

    @Test
    void symlinkat_relativeToDescriptor_creates() {
        int fd = t.open("/d", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            t.symlinkat("../f", fd, "l");
        } finally {
            t.close(fd);
        }
        assertEquals("../f", t.readlink("/d/l"));
    }

    @Test
    void symlinkat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.symlinkat("x", 66, "l"));
    }

    @Test
    void symlinkat_fileDescriptor_failsWithENOTDIR() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.symlinkat("x", fd, "l"));
        } finally {
            t.close(fd);
        }
    }
}
