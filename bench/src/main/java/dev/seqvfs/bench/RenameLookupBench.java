package dev.seqvfs.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Deep-path {@code stat} while another thread renames a directory back and forth between two
 * unrelated directories (seed 004: lookups must not pay for renames elsewhere). Run with {@code
 * renamer=off}, {@code renamer=on} (renaming flat out) and {@code renamer=paced} (at most {@link
 * #PACED_RATE} renames a second, the host kernel's flat-out rate on these machines, from the
 * hot-paths issue; system property {@code seqvfs.bench.renameRate}); the loss is {@code 1 -
 * on/off}.
 *
 * <pre>
 * /t0/d2/d3/d4/d5/f   stat'ed by the benchmark thread(s)
 * /r1/x/y             x moves /r1/x -> /r2/x -> /r1/x ... (cross-directory renames)
 * /r2/
 * </pre>
 *
 * The renamer is a daemon thread started in trial setup and stopped in trial teardown; it counts
 * its renames, and the renames done during measurement iterations are printed and appended to the
 * file named by the {@code seqvfs.bench.report} system property (read by {@link BenchMain}), so a
 * run whose renamer did not run shows it.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RenameLookupBench {
    /**
     * Renames a second of {@code renamer=paced} (system property {@code seqvfs.bench.renameRate}).
     */
    static final long PACED_RATE = Long.getLong("seqvfs.bench.renameRate", 237_000);

    /** The tree and, with {@code renamer=on}, the renaming thread. */
    @State(Scope.Benchmark)
    public static class Tree {
        /** Which target. */
        @Param({FsTarget.SEQVFS, FsTarget.JIMFS, FsTarget.HOST})
        public String fs;

        /**
         * {@code on}: a background thread renames /r1/x and /r2/x in a loop; {@code paced}: the
         * same, at most {@link #PACED_RATE} renames a second.
         */
        @Param({"off", "on", "paced"})
        public String renamer;

        FsTarget<Object> target;
        Object file;
        private Thread thread;
        private volatile boolean stop;
        private volatile long renames;
        private volatile Throwable failure;
        private long iterationStart;
        private long iterationStartNanos;
        private long measuredRenames;
        private long measuredNanos;

        /** Builds the tree and starts the renamer. */
        @Setup(Level.Trial)
        public void setUp(BenchmarkParams params) throws Exception {
            target = FsTarget.open(fs);
            target.mkdirs(StatBench.Tree.dir(0));
            file = target.path(StatBench.Tree.file(0));
            target.create(file);
            Checks.regularFile(target, file);
            target.mkdirs("/r1/x");
            target.create(target.path("/r1/x/y"));
            target.mkdirs("/r2");
            if (!"off".equals(renamer)) {
                Object a = target.path("/r1/x");
                Object b = target.path("/r2/x");
                long gap = "paced".equals(renamer) ? 2 * 1_000_000_000L / PACED_RATE : 0;
                thread = new Thread(() -> renameLoop(a, b, gap), "renamer");
                thread.setDaemon(true);
                thread.start();
            }
        }

        /**
         * Renames back and forth; with {@code gapNanos > 0}, one pair per that many nanoseconds.
         */
        private void renameLoop(Object a, Object b, long gapNanos) {
            try {
                long n = 0;
                long next = System.nanoTime();
                while (!stop) {
                    if (gapNanos > 0) {
                        next += gapNanos;
                        while (System.nanoTime() < next && !stop) {
                            Thread.onSpinWait();
                        }
                    }
                    target.rename(a, b);
                    target.rename(b, a);
                    n += 2;
                    renames = n;
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        /** Samples the rename count at the start of an iteration. */
        @Setup(Level.Iteration)
        public void iterationStart() {
            iterationStart = renames;
            iterationStartNanos = System.nanoTime();
        }

        /** Adds a measurement iteration's renames; fails if the renamer died. */
        @TearDown(Level.Iteration)
        public void iterationEnd(IterationParams it) {
            if (failure != null) {
                throw new IllegalStateException("renamer failed", failure);
            }
            if (it.getType() == IterationType.MEASUREMENT) {
                measuredRenames += renames - iterationStart;
                measuredNanos += System.nanoTime() - iterationStartNanos;
            }
        }

        /** Stops the renamer, reports its count, closes the target. */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            stop = true;
            if (thread != null) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
            String line =
                    String.join(
                            "\t",
                            "renamer",
                            fs,
                            renamer,
                            Long.toString(measuredRenames),
                            Long.toString(measuredNanos),
                            target.counters());
            System.out.println("# " + line.replace('\t', ' '));
            Report.append(line);
            target.close();
            if (failure != null) {
                throw new IllegalStateException("renamer failed", failure);
            }
            if (!"off".equals(renamer) && measuredRenames == 0) {
                throw new IllegalStateException("the renamer did not rename during measurement");
            }
        }
    }

    /** One {@code stat} of /t0/d2/d3/d4/d5/f. */
    @Benchmark
    public Object stat(Tree tree) throws Exception {
        return tree.target.stat(tree.file);
    }
}
