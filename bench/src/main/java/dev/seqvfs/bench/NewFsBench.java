package dev.seqvfs.bench;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import dev.seqvfs.engine.SeqVfs;
import java.nio.file.FileSystem;
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

/**
 * A fresh, empty file system and its close, as a test suite that makes one per test pays it: SeqVFS
 * {@code SeqVfs.create()} + {@code close()} (the default configuration, so procfs is mounted at
 * {@code /proc}; the actor system the instances share is already running, as after a suite's first
 * test) against Jimfs {@code Jimfs.newFileSystem(Configuration.unix())} + {@code close()}. The host
 * has no equivalent and is not measured.
 *
 * <p>One op is one create plus one close. One thread: a suite's tests run one after the other.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NewFsBench {

    /** Which target; the first SeqVFS instance of the fork starts the shared actor system. */
    @State(Scope.Benchmark)
    public static class Target {
        /** {@link FsTarget#SEQVFS} or {@link FsTarget#JIMFS}. */
        @Param({FsTarget.SEQVFS, FsTarget.JIMFS})
        public String fs;

        /**
         * Starts the shared actor system (SeqVFS), as a suite's first test does, outside the
         * measurement.
         */
        @Setup(Level.Trial)
        public void setUp() {
            if (FsTarget.SEQVFS.equals(fs)) {
                SeqVfs.create().close();
            } else if (!FsTarget.JIMFS.equals(fs)) {
                throw new IllegalArgumentException(
                        "NewFsBench measures seqvfs and jimfs, not " + fs);
            }
        }
    }

    /** One fresh file system, created and closed; the closed instance goes to JMH's blackhole. */
    @Benchmark
    public Object createClose(Target t) throws Exception {
        if (FsTarget.SEQVFS.equals(t.fs)) {
            SeqVfs vfs = SeqVfs.create();
            vfs.close();
            return vfs;
        }
        FileSystem fs = Jimfs.newFileSystem(Configuration.unix());
        fs.close();
        return fs;
    }
}
