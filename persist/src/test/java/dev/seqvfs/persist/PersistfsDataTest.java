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
 * File data on persistfs: what {@code fsync}, {@code fdatasync}, {@code syncfs}, the periodic
 * write-back and the unmount wrote back is what the next instance reads, with its size, mode and
 * times; a file unlinked before the remount leaves no row behind.
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
            // written after the last write-back: written back at the unmount (close), as umount
            // writes back what is dirty
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
            assertEquals("hello world", new String(read(t, "/d/small"), StandardCharsets.UTF_8));
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

    /** The content row of {@code ino}, read through another connection, or {@code null}. */
    private static byte[] row(Path data, long ino) throws java.sql.SQLException {
        try (java.sql.Connection c =
                        java.sql.DriverManager.getConnection(
                                "jdbc:h2:file:" + data.resolve("seqvfs") + ";WRITE_DELAY=0",
                                "sa",
                                "");
                java.sql.PreparedStatement p =
                        c.prepareStatement("SELECT content FROM seqvfs_file WHERE ino = ?")) {
            p.setLong(1, ino);
            try (java.sql.ResultSet r = p.executeQuery()) {
                return r.next() ? r.getBytes(1) : null;
            }
        }
    }

    @Test
    void writtenData_isWrittenBackPeriodically_withoutAnyFsync() throws Exception {
        com.typesafe.config.Config conf =
                com.typesafe.config.ConfigFactory.parseString(
                                "seqvfs.persistfs.writeback-interval = 100ms")
                        .withFallback(PersistfsRemountTest.config(data));
        try (SeqVfs vfs = SeqVfs.create(conf)) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            int fd = t.open("/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(fd, "first".getBytes(StandardCharsets.UTF_8));
            long ino = t.fstat(fd).ino();
            // well within the default interval (5 s): only the configured 100 ms meets it
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(4);
            byte[] got = row(data, ino);
            while (got == null && System.nanoTime() < deadline) {
                Thread.sleep(20);
                got = row(data, ino);
            }
            assertArrayEquals("first".getBytes(StandardCharsets.UTF_8), got);
            // a later write is written back again, the file still open
            t.write(fd, "+more".getBytes(StandardCharsets.UTF_8));
            byte[] want = "first+more".getBytes(StandardCharsets.UTF_8);
            while (!Arrays.equals(want, got) && System.nanoTime() < deadline) {
                Thread.sleep(20);
                got = row(data, ino);
            }
            assertArrayEquals(want, got);
            t.close(fd);
        }
    }

    @Test
    void onASyncMount_andThroughAnOSyncDescriptor_aWriteIsWrittenBackBeforeItReturns()
            throws Exception {
        // no periodic write-back: only the write itself can have written the row
        com.typesafe.config.Config conf =
                com.typesafe.config.ConfigFactory.parseString(
                                "seqvfs.persistfs.writeback-interval = 0s")
                        .withFallback(PersistfsRemountTest.config(data));
        Path second = data.resolve("second");
        try (SeqVfs vfs = SeqVfs.create(conf)) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            int plain = t.open("/plain", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(plain, "not yet".getBytes(StandardCharsets.UTF_8));
            int osync =
                    t.open(
                            "/osync",
                            OpenFlags.O_CREAT | OpenFlags.O_WRONLY | OpenFlags.O_SYNC,
                            0644);
            t.write(osync, "now".getBytes(StandardCharsets.UTF_8));
            assertArrayEquals(
                    "now".getBytes(StandardCharsets.UTF_8), row(data, t.fstat(osync).ino()));
            assertEquals(
                    null, row(data, t.fstat(plain).ino()), "a plain write waits for write-back");
            t.close(plain);
            t.close(osync);
            t.mkdir("/mnt", 0755);
            t.mount(null, "/mnt", "persistfs", 0, "sync,data_dir=" + second);
            int fd = t.open("/mnt/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(fd, "synchronous".getBytes(StandardCharsets.UTF_8));
            assertArrayEquals(
                    "synchronous".getBytes(StandardCharsets.UTF_8), row(second, t.fstat(fd).ino()));
            t.close(fd);
            t.umount2("/mnt", 0);
        }
    }

    @Test
    void aFileReplacedByARename_losesItsRow_whileMounted() throws Exception {
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/d", 0755);
            t.mkdir("/e", 0755);
            long[] replaced = new long[2];
            String[][] renames = {{"/d/new", "/d/old"}, {"/d/new2", "/e/old"}};
            for (int i = 0; i < renames.length; i++) {
                String victim = renames[i][1];
                int fd = t.open(victim, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
                t.write(fd, "replaced".getBytes(StandardCharsets.UTF_8));
                t.fsync(fd);
                replaced[i] = t.fstat(fd).ino();
                t.close(fd);
                assertArrayEquals(
                        "replaced".getBytes(StandardCharsets.UTF_8), row(data, replaced[i]));
                t.close(t.open(renames[i][0], OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
                t.rename(renames[i][0], victim); // within a directory, then between two
            }
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while ((row(data, replaced[0]) != null || row(data, replaced[1]) != null)
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(null, row(data, replaced[0]), "replaced within a directory");
            assertEquals(null, row(data, replaced[1]), "replaced by a move between directories");
        }
    }
}
