package dev.seqvfs.load.dbench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The real {@code dbench} binary, run as the reference of {@code --compare host}: {@code dbench -D
 * <fresh dir> -c <loadfile> -t <seconds> <clients>}. dbench adds a warm-up of a fifth of the time
 * before it measures, and prints {@code Throughput <x> MB/sec} at the end; that figure is the
 * result.
 */
public final class DbenchBinary {
    private static final Pattern THROUGHPUT = Pattern.compile("Throughput ([0-9.]+) MB/sec");

    /** A progress line: clients, lines per client since the start, MB/s, ... */
    private static final Pattern PROGRESS =
            Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+[0-9.]+ MB/sec");

    /** The shell's {@code times}: user and system time of its (reaped) children. */
    private static final Pattern TIMES = Pattern.compile("^(\\d+)m([0-9.]+)s (\\d+)m([0-9.]+)s$");

    /**
     * What dbench reported.
     *
     * @param mbPerSec its throughput, measured after its warm-up
     * @param lines loadfile lines its clients ran in all, warm-up included (0 if unknown)
     * @param cpuSeconds CPU time (user + system) dbench and its client processes used, warm-up and
     *     cleanup included (-1 if unknown)
     */
    public record Result(double mbPerSec, long lines, double cpuSeconds) {
        /** Returns CPU time per line in microseconds, or -1. */
        public double cpuMicrosPerOp() {
            return lines <= 0 || cpuSeconds < 0 ? -1 : cpuSeconds * 1e6 / lines;
        }
    }

    private final Path binary;
    private volatile Process running;

    /** The margin {@link #deadline} adds to dbench's time and warm-up. */
    static final Duration DEADLINE_MARGIN = Duration.ofSeconds(30);

    /** Uses {@code binary} as dbench (tests: a stand-in script). */
    DbenchBinary(Path binary) {
        this.binary = binary;
    }

    /**
     * dbench did not finish by its deadline and was killed ({@code destroyForcibly}, its client
     * processes first).
     */
    public static final class DeadlineException extends Exception {
        private static final long serialVersionUID = 1L;

        DeadlineException(String message) {
            super(message);
        }
    }

    /**
     * Returns the {@code -t} to give dbench for a replay of {@code seconds}: dbench takes whole
     * seconds, so a fraction is rounded up (at least 1), never measuring less than asked.
     */
    public static int wholeSeconds(double seconds) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(seconds)));
    }

    /**
     * Returns dbench's own warm-up for {@code -t seconds}, in seconds: a fifth, in whole seconds,
     * as dbench.c.
     */
    public static int ownWarmup(int seconds) {
        return seconds / 5;
    }

    /**
     * Returns how long a dbench run of {@code seconds} may take before it is killed: its time, its
     * own warm-up (a fifth of the time), its setup and cleanup within {@link #DEADLINE_MARGIN}.
     */
    public static Duration deadline(int seconds) {
        return Duration.ofSeconds(seconds).plusSeconds(ownWarmup(seconds)).plus(DEADLINE_MARGIN);
    }

    /** Returns the {@code dbench} on {@code PATH}, or {@code null} if there is none. */
    public static DbenchBinary find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator, -1)) {
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
     * Runs dbench in a fresh directory under {@code parent} (removed afterwards), printing its
     * progress lines indented, under {@code /bin/sh} whose {@code times} then reports the CPU time
     * dbench's processes used.
     *
     * @param deadline how long dbench may take in all (see {@link #deadline}); past it, dbench and
     *     its clients are killed
     * @return what it reported, or {@code null} if it printed no throughput (or was stopped)
     * @throws DeadlineException dbench was still running at the deadline and was killed
     */
    public Result run(
            Path loadfile,
            int clients,
            int seconds,
            Path parent,
            PrintStream out,
            Duration deadline)
            throws IOException, InterruptedException, DeadlineException {
        Path dir = Files.createTempDirectory(parent, "seqvfs-dbench-bin-");
        try {
            List<String> args =
                    List.of(
                            binary.toString(),
                            "-D",
                            dir.toString(),
                            "-c",
                            loadfile.toString(),
                            "-t",
                            Integer.toString(seconds),
                            Integer.toString(clients));
            out.println("$ " + String.join(" ", args));
            List<String> cmd =
                    new ArrayList<>(
                            List.of("/bin/sh", "-c", "\"$0\" \"$@\"; rc=$?; times; exit $rc"));
            cmd.addAll(args);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            running = p;
            AtomicBoolean killed = new AtomicBoolean();
            ScheduledExecutorService watchdog =
                    Executors.newSingleThreadScheduledExecutor(
                            r -> {
                                Thread t = new Thread(r, "dbench-deadline");
                                t.setDaemon(true);
                                return t;
                            });
            var unused =
                    watchdog.schedule(
                            () -> { // ended by watchdog.shutdownNow() below
                                if (p.isAlive()) {
                                    killed.set(true);
                                    kill(p);
                                }
                            },
                            deadline.toMillis(),
                            TimeUnit.MILLISECONDS);
            OptionalDouble mbps = OptionalDouble.empty();
            long lines = 0;
            double cpu = -1;
            try (BufferedReader r =
                    new BufferedReader(
                            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Matcher m = THROUGHPUT.matcher(line);
                    if (m.find()) {
                        mbps = OptionalDouble.of(Double.parseDouble(m.group(1)));
                    }
                    Matcher pr = PROGRESS.matcher(line);
                    if (pr.find()) {
                        lines = Long.parseLong(pr.group(1)) * Long.parseLong(pr.group(2));
                    }
                    Matcher t = TIMES.matcher(line.strip());
                    if (t.find()) {
                        // the second line of times: the children's user and system time
                        cpu =
                                Long.parseLong(t.group(1)) * 60
                                        + Double.parseDouble(t.group(2))
                                        + Long.parseLong(t.group(3)) * 60
                                        + Double.parseDouble(t.group(4));
                        continue;
                    }
                    if (line.contains("MB/sec") || line.contains("Throughput")) {
                        out.println("  | " + line.strip());
                    }
                }
            } catch (IOException e) {
                // A kill races the read: the JDK's reaper closes the pipe under a blocked
                // read ("Bad file descriptor"). Then the deadline is the failure to report.
                if (!killed.get()) {
                    throw e;
                }
            }
            watchdog.shutdownNow();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                kill(p);
            }
            if (killed.get()) {
                throw new DeadlineException(
                        "the dbench binary was still running after "
                                + deadline.toSeconds()
                                + " s (its time "
                                + seconds
                                + " s, warm-up "
                                + ownWarmup(seconds)
                                + " s, margin "
                                + DEADLINE_MARGIN.toSeconds()
                                + " s): killed, no result");
            }
            return mbps.isPresent() ? new Result(mbps.getAsDouble(), lines, cpu) : null;
        } finally {
            running = null;
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path x : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(x);
                }
            }
        }
    }

    /** Kills {@code p} and every process under it (the shell's dbench and its clients). */
    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    /** Stops a running dbench (Ctrl-C); safe from any thread. */
    public void stop() {
        Process p = running;
        if (p != null) {
            p.destroy();
        }
    }
}
