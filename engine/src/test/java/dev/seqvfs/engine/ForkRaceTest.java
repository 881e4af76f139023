package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Forks racing the source's renames and writers, and the fork's own first readers racing each other
 * to make the twins of the same entries (a fork makes an entry's twin on its first sight): every
 * fork holds each moved name exactly once, a hard-linked file is one inode with the right link
 * count whichever name is built first, fsck finds nothing, and a write in the fork reaches every
 * name of the file there and none in the source.
 *
 * <pre>
 * /r0 .. /r3     the directories a renamer moves names between
 *   t0 .. t15    files, one name each, moved from directory to directory
 *   s0 .. s3     directories (each holding a file "in"), moved too
 * /r0/hl, /r1/hl one file, two names ("hl"); a writer adds and removes a third, /r3/hl2
 * /r2/tmp*       created and unlinked by the writer
 * </pre>
 */
class ForkRaceTest {
    private static final int DIRS = 4;
    private static final int FILES = 16;
    private static final int SUBDIRS = 4;
    private static final int RENAMES = 3000;
    private static final int MIN_FORKS = 20;

    @Test
    void forksRacingRenamesWritersAndBuilders_areWholeAndFsckClean() throws Exception {
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"))) {
            try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
                for (int d = 0; d < DIRS; d++) {
                    t.mkdir("/r" + d, 0755);
                }
                for (int i = 0; i < FILES; i++) {
                    ForkTest.writeFile(t, "/r0/t" + i, ForkTest.bytes("t" + i));
                }
                for (int i = 0; i < SUBDIRS; i++) {
                    t.mkdir("/r1/s" + i, 0755);
                    ForkTest.writeFile(t, "/r1/s" + i + "/in", ForkTest.bytes("in"));
                }
                ForkTest.writeFile(t, "/r0/hl", ForkTest.bytes("hl"));
                t.link("/r0/hl", "/r1/hl");
            }
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread renamer =
                    new Thread(
                            () -> {
                                int[] at = new int[FILES + SUBDIRS];
                                for (int i = 0; i < FILES; i++) {
                                    at[i] = 0;
                                }
                                for (int i = FILES; i < at.length; i++) {
                                    at[i] = 1;
                                }
                                try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
                                    for (int k = 0; k < RENAMES; k++) {
                                        int i = k % at.length;
                                        String name = i < FILES ? "t" + i : "s" + (i - FILES);
                                        int to = (at[i] + 1 + k / at.length % 3) % DIRS;
                                        t.rename("/r" + at[i] + "/" + name, "/r" + to + "/" + name);
                                        at[i] = to;
                                    }
                                } catch (Throwable e) {
                                    failed.compareAndSet(null, e);
                                }
                            },
                            "fork-race-renamer");
            Thread writer =
                    new Thread(
                            () -> {
                                try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
                                    for (int k = 0; renamer.isAlive(); k++) {
                                        ForkTest.writeFile(t, "/r2/tmp" + k, ForkTest.bytes("x"));
                                        if (k % 2 == 0) {
                                            t.link("/r0/hl", "/r3/hl2");
                                        } else {
                                            t.unlink("/r3/hl2");
                                        }
                                        t.unlink("/r2/tmp" + k);
                                        t.chmod("/r1/hl", 0600 | (k & 7) << 3);
                                    }
                                } catch (Throwable e) {
                                    failed.compareAndSet(null, e);
                                }
                            },
                            "fork-race-writer");
            renamer.start();
            writer.start();
            int forks = 0;
            try {
                while (failed.get() == null && (renamer.isAlive() || forks < MIN_FORKS)) {
                    try (SeqVfs f = vfs.fork()) {
                        forks++;
                        checkFork(f);
                    }
                }
            } finally {
                renamer.join();
                writer.join();
            }
            if (failed.get() != null) {
                throw new AssertionError("a source thread failed", failed.get());
            }
            assertTrue(forks >= MIN_FORKS);
            assertEquals(List.of(), Fsck.check(vfs, true));
            try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
                assertArrayEquals(ForkTest.bytes("hl"), ForkTest.read(t, "/r1/hl", 0, 10));
            }
        }
    }

    /**
     * Eight threads read the same fresh directories of a new fork at once, released together: every
     * one of them gets the same snapshot, the same directory twin under a name (one twin made per
     * entry wins, the others are dropped, none is returned), and one twin for the two names of a
     * hard-linked file in two directories that different threads see first. 200 fresh forks.
     */
    @Test
    void racingFirstReads_ofAForkedDirectory_allGetThePublishedBuild() throws Exception {
        int threads = 8;
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"))) {
            try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
                t.mkdir("/a", 0755);
                t.mkdir("/b", 0755);
                for (int i = 0; i < 50; i++) {
                    ForkTest.writeFile(t, "/a/f" + i, ForkTest.bytes("f" + i));
                    t.mkdir("/b/d" + i, 0755);
                }
                t.link("/a/f0", "/b/hl");
            }
            for (int round = 0; round < 200; round++) {
                try (SeqVfs f = vfs.fork()) {
                    dev.seqvfs.engine.dir.DirectoryInode root =
                            f.namespace().rootMount().superblock().root();
                    CyclicBarrier go = new CyclicBarrier(threads);
                    Object[][] seen = new Object[threads][];
                    AtomicReference<Throwable> failed = new AtomicReference<>();
                    List<Thread> readers = new ArrayList<>();
                    for (int r = 0; r < threads; r++) {
                        int me = r;
                        Thread th =
                                new Thread(
                                        () -> {
                                            try {
                                                go.await();
                                                dev.seqvfs.engine.dir.DirSnapshot rs =
                                                        root.snapshotAcquire();
                                                // half the threads build /a first, half /b
                                                String first = me % 2 == 0 ? "a" : "b";
                                                String second = me % 2 == 0 ? "b" : "a";
                                                var d1 =
                                                        (dev.seqvfs.engine.dir.DirectoryInode)
                                                                rs.lookup(first).inode();
                                                var s1 = d1.snapshotAcquire();
                                                var d2 =
                                                        (dev.seqvfs.engine.dir.DirectoryInode)
                                                                rs.lookup(second).inode();
                                                var s2 = d2.snapshotAcquire();
                                                var a = me % 2 == 0 ? s1 : s2;
                                                var b = me % 2 == 0 ? s2 : s1;
                                                seen[me] =
                                                        new Object[] {
                                                            rs,
                                                            me % 2 == 0 ? d1 : d2,
                                                            a,
                                                            b,
                                                            a.lookup("f0").inode(),
                                                            b.lookup("hl").inode()
                                                        };
                                            } catch (Throwable e) {
                                                failed.compareAndSet(null, e);
                                            }
                                        },
                                        "fork-build-race-" + r);
                        th.start();
                        readers.add(th);
                    }
                    for (Thread th : readers) {
                        th.join();
                    }
                    if (failed.get() != null) {
                        throw new AssertionError("a reader failed", failed.get());
                    }
                    for (Object[] s : seen) {
                        for (int k = 0; k < s.length; k++) {
                            assertSame(seen[0][k], s[k], "round " + round + ", item " + k);
                        }
                    }
                    assertSame(seen[0][0], root.snapshotAcquire());
                    assertSame(seen[0][4], seen[0][5], "one twin for a file with two names");
                    assertEquals(List.of(), Fsck.check(f, true));
                }
            }
        }
    }

    /**
     * Two threads read the fresh fork at once, in opposite orders, so they race to make the twins
     * of the same entries; then the whole fork is checked.
     */
    private static void checkFork(SeqVfs f) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Stat[]> seen = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        for (int r = 0; r < 2; r++) {
            boolean reverse = r == 1;
            Stat[] out = new Stat[2];
            seen.add(out);
            Thread th =
                    new Thread(
                            () -> {
                                try (VfsTask t = f.newTask(Credentials.ROOT)) {
                                    go.await();
                                    out[reverse ? 1 : 0] = t.stat(reverse ? "/r1/hl" : "/r0/hl");
                                    out[reverse ? 0 : 1] = t.stat(reverse ? "/r0/hl" : "/r1/hl");
                                    for (int d = 0; d < DIRS; d++) {
                                        t.readdir("/r" + (reverse ? DIRS - 1 - d : d));
                                    }
                                } catch (Throwable e) {
                                    failed.compareAndSet(null, e);
                                }
                            },
                            "fork-race-reader-" + r);
            th.start();
            readers.add(th);
        }
        go.countDown();
        for (Thread th : readers) {
            th.join();
        }
        if (failed.get() != null) {
            throw new AssertionError("a fork reader failed", failed.get());
        }
        try (VfsTask t = f.newTask(Credentials.ROOT)) {
            boolean third = exists(t, "/r3/hl2");
            long ino = seen.get(0)[0].ino();
            for (Stat[] s : seen) {
                for (Stat x : s) {
                    assertEquals(ino, x.ino(), "two inodes for one hard-linked file");
                    assertEquals(third ? 3 : 2, x.nlink(), "hard link count");
                }
            }
            int files = 0;
            int subdirs = 0;
            for (int d = 0; d < DIRS; d++) {
                for (DirEntry e : t.readdir("/r" + d)) {
                    if (e.name().matches("t[0-9]+")) {
                        files++;
                    } else if (e.name().matches("s[0-9]+")) {
                        subdirs++;
                        assertArrayEquals(
                                ForkTest.bytes("in"),
                                ForkTest.read(t, "/r" + d + "/" + e.name() + "/in", 0, 10));
                    }
                }
            }
            assertEquals(FILES, files, "moved files in the fork");
            assertEquals(SUBDIRS, subdirs, "moved directories in the fork");
            assertEquals(List.of(), Fsck.check(f, true));
            // one file in the fork, whichever name was built first; the source keeps its bytes
            ForkTest.pwrite(t, "/r0/hl", ForkTest.bytes("HL"), 0);
            assertArrayEquals(ForkTest.bytes("HL"), ForkTest.read(t, "/r1/hl", 0, 2));
        }
    }

    private static boolean exists(VfsTask t, String path) {
        try {
            t.lstat(path);
            return true;
        } catch (VfsException e) {
            assertEquals(Errno.ENOENT, e.errno());
            return false;
        }
    }
}
