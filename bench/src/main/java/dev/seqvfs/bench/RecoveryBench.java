package dev.seqvfs.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.persist.PersistfsType;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * How long a persistfs mount takes to recover a large tree (issue 12): builds {@code FILES} empty
 * files in {@code DIRS} directories under the root (an {@code async} mount, synced at the end),
 * unmounts, then mounts the data directory again {@code ROUNDS} times and prints, for each, the
 * time from {@code SeqVfs.create} to the first lookup answered and the time until every directory
 * was listed (a mount recovers every journal before it serves, so the two differ only by the
 * lookup).
 *
 * <pre>
 *   java -cp bench/target/benchmarks.jar dev.seqvfs.bench.RecoveryBench [FILES [DIRS [ROUNDS]]]
 * </pre>
 *
 * Defaults: 100,000 files, 1,000 directories, 3 rounds. Times are wall-clock milliseconds on
 * whatever else the machine is doing; the data directory is a temporary one, deleted at the end.
 */
public final class RecoveryBench {
    private RecoveryBench() {}

    /**
     * Runs the benchmark.
     *
     * @param args {@code [FILES [DIRS [ROUNDS]]]}
     * @throws IOException if the temporary data directory cannot be made or deleted
     */
    public static void main(String[] args) throws IOException {
        int files = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int dirs = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path data = Files.createTempDirectory("seqvfs-recovery-");
        try {
            long t0 = System.nanoTime();
            try (SeqVfs vfs = SeqVfs.create(config(data, ",async"))) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                for (int d = 0; d < dirs; d++) {
                    t.mkdir("/d" + d, 0755);
                }
                for (int i = 0; i < files; i++) {
                    t.close(
                            t.open(
                                    "/d" + (i % dirs) + "/f" + i,
                                    OpenFlags.O_CREAT | OpenFlags.O_WRONLY,
                                    0644));
                }
                t.sync();
            }
            System.out.printf(
                    "built %,d files in %,d directories in %,d ms (async mount)%n",
                    files, dirs, (System.nanoTime() - t0) / 1_000_000);
            for (int r = 0; r < rounds; r++) {
                long start = System.nanoTime();
                try (SeqVfs vfs = SeqVfs.create(config(data, ""))) {
                    VfsTask t = vfs.newTask(Credentials.ROOT);
                    t.stat("/d" + (dirs - 1) + "/f" + (files - 1));
                    long first = System.nanoTime() - start;
                    long seen = 0;
                    for (int d = 0; d < dirs; d++) {
                        seen += t.readdir("/d" + d).size();
                    }
                    long all = System.nanoTime() - start;
                    if (seen != files) {
                        throw new IllegalStateException(seen + " files recovered of " + files);
                    }
                    System.out.printf(
                            "round %d: first lookup after %,d ms, every directory listed after %,d"
                                    + " ms (%,d files)%n",
                            r + 1, first / 1_000_000, all / 1_000_000, seen);
                }
            }
        } finally {
            try (Stream<Path> w = Files.walk(data)) {
                for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static Config config(Path data, String mode) {
        return ConfigFactory.parseMap(
                        Map.of(
                                "seqvfs.root.options",
                                "data_dir=" + data.toAbsolutePath() + mode,
                                "seqvfs.proc.mount",
                                "off"))
                .withFallback(PersistfsType.rootConfig(data));
    }
}
