package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.FileType;
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

    /**
     * An attribute change through a descriptor (how the FUSE server makes every {@code chmod},
     * {@code chown}, {@code touch} and {@code setfattr}) is written back before it returns on a
     * {@code dirsync} mount, as the same change by path is journaled: a newcomer's {@code kill -9}
     * after them through the mount lost all four. On an {@code async} mount it waits for a
     * write-back, as a write does.
     */
    @Test
    void attributeChangesByDescriptor_areWrittenBackBeforeTheyReturn_onADirsyncMount() {
        for (String mode : List.of("", "async")) {
            Path dir = data.resolve("m" + mode);
            com.typesafe.config.Config c =
                    com.typesafe.config.ConfigFactory.parseMap(
                                    java.util.Map.of(
                                            "seqvfs.root.options",
                                            "data_dir=" + dir + (mode.isEmpty() ? "" : ",async")))
                            .withFallback(PersistfsType.rootConfig(dir));
            try (SeqVfs vfs = SeqVfs.create(c)) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                PersistfsOps ops = PersistfsType.mounted(dir);
                int fd = t.open("/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
                t.close(fd);
                long ino = t.stat("/f").ino();
                int opath = t.open("/f", OpenFlags.O_PATH, 0);
                try {
                    t.fchmodat(opath, "", 0600, OpenFlags.AT_EMPTY_PATH);
                    assertEquals(!mode.isEmpty(), ops.dirtyNow(ino), mode + ": after fchmodat");
                    t.fchownat(opath, "", 7, 7, OpenFlags.AT_EMPTY_PATH);
                    assertEquals(!mode.isEmpty(), ops.dirtyNow(ino), mode + ": after fchownat");
                } finally {
                    t.close(opath);
                }
                fd = t.open("/f", OpenFlags.O_RDONLY, 0);
                try {
                    t.fsetxattr(fd, "user.q", new byte[] {1}, 0);
                    assertEquals(!mode.isEmpty(), ops.dirtyNow(ino), mode + ": after fsetxattr");
                } finally {
                    t.close(fd);
                }
            }
            try (SeqVfs vfs = SeqVfs.create(c)) {
                Stat st = vfs.newTask(Credentials.ROOT).stat("/f");
                assertEquals(0600, st.mode() & 07777);
                assertEquals(7, st.uid());
            }
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
        try {
            assertEquals(3, StoredContent.rows(data));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** {@return a connection of its own to the data directory's database} */
    static java.sql.Connection db(Path data) throws java.sql.SQLException {
        return java.sql.DriverManager.getConnection(
                PersistStore.h2Url(data.toAbsolutePath().normalize()), "sa", "");
    }

    /** {@return the content of {@code ino} as written back ({@link StoredContent#row})} */
    static byte[] row(Path data, long ino) throws Exception {
        return StoredContent.row(data, ino);
    }

    /**
     * The content of {@code ino} as written back (its row's size, its blocks) to H2, read through
     * another connection, or {@code null} if it has no row.
     */
    static byte[] h2Row(Path data, long ino) throws java.sql.SQLException {
        try (java.sql.Connection c = db(data);
                java.sql.PreparedStatement p =
                        c.prepareStatement("SELECT size FROM seqvfs_file WHERE ino = ?");
                java.sql.PreparedStatement b =
                        c.prepareStatement("SELECT idx, data FROM seqvfs_block WHERE ino = ?")) {
            p.setLong(1, ino);
            byte[] out;
            try (java.sql.ResultSet r = p.executeQuery()) {
                if (!r.next()) {
                    return null;
                }
                out = new byte[(int) r.getLong(1)];
            }
            b.setLong(1, ino);
            try (java.sql.ResultSet r = b.executeQuery()) {
                while (r.next()) {
                    byte[] block = r.getBytes(2);
                    System.arraycopy(
                            block, 0, out, (int) r.getLong(1) * DataStore.BLOCK, block.length);
                }
            }
            return out;
        }
    }

    /** {@return how many content blocks {@code ino} has stored ({@link StoredContent#blocks})} */
    private static long storedBlocks(Path data, long ino) throws Exception {
        return StoredContent.blocks(data, ino);
    }

    /** {@return how many content blocks {@code ino} has stored in H2} */
    static long h2Blocks(Path data, long ino) throws java.sql.SQLException {
        try (java.sql.Connection c = db(data);
                java.sql.PreparedStatement p =
                        c.prepareStatement("SELECT COUNT(*) FROM seqvfs_block WHERE ino = ?")) {
            p.setLong(1, ino);
            try (java.sql.ResultSet r = p.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    /**
     * Group commit of file data ({@code DataStore.write}): 16 threads fsync'ing files at once share
     * transactions, and every file's content (each thread's own bytes, rewritten in place and
     * extended between fsyncs) is what the next instance reads back.
     */
    @Test
    void concurrentFsyncs_shareTransactions_andEveryFileReadsBackItsOwnContent() throws Exception {
        int threads = 16;
        int files = 12;
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask setup = vfs.newTask(Credentials.ROOT);
            java.util.concurrent.ExecutorService pool =
                    java.util.concurrent.Executors.newFixedThreadPool(threads);
            try {
                List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
                for (int w = 0; w < threads; w++) {
                    String dir = "/w" + w;
                    setup.mkdir(dir, 0755);
                    int id = w;
                    done.add(
                            pool.submit(
                                    () -> {
                                        VfsTask t = vfs.newTask(Credentials.ROOT);
                                        for (int f = 0; f < files; f++) {
                                            int fd =
                                                    t.open(
                                                            dir + "/f" + f,
                                                            OpenFlags.O_CREAT | OpenFlags.O_WRONLY,
                                                            0644);
                                            t.write(fd, content(id, f, 5000));
                                            t.fsync(fd);
                                            byte[] b = content(id, f, 70_000);
                                            t.pwrite(fd, b, 0, b.length, 0);
                                            t.fsync(fd);
                                            t.close(fd);
                                        }
                                        t.close();
                                        return null;
                                    }));
                }
                for (var f : done) {
                    f.get(120, java.util.concurrent.TimeUnit.SECONDS);
                }
                long[] n = PersistfsType.mounted(data).data.groupCounts();
                assertTrue(
                        n[1] < n[0],
                        n[0] + " writes in " + n[1] + " transactions: none shared one");
            } finally {
                pool.shutdownNow();
            }
        }
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            for (int w = 0; w < threads; w++) {
                for (int f = 0; f < files; f++) {
                    String p = "/w" + w + "/f" + f;
                    byte[] want = content(w, f, 70_000);
                    byte[] got = new byte[want.length + 1];
                    int fd = t.open(p, OpenFlags.O_RDONLY);
                    int n = t.read(fd, got, 0, got.length);
                    t.close(fd);
                    assertArrayEquals(want, java.util.Arrays.copyOf(got, n), p);
                }
            }
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }

    /** {@return {@code n} bytes that only file {@code f} of thread {@code w} holds} */
    private static byte[] content(int w, int f, int n) {
        byte[] b = new byte[n];
        new java.util.Random(w * 1000L + f).nextBytes(b);
        return b;
    }

    @Test
    void aSmallChangeToALargeFile_writesBackOneBlock_andASparseFileOnlyWhatItHolds()
            throws Exception {
        byte[] mib = new byte[1 << 20];
        new java.util.Random(7).nextBytes(mib);
        long tb = 1L << 40;
        long ino;
        long sparse;
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            PersistfsOps ops = PersistfsType.mounted(data);
            int fd = t.open("/big", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            for (int i = 0; i < 8; i++) {
                t.write(fd, mib);
            }
            t.fsync(fd);
            ino = t.fstat(fd).ino();
            assertEquals(128, storedBlocks(data, ino), "8 MiB in 64 KiB blocks");
            long before = ops.blocksWritten.get();
            t.pwrite(fd, "change".getBytes(StandardCharsets.UTF_8), 0, 6, 5L << 20);
            t.fsync(fd);
            assertEquals(1, ops.blocksWritten.get() - before, "one block changed, one written");
            t.fsync(fd);
            assertEquals(1, ops.blocksWritten.get() - before, "a clean file writes nothing");
            // a truncate below a block and an extend by a hole: the blocks past it are gone
            t.ftruncate(fd, 3L << 20);
            t.ftruncate(fd, 8L << 20);
            t.fsync(fd);
            assertEquals(48, storedBlocks(data, ino), "3 MiB of data left, then a hole");
            t.close(fd);
            // a terabyte file with a byte at each end: two blocks, not a terabyte
            fd = t.open("/sparse", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
            t.pwrite(fd, new byte[] {1}, 0, 1, 0);
            t.pwrite(fd, new byte[] {2}, 0, 1, tb - 1);
            t.fsync(fd);
            sparse = t.fstat(fd).ino();
            assertEquals(2, storedBlocks(data, sparse));
            t.close(fd);
        }
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            int fd = t.open("/big", OpenFlags.O_RDONLY);
            assertEquals(8L << 20, t.fstat(fd).size());
            byte[] got = new byte[1 << 20];
            assertEquals(got.length, t.pread(fd, got, 0, got.length, 2L << 20));
            assertArrayEquals(mib, got, "the third MiB, as written");
            assertEquals(got.length, t.pread(fd, got, 0, got.length, 5L << 20));
            assertArrayEquals(new byte[1 << 20], got, "past the truncate: a hole");
            t.close(fd);
            fd = t.open("/sparse", OpenFlags.O_RDONLY);
            assertEquals(tb, t.fstat(fd).size());
            byte[] one = new byte[1];
            t.pread(fd, one, 0, 1, tb - 1);
            assertEquals(2, one[0]);
            t.pread(fd, one, 0, 1, 0);
            assertEquals(1, one[0]);
            // the last page, not its whole block: pages of zeros stay holes
            assertEquals(tb - 4096, t.lseek(fd, 1 << 20, VfsTask.SEEK_DATA));
            t.close(fd);
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }

    /** The configuration of an instance whose root is persistfs on H2 in {@code data}. */
    private static com.typesafe.config.Config h2Config(Path data) {
        return com.typesafe.config.ConfigFactory.parseMap(
                        java.util.Map.of(
                                "seqvfs.root.options",
                                "store=h2,data_dir=" + data.toAbsolutePath().normalize()))
                .withFallback(PersistfsRemountTest.config(data));
    }

    /** H2's first schema (a row with the whole content): only H2 data directories have it. */
    @Test
    void aFileInTheFirstSchema_recoversFromItsWholeContentRow_andMovesToBlocks() throws Exception {
        long ino;
        try (SeqVfs vfs = SeqVfs.create(h2Config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            int fd = t.open("/old", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(fd, "x".getBytes(StandardCharsets.UTF_8));
            t.fsync(fd);
            ino = t.fstat(fd).ino();
            t.close(fd);
        }
        // the row as the first schema wrote it: the whole content in the row, no block
        try (java.sql.Connection c = db(data);
                java.sql.PreparedStatement p =
                        c.prepareStatement(
                                "UPDATE seqvfs_file SET content = ?, size = 11 WHERE ino = ?");
                java.sql.PreparedStatement d =
                        c.prepareStatement("DELETE FROM seqvfs_block WHERE ino = ?")) {
            p.setBytes(1, "old content".getBytes(StandardCharsets.UTF_8));
            p.setLong(2, ino);
            assertEquals(1, p.executeUpdate());
            d.setLong(1, ino);
            d.executeUpdate();
        }
        // a data directory that holds an H2 database goes on using it, without store=h2
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals("old content", new String(read(t, "/old"), StandardCharsets.UTF_8));
        }
        // the unmount wrote it back in blocks
        assertEquals(1, storedBlocks(data, ino));
        assertArrayEquals("old content".getBytes(StandardCharsets.UTF_8), row(data, ino));
    }

    /**
     * Attribute names are bytes: names that are not UTF-8 ({@code user.\xff}, {@code user.\xfe}, as
     * text {@code "user.\udcff"}: surrogateescape) on a directory, a file and a symbolic link
     * survive a remount as themselves, and the directory's journal takes them. Found through the
     * mount: CBOR could not write such a name (the directory's journal failed, with EIO and then
     * lost files), and a file's stored attributes turned each such byte into {@code '?'}.
     */
    @Test
    void extendedAttributeNames_thatAreNotUtf8_surviveARemount() {
        String ff = "user.\udcffa";
        String fe = "user.\udcfea";
        String valid = "user.\u00e9t\u00e9";
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/x", 0755);
            t.setxattr("/x", ff, new byte[] {1}, 0);
            t.setxattr("/x", valid, new byte[] {9}, 0);
            t.close(t.open("/x/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.setxattr("/x/f", ff, new byte[] {2}, 0);
            t.setxattr("/x/f", fe, new byte[] {3}, 0);
            t.symlink("f", "/x/l");
            t.lsetxattr("/x/l", "trusted.\udcff", new byte[] {4}, 0);
            t.mkdir("/x/after", 0755); // the journal goes on after the attribute
        }
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(
                    new java.util.TreeSet<>(List.of(ff, valid)),
                    new java.util.TreeSet<>(t.listxattr("/x")));
            assertArrayEquals(new byte[] {1}, t.getxattr("/x", ff));
            assertArrayEquals(new byte[] {9}, t.getxattr("/x", valid));
            assertEquals(
                    new java.util.TreeSet<>(List.of(ff, fe)),
                    new java.util.TreeSet<>(t.listxattr("/x/f")));
            assertArrayEquals(new byte[] {2}, t.getxattr("/x/f", ff));
            assertArrayEquals(new byte[] {3}, t.getxattr("/x/f", fe));
            assertArrayEquals(new byte[] {4}, t.lgetxattr("/x/l", "trusted.\udcff"));
            assertEquals(FileType.DIRECTORY, t.stat("/x/after").type());
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }

    @Test
    void extendedAttributes_byPathAndByDescriptor_onFilesAndDirectories_surviveARemount() {
        byte[] big = new byte[60_000];
        new java.util.Random(3).nextBytes(big);
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/d", 0755);
            t.close(t.open("/d/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.setxattr("/d/f", "user.path", "by path".getBytes(StandardCharsets.UTF_8), 0);
            t.setxattr("/d/f", "user.gone", new byte[] {1}, 0);
            t.removexattr("/d/f", "user.gone");
            t.setxattr("/d", "user.dir", big, 0);
            int fd = t.open("/g", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.fsetxattr(fd, "user.fd", "by descriptor".getBytes(StandardCharsets.UTF_8), 0);
            t.close(fd);
            t.setxattr("/", "trusted.root", new byte[0], 0);
        }
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(List.of("user.path"), t.listxattr("/d/f"));
            assertArrayEquals(
                    "by path".getBytes(StandardCharsets.UTF_8), t.getxattr("/d/f", "user.path"));
            assertArrayEquals(big, t.getxattr("/d", "user.dir"));
            assertArrayEquals(
                    "by descriptor".getBytes(StandardCharsets.UTF_8), t.getxattr("/g", "user.fd"));
            assertArrayEquals(new byte[0], t.getxattr("/", "trusted.root"));
            assertEquals(List.of(), Fsck.check(vfs, true));
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
