package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static dev.seqvfs.protocol.OpenFlags.O_WRONLY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.VfsException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * procfs ({@code proc(5)}): {@code /proc/self}, {@code /proc/<pid>/fd/N} links to named and
 * anonymous files, opening through them (even after unlink), {@code fdinfo}, {@code /proc/mounts},
 * listing, and refusal of namespace changes.
 */
class ProcFsTest {
    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create(); // mounts procfs at /proc (seqvfs.proc.mount = on by default)
        t = vfs.newTask(Credentials.ROOT);
    }

    @AfterEach
    void down() {
        vfs.close();
    }

    private String readAll(String path) {
        int fd = t.open(path, O_RDONLY);
        byte[] b = new byte[4096];
        int n = t.read(fd, b, 0, b.length);
        t.close(fd);
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    @Test
    void procSelf_isALinkToTheCallersPid() {
        assertEquals(Integer.toString(t.pid()), t.readlink("/proc/self"));
        VfsTask other = vfs.newTask(Credentials.ROOT);
        assertEquals(Integer.toString(other.pid()), other.readlink("/proc/self"));
        other.close();
    }

    @Test
    void fdLink_showsPath_thenDeleted_andOpensTheFileItselfAfterUnlink() {
        t.mkdir("/data", 0755);
        int fd = t.open("/data/f", O_CREAT | O_RDWR, 0644);
        t.write(fd, "payload".getBytes(StandardCharsets.UTF_8));
        assertEquals("/data/f", t.readlink("/proc/self/fd/" + fd));
        t.unlink("/data/f");
        assertEquals("/data/f (deleted)", t.readlink("/proc/self/fd/" + fd));
        assertEquals("payload", readAll("/proc/self/fd/" + fd));
        assertEquals(
                Errno.ENOENT,
                assertThrows(VfsException.class, () -> t.stat("/proc/self/fd/99")).errno());
        t.close(fd);
    }

    @Test
    void fdLink_ofPipeAndSocket_showsAnonNames_andOpeningThePipeWriteEndWorks() {
        int[] p = t.pipe();
        long ino = t.fstat(p[0]).ino();
        assertEquals("pipe:[" + ino + "]", t.readlink("/proc/self/fd/" + p[0]));
        int w = t.open("/proc/self/fd/" + p[1], O_WRONLY);
        t.write(w, new byte[] {42});
        byte[] b = new byte[1];
        assertEquals(1, t.read(p[0], b, 0, 1));
        assertEquals(42, b[0]);
        int s = t.socket(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
        assertEquals("socket:[" + t.fstat(s).ino() + "]", t.readlink("/proc/self/fd/" + s));
        assertEquals(
                Errno.ENXIO,
                assertThrows(VfsException.class, () -> t.open("/proc/self/fd/" + s, O_RDWR))
                        .errno());
        t.closeRange(0, -1, 0);
    }

    @Test
    void fdinfo_showsPosAndFlags() {
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        t.write(fd, new byte[10]);
        String info = readAll("/proc/self/fdinfo/" + fd);
        assertTrue(
                info.startsWith(
                        "pos:\t10\nflags:\t0"
                                + Integer.toOctalString(O_RDWR | OpenFlags.O_LARGEFILE)
                                + "\n"),
                info);
        t.close(fd);
    }

    @Test
    void procDirectories_listOpenFdsAndTasks_andRefuseChanges() {
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        List<DirEntry> fds = t.readdir("/proc/self/fd");
        assertTrue(
                fds.stream().anyMatch(e -> e.name().equals(Integer.toString(fd))), fds.toString());
        assertTrue(
                t.readdir("/proc").stream()
                        .anyMatch(e -> e.name().equals(Integer.toString(t.pid()))));
        // procfs's ->lookup of a missing name fails, so a create is ENOENT (Linux 6.18)
        assertEquals(
                Errno.ENOENT,
                assertThrows(VfsException.class, () -> t.mkdir("/proc/x", 0755)).errno());
        assertEquals(
                Errno.ENOENT,
                assertThrows(VfsException.class, () -> t.open("/proc/y", O_CREAT | O_RDWR, 0644))
                        .errno());
        assertTrue(
                readAll("/proc/mounts").contains("proc /proc proc rw,relatime 0 0\n"),
                readAll("/proc/mounts"));
        t.close(fd);
    }

    private Errno errnoOf(Runnable call) {
        return assertThrows(VfsException.class, call::run).errno();
    }

    /**
     * Writes to procfs files, as Linux 6.18 answers them (root): a {@code seq_file} of {@code
     * /proc/<pid>} has no {@code ->write} ({@code EINVAL}) and no {@code FMODE_PWRITE} ({@code
     * ESPIPE}, checked before the access mode); {@code /proc/filesystems} reaches {@code
     * proc_reg_write} ({@code EIO}), but not by {@code pwrite} ({@code ESPIPE}); a truncate
     * succeeds and changes nothing.
     */
    @Test
    void writes_toProcFiles_failAsLinuxFails() {
        byte[] x = {'x'};
        int ro = t.open("/proc/self/mounts", O_RDONLY);
        assertEquals(Errno.ESPIPE, errnoOf(() -> t.pwrite(ro, x, 0, 1, 0)));
        t.close(ro);
        int wr = t.open("/proc/self/mounts", O_WRONLY | OpenFlags.O_TRUNC);
        assertEquals(Errno.EINVAL, errnoOf(() -> t.write(wr, x)));
        assertEquals(Errno.ESPIPE, errnoOf(() -> t.pwrite(wr, x, 0, 1, 0)));
        t.close(wr);
        t.truncate("/proc/self/mounts", 0);
        assertTrue(readAll("/proc/self/mounts").contains(" / "));
        int fs = t.open("/proc/filesystems", O_WRONLY);
        assertEquals(Errno.EIO, errnoOf(() -> t.write(fs, x)));
        assertEquals(Errno.ESPIPE, errnoOf(() -> t.pwrite(fs, x, 0, 1, 0)));
        t.close(fs);
        assertTrue(readAll("/proc/filesystems").contains("nodev\ttmpfs\n"));
    }
}
