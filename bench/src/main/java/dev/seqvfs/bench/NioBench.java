package dev.seqvfs.bench;

import com.github.marschall.memoryfilesystem.MemoryFileSystemBuilder;
import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import dev.seqvfs.nio.SeqVfsFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
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
 * The same {@code java.nio.file} calls on four providers, each taking parsed {@code Path}s: SeqVFS
 * ({@code seqvfs-nio}), Jimfs 1.3.1 (Unix configuration), memoryfilesystem 2.8.1 (its Linux
 * configuration) and the JDK's default provider on the host's {@code /dev/shm}. The fair comparison
 * with the in-memory peers (issue 10's benchmark): {@code readAttributes} of a path five
 * directories deep; {@code newByteChannel} + a 4 KiB write + close (each thread its own file,
 * truncated); {@code createFile} + {@code delete} (each thread its own directory); {@code
 * Files.list} of a 10,000-entry directory, counted (one op is the whole listing); {@code
 * Files.walk} over the tree of the JDK's {@code src.zip} (its directories and names, the files
 * empty: a walk reads names and attributes, not contents), counted (one op is the whole walk).
 *
 * <p>Run it with JMH's own runner, e.g. {@code java -cp bench/target/benchmarks.jar
 * org.openjdk.jmh.Main NioBench -f 1 -wi 3 -i 5 -t 1} ({@code -t 2} for two threads).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NioBench {
    /** One file system and its trees, shared by the threads. */
    @State(Scope.Benchmark)
    public static class Fs {
        /** {@code seqvfs-nio}, {@code jimfs}, {@code memoryfilesystem} or {@code host}. */
        @Param({"seqvfs-nio", "jimfs", "memoryfilesystem", "host"})
        public String fs;

        FileSystem fileSystem;
        Path base;
        Path big;
        private final AtomicInteger threads = new AtomicInteger();

        /** Opens the file system and makes the deep file and the 10,000-entry directory. */
        @Setup(Level.Trial)
        public void setUp() throws IOException {
            switch (fs) {
                case "seqvfs-nio":
                    fileSystem = SeqVfsFileSystem.builder().name("bench").build();
                    base = fileSystem.getPath("/");
                    break;
                case "jimfs":
                    fileSystem = Jimfs.newFileSystem(Configuration.unix());
                    base = fileSystem.getPath("/");
                    break;
                case "memoryfilesystem":
                    fileSystem = MemoryFileSystemBuilder.newLinux().build("bench");
                    base = fileSystem.getPath("/");
                    break;
                default:
                    fileSystem = null;
                    base = Files.createTempDirectory(Path.of("/dev/shm"), "seqvfs-niobench-");
            }
            Path deep = Files.createDirectories(base.resolve("d1/d2/d3/d4/d5"));
            Files.createFile(deep.resolve("f"));
            big = Files.createDirectories(base.resolve("big"));
            for (int i = 0; i < 10_000; i++) {
                Files.createFile(big.resolve("entry-" + i));
            }
        }

        int nextThread() {
            return threads.getAndIncrement();
        }

        /** Closes the file system, or removes the host directory. */
        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            if (fileSystem != null) {
                fileSystem.close();
                return;
            }
            try (Stream<Path> all = Files.walk(base)) {
                for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    /**
     * The tree of the JDK's {@code src.zip} under {@code /src} of the benchmark's file system: made
     * once per trial, only for the benchmark that walks it.
     */
    @State(Scope.Benchmark)
    public static class SrcTree {
        Path root;
        long entries;

        /**
         * Makes every directory and (empty) file of a JDK's {@code src.zip}: the system property
         * {@code niobench.srczip}, else this JDK's, else the first under {@code /usr/lib/jvm}
         * (Debian's JDK 17 package ships none).
         *
         * @param fs the benchmark's file system
         * @throws IOException if there is no {@code src.zip}
         */
        @Setup(Level.Trial)
        public void setUp(Fs fs) throws IOException {
            root = Files.createDirectories(fs.base.resolve("src"));
            Path zip = srcZip();
            try (ZipFile z = new ZipFile(zip.toFile())) {
                for (Enumeration<? extends ZipEntry> e = z.entries(); e.hasMoreElements(); ) {
                    ZipEntry en = e.nextElement();
                    Path p = root.resolve(en.getName());
                    if (en.isDirectory()) {
                        Files.createDirectories(p);
                    } else {
                        Files.createDirectories(p.getParent());
                        Files.createFile(p);
                    }
                }
            }
            try (Stream<Path> s = Files.walk(root)) {
                entries = s.count();
            }
        }

        static Path srcZip() throws IOException {
            String given = System.getProperty("niobench.srczip");
            if (given != null) {
                return Path.of(given);
            }
            Path own = Path.of(System.getProperty("java.home"), "lib", "src.zip");
            if (Files.isRegularFile(own)) {
                return own;
            }
            try (Stream<Path> s = Files.list(Path.of("/usr/lib/jvm"))) {
                for (Path jdk : (Iterable<Path>) s.sorted()::iterator) {
                    Path z = jdk.resolve("lib/src.zip");
                    if (Files.isRegularFile(z)) {
                        return z;
                    }
                }
            }
            throw new java.nio.file.NoSuchFileException("src.zip (set -Dniobench.srczip)");
        }
    }

    /** One thread's paths, resolved once. */
    @State(Scope.Thread)
    public static class Mine {
        Path deep;
        Path file;
        Path created;
        final ByteBuffer page = ByteBuffer.allocate(4096);

        /** Makes this thread's directory. */
        @Setup(Level.Trial)
        public void setUp(Fs fs, ThreadParams t) throws IOException {
            deep = fs.base.resolve("d1/d2/d3/d4/d5/f");
            Path own = Files.createDirectories(fs.base.resolve("t" + fs.nextThread()));
            file = own.resolve("data");
            created = own.resolve("c");
        }
    }

    private static final Set<StandardOpenOption> WRITE =
            Set.of(
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);

    /** {@code Files.readAttributes} of the deep path. */
    @Benchmark
    public BasicFileAttributes readAttributes(Mine m) throws IOException {
        return Files.readAttributes(m.deep, BasicFileAttributes.class);
    }

    /** {@code newByteChannel} + write 4 KiB + close. */
    @Benchmark
    public int write4k(Mine m) throws IOException {
        try (SeekableByteChannel ch = Files.newByteChannel(m.file, WRITE)) {
            m.page.clear();
            return ch.write(m.page);
        }
    }

    /** {@code createFile} + {@code delete}. */
    @Benchmark
    public void createDelete(Mine m) throws IOException {
        Files.createFile(m.created);
        Files.delete(m.created);
    }

    /**
     * {@code Files.walk} over the {@code src.zip} tree, counted.
     *
     * @throws IllegalStateException if the walk saw another number of entries than the setup's
     */
    @Benchmark
    public long walkSrcZip(SrcTree src) throws IOException {
        try (Stream<Path> s = Files.walk(src.root)) {
            long n = s.count();
            if (n != src.entries) {
                throw new IllegalStateException(n + " entries walked, " + src.entries + " made");
            }
            return n;
        }
    }

    /** {@code Files.list} of the 10,000-entry directory, counted. */
    @Benchmark
    public long list10k(Fs fs) throws IOException {
        try (Stream<Path> s = Files.list(fs.big)) {
            return s.count();
        }
    }
}
