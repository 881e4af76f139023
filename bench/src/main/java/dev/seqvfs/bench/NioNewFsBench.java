package dev.seqvfs.bench;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import dev.seqvfs.nio.SeqVfsFileSystem;
import java.io.IOException;
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
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a test suite pays for a fresh {@code java.nio} file system per test (what {@code
 * seqvfs-junit}'s {@code @TempSeqVfs} makes): {@code SeqVfsFileSystem.builder().build()} + {@code
 * close()} against {@code Jimfs.newFileSystem(Configuration.unix())} + {@code close()}. A file
 * system is kept open through the measurement, as a suite's earlier tests keep SeqVFS's shared
 * actor system running. Run with {@code java -cp bench/target/benchmarks.jar org.openjdk.jmh.Main
 * NioNewFsBench -f 1 -wi 3 -i 5 -w 1 -r 1}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class NioNewFsBench {
    /** {@code seqvfs-nio} or {@code jimfs}. */
    @Param({"seqvfs-nio", "jimfs"})
    public String fs;

    private FileSystem keepAlive;

    /** Opens one file system for the whole trial (the shared actor system stays up). */
    @Setup(Level.Trial)
    public void setUp() {
        keepAlive = open();
    }

    /** Closes it. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        keepAlive.close();
    }

    private FileSystem open() {
        return fs.equals("jimfs")
                ? Jimfs.newFileSystem(Configuration.unix())
                : SeqVfsFileSystem.builder().build();
    }

    /** One fresh file system, made and closed. */
    @Benchmark
    public boolean newFileSystem() throws IOException {
        FileSystem f = open();
        boolean open = f.isOpen();
        f.close();
        return open;
    }
}
