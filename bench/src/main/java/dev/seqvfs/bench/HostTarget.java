package dev.seqvfs.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The host kernel's tmpfs: bench paths live under a fresh directory {@code
 * /dev/shm/seqvfs-bench-<pid>-<n>/}, so the kernel walks three more components ({@code dev}, {@code
 * shm} and that directory) than the in-JVM targets do. Java cannot change the process's working
 * directory, and a relative path would depend on where the fork was started, so the absolute path
 * is the honest choice; the kernel's per-component cost on a warm dcache is small next to the
 * system call itself.
 */
final class HostTarget extends NioTarget {
    private static final AtomicInteger SEQ = new AtomicInteger();
    private final Path base;

    HostTarget() {
        Path shm = Paths.get(System.getProperty("seqvfs.bench.host-dir", "/dev/shm"));
        base =
                shm.resolve(
                        "seqvfs-bench-"
                                + ProcessHandle.current().pid()
                                + "-"
                                + SEQ.incrementAndGet());
        try {
            Files.createDirectory(base);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + base, e);
        }
    }

    @Override
    public Path path(String absolute) {
        return base.resolve(absolute.substring(1));
    }

    @Override
    public void close() throws IOException {
        try (Stream<Path> all = Files.walk(base)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
