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
 * Create and remove an empty regular file in a loop, from plain threads through each target's
 * blocking API: SeqVFS {@code mknod(path, S_IFREG|0644, 0)} + {@code unlink}; Jimfs and the host
 * {@code Files.createFile} + {@code Files.delete}.
 *
 * <pre>
 * /t0/f   /t1/f          dir=own: thread i works in its own directory
 * /shared/f0 /shared/f1  dir=shared: all threads in one directory, distinct names
 * </pre>
 *
 * One op is one create plus one unlink.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CreateUnlinkBench {

    /** The file system and its directories. */
    @State(Scope.Benchmark)
    public static class Dirs {
        /** Which target. */
        @Param({FsTarget.SEQVFS, FsTarget.JIMFS, FsTarget.HOST})
        public String fs;

        /** {@code own}: a directory per thread; {@code shared}: one directory for all. */
        @Param({"own", "shared"})
        public String dir;

        FsTarget<Object> target;

        /** Opens the target and makes the directories. */
        @Setup(Level.Trial)
        public void setUp(BenchmarkParams params) throws Exception {
            target = FsTarget.open(fs);
            for (int i = 0; i < params.getThreads(); i++) {
                target.mkdirs("/t" + i);
            }
            target.mkdirs("/shared");
        }

        /** Closes the target. */
        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            target.close();
        }
    }

    /** One thread's file name. */
    @State(Scope.Thread)
    public static class Worker {
        Object file;

        /** Resolves this thread's file name once. */
        @Setup(Level.Trial)
        public void setUp(Dirs dirs, ThreadParams thread) {
            int i = thread.getThreadIndex();
            file = dirs.target.path("own".equals(dirs.dir) ? "/t" + i + "/f" : "/shared/f" + i);
        }
    }

    /** Creates the thread's file, then removes it. */
    @Benchmark
    public void createUnlink(Dirs dirs, Worker w) throws Exception {
        dirs.target.create(w.file);
        dirs.target.unlink(w.file);
    }
}
