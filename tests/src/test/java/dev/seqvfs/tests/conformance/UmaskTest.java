package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code umask(2)}: it returns the previous mask, keeps only {@code 0777}, is {@code 022}
 * in a new task, belongs to one task, and clears permission bits of files made by {@code
 * open(O_CREAT)}, {@code mkdir} and {@code mknod} (not symlinks, which are always 0777, and not
 * later {@code chmod}s). umask never fails.
 *
 * <pre>
 * /d/   0777
 * </pre>
 */
@FileSystemContract
class UmaskTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0777);
        t.chmod("/d", 0777);
    }

    @Test
    void umask_newTask_is022() {
        assertEquals(022, fs.task(5, 5).umask(0));
    }

    @Test
    void umask_returnsPreviousMask() {
        assertEquals(022, t.umask(077));
        assertEquals(077, t.umask(0));
        assertEquals(0, t.umask(022));
    }

    @Test
    void umask_keepsOnlyPermissionBits() {
        t.umask(07777);
        assertEquals(0777, t.umask(0));
        t.umask(0170022);
        assertEquals(022, t.umask(0));
    }

    @Test
    void umask_appliesToOpenCreat() {
        t.umask(027);
        touch(t, "/d/f", 0777);
        assertEquals(0750, t.stat("/d/f").permissions());
    }

    @Test
    void umask_appliesToMkdirAndMknod() {
        t.umask(070);
        t.mkdir("/d/dir", 0777);
        t.mknod("/d/fifo", Mode.S_IFIFO | 0666, 0);
        t.mknod("/d/reg", 0666, 0);
        assertEquals(0707, t.stat("/d/dir").permissions());
        assertEquals(0606, t.stat("/d/fifo").permissions());
        assertEquals(Mode.S_IFREG | 0606, t.stat("/d/reg").mode());
    }

    @Test
    void umask_doesNotApplyToSymlinksOrChmod() {
        t.umask(0777);
        t.symlink("x", "/d/l");
        assertEquals(0777, t.lstat("/d/l").permissions());
        touch(t, "/d/f", 0666);
        assertEquals(0, t.stat("/d/f").permissions());
        t.chmod("/d/f", 0666);
        assertEquals(0666, t.stat("/d/f").permissions());
    }

    @Test
    void umask_zero_keepsRequestedMode() {
        t.umask(0);
        t.mkdir("/d/dir", 0777);
        assertEquals(0777, t.stat("/d/dir").permissions());
    }

    @Test
    void umask_isPerTask() {
        VfsTask other = fs.task(0, 0);
        t.umask(077);
        touch(other, "/d/f", 0666);
        assertEquals(0644, t.stat("/d/f").permissions());
        assertEquals(022, other.umask(022));
    }
}
