package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsClock;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A fork is one instant of its source, whatever runs at the same time (CONCURRENCY.md, "Fork"):
 * writers of every kind (data, truncate, attributes by path and by descriptor, xattrs, hard links,
 * renames within and across directories, mkdir and rmdir, symlinks, creates and unlinks) run on the
 * source, each in its own directory, while forks are taken, read whole and written, and forks of
 * forks are taken of forks whose source is still being written. Every fork must show, for each
 * writer, the state after some prefix of its calls (each call whole or not at all), the prefixes of
 * all writers together must be a cut that one instant could have seen (no call it holds started
 * after a call it lacks had returned; every call that returned before {@code fork()} was called is
 * in it, none that started after it returned), fsck must find nothing, and writes on a fork must
 * never reach the source (each writer checks the source against a private reference instance after
 * every call).
 *
 * <p>The state after each call is recorded from the reference (an instance nobody forks, given the
 * same calls), with a clock that stands still, so that the source, its forks and the reference
 * agree on times.
 *
 * <pre>
 * /wN/           one writer's directory
 *   f            3 pages, stamped, truncated, chmodded, xattrs, times, linked as sub/h
 *   sub/ far/    a file x moved between them (cross-directory rename); sub/h a hard link of f
 *   r or r2      renamed within /wN
 *   d/           made and removed
 *   s            a symlink made and removed
 *   cK           created and removed
 * </pre>
 */
class ForkOneInstantTest {
    private static final Config CONF = ConfigFactory.parseString("seqvfs.proc.mount = off");
    private static final VfsClock STILL = () -> 7L;
    private static final int LEN = 3 * 4096 + 17;

    /** One writer's calls, each one call that changes the tree, made on two instances in step. */
    private static final class Writer {
        final String dir;
        final List<Consumer<VfsTask>> calls = new ArrayList<>();

        /** Digest of the writer's directory after {@code i} calls (from the reference). */
        final List<Map<String, String>> states = new ArrayList<>();

        /** When call {@code i} started and returned on the forked instance ({@code nanoTime}). */
        final long[] start;

        final long[] end;

        Writer(String dir, int n) {
            this.dir = dir;
            boolean linked = false;
            boolean inSub = true;
            boolean renamed = false;
            boolean hasDir = false;
            boolean hasLink = false;
            for (int i = 0; calls.size() < n; i++) {
                int k = i;
                switch (i % 12) {
                    case 0 -> calls.add(t -> pwrite(t, dir + "/f", stamp(k), (k * 1000L) % 8192));
                    case 1 -> calls.add(t -> t.truncate(dir + "/f", 1 + (k * 777L) % LEN));
                    case 2 -> calls.add(t -> t.chmod(dir + "/f", 0600 | (k & 077)));
                    case 3 -> calls.add(t -> t.setxattr(dir + "/f", "user.k", bytes("v" + k), 0));
                    case 4 -> {
                        boolean l = linked;
                        calls.add(
                                t -> {
                                    if (l) {
                                        t.unlink(dir + "/sub/h");
                                    } else {
                                        t.link(dir + "/f", dir + "/sub/h");
                                    }
                                });
                        linked = !linked;
                    }
                    case 5 -> {
                        boolean s = inSub;
                        calls.add(
                                t ->
                                        t.rename(
                                                dir + (s ? "/sub/x" : "/far/x"),
                                                dir + (s ? "/far/x" : "/sub/x")));
                        inSub = !inSub;
                    }
                    case 6 -> {
                        boolean d = hasDir;
                        calls.add(
                                t -> {
                                    if (d) {
                                        t.rmdir(dir + "/d");
                                    } else {
                                        t.mkdir(dir + "/d", 0700 | (k & 07));
                                    }
                                });
                        hasDir = !hasDir;
                    }
                    case 7 -> {
                        boolean s = hasLink;
                        calls.add(
                                t -> {
                                    if (s) {
                                        t.unlink(dir + "/s");
                                    } else {
                                        t.symlink("t" + k, dir + "/s");
                                    }
                                });
                        hasLink = !hasLink;
                    }
                    case 8 -> {
                        calls.add(t -> t.mknod(dir + "/c" + k, Mode.S_IFREG | 0640, 0));
                        if (k >= 12) {
                            calls.add(t -> t.unlink(dir + "/c" + (k - 12)));
                        }
                    }
                    case 9 ->
                            calls.add(
                                    t ->
                                            t.utimensat(
                                                    OpenFlags.AT_FDCWD,
                                                    dir + "/f",
                                                    Timespec.ofNanos(k),
                                                    Timespec.ofNanos(2L * k),
                                                    0));
                    case 10 ->
                            calls.add(
                                    t -> {
                                        int fd = t.open(dir + "/f", OpenFlags.O_RDONLY);
                                        try {
                                            t.fchmod(fd, 0640 | (k & 07));
                                        } finally {
                                            t.close(fd);
                                        }
                                    });
                    default -> {
                        boolean r = renamed;
                        calls.add(
                                t -> t.rename(dir + (r ? "/r2" : "/r"), dir + (r ? "/r" : "/r2")));
                        renamed = !renamed;
                    }
                }
            }
            while (calls.size() > n) {
                calls.remove(calls.size() - 1);
            }
            start = new long[n];
            end = new long[n];
        }

