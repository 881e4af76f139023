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
import org.openjdk.jmh.infra.ThreadParams;

/**
 * {@code stat(2)} of a regular file five directories deep (seed 004: deep lookups from one and from
 * several threads), on SeqVFS, Jimfs and the host's tmpfs.
 *
 * <pre>
 * /t0/d2/d3/d4/d5/f      thread 0 (and, with paths=same, every thread)
 * /t1/d2/d3/d4/d5/f      thread 1 with paths=distinct
 * </pre>
 *
 * One op is one stat; the returned attributes go to JMH's blackhole.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class StatBench {

    /** The file system and the tree, shared by the benchmark's threads. */
    @State(Scope.Benchmark)
    public static class Tree {
        /**
         * Which target: {@link FsTarget#SEQVFS}, {@link FsTarget#JIMFS} or {@link FsTarget#HOST}.
         */
        @Param({FsTarget.SEQVFS, FsTarget.JIMFS, FsTarget.HOST})
        public String fs;

        /** {@code same}: every thread stats /t0/...; {@code distinct}: thread i stats /ti/... */
        @Param({"same", "distinct"})
        public String paths;

        FsTarget<Object> target;

        /** Opens the target and builds one deep tree per thread. */
        @Setup(Level.Trial)
        public void setUp(BenchmarkParams params) throws Exception {
            target = FsTarget.open(fs);
            for (int i = 0; i < params.getThreads(); i++) {
                target.mkdirs(dir(i));
                target.create(target.path(file(i)));
            }
        }

        /** Closes the target (frees SeqVFS's actors, removes the host directory). */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            target.close();
        }

        static String dir(int i) {
            return "/t" + i + "/d2/d3/d4/d5";
        }

        static String file(int i) {
            return dir(i) + "/f";
        }
    }

    /** One benchmark thread's path handle. */
    @State(Scope.Thread)
    public static class Walker {
        Object path;

        /** Resolves this thread's path once. */
        @Setup(Level.Trial)
        public void setUp(Tree tree, ThreadParams thread) throws Exception {
            int i = "same".equals(tree.paths) ? 0 : thread.getThreadIndex();
            path = tree.target.path(Tree.file(i));
            Checks.regularFile(tree.target, path);
        }
    }

    /** One {@code stat} of the thread's deep path. */
    @Benchmark
    public Object stat(Tree tree, Walker w) throws Exception {
        return tree.target.stat(w.path);
    }
}
