package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a fork of 100,000 files in 100 directories costs: its time, the bytes the forking thread
 * allocates, the heap it keeps, and the first write in a forked directory against a write in an
 * unforked one, the first read in a forked directory (which builds it) against a read in the
 * source. Prints the figures (README, "Forks", quotes this test's output) and checks bounds that
 * the current design (a cut of two references per name; each directory's inodes and entries made on
 * its first read in the fork; every page shared) keeps and the eager copy it replaced does not.
 *
 * <p>Run: {@code mvn -B -o verify -pl engine -am -Dtest=ForkFootprintTest
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ForkFootprintTest {
    private static final int DIRS = 100;
    private static final int FILES_PER_DIR = 1000;

    @Test
    void forkOf100kFiles_buildsNothingUntilRead_andSharesEveryPage() {
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
            // warm-up forks (class loading, JIT), each read in every directory (which builds them
            // all), then closed
            for (int i = 0; i < 3; i++) {
                try (SeqVfs w = vfs.fork();
                        VfsTask wt = w.newTask(Credentials.ROOT)) {
                    for (int d = 0; d < DIRS; d++) {
                        wt.stat("/d" + d + "/f1");
                    }
                }
            }
            com.sun.management.ThreadMXBean mx =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().getId();
            int reps = 5;
            long[] nanos = new long[reps];
            long[] alloc = new long[reps];
            double[] firstIn = new double[reps];
            double[] secondIn = new double[reps];
            double[] statIn = new double[reps];
            for (int i = 0; i < reps; i++) {
                long a0 = mx.getThreadAllocatedBytes(tid);
                long t0 = System.nanoTime();
                SeqVfs f = vfs.fork();
                nanos[i] = System.nanoTime() - t0;
                alloc[i] = mx.getThreadAllocatedBytes(tid) - a0;
                try (VfsTask ft = f.newTask(Credentials.ROOT)) {
                    statIn[i] = statNanos(ft, "/d5/f1");
                    firstIn[i] = createNanos(ft, "/d7/new", 1);
                    secondIn[i] = createNanos(ft, "/d6/new", 1);
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
            Arrays.sort(alloc);
            Arrays.sort(firstIn);
            Arrays.sort(secondIn);
            Arrays.sort(statIn);
            long retained0 = usedAfterGc();
            SeqVfs kept = vfs.fork();
            long retained = usedAfterGc() - retained0;
            try (VfsTask k = kept.newTask(Credentials.ROOT)) {
                assertEquals(List.of(), Fsck.check(kept, true));
                double firstForked = firstIn[reps / 2];
                double secondForked = secondIn[reps / 2];
                // medians of 5 directories, as for the forks: a create in an unforked directory
                // (it has its actor), and the first create in a new unforked directory (no actor
                // yet: what a forked directory's first write pays besides the fork)
                double[] plain = new double[reps];
                double[] noActor = new double[reps];
                for (int i = 0; i < reps; i++) {
                    plain[i] = createNanos(t, "/d" + (10 + i) + "/new", 1);
                    t.mkdir("/fresh" + i, 0755);
                    noActor[i] = createNanos(t, "/fresh" + i + "/new", 1);
                }
                Arrays.sort(plain);
                Arrays.sort(noActor);
                double unforked = plain[reps / 2];
                double unforkedNoActor = noActor[reps / 2];
                // the first call of any new instance, for comparison with a fork's first
                double newInstanceFirst;
                try (SeqVfs other =
                                SeqVfs.create(
                                        ConfigFactory.parseString("seqvfs.proc.mount = off"));
                        VfsTask o = other.newTask(Credentials.ROOT)) {
                    newInstanceFirst = createNanos(o, "/new", 1);
                }
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
                        "fork of %d files in %d directories: median %.2f ms (min %.2f, max %.2f),"
                                + " of which the cut (writers wait) median %.2f ms,"
                                + " allocated by the forking thread median %.1f MiB,"
                                + " heap kept by a live fork %.1f MiB (%.0f bytes per file)%n",
                        DIRS * FILES_PER_DIR,
                        DIRS,
                        nanos[reps / 2] / 1e6,
                        nanos[0] / 1e6,
                        nanos[reps - 1] / 1e6,
                        cut[reps / 2] / 1e6,
                        alloc[reps / 2] / 1048576.0,
                        retained / 1048576.0,
                        retained / (double) (DIRS * FILES_PER_DIR));
                System.out.printf(
                        "first create in a forked directory, median of 5 forks, %.1f us (in a"
                                + " second forked directory %.1f us), in an unforked one %.1f us (ratios %.1f,"
                                + " %.1f), in a new unforked directory with no actor yet %.1f us,"
                                + " the first create of a new instance (SeqVfs.create) %.1f us;"
                                + " steady creates %.1f us forked, %.1f us unforked;"
                                + " first 1-byte pwrite into a shared page %.1f us, the next one"
                                + " into the copied page %.1f us (means over 100 files);"
                                + " first stat in a forked directory (builds it and the root)"
                                + " %.1f us, a stat in the source %.1f us%n",
                        firstForked / 1e3,
                        secondForked / 1e3,
                        unforked / 1e3,
                        firstForked / unforked,
                        secondForked / unforked,
                        unforkedNoActor / 1e3,
                        newInstanceFirst / 1e3,
                        forkedSteady / 1e3,
                        unforkedSteady / 1e3,
                        firstPageForked / 1e3,
                        firstPageUnforked / 1e3,
                        statIn[reps / 2] / 1e3,
                        statPlain[reps / 2] / 1e3);
            } finally {
                kept.close();
            }
            // Bounds of the present design (a cut of two references a name, directories built on
            // first read, no page copied), with room for a busy machine; the eager copy this
            // replaced allocated 56 MiB and kept 34.6 MiB, and fails them. The goals
            // (1 ms, 1 MiB) are not all met: see README, "Forks".
            assertTrue(nanos[reps / 2] < 5_000_000_000L, "fork took " + nanos[reps / 2] + " ns");
            assertTrue(alloc[reps / 2] < 24L << 20, "fork allocated " + alloc[reps / 2]);
            assertTrue(retained < 4L << 20, "a live fork kept " + retained + " bytes");
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
