package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class VfsTaskSmokeTest {
    static SeqVfs vfs;
    static VfsTask t;

    @BeforeAll
    static void up() {
        vfs = SeqVfs.create();
        t = vfs.newTask(Credentials.ROOT);
    }

    @AfterAll
    static void down() {
        vfs.close();
    }

    @Test
    void mkdirCreateRenameStat_workEndToEnd() {
        t.mkdir("/a", 0755);
        t.mkdir("/a/b", 0755);
        int fd = t.open("/a/b/f", O_CREAT | O_RDWR, 0644);
        t.close(fd);
        assertTrue(t.stat("/a/b/f").isRegular());
        assertEquals(3, t.stat("/a").nlink());
        t.mkdir("/c", 0755);
        t.rename("/a/b", "/c/b");
        assertTrue(t.stat("/c/b/f").isRegular());
        VfsException e = assertThrows(VfsException.class, () -> t.stat("/a/b/f"));
        assertEquals(Errno.ENOENT, e.errno());
        e = assertThrows(VfsException.class, () -> t.rename("/c", "/c/b/x"));
        assertEquals(Errno.EINVAL, e.errno());
        t.symlink("/c/b", "/l");
        assertTrue(t.stat("/l/f").isRegular());
        assertEquals("/c/b", t.readlink("/l"));
        t.chdir("/l");
        assertEquals("/c/b", t.getcwd());
        t.chdir("/");
        t.unlink("/c/b/f");
        t.rmdir("/c/b");
        assertEquals(2, t.stat("/c").nlink());
    }
}