        void setUp(VfsTask t) {
            t.mkdir(dir, 0755);
            t.mkdir(dir + "/sub", 0755);
            t.mkdir(dir + "/far", 0755);
            t.mknod(dir + "/f", Mode.S_IFREG | 0644, 0);
            pwrite(t, dir + "/f", fill(LEN, (byte) 1), 0);
            t.mknod(dir + "/sub/x", Mode.S_IFREG | 0644, 0);
            pwrite(t, dir + "/sub/x", bytes("moving"), 0);
            t.mknod(dir + "/r", Mode.S_IFREG | 0644, 0);
        }
    }

    /** A fork taken while the writers ran: when it was called and returned, and what it showed. */
    private record Seen(long t0, long t1, List<Map<String, String>> dirs) {}

    @Test
    void forksDuringWritersOfEveryKind_areOneInstant_andForksOfForksToo() throws Exception {
        int writers = 3;
        int calls = 600;
        try (SeqVfs src = SeqVfs.create(CONF, STILL);
                SeqVfs ref = SeqVfs.create(CONF, STILL)) {
            List<Writer> ws = new ArrayList<>();
            try (VfsTask ts = src.newTask(Credentials.ROOT);
                    VfsTask tr = ref.newTask(Credentials.ROOT)) {
                for (int w = 0; w < writers; w++) {
                    Writer wr = new Writer("/w" + w, calls);
                    wr.setUp(ts);
                    wr.setUp(tr);
                    wr.states.add(digest(tr, wr.dir));
                    ws.add(wr);
                }
            }
            // the writers run on the source; a fork of it, taken now, is written by its own
            // writers (below) while the source keeps changing under its unbuilt directories
            SeqVfs mid = src.fork();
            try (VfsTask tm = mid.newTask(Credentials.ROOT)) {
                for (Writer w : ws) {
                    assertEquals(w.states.get(0), digest(tm, w.dir), "the first fork");
                }
            }
            List<Writer> midWriters = new ArrayList<>();
            SeqVfs midRef = SeqVfs.create(CONF, STILL);
            try (VfsTask tm = mid.newTask(Credentials.ROOT);
                    VfsTask tr = midRef.newTask(Credentials.ROOT)) {
                for (int w = 0; w < 2; w++) {
                    Writer wr = new Writer("/m" + w, calls);
                    wr.setUp(tm);
                    wr.setUp(tr);
                    wr.states.add(digest(tr, wr.dir));
                    midWriters.add(wr);
                }
            }
            try {
                List<Seen> ofSrc = new ArrayList<>();
                List<Seen> ofMid = new ArrayList<>();
                AtomicReference<Throwable> failed = new AtomicReference<>();
                List<Thread> threads = new ArrayList<>();
                for (Writer w : ws) {
                    threads.add(writer(src, ref, w, failed));
                }
                for (Writer w : midWriters) {
                    threads.add(writer(mid, midRef, w, failed));
                }
                threads.forEach(Thread::start);
                Map<String, Map<String, String>> none = Map.of();
                Map<String, Map<String, String>> midHas = new TreeMap<>();
                for (Writer w : ws) {
                    midHas.put(w.dir, w.states.get(0));
                }
                while (threads.stream().anyMatch(Thread::isAlive) && failed.get() == null) {
                    ofSrc.add(forkAndRead(src, ws, none));
                    // a fork of the first fork: its writers' directories, and the source's as
                    // the first fork took them (read through two forks while the source changes)
                    ofMid.add(forkAndRead(mid, midWriters, midHas));
                }
                for (Thread th : threads) {
                    th.join();
                }
                if (failed.get() != null) {
                    throw new AssertionError("a writer failed", failed.get());
                }
                System.out.printf(
                        "%d forks of the source and %d of its first fork checked%n",
                        ofSrc.size(), ofMid.size());
                assertTrue(ofSrc.size() >= 3, "only " + ofSrc.size() + " forks while writing");
                check(ofSrc, ws);
                check(ofMid, midWriters);
                // the first fork never moved, whatever its source did
                try (VfsTask tm = mid.newTask(Credentials.ROOT)) {
                    for (Writer w : ws) {
                        assertEquals(w.states.get(0), digest(tm, w.dir), "the first fork, after");
                    }
                }
                assertEquals(List.of(), Fsck.check(src, true));
                assertEquals(List.of(), Fsck.check(mid, true));
            } finally {
                mid.close();
                midRef.close();
            }
        }
    }

