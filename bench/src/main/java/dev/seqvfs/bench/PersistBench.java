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
 * log, in a temporary directory), {@code persistfs-h2} (the same on the H2 store), {@code
 * persistfs-pg} (on PostgreSQL, the server {@code seqvfs.persistfs.postgresql} names, in a schema
 * of its own that the run drops), each also as {@code -async} (the {@code async} mount option: the
 * create's journal write is not waited for; the {@code fsync}'s force takes it along when it
 * reached the store first, but a name is durable for sure only after an {@code fsync} of its
 * directory), against the host's disk file system through {@code java.nio} ({@code
 * FileChannel.force(true)}), all under {@code java.io.tmpdir} (ext4 on these machines). One op is
 * one such file. Run with {@code -t 1}, {@code -t 2}, {@code -t 16} ({@code -p fs=persistfs,host}
 * for two of them):
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

        /** The schema a {@code persistfs-pg} target made, dropped at tear-down. */
        String schema;

        Path dir;
        SeqVfs vfs;

        /** Makes the data (or host) directory and, for persistfs, the instance. */
        @Setup(Level.Trial)
        public void setUp() throws IOException {
            dir = Files.createTempDirectory("persistbench-");
            boolean async = fs.endsWith("-async");
            String base = async ? fs.substring(0, fs.length() - "-async".length()) : fs;
            String options;
            switch (base) {
                case "persistfs" -> options = "data_dir=" + dir;
                case "persistfs-h2" -> options = "store=h2,data_dir=" + dir;
                case "persistfs-pg" -> {
                    schema = "persistbench_" + Long.toHexString(System.nanoTime());
                    options = "store=postgresql,schema=" + schema;
                }
                case "host" -> options = null;
                default -> throw new IllegalArgumentException("no target " + fs);
            }
            if (options != null) {
                vfs =
                        SeqVfs.create(
                                com.typesafe.config.ConfigFactory.parseMap(
                                                java.util.Map.of(
                                                        "seqvfs.root.options",
                                                        options + (async ? ",async" : "")))
                                        .withFallback(PersistfsType.rootConfig(dir)));
            }
        }

        /** Closes the instance and removes the directory. */
        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            if (vfs != null) {
                vfs.close();
            }
            if (schema != null) {
                dropSchema(schema);
            }
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * Drops {@code schema} from the PostgreSQL database persistfs used (the connection settings of
     * {@code seqvfs.persistfs.postgresql}).
     */
    static void dropSchema(String schema) {
        com.typesafe.config.Config c =
                com.typesafe.config.ConfigFactory.load().getConfig("seqvfs.persistfs.postgresql");
        try (java.sql.Connection k =
                        java.sql.DriverManager.getConnection(
                                c.getString("url"), c.getString("user"), c.getString("password"));
                java.sql.Statement st = k.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (java.sql.SQLException e) {
            System.err.println("persistbench: could not drop schema " + schema + ": " + e);
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
