package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.names;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
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
 * Specifies {@code mkdir(2)} and {@code mkdirat(2)}: the new directory's attributes, the parent's
 * link count and times, and every errno of the man page's ERRORS list that an in-memory file system
 * can raise (EACCES, EBADF, EEXIST, ELOOP, ENAMETOOLONG, ENOENT, ENOSPC, ENOTDIR, EROFS). EDQUOT,
 * EFAULT, EMLINK, ENOMEM and EPERM do not apply (tmpfs has no directory link limit and supports
 * directories).
 *
 * <pre>
 * /d/          0755 root
 * /f           regular file
 * /dangling -> /nowhere
 * /dl       -> /d
 * </pre>
 */
@FileSystemContract
class MkdirTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/f");
        t.symlink("/nowhere", "/dangling");
        t.symlink("/d", "/dl");
    }

    @Test
    void mkdir_newName_createsEmptyDirectoryWithTwoLinks() {
        t.mkdir("/d/n", 0755);
        Stat st = t.stat("/d/n");
        assertTrue(st.isDirectory());
        assertEquals(2, st.nlink());
        assertEquals(0755, st.permissions());
        assertEquals(Set.of(), names(t, "/d/n"));
        assertEquals(Set.of("n"), names(t, "/d"));
    }

    @Test
    void mkdir_modeBits_umaskClearedAndSetIdBitsDroppedButStickyKept() {
        t.umask(027);
        t.mkdir("/d/n", 07777);
        assertEquals(01750, t.stat("/d/n").permissions());
    }

    @Test
    void mkdir_newDirectory_ownedByCallerUidAndGid() {
        VfsTask u = fs.task(1000, 100);
        u.mkdir("/u", 0755);
        Stat st = t.stat("/u");
        assertEquals(1000, st.uid());
        assertEquals(100, st.gid());
    }

    @Test
    void mkdir_subdirectory_incrementsParentLinkCount() {
        assertEquals(2, t.stat("/d").nlink());
        t.mkdir("/d/a", 0755);
        t.mkdir("/d/b", 0755);
        assertEquals(4, t.stat("/d").nlink());
    }

    @Test
    void mkdir_newDirectory_setsParentMtimeAndCtimeAndOwnTimesEqual() {
        t.utimensat(VfsTask.AT_FDCWD, "/d", new Timespec(1000, 5), new Timespec(1000, 5), 0);
        long before = t.stat("/d").ctimeNanos();
        t.mkdir("/d/n", 0755);
        Stat parent = t.stat("/d");
        Stat child = t.stat("/d/n");
        assertTrue(parent.mtimeNanos() > 1000_000_000_005L);
        assertTrue(parent.ctimeNanos() >= before);
        assertEquals(1000_000_000_005L, parent.atimeNanos());
        assertEquals(child.atimeNanos(), child.mtimeNanos());
        assertEquals(child.mtimeNanos(), child.ctimeNanos());
    }

    @Test
    void mkdir_trailingSlashOnNewName_creates() {
        t.mkdir("/d/n/", 0755);
        t.mkdir("/d/m//", 0755);
        assertTrue(t.stat("/d/n").isDirectory());
        assertTrue(t.stat("/d/m").isDirectory());
    }

    @Test
    void mkdir_throughSymlinkedParent_createsInTarget() {
        t.mkdir("/dl/n", 0755);
        assertTrue(t.stat("/d/n").isDirectory());
    }

    @Test
    void mkdir_existingDirectory_failsWithEEXIST() {
        assertErrno(Errno.EEXIST, () -> t.mkdir("/d", 0755));
    }

    @Test
    void mkdir_existingFile_failsWithEEXIST() {
        assertErrno(Errno.EEXIST, () -> t.mkdir("/f", 0755));
        assertErrno(Errno.EEXIST, () -> t.mkdir("/f/", 0755));
        assertTrue(t.stat("/f").isRegular());
    }

    @Test
    void mkdir_danglingSymlink_failsWithEEXISTAndDoesNotCreateTarget() {
        assertErrno(Errno.EEXIST, () -> t.mkdir("/dangling", 0755));
        assertErrno(Errno.EEXIST, () -> t.mkdir("/dangling/", 0755));
        assertErrno(Errno.ENOENT, () -> t.stat("/nowhere"));
    }

    @Test
    void mkdir_symlinkToDirectory_failsWithEEXIST() {
        assertErrno(Errno.EEXIST, () -> t.mkdir("/dl", 0755));
    }

    @Test
    void mkdir_dotDotdotAndRoot_failWithEEXIST() {
        assertErrno(Errno.EEXIST, () -> t.mkdir("/d/.", 0755));
        assertErrno(Errno.EEXIST, () -> t.mkdir("/d/..", 0755));
        assertErrno(Errno.EEXIST, () -> t.mkdir("/", 0755));
    }

    @Test
    void mkdir_missingParent_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.mkdir("/missing/n", 0755));
        assertErrno(Errno.ENOENT, () -> t.mkdir("/dangling/n", 0755));
    }

    @Test
    void mkdir_emptyPath_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.mkdir("", 0755));
    }

    @Test
    void mkdir_fileAsParent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.mkdir("/f/n", 0755));
    }

    @Test
    void mkdir_noWritePermissionOnParent_failsWithEACCES() {
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.mkdir("/d/n", 0755));
        assertFalse(names(t, "/d").contains("n"));
    }

    @Test
    void mkdir_noSearchPermissionOnAncestor_failsWithEACCES() {
        t.mkdir("/d/w", 0777);
        t.chmod("/d", 0700);
        VfsTask u = fs.task(1000, 1000);
        assertErrno(Errno.EACCES, () -> u.mkdir("/d/w/n", 0755));
    }

    @Test
    void mkdir_nameOf256Bytes_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.mkdir("/d/" + "a".repeat(256), 0755));
        t.mkdir("/d/" + "a".repeat(255), 0755);
    }

    @Test
    void mkdir_symlinkLoopInPath_failsWithELOOP() {
        t.symlink("/loop2", "/loop1");
        t.symlink("/loop1", "/loop2");
        assertErrno(Errno.ELOOP, () -> t.mkdir("/loop1/n", 0755));
    }

    @Test
    void mkdirat_relativeToDirectoryDescriptor_createsThere() {
        int fd = t.open("/d", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            t.mkdirat(fd, "n", 0700);
        } finally {
            t.close(fd);
        }
        assertEquals(0700, t.stat("/d/n").permissions());
    }

    @Test
    void mkdirat_badDescriptorWithRelativePath_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.mkdirat(999, "n", 0755));
    }

    @Test
    void mkdirat_badDescriptorWithAbsolutePath_ignoresDescriptor() {
        t.mkdirat(999, "/d/n", 0755);
        assertTrue(t.stat("/d/n").isDirectory());
    }

    @Test
    void mkdirat_emptyPathWithBadOrFileDescriptor_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.mkdirat(999, "", 0755));
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOENT, () -> t.mkdirat(fd, "", 0755));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void mkdirat_fileDescriptorWithRelativePath_failsWithENOTDIR() {
        int fd = t.open("/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.mkdirat(fd, "n", 0755));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void mkdir_readOnlyMount_failsWithEROFS() {
        t.mount("none", "/d", "tmpfs", 0, null);
        t.mount(
                null,
                "/d",
                null,
                dev.seqvfs.protocol.MountFlags.MS_REMOUNT
                        | dev.seqvfs.protocol.MountFlags.MS_RDONLY,
                null);
        assertErrno(Errno.EROFS, () -> t.mkdir("/d/n", 0755));
        assertErrno(Errno.EEXIST, () -> t.mkdir("/d", 0755));
        t.umount("/d");
    }

    @Test
    void mkdir_inRemovedWorkingDirectory_failsWithENOENT() {
        t.mkdir("/d/gone", 0755);
        t.chdir("/d/gone");
        t.rmdir("/d/gone");
        assertErrno(Errno.ENOENT, () -> t.mkdir("n", 0755));
        t.chdir("/");
    }

    @Test
    void mkdir_directoryModeHasDirectoryType() {
        t.mkdir("/d/n", 0);
        assertEquals(Mode.S_IFDIR, t.stat("/d/n").mode() & Mode.S_IFMT);
        assertEquals(0, t.stat("/d/n").permissions());
    }
}
