package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code readlink(2)} and {@code readlinkat(2)}: the stored target, including an empty
 * path on an {@code O_PATH | O_NOFOLLOW} descriptor; and the man page's errnos that apply: EACCES,
 * EBADF, EINVAL, ELOOP, ENAMETOOLONG, ENOENT, ENOTDIR.
 *
 * <pre>
 * /d/           0755
 * /d/f          regular file
 * /d/rel  -> f
 * /lf     -> /d/f
 * /ld     -> /d
 * /dangling -> /nowhere
 * </pre>
 */
@FileSystemContract
class ReadlinkTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/d/f");
        t.symlink("f", "/d/rel");
        t.symlink("/d/f", "/lf");
        t.symlink("/d", "/ld");
        t.symlink("/nowhere", "/dangling");
    }

    @Test
    void readlink_symlink_returnsTargetVerbatim() {
        assertEquals("f", t.readlink("/d/rel"));
        assertEquals("/d/f", t.readlink("/lf"));
        assertEquals("/nowhere", t.readlink("/dangling"));
    }

    @Test
    void readlink_symlinkToSymlink_returnsFirstLevelOnly() {
        t.symlink("/lf", "/l2");
        assertEquals("/lf", t.readlink("/l2"));
    }

    @Test
    void readlink_throughSymlinkedDirectory_readsTheInnerLink() {
        assertEquals("f", t.readlink("/ld/rel"));
    }

    @Test
    void readlink_relativePathFromWorkingDirectory_reads() {
        t.chdir("/d");
        assertEquals("f", t.readlink("rel"));
        t.chdir("/");
    }

    @Test
    void readlink_multiByteTarget_isItsUtf8BytesAsAFilename() {
        t.symlink("é/ß", "/u");
        assertArrayEquals(
                new byte[] {(byte) 0xc3, (byte) 0xa9, '/', (byte) 0xc3, (byte) 0x9f},
                Filename.of(t.readlink("/u")).bytes());
        assertEquals("é/ß", t.readlink("/u"));
    }

    @Test
    void readlink_regularFile_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.readlink("/d/f"));
    }

    @Test
    void readlink_directory_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.readlink("/d"));
        assertErrno(Errno.EINVAL, () -> t.readlink("/ld/"));
    }

    @Test
    void readlink_missing_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.readlink("/d/missing"));
        assertErrno(Errno.ENOENT, () -> t.readlink("/dangling/"));
    }

    @Test
    void readlink_emptyPath_failsWithENOENT() {
        assertErrno(Errno.ENOENT, () -> t.readlink(""));
    }

    @Test
    void readlink_trailingSlashOnLinkToFile_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.readlink("/lf/"));
    }

    @Test
    void readlink_fileAsPathComponent_failsWithENOTDIR() {
        assertErrno(Errno.ENOTDIR, () -> t.readlink("/d/f/x"));
    }

    @Test
    void readlink_noSearchPermission_failsWithEACCES() {
        t.chmod("/d", 0700);
        assertErrno(Errno.EACCES, () -> fs.task(1000, 1000).readlink("/d/rel"));
    }

    @Test
    void readlink_symlinkLoopInPath_failsWithELOOP() {
        t.symlink("/loop", "/loop");
        assertErrno(Errno.ELOOP, () -> t.readlink("/loop/x"));
        assertEquals("/loop", t.readlink("/loop"));
    }

    @Test
    void readlink_nameTooLong_failsWithENAMETOOLONG() {
        assertErrno(Errno.ENAMETOOLONG, () -> t.readlink("/d/" + "r".repeat(256)));
    }

    @Test
    void readlinkat_relativeToDescriptor_reads() {
        int fd = t.open("/d", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            assertEquals("f", t.readlinkat(fd, "rel"));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void readlinkat_emptyPathOnPathDescriptorOfSymlink_readsIt() {
        int fd = t.open("/lf", OpenFlags.O_PATH | OpenFlags.O_NOFOLLOW);
        try {
            assertEquals("/d/f", t.readlinkat(fd, ""));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void readlinkat_emptyPathOnNonSymlinkDescriptor_failsWithENOENT() {
        int f = t.open("/d/f", OpenFlags.O_RDONLY);
        int d = t.open("/d", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOENT, () -> t.readlinkat(f, ""));
            assertErrno(Errno.ENOENT, () -> t.readlinkat(d, ""));
        } finally {
            t.close(f);
            t.close(d);
        }
    }

    @Test
    void readlinkat_badDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.readlinkat(31, "rel"));
        assertErrno(Errno.EBADF, () -> t.readlinkat(31, ""));
    }

    @Test
    void readlinkat_fileDescriptorWithRelativePath_failsWithENOTDIR() {
        int fd = t.open("/d/f", OpenFlags.O_RDONLY);
        try {
            assertErrno(Errno.ENOTDIR, () -> t.readlinkat(fd, "x"));
        } finally {
            t.close(fd);
        }
    }
}
