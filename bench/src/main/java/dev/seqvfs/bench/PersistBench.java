package dev.seqvfs.bench;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.persist.PersistfsType;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The persistence issue's benchmark: create a file, write 4 KiB, {@code fsync}, close, each thread
 * in its own directory; {@code persistfs} (SeqVFS's persistent type on its own store, the segment
 * log, in a temporary directory), {@code persistfs-h2} (the same on the H2 store) against the
 * host's disk file system through {@code java.nio} ({@code FileChannel.force(true)}), all under
 * {@code java.io.tmpdir} (ext4 on these machines). One op is one such file. Run with {@code -t 1},
 * {@code -t 2}, {@code -t 16} ({@code -p fs=persistfs,host} for two of them):
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar org.openjdk.jmh.Main PersistBench -f 1 -wi 1 -i 3 -w 2 -r 3 -t 16
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PersistBench {
    /** The target and its directory. */
    @State(Scope.Benchmark)
    public static class Target {
        /**
         * {@code persistfs} (its default store, the segment log), {@code persistfs-h2} (the H2
         * store, {@code store=h2}) or {@code host}.
         */
        @Param({"persistfs", "persistfs-h2", "host"})
        public String fs;

        Path dir;
        SeqVfs vfs;

        /** Makes the data (or host) directory and, for persistfs, the instance. */
        @Setup(Level.Trial)
        public void setUp() throws IOException {
            dir = Files.createTempDirectory("persistbench-");
            if (fs.equals("persistfs")) {
                vfs = SeqVfs.create(PersistfsType.rootConfig(dir));
            } else if (fs.equals("persistfs-h2")) {
                vfs =
                        SeqVfs.create(
                                com.typesafe.config.ConfigFactory.parseMap(
                                                java.util.Map.of(
                                                        "seqvfs.root.options",
                                                        "store=h2,data_dir=" + dir))
                                        .withFallback(PersistfsType.rootConfig(dir)));
            }
        }

        /** Closes the instance and removes the directory. */
        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            if (vfs != null) {
                vfs.close();
            }
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** One thread's directory, task and counter. */
    @State(Scope.Thread)
    public static class Worker {
        final byte[] page = new byte[4096];
        String dir;
        Path hostDir;
        VfsTask task;
        long n;

        /** Makes the thread's directory. */
        @Setup(Level.Trial)
        public void setUp(Target t, ThreadParams thread) throws IOException {
            String name = "t" + thread.getThreadIndex();
            if (t.vfs != null) {
                task = t.vfs.newTask(Credentials.ROOT);
                dir = "/" + name;
                task.mkdir(dir, 0755);
            } else {
                hostDir = Files.createDirectory(t.dir.resolve(name));
            }
        }

        /** Closes the thread's task. */
        @TearDown(Level.Trial)
        public void tearDown() {
            if (task != null) {
                task.close();
            }
        }
    }

    /** One file: create, write 4 KiB, fsync, close. */
    @Benchmark
    public void createWriteFsync(Target t, Worker w) throws IOException {
        long i = w.n++;
        if (w.task != null) {
            int fd = w.task.open(w.dir + "/f" + i, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            w.task.write(fd, w.page);
            w.task.fsync(fd);
            w.task.close(fd);
        } else {
            try (FileChannel c =
                    FileChannel.open(
                            w.hostDir.resolve("f" + i),
                            StandardOpenOption.CREATE_NEW,
                            StandardOpenOption.WRITE)) {
                c.write(ByteBuffer.wrap(w.page));
                c.force(true);
            }
        }
    }
}
