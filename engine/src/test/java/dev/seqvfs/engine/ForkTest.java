package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SeqVfs#fork()}: the fork has the source's contents at one instant, and from then on no
 * write on either side is visible on the other.
 *
 * <pre>
 * /                  fixture
 * ├── a/
 * │   ├── f          3 pages and a bit, xattr user.k=v, mode 0640
 * │   ├── g          hard link of /b/h
 * │   └── s -> f
 * ├── b/
 * │   ├── h          one page
 * │   └── e/         empty
 * ├── tmp/           a tmpfs of its own, holding /tmp/t
 * └── proc/          procfs (mounted afresh in the fork)
 * </pre>
 */
class ForkTest {
    private static final int F_SIZE = 3 * 4096 + 100;

    private final List<SeqVfs> open = new ArrayList<>();
    private SeqVfs vfs;

    @BeforeEach
    void setUp() {
        vfs = track(SeqVfs.create());
        try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
            fixture(t);
        }
    }

    /** Builds the fixture tree drawn in the class comment (but /proc) with {@code t}. */
    static void fixture(VfsTask t) {
        t.mkdir("/a", 0755);
        t.mkdir("/b", 0755);
        t.mkdir("/b/e", 0755);
        writeFile(t, "/a/f", fill(F_SIZE, (byte) 'f'));
        t.chmod("/a/f", 0640);
        t.setxattr("/a/f", "user.k", bytes("v"), 0);
        writeFile(t, "/b/h", fill(4096, (byte) 'h'));
        t.link("/b/h", "/a/g");
        t.symlink("f", "/a/s");
        t.mkdir("/tmp", 01777);
        t.mount("tmpfs", "/tmp", "tmpfs", 0, "size=1m");
        writeFile(t, "/tmp/t", bytes("on tmp"));
    }

    @AfterEach
    void tearDown() {
        for (SeqVfs v : open) {
            if (!v.isClosed()) {
                assertEquals(List.of(), Fsck.check(v, true), "fsck");
            }
            v.close();
        }
    }

    private SeqVfs track(SeqVfs v) {
        open.add(v);
        return v;
    }

    @Test
    void fork_hasTheSameContents() {
        Map<String, String> before = digest(vfs);
        SeqVfs f = track(vfs.fork());
        assertEquals(before, digest(f));
        try (VfsTask t = f.newTask(Credentials.ROOT)) {
            assertEquals(2, t.stat("/a/g").nlink());
            assertEquals(t.stat("/a/g").ino(), t.stat("/b/h").ino());
            assertEquals("f", t.readlink("/a/s"));
            assertArrayEquals(bytes("v"), t.getxattr("/a/f", "user.k"));
            // procfs is the fork's own: it lists the fork's tasks
            assertEquals(FileType.SYMLINK, t.lstat("/proc/self").type());
        }
    }

    /** Every kind of write, made on one side; the other side's digest must not move. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void everyWrite_onOneSide_isInvisibleOnTheOther(boolean writeTheFork) {
        SeqVfs f = track(vfs.fork());
        SeqVfs writer = writeTheFork ? f : vfs;
        SeqVfs other = writeTheFork ? vfs : f;
        Map<String, String> before = digest(other);
        List<Consumer<VfsTask>> writes = writes();
        try (VfsTask t = writer.newTask(Credentials.ROOT)) {
            Map<String, String> last = digest(writer);
            for (int i = 0; i < writes.size(); i++) {
                writes.get(i).accept(t);
                Map<String, String> now = digest(writer);
                assertNotEquals(last, now, "write " + i + " changed nothing on its own side");
                last = now;
                assertEquals(before, digest(other), "write " + i + " seen on the other side");
            }
        }
    }

    /**
     * Every kind of write the fork tests make, in an order in which each applies to the fixture
     * after the ones before it: data (straddling pages, a whole page, through a hard link),
     * truncate, attributes by path and by descriptor, xattrs, links, renames within and across
     * directories, mkdir, rmdir, symlink, create, a write on another tmpfs, umount and mount.
     */
    static List<Consumer<VfsTask>> writes() {
        return List.of(
                t -> pwrite(t, "/a/f", bytes("XY"), 4095), // straddles pages 0 and 1
                t -> pwrite(t, "/a/f", fill(4096, (byte) 'z'), 8192), // whole page 2
                t -> pwrite(t, "/a/g", bytes("via the hard link"), 0),
                t -> t.truncate("/b/h", 10),
                t -> t.chmod("/a/f", 0600),
                t -> t.chown("/a/f", 7, 8),
                t ->
                        t.utimensat(
                                OpenFlags.AT_FDCWD,
                                "/a/f",
                                Timespec.ofNanos(1_000_000_000L),
                                Timespec.ofNanos(2_000_000_000L),
                                0),
                t -> t.setxattr("/a/f", "user.k", bytes("w"), 0),
                t -> t.setxattr("/b/e", "user.d", bytes("dir"), 0),
                t -> t.removexattr("/a/f", "user.k"),
                t -> {
                    int fd = t.open("/a/f", OpenFlags.O_RDWR);
                    t.fchmod(fd, 0604);
                    t.ftruncate(fd, 5000);
                    t.close(fd);
                },
                t -> t.link("/a/f", "/b/f2"),
                t -> t.unlink("/a/g"),
                t -> t.rename("/a/s", "/a/s2"),
                t -> t.rename("/b/h", "/a/h"),
                t -> t.rename("/b/e", "/a/e"),
                t -> t.mkdir("/a/new", 0700),
                t -> t.rmdir("/a/e"),
                t -> t.symlink("/nowhere", "/b/l"),
                t -> writeFile(t, "/b/created", bytes("new")),
                t -> t.chmod("/a", 0700),
                t -> pwrite(t, "/tmp/t", bytes("ON TMP"), 0),
                t -> t.mkdir("/tmp/d", 0755),
                t -> t.umount("/tmp"),
                t -> t.mount("tmpfs", "/a/new", "tmpfs", 0, "mode=0711"));
    }

    /**
     * Every kind of write, made on the source after a fork that nothing has read yet: the fork,
     * whose directories are built only when first read, still shows the source as it was at the
     * fork (one fresh fork per write, so each write lands on directories the fork has not built).
     */
    @Test
    void everyWrite_onTheSource_isInvisibleInAForkNotReadYet() {
        List<Consumer<VfsTask>> writes = writes();
        try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
            for (int i = 0; i < writes.size(); i++) {
                Map<String, String> before = digest(vfs);
                SeqVfs f = track(vfs.fork());
                writes.get(i).accept(t);
                assertNotEquals(before, digest(vfs), "write " + i + " changed nothing");
                assertEquals(before, digest(f), "write " + i + " seen in a fork not read yet");
            }
        }
    }

    /**
     * Every kind of write, made on a fork that nothing has read yet, has the effect it has on a
     * fork that has been read whole (same fixture, a clock that stands still): building a directory
     * on its first read (here by the write's own walk) changes nothing the write sees. Each step
     * forks the read fork again, so every write lands on a fresh, unbuilt fork of a fork; the
     * source never moves.
     */
    @Test
    void everyWrite_onAForkNotReadYet_actsAsOnAForkReadWhole() {
        SeqVfs src =
                track(
                        SeqVfs.create(
                                ConfigFactory.parseString("seqvfs.proc.mount = off"), () -> 7L));
        try (VfsTask t = src.newTask(Credentials.ROOT)) {
            fixture(t);
        }
        Map<String, String> srcBefore = digest(src);
        SeqVfs built = track(src.fork());
        digest(built);
        List<Consumer<VfsTask>> writes = writes();
        try (VfsTask tb = built.newTask(Credentials.ROOT)) {
            for (int i = 0; i < writes.size(); i++) {
                SeqVfs lazy = track(built.fork());
                try (VfsTask tl = lazy.newTask(Credentials.ROOT)) {
                    writes.get(i).accept(tl);
                }
                writes.get(i).accept(tb);
                // inode numbers of new inodes come from each side's own batches: left out
                assertEquals(
                        withoutInos(digest(built)),
                        withoutInos(digest(lazy)),
                        "write " + i + " on an unbuilt fork");
                assertEquals(srcBefore, digest(src), "write " + i + " seen in the source");
            }
        }
    }

    private static Map<String, String> withoutInos(Map<String, String> digest) {
        Map<String, String> out = new TreeMap<>();
        digest.forEach((k, v) -> out.put(k, v.replaceAll(" ino=[0-9]+", "")));
        return out;
    }

    /**
     * Pages a source file drops after a fork (a truncate, the free of an unlinked file) are not
     * given to the source's free-page cache, from which its next writes take pages: the fork, which
     * has not read the file yet and reads it from the source's version at the fork, still gets the
     * bytes it had ({@code RegularInode.recyclingPool}).
     */
    @Test
    void pagesDroppedInTheSource_afterAFork_areNotReusedUnderTheFork() {
        byte[] orig = fill(8 * 4096, (byte) 'o');
        byte[] gone = fill(8 * 4096, (byte) 'g');
        try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
            writeFile(t, "/a/big", orig);
            writeFile(t, "/a/gone", gone);
            SeqVfs f = track(vfs.fork());
            t.truncate("/a/big", 0);
            t.unlink("/a/gone");
            writeFile(t, "/b/other", fill(16 * 4096, (byte) 'x'));
            try (VfsTask ft = f.newTask(Credentials.ROOT)) {
                assertArrayEquals(orig, read(ft, "/a/big", 0, orig.length));
                assertArrayEquals(gone, read(ft, "/a/gone", 0, gone.length));
            }
        }
    }

    @Test
    void forksOfForks_areIndependent() {
        SeqVfs b = track(vfs.fork());
        try (VfsTask t = b.newTask(Credentials.ROOT)) {
            pwrite(t, "/a/f", bytes("b"), 0);
        }
        SeqVfs c = track(b.fork());
        Map<String, String> aBefore = digest(vfs);
        Map<String, String> bBefore = digest(b);
        assertEquals(bBefore, digest(c));
        try (VfsTask t = c.newTask(Credentials.ROOT)) {
            pwrite(t, "/a/f", bytes("c"), 0);
            pwrite(t, "/a/f", bytes("c"), 4096);
            t.unlink("/b/h");
        }
        try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
            pwrite(t, "/a/f", bytes("a"), 4096);
        }
        assertEquals(bBefore, digest(b));
        try (VfsTask ta = vfs.newTask(Credentials.ROOT);
                VfsTask tb = b.newTask(Credentials.ROOT);
                VfsTask tc = c.newTask(Credentials.ROOT)) {
            assertEquals('f', read(ta, "/a/f", 0, 1)[0]);
            assertEquals('a', read(ta, "/a/f", 4096, 1)[0]);
            assertEquals('b', read(tb, "/a/f", 0, 1)[0]);
            assertEquals('f', read(tb, "/a/f", 4096, 1)[0]);
            assertEquals('c', read(tc, "/a/f", 0, 1)[0]);
            assertEquals('c', read(tc, "/a/f", 4096, 1)[0]);
            assertEquals(2, tb.stat("/a/g").nlink());
            assertEquals(1, tc.stat("/a/g").nlink());
        }
        assertNotEquals(aBefore, digest(vfs));
    }

    @Test
    void closingTheOriginal_leavesTheForkWorking() {
        SeqVfs f = track(vfs.fork());
        Map<String, String> before = digest(vfs);
        vfs.close();
        assertEquals(before, digest(f));
        try (VfsTask t = f.newTask(Credentials.ROOT)) {
            pwrite(t, "/a/f", bytes("after"), 0);
            t.mkdir("/a/later", 0755);
            t.rename("/b/h", "/a/later/h");
            assertEquals("after", new String(read(t, "/a/f", 0, 5), StandardCharsets.ISO_8859_1));
        }
        SeqVfs g = track(f.fork());
        assertEquals(digest(f), digest(g));
    }

    @Test
    void forkOfAClosedInstance_failsWithEIO() {
        SeqVfs v = track(SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off")));
        v.close();
        VfsException e = assertThrows(VfsException.class, v::fork);
        assertEquals(Errno.EIO, e.errno());
    }

    /**
     * Forks taken while a writer runs see each of its writes whole or not at all, and in order: the
     * writer stamps round {@code k} into {@code /w/x} (3 pages, straddling), then {@code /w/y},
     * then creates {@code /w/n<k>}, then chmods {@code /w/y}; a fork must show uniform buffers and
     * a state the writer passed through: {@code x} at most one round ahead of {@code y}, the names
     * and the mode of the same round.
     */
    @Test
    void forkDuringWrites_seesEachWriteWholeAndInOrder() throws Exception {
        int rounds = 2000;
        int len = 3 * 4096 - 10;
        try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
            t.mkdir("/w", 0755);
            writeFile(t, "/w/x", fill(len, (byte) 0));
            writeFile(t, "/w/y", fill(len, (byte) 0));
        }
        Thread writer =
                new Thread(
                        () -> {
                            try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
                                int x = t.open("/w/x", OpenFlags.O_RDWR);
                                int y = t.open("/w/y", OpenFlags.O_RDWR);
                                for (int k = 1; k <= rounds; k++) {
                                    byte[] buf = fill(len, (byte) k);
                                    t.pwrite(x, buf, 0, len, 5);
                                    t.pwrite(y, buf, 0, len, 5);
                                    t.close(
                                            t.open(
                                                    "/w/n" + k,
                                                    OpenFlags.O_CREAT | OpenFlags.O_WRONLY,
                                                    0644));
                                    t.chmod("/w/y", 0600 | (k & 077));
                                }
                                t.close(x);
                                t.close(y);
                            }
                        },
                        "fork-test-writer");
        writer.start();
        int forks = 0;
        while (writer.isAlive() || forks == 0) {
            try (SeqVfs f = vfs.fork();
                    VfsTask t = f.newTask(Credentials.ROOT)) {
                forks++;
                byte[] x = read(t, "/w/x", 5, len);
                byte[] y = read(t, "/w/y", 5, len);
                int kx = uniform(x);
                int ky = uniform(y);
                int names = 0;
                for (DirEntry e : t.readdir("/w")) {
                    if (e.name().startsWith("n")) {
                        names++;
                    }
                }
                int mode = t.stat("/w/y").mode() & 077;
                String state = "x=" + kx + " y=" + ky + " names=" + names + " mode=" + mode;
                // Round k writes x, then y, then creates n<k>, then chmods y to k & 077: with n
                // names, either chmod n is done and x, y are at n or one round ahead, or it is not
                // and x, y are at n (the stamps are bytes: round k stamps k & 0xff).
                int n = names & 0xff;
                int n1 = (names + 1) & 0xff;
                if (mode == modeAfter(names)) {
                    assertTrue(
                            (kx == n && ky == n) || (kx == n1 && ky == n) || (kx == n1 && ky == n1),
                            state);
                } else {
                    assertEquals(modeAfter(names - 1), mode, state);
                    assertTrue(kx == n && ky == n, state);
                }
                assertEquals(List.of(), Fsck.check(f, true));
            }
        }
        writer.join();
        assertTrue(forks > 0);
    }

    /** The permission bits of {@code /w/y} (group and other) once round {@code r} is done. */
    private static int modeAfter(int r) {
        return r <= 0 ? 044 : r & 077;
    }

    private static int uniform(byte[] b) {
        for (byte v : b) {
            assertEquals(b[0], v, "torn write in a fork");
        }
        return b[0] & 0xff;
    }

    // ---- helpers ----

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] fill(int n, byte v) {
        byte[] b = new byte[n];
        Arrays.fill(b, v);
        return b;
    }

    static void writeFile(VfsTask t, String path, byte[] data) {
        int fd = t.open(path, OpenFlags.O_CREAT | OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0644);
        try {
            t.write(fd, data);
        } finally {
            t.close(fd);
        }
    }

    static void pwrite(VfsTask t, String path, byte[] data, long pos) {
        int fd = t.open(path, OpenFlags.O_WRONLY);
        try {
            assertEquals(data.length, t.pwrite(fd, data, 0, data.length, pos));
        } finally {
            t.close(fd);
        }
    }

    static byte[] read(VfsTask t, String path, long pos, int len) {
        int fd = t.open(path, OpenFlags.O_RDONLY);
        try {
            byte[] b = new byte[len];
            int n = t.pread(fd, b, 0, len, pos);
            return Arrays.copyOf(b, n);
        } finally {
            t.close(fd);
        }
    }

    /**
     * A digest of every name under "/" except /proc: path → type, ino, mode, nlink, owner, size,
     * mtime, ctime, xattrs, and the data or link target (atime is left out: reading moves it).
     */
    static Map<String, String> digest(SeqVfs v) {
        Map<String, String> out = new TreeMap<>();
        try (VfsTask t = v.newTask(Credentials.ROOT)) {
            digest(t, "/", out);
        }
        return out;
    }

    private static void digest(VfsTask t, String path, Map<String, String> out) {
        Stat s = t.lstat(path);
        StringBuilder d = new StringBuilder();
        d.append(s.type())
                .append(" ino=")
                .append(s.ino())
                .append(" mode=")
                .append(Integer.toOctalString(s.mode()))
                .append(" nlink=")
                .append(s.nlink())
                .append(" own=")
                .append(s.uid())
                .append(':')
                .append(s.gid())
                .append(" size=")
                .append(s.size())
                .append(" blocks=")
                .append(s.blocks())
                .append(" mtime=")
                .append(s.mtimeNanos())
                .append(" ctime=")
                .append(s.ctimeNanos());
        if (s.type() != FileType.SYMLINK) {
            for (String x : new TreeMap<>(toMap(t.listxattr(path))).keySet()) {
                d.append(' ')
                        .append(x)
                        .append('=')
                        .append(new String(t.getxattr(path, x), StandardCharsets.ISO_8859_1));
            }
        }
        if (s.type() == FileType.SYMLINK) {
            d.append(" -> ").append(t.readlink(path));
        } else if (s.type() == FileType.REGULAR) {
            d.append(" data=").append(Arrays.hashCode(read(t, path, 0, (int) s.size())));
        }
        out.put(path, d.toString());
        if (s.type() == FileType.DIRECTORY) {
            List<String> names = new ArrayList<>();
            for (DirEntry e : t.readdir(path)) {
                if (!e.name().equals(".") && !e.name().equals("..")) {
                    names.add(e.name());
                }
            }
            for (String n : names) {
                String child = path.equals("/") ? "/" + n : path + "/" + n;
                if (!child.equals("/proc")) {
                    digest(t, child, out);
                }
            }
        }
    }

    private static Map<String, Boolean> toMap(List<String> l) {
        Map<String, Boolean> m = new TreeMap<>();
        for (String s : l) {
            m.put(s, Boolean.TRUE);
        }
        return m;
    }
}