    /** A writer thread: each call on the forked instance, timed, then on the reference. */
    private static Thread writer(
            SeqVfs on, SeqVfs ref, Writer w, AtomicReference<Throwable> failed) {
        return new Thread(
                () -> {
                    try (VfsTask t = on.newTask(Credentials.ROOT);
                            VfsTask tr = ref.newTask(Credentials.ROOT)) {
                        for (int i = 0; i < w.calls.size() && failed.get() == null; i++) {
                            w.start[i] = System.nanoTime();
                            w.calls.get(i).accept(t);
                            w.end[i] = System.nanoTime();
                            w.calls.get(i).accept(tr);
                            Map<String, String> expect = digest(tr, w.dir);
                            w.states.add(expect);
                            if (i % 8 == 0) {
                                // a fork's writes never reach here
                                assertEquals(expect, digest(t, w.dir), w.dir + " after call " + i);
                            }
                        }
                    } catch (Throwable e) {
                        failed.compareAndSet(null, e);
                    }
                },
                "fork-instant-writer" + w.dir.replace('/', '-'));
    }

    /**
     * Forks {@code v}, reads every writer's directory in the fork (while the writers go on) and
     * checks the directories in {@code fixed} against what they must hold, then writes over the
     * writers' directories in the fork, which no writer must see, and checks the fork with fsck.
     */
    private static Seen forkAndRead(
            SeqVfs v, List<Writer> ws, Map<String, Map<String, String>> fixed) {
        long t0 = System.nanoTime();
        SeqVfs f = v.fork();
        long t1 = System.nanoTime();
        try (VfsTask t = f.newTask(Credentials.ROOT)) {
            List<Map<String, String>> dirs = new ArrayList<>();
            for (Writer w : ws) {
                dirs.add(digest(t, w.dir));
            }
            fixed.forEach((dir, expect) -> assertEquals(expect, digest(t, dir), dir));
            assertEquals(List.of(), Fsck.check(f, true), "fsck of a fork");
            for (Writer w : ws) {
                pwrite(t, w.dir + "/f", fill(LEN, (byte) 'F'), 0);
                t.chmod(w.dir + "/f", 0);
                t.setxattr(w.dir + "/sub", "user.fork", bytes("x"), 0);
                t.rename(w.dir + "/sub", w.dir + "/gone");
                t.mknod(w.dir + "/forked", Mode.S_IFREG | 0600, 0);
            }
            assertEquals(List.of(), Fsck.check(f, true), "fsck of a fork written");
            return new Seen(t0, t1, dirs);
        } finally {
            f.close();
        }
    }

    /**
     * Checks every fork against the writers' recorded states and times: each writer's directory is
     * its state after some prefix of its calls, within the bounds the fork's call times give, and
     * the prefixes form a cut that one instant could have seen.
     */
    private static void check(List<Seen> seen, List<Writer> ws) {
        for (int n = 0; n < seen.size(); n++) {
            Seen s = seen.get(n);
            List<List<Integer>> candidates = new ArrayList<>();
            for (int w = 0; w < ws.size(); w++) {
                Writer wr = ws.get(w);
                int lo = 0; // calls returned before fork() was called: in it
                int hi = 0; // calls started before fork() returned: at most these
                for (int i = 0; i < wr.calls.size(); i++) {
                    if (wr.end[i] != 0 && wr.end[i] < s.t0()) {
                        lo = i + 1;
                    }
                    if (wr.start[i] != 0 && wr.start[i] <= s.t1()) {
                        hi = i + 1;
                    }
                }
                List<Integer> c = new ArrayList<>();
                for (int j = lo; j <= hi && j < wr.states.size(); j++) {
                    if (wr.states.get(j).equals(s.dirs().get(w))) {
                        c.add(j);
                    }
                }
                assertTrue(
                        !c.isEmpty(),
                        "fork "
                                + n
                                + ": "
                                + wr.dir
                                + " is no state its writer passed through between call "
                                + lo
                                + " and "
                                + hi
                                + ": "
                                + s.dirs().get(w));
                candidates.add(c);
            }
            assertTrue(
                    oneInstant(ws, candidates, new int[ws.size()], 0),
                    "fork " + n + ": no instant holds these prefixes " + candidates);
        }
    }

