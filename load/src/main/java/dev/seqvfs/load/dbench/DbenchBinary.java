package dev.seqvfs.load.dbench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The real {@code dbench} binary, run as the reference of {@code --compare host}:
 * {@code dbench -D <fresh dir> -c <loadfile> -t <seconds> <clients>}. dbench adds a warm-up
 * of a fifth of the time before it measures, and prints
 * {@code Throughput <x> MB/sec} at the end; that figure is the result.
 */
public final class DbenchBinary {
    private static final Pattern THROUGHPUT = Pattern.compile("Throughput ([0-9.]+) MB/sec");

    private final Path binary;
    private volatile Process running;

    private DbenchBinary(Path binary) {
        this.binary = binary;
    }

    /** Returns the {@code dbench} on {@code PATH}, or {@code null} if there is none. */
    public static DbenchBinary find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "dbench");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return new DbenchBinary(p);
            }
        }
        return null;
    }

    /** Returns the binary's path. */
    public Path path() {
        return binary;
    }

    /**
     * Runs dbench in a fresh directory under {@code parent} (removed afterwards), printing
     * its progress lines indented, and returns its throughput in MB/s (empty if it
     * printed none, or was stopped).
     */
    public OptionalDouble run(Path loadfile, int clients, int seconds, Path parent, PrintStream out)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(parent, "seqvfs-dbench-bin-");
        try {
            List<String> cmd = new ArrayList<>(List.of(binary.toString(), "-D", dir.toString(), "-c",
                    loadfile.toString(), "-t", Integer.toString(seconds), Integer.toString(clients)));
            out.println("$ " + String.join(" ", cmd));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            running = p;
            OptionalDouble mbps = OptionalDouble.empty();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Matcher m = THROUGHPUT.matcher(line);
                    if (m.find()) {
                        mbps = OptionalDouble.of(Double.parseDouble(m.group(1)));
                    }
                    if (line.contains("MB/sec") || line.contains("Throughput")) {
                        out.println("  | " + line.strip());
                    }
                }
            }
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return mbps;
        } finally {
            running = null;
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path x : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(x);
                }
            }
        }
    }

    /** Stops a running dbench (Ctrl-C); safe from any thread. */
    public void stop() {
        Process p = running;
        if (p != null) {
            p.destroy();
        }
    }
}
