package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File data on persistfs: what {@code fsync}, {@code fdatasync} and {@code syncfs} wrote back is
 * what the next instance reads, with its size, mode and times; a file unlinked before the remount
 * leaves no row behind.
 */
class PersistfsDataTest {
    @TempDir Path data;

    private static byte[] read(VfsTask t, String path) {
        int fd = t.open(path, OpenFlags.O_RDONLY);
        try {
            byte[] buf = new byte[1 << 20];
            int n = t.read(fd, buf, 0, buf.length);
            return Arrays.copyOf(buf, Math.max(n, 0));
        } finally {
            t.close(fd);
        }
    }

    @Test
    void fsyncedData_isReadBackByTheNextInstance() {
        byte[] big = new byte[3 * 4096 + 17];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + 7);
        }
        Stat before;
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/d", 0755);
            int fd = t.open("/d/big", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0600);
            t.write(fd, big);
            t.fsync(fd);
            t.close(fd);
            fd = t.open("/d/small", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(fd, "hello".getBytes(StandardCharsets.UTF_8));
            t.fdatasync(fd);
            int small = fd;
            fd = t.open("/d/bysyncfs", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(fd, "synced".getBytes(StandardCharsets.UTF_8));
            t.syncfs(fd);
            t.close(fd);
            // written after the last write-back: not promised, and here not written back
            t.write(small, " world".getBytes(StandardCharsets.UTF_8));
            t.close(small);
            fd = t.open("/d/gone", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(fd, "x".getBytes(StandardCharsets.UTF_8));
            t.fsync(fd);
            t.close(fd);
            t.unlink("/d/gone");
            before = t.stat("/d/big");
        }
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertArrayEquals(big, read(t, "/d/big"));
            Stat s = t.stat("/d/big");
            assertEquals(before.size(), s.size());
            assertEquals(before.mode(), s.mode());
            assertEquals(before.mtimeNanos(), s.mtimeNanos());
            assertEquals("hello", new String(read(t, "/d/small"), StandardCharsets.UTF_8));
            assertEquals("synced", new String(read(t, "/d/bysyncfs"), StandardCharsets.UTF_8));
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
        // the unlinked file's row was deleted: three rows are left
        try (java.sql.Connection c =
                        java.sql.DriverManager.getConnection(
                                "jdbc:h2:file:" + data.resolve("seqvfs"), "sa", "");
                java.sql.ResultSet r =
                        c.createStatement().executeQuery("SELECT COUNT(*) FROM seqvfs_file")) {
            r.next();
            assertEquals(3, r.getInt(1));
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }
}