    /**
     * Whether some choice of prefixes (one per writer, from {@code candidates}) is a cut: no call
     * it holds started after a call it lacks returned.
     */
    private static boolean oneInstant(
            List<Writer> ws, List<List<Integer>> candidates, int[] pick, int w) {
        if (w == ws.size()) {
            for (int a = 0; a < ws.size(); a++) {
                for (int b = 0; b < ws.size(); b++) {
                    int in = pick[a] - 1; // the last call of a the cut holds
                    int out = pick[b]; // the first call of b it lacks
                    if (a != b
                            && in >= 0
                            && out < ws.get(b).calls.size()
                            && ws.get(b).end[out] < ws.get(a).start[in]) {
                        return false;
                    }
                }
            }
            return true;
        }
        for (int j : candidates.get(w)) {
            pick[w] = j;
            if (oneInstant(ws, candidates, pick, w + 1)) {
                return true;
            }
        }
        return false;
    }

    // ---- helpers ----

    static byte[] stamp(int k) {
        return fill(5000, (byte) (k * 31 + 1));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] fill(int n, byte v) {
        byte[] b = new byte[n];
        Arrays.fill(b, v);
        return b;
    }

    static void pwrite(VfsTask t, String path, byte[] data, long pos) {
        int fd = t.open(path, OpenFlags.O_WRONLY);
        try {
            assertEquals(data.length, t.pwrite(fd, data, 0, data.length, pos));
        } finally {
            t.close(fd);
        }
    }

    /**
     * What one directory holds, recursively: per name its type, mode, link count, owner, size,
     * blocks, times (but a directory's, which its writer sets outside the fork's order), extended
     * attributes, and data or link target. Inode numbers are left out (each instance gives its
     * own).
     */
    static Map<String, String> digest(VfsTask t, String dir) {
        Map<String, String> out = new TreeMap<>();
        digest(t, dir, out);
        return out;
    }

    private static void digest(VfsTask t, String path, Map<String, String> out) {
        Stat s = t.lstat(path);
        StringBuilder d = new StringBuilder();
        d.append(s.type())
                .append(" mode=")
                .append(Integer.toOctalString(s.mode()))
                .append(" nlink=")
                .append(s.nlink())
                .append(" own=")
                .append(s.uid())
                .append(':')
                .append(s.gid());
        if (s.type() != FileType.DIRECTORY) {
            d.append(" size=")
                    .append(s.size())
                    .append(" blocks=")
                    .append(s.blocks())
                    .append(" mtime=")
                    .append(s.mtimeNanos())
                    .append(" ctime=")
                    .append(s.ctimeNanos());
        }
        if (s.type() == FileType.SYMLINK) {
            d.append(" -> ").append(t.readlink(path));
        } else {
            for (String x : new TreeMap<>(toMap(t.listxattr(path))).keySet()) {
                d.append(' ')
                        .append(x)
                        .append('=')
                        .append(new String(t.getxattr(path, x), StandardCharsets.ISO_8859_1));
            }
        }
        if (s.type() == FileType.REGULAR) {
            int fd = t.open(path, OpenFlags.O_RDONLY);
            try {
                byte[] b = new byte[(int) s.size()];
                int n = t.pread(fd, b, 0, b.length, 0);
                d.append(" data=").append(Arrays.hashCode(Arrays.copyOf(b, n)));
            } finally {
                t.close(fd);
            }
        }
        out.put(path, d.toString());
        if (s.type() == FileType.DIRECTORY) {
            for (DirEntry e : t.readdir(path)) {
                if (!e.name().equals(".") && !e.name().equals("..")) {
                    digest(t, path + "/" + e.name(), out);
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
