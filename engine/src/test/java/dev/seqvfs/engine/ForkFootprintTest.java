package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a fork of 100,000 files in 100 directories costs: its time (beside a new empty instance's),
 * the cut during which the source's writers wait, the bytes the forking thread allocates, the heap
 * a live fork keeps (beside a new empty instance's), and the first write in a forked directory
 * against a write in an unforked one, the first read in a forked directory against a read in the
 * source. Prints the figures (README, "Forks", quotes this test's output) and checks bounds that
 * the present design (a fork bumps each superblock's generation and reads nothing of the trees; a
 * directory's twin is made on its first sight, an entry's on its first sight, a file's data on its
 * first use) keeps and the cut it replaced does not.
 *
 * <p>Run: {@code mvn -B -o verify -pl engine -am -Dtest=ForkFootprintTest
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ForkFootprintTest {
    private static final int DIRS = 100;
    private static final int FILES_PER_DIR = 1000;

    @Test
    void forkOf100kFiles_readsNothingOfTheTree_andSharesEveryPage() {
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"));
                VfsTask t = vfs.newTask(Credentials.ROOT)) {
            byte[] page = new byte[100];
            Arrays.fill(page, (byte) 'd');
            for (int d = 0; d < DIRS; d++) {
                t.mkdir("/d" + d, 0755);
                for (int f = 0; f < FILES_PER_DIR; f++) {
                    int fd =
                            t.open(
                                    "/d" + d + "/f" + f,
                                    OpenFlags.O_CREAT | OpenFlags.O_WRONLY,
                                    0644);
                    if (f % 10 == 0) {
                        t.write(fd, page);
                    }
                    t.close(fd);
                }
            }
            // warm-up forks and instances (class loading, JIT: the unforked paths were warmed by
            // the 100,000 creates), each read and written in every directory, then closed
            for (int i = 0; i < 5; i++) {
                try (SeqVfs w = vfs.fork();
                        VfsTask wt = w.newTask(Credentials.ROOT)) {
                    for (int d = 0; d < DIRS; d++) {
                        wt.stat("/d" + d + "/f1");
                        createNanos(wt, "/d" + d + "/warm", 1);
                    }
                    pwriteNanos(wt, "/d9/f");
                }
                try (SeqVfs w =
                                SeqVfs.create(
                                        ConfigFactory.parseString("seqvfs.proc.mount = off"));
                        VfsTask wt = w.newTask(Credentials.ROOT)) {
                    createNanos(wt, "/warm", 1);
                }
            }
            com.sun.management.ThreadMXBean mx =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().getId();
            int reps = 11;
            long[] nanos = new long[reps];
            long[] alloc = new long[reps];
            long[] created = new long[reps];
            double[] firstIn = new double[reps];
            double[] secondIn = new double[reps];
            double[] statIn = new double[reps];
            Config plainConf = ConfigFactory.parseString("seqvfs.proc.mount = off");
            for (int i = 0; i < reps; i++) {
                // a new, empty instance of the same actor system, for comparison with fork()
                long c0 = System.nanoTime();
                SeqVfs.create(plainConf).close();
                created[i] = System.nanoTime() - c0;
                long a0 = mx.getThreadAllocatedBytes(tid);
                long t0 = System.nanoTime();
                SeqVfs f = vfs.fork();
                nanos[i] = System.nanoTime() - t0;
                alloc[i] = mx.getThreadAllocatedBytes(tid) - a0;
                try (VfsTask ft = f.newTask(Credentials.ROOT)) {
                    statIn[i] = statNanos(ft, "/d5/f1");
                    firstIn[i] = createNanos(ft, "/d" + (30 + i) + "/new", 1);
                    secondIn[i] = createNanos(ft, "/d" + (60 + i) + "/new", 1);
                }
                f.close();
            }
            // The part of a fork during which the source's writers wait: the cut alone.
            long[] cut = new long[reps];
            for (int i = 0; i < reps; i++) {
                long t0 = System.nanoTime();
                VfsFork.capture(vfs).release();
                cut[i] = System.nanoTime() - t0;
            }
            Arrays.sort(cut);
            Arrays.sort(nanos);
            Arrays.sort(created);
            Arrays.sort(alloc);
            Arrays.sort(firstIn);
            Arrays.sort(secondIn);
            Arrays.sort(statIn);
            // the heap live forks keep, nothing read in them yet, against as many new instances
            int live = 10;
            long retained = retainedPerInstance(live, vfs::fork);
            long retainedNew = retainedPerInstance(live, () -> SeqVfs.create(plainConf));
            SeqVfs kept = vfs.fork();
            try (VfsTask k = kept.newTask(Credentials.ROOT)) {
                assertEquals(List.of(), Fsck.check(kept, true));
                double firstForked = firstIn[reps / 2];
                double secondForked = secondIn[reps / 2];
                // medians of as many directories, as for the forks: a create in an unforked
                // directory (it has its actor), and the first create in a new unforked directory
                // (no actor yet: what a forked directory's first write pays besides the fork)
                double[] plain = new double[reps];
                double[] noActor = new double[reps];
                double[] newInstance = new double[reps];
                for (int i = 0; i < reps; i++) {
                    plain[i] = createNanos(t, "/d" + (10 + i) + "/new", 1);
                    t.mkdir("/fresh" + i, 0755);
                    noActor[i] = createNanos(t, "/fresh" + i + "/new", 1);
                    // the first create of a new instance, for comparison with a fork's first
                    try (SeqVfs other = SeqVfs.create(plainConf);
                            VfsTask o = other.newTask(Credentials.ROOT)) {
                        newInstance[i] = createNanos(o, "/new", 1);
                    }
                }
                Arrays.sort(plain);
                Arrays.sort(noActor);
                Arrays.sort(newInstance);
                double unforked = plain[reps / 2];
                double unforkedNoActor = noActor[reps / 2];
                double newInstanceFirst = newInstance[reps / 2];
                // steady state on both sides: many creates in a directory already written
                double forkedSteady = createNanos(k, "/d7/more", 2000);
                double unforkedSteady = createNanos(t, "/d8/more", 2000);
                double[] statPlain = new double[reps];
                for (int i = 0; i < reps; i++) {
                    statPlain[i] = statNanos(t, "/d" + (20 + i) + "/f1");
                }
                Arrays.sort(statPlain);
                double firstPageForked = pwriteNanos(k, "/d9/f");
                double firstPageUnforked = pwriteNanos(k, "/d9/f");
                System.out.printf(
                        "fork of %d files in %d directories: median %.3f ms (min %.3f, max %.3f),"
                                + " a new empty instance (SeqVfs.create, then close) median %.3f"
                                + " ms, of which the cut (writers wait) median %.1f us,"
                                + " allocated by the forking thread median %.1f KiB,"
                                + " heap kept by a live fork %.1f KiB (a new empty instance %.1f"
                                + " KiB)%n",
                        DIRS * FILES_PER_DIR,
                        DIRS,
                        nanos[reps / 2] / 1e6,
                        nanos[0] / 1e6,
                        nanos[reps - 1] / 1e6,
                        created[reps / 2] / 1e6,
                        cut[reps / 2] / 1e3,
                        alloc[reps / 2] / 1024.0,
                        retained / 1024.0,
                        retainedNew / 1024.0);
                System.out.printf(
                        "first create in a forked directory (the fork's first), median of %d"
                                + " forks, %.1f us; in a second forked directory %.1f us; in an"
                                + " unforked one %.1f us (ratios %.1f, %.1f); in a new unforked"
                                + " directory with no actor yet %.1f us (ratio %.1f); the first"
                                + " create of a new instance (SeqVfs.create) %.1f us (ratio %.1f);"
                                + " steady creates %.1f us forked, %.1f us unforked;"
                                + " first 1-byte pwrite into a shared page %.1f us, the next one"
                                + " into the copied page %.1f us (means over 100 files);"
                                + " first stat in a forked directory %.1f us, a stat in the"
                                + " source %.1f us%n",
                        reps,
                        firstForked / 1e3,
                        secondForked / 1e3,
                        unforked / 1e3,
                        firstForked / unforked,
                        secondForked / unforked,
                        unforkedNoActor / 1e3,
                        unforkedNoActor / unforked,
                        newInstanceFirst / 1e3,
                        newInstanceFirst / unforked,
                        forkedSteady / 1e3,
                        unforkedSteady / 1e3,
                        firstPageForked / 1e3,
                        firstPageUnforked / 1e3,
                        statIn[reps / 2] / 1e3,
                        statPlain[reps / 2] / 1e3);
            } finally {
                kept.close();
            }
            // Bounds with room for a busy machine: the cut of the design this replaced (it read
            // every name, 90 to 150 ms here) fails the first two, the eager copy before it (37 MiB
            // kept) the last. The goals (1 ms, 1 MiB) are in README, "Forks".
            assertTrue(cut[reps / 2] < 20_000_000L, "the cut took " + cut[reps / 2] + " ns");
            assertTrue(nanos[reps / 2] < 50_000_000L, "fork took " + nanos[reps / 2] + " ns");
            assertTrue(retained < 4L << 20, "a live fork kept " + retained + " bytes");
        }
    }

    /**
     * The heap each of {@code n} instances that {@code make} returns keeps while they live,
     * measured after full collections; closes them.
     */
    private static long retainedPerInstance(int n, java.util.function.Supplier<SeqVfs> make) {
        long before = usedAfterGc();
        List<SeqVfs> live = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                live.add(make.get());
            }
            return (usedAfterGc() - before) / n;
        } finally {
            live.forEach(SeqVfs::close);
        }
    }

    private static double statNanos(VfsTask t, String path) {
        long t0 = System.nanoTime();
        t.stat(path);
        return System.nanoTime() - t0;
    }

    private static double createNanos(VfsTask t, String prefix, int n) {
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            t.close(t.open(prefix + i, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
        }
        return (System.nanoTime() - t0) / (double) n;
    }

    /** Mean time of a 1-byte {@code pwrite} into each of the 100 files with data under prefix. */
    private static double pwriteNanos(VfsTask t, String prefix) {
        int n = FILES_PER_DIR / 10;
        int[] fds = new int[n];
        for (int i = 0; i < n; i++) {
            fds[i] = t.open(prefix + (i * 10), OpenFlags.O_WRONLY);
        }
        long t0 = System.nanoTime();
        for (int fd : fds) {
            t.pwrite(fd, new byte[] {'x'}, 0, 1, 7);
        }
        long spent = System.nanoTime() - t0;
        for (int fd : fds) {
            t.close(fd);
        }
        return spent / (double) n;
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
