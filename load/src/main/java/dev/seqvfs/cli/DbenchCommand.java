package dev.seqvfs.cli;

import dev.seqvfs.load.LoadException;
import dev.seqvfs.load.OutputFiles;
import dev.seqvfs.load.dbench.DbenchBinary;
import dev.seqvfs.load.dbench.DbenchJson;
import dev.seqvfs.load.dbench.DbenchReport;
import dev.seqvfs.load.dbench.DbenchRunner;
import dev.seqvfs.load.dbench.Loadfile;
import dev.seqvfs.load.dbench.LoadfileException;
import dev.seqvfs.load.dbench.ReplayResult;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code seqvfs load dbench}: replays a dbench client loadfile on an embedded SeqVFS, one actor per
 * client, and optionally the same replay on the host and the real {@code dbench} binary for
 * comparison.
 *
 * <p>Exit status: 0 when every line ended with the status the capture recorded, 1 when any did not
 * or the run failed (one line on stderr: a failed actor, a results file that could not be written),
 * 2 for bad input (a missing or malformed loadfile, an option out of its range, a {@code --json}
 * file that cannot be written; all checked before the run). Ctrl-C stops the run and prints the
 * summary of what ran.
 */
@Command(
        name = "dbench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        versionProvider = VersionProvider.class,
        description =
                "Replay a dbench client loadfile on SeqVFS: each client a Pekko actor in its own directory"
                        + " /clients/clientN, lines run as fast as possible, the file looped until the time is up, every"
                        + " line's NT status checked against the capture.")
public final class DbenchCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
            names = "--clients",
            defaultValue = "1",
            paramLabel = "N",
            description =
                    "number of clients, 1 to " + Checks.MAX_CLIENTS + " (default ${DEFAULT-VALUE})")
    int clients;

    @Option(
            names = "--time",
            defaultValue = "20",
            paramLabel = "SECONDS",
            description =
                    "how long to measure, above 0 (fractions too: 2.5), at most "
                            + Checks.MAX_SECONDS
                            + " (default ${DEFAULT-VALUE}); a run that measures under 10 s or under one loadfile pass per"
                            + " client is flagged too short to mean much")
    double time;

    @Option(
            names = "--loadfile",
            defaultValue = "/usr/share/dbench/client.txt",
            paramLabel = "PATH",
            description =
                    "the loadfile (default ${DEFAULT-VALUE}, from Debian's dbench package; when it is missing"
                            + " and this runs as root, apt-get installs dbench)")
    Path loadfile;

    @Option(
            names = "--warmup",
            paramLabel = "SECONDS",
            description =
                    "run this long first, unmeasured, 0 to "
                            + Checks.MAX_SECONDS
                            + " (default: a fifth of --time, as dbench, and at least 4: the JIT compiles the replay's code in"
                            + " its first seconds; a warm-up under 4 s is flagged too short)")
    Double warmupOption;

    /** The warm-up in seconds: {@code --warmup}, or {@link DbenchRunner.Schedule#defaultWarmup}. */
    private double warmup;

    @Option(
            names = "--once",
            description =
                    "run the loadfile once per client instead of looping until --time "
                            + "(which then only limits the run)")
    boolean once;

    @Option(names = "--json", paramLabel = "FILE", description = "also write the results as JSON")
    Path json;

    @Option(
            names = "--compare",
            paramLabel = "host",
            description =
                    "run the same replay on the host's tmpfs (java.nio, a thread per client) and, if installed,"
                            + " the dbench binary; print SeqVFS/reference ratios")
    String compare;

    @Option(
            names = "--host-dir",
            defaultValue = "/dev/shm",
            paramLabel = "DIR",
            description = "where --compare host works (default ${DEFAULT-VALUE})")
    Path hostDir;

    @Option(
            names = "--show-mismatches",
            defaultValue = "10",
            paramLabel = "N",
            description = "print the first N mismatching lines, N >= 0 (default ${DEFAULT-VALUE})")
    int showMismatches;

    @Option(
            names = "--threads",
            paramLabel = "N",
            description =
                    "threads for the client actors, 1 to "
                            + Checks.MAX_CLIENTS
                            + " (default: clients, at most the CPUs)")
    Integer threads;

    /** Checks every option, each against its own range; throws a usage {@link LoadException}. */
    private void checkOptions() {
        Checks.clients(clients);
        Checks.seconds("--time", time, 0, true);
        if (warmupOption != null) {
            warmup = Checks.seconds("--warmup", warmupOption, 0, false);
        } else {
            warmup = seconds(DbenchRunner.Schedule.defaultWarmup(duration(time)));
        }
        Checks.range("--show-mismatches", showMismatches, 0, Long.MAX_VALUE);
        if (threads != null) {
            Checks.range("--threads", threads, 1, Checks.MAX_CLIENTS);
        }
        if (compare != null && !compare.equals("host")) {
            throw LoadException.usage("--compare " + compare + ": expected host");
        }
        if (compare != null && !Files.isDirectory(hostDir)) {
            throw LoadException.usage("--host-dir " + hostDir + ": not an existing directory");
        }
        if (json != null) {
            OutputFiles.checkWritable("--json", json);
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        try {
            checkOptions();
        } catch (LoadException e) {
            return fail(e.getMessage(), 2);
        }
        Loadfile lf;
        try {
            if (loadfile.equals(Loadfile.DEFAULT) && !Files.exists(loadfile)) {
                fetchDefaultLoadfile(out);
            }
            lf = Loadfile.read(loadfile);
        } catch (LoadfileException e) {
            return fail("--loadfile " + loadfile + ": " + e.getMessage(), 2);
        }
        if (lf.ops().isEmpty()) {
            return fail("--loadfile " + loadfile + ": holds no operations", 2);
        }
        DbenchRunner runner = new DbenchRunner(out, showMismatches, threads == null ? 0 : threads);
        DbenchBinary binary = compare != null ? DbenchBinary.find() : null;
        CountDownLatch reported = new CountDownLatch(1);
        Thread hook =
                new Thread(
                        () -> {
                            runner.stop();
                            if (binary != null) {
                                binary.stop();
                            }
                            try {
                                reported.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "dbench-ctrl-c");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return run(out, lf, runner, binary);
        } catch (DbenchRunner.ReplayFailedException e) {
            out.flush();
            return fail(e.getMessage(), 1);
        } finally {
            reported.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is running and waits for this summary
            }
        }
    }

    /**
     * Prints {@code seqvfs load dbench: MESSAGE} on the command line's stderr, one line, and
     * returns {@code status}.
     */
    private int fail(String message, int status) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("seqvfs load " + spec.name() + ": " + message);
        err.flush();
        return status;
    }

    /**
     * Installs Debian's dbench package (which ships the default loadfile) when running as root with
     * {@code apt-get} available, as the project's CI does; otherwise does nothing and the missing
     * file is reported with how to get it.
     */
    private static void fetchDefaultLoadfile(PrintStream out) {
        if (!isRoot() || !onPath("apt-get")) {
            return;
        }
        out.println(
                "the default loadfile "
                        + Loadfile.DEFAULT
                        + " is missing: running apt-get install dbench (as root)");
        try {
            ProcessBuilder update = new ProcessBuilder("apt-get", "update", "-qq").inheritIO();
            ProcessBuilder install =
                    new ProcessBuilder("apt-get", "install", "-y", "-qq", "dbench").inheritIO();
            install.environment().put("DEBIAN_FRONTEND", "noninteractive");
            if (update.start().waitFor() == 0) {
                install.start().waitFor();
            }
        } catch (IOException e) {
            out.println("apt-get failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+", -1)[1].equals("0");
                }
            }
        } catch (IOException e) {
            // not Linux: do not guess
        }
        return false;
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator, -1)) {
            if (Files.isExecutable(Path.of(dir.isEmpty() ? "." : dir, command))) {
                return true;
            }
        }
        return false;
    }

    private int run(PrintStream out, Loadfile lf, DbenchRunner runner, DbenchBinary binary)
            throws Exception {
        DbenchRunner.Schedule schedule =
                new DbenchRunner.Schedule(duration(warmup), duration(time), once);
        out.println(
                String.format(
                        Locale.ROOT,
                        "dbench replay on SeqVFS: %d clients, %s, loadfile %s (%d lines)",
                        clients,
                        once
                                ? "the file once each"
                                : "warm-up "
                                        + format(warmup)
                                        + " s (not measured"
                                        + (warmupOption == null
                                                ? "; a fifth of --time as dbench, at least "
                                                        + DbenchRunner.Schedule.MIN_WARMUP
                                                                .toSeconds()
                                                        + " s"
                                                : "")
                                        + "), then "
                                        + format(time)
                                        + " s",
                        loadfile,
                        lf.ops().size()));
        ReplayResult seq = runner.runSeqVfs(lf.ops(), clients, schedule);
        if (seq == null) {
            return 130;
        }
        DbenchReport.print(out, seq);
        ReplayResult host = null;
        DbenchBinary.Result bin = null;
        if (compare != null && !runner.stopRequested()) {
            out.println();
            out.println(
                    "reference: the same replay on the host, "
                            + hostDir
                            + " through java.nio, a thread per client");
            host = runner.runHost(lf.ops(), clients, schedule, hostDir);
            if (host != null) {
                DbenchReport.print(out, host);
            }
            if (binary == null) {
                out.println();
                out.println(
                        "reference: no dbench binary on PATH (apt-get install dbench), skipped");
            } else if (!runner.stopRequested()) {
                out.println();
                int t = DbenchBinary.wholeSeconds(time);
                out.println(
                        "reference: the dbench binary ("
                                + binary.path()
                                + "), its own warm-up of "
                                + DbenchBinary.ownWarmup(t)
                                + " s first (not measured, a fifth of -t in whole seconds)"
                                + (t != time
                                        ? "; it takes whole seconds: -t "
                                                + t
                                                + " for --time "
                                                + format(time)
                                        : ""));
                Duration deadline = DbenchBinary.deadline(t);
                boolean killed = false;
                try {
                    bin = binary.run(loadfile.toAbsolutePath(), clients, t, hostDir, out, deadline);
                } catch (DbenchBinary.DeadlineException e) {
                    out.println("  reference failed: " + e.getMessage());
                    killed = true;
                }
                if (bin == null && !killed) {
                    out.println("  dbench printed no throughput");
                } else if (bin.cpuSeconds() >= 0) {
                    out.println(
                            String.format(
                                    Locale.ROOT,
                                    "  | CPU (user + system, warm-up included) %.1f s over %d lines:"
                                            + " %.2f us per op",
                                    bin.cpuSeconds(),
                                    bin.lines(),
                                    bin.cpuMicrosPerOp()));
                }
            }
            printComparison(out, seq, host, bin);
        }
        if (json != null) {
            try {
                DbenchJson.of(seq, time, once ? 0 : warmup, loadfile, host, bin).write(json);
                out.println("wrote " + json);
            } catch (IOException e) {
                out.flush();
                return fail("--json " + json + ": cannot write: " + OutputFiles.reason(e), 1);
            }
        }
        if (seq.mismatches() != 0) {
            out.println(seq.mismatches() + " line(s) ended with another status than the capture's");
            return 1;
        }
        return 0;
    }

    /** Returns {@code seconds} as a duration, to the nanosecond. */
    private static Duration duration(double seconds) {
        return Duration.ofNanos(Math.round(seconds * 1e9));
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    /** Returns seconds as the user would write them: {@code 20}, {@code 2.5}. */
    private static String format(double seconds) {
        return seconds == Math.rint(seconds)
                ? Long.toString((long) seconds)
                : Double.toString(seconds);
    }

    private static void printComparison(
            PrintStream out, ReplayResult seq, ReplayResult host, DbenchBinary.Result bin) {
        out.println();
        out.println(
                String.format(
                        Locale.ROOT,
                        "comparison (%d clients, same machine, one after the other; load "
                                + "average now %s):",
                        seq.clients(),
                        loadAverage()));
        out.println(
                "                              throughput     SeqVFS/ref   CPU per op   ref/SeqVFS CPU per op");
        out.println(
                String.format(
                        Locale.ROOT,
                        "  SeqVFS (actors, async API)  %9.2f MB/s                %6.2f us",
                        seq.mbPerSec(),
                        seq.cpuMicrosPerOp()));
        if (host != null) {
            out.println(
                    String.format(
                            Locale.ROOT,
                            "  host replay (java.nio)      %9.2f MB/s    %6.2fx     %6.2f us     %6.2fx",
                            host.mbPerSec(),
                            ratio(seq.mbPerSec(), host.mbPerSec()),
                            host.cpuMicrosPerOp(),
                            ratio(host.cpuMicrosPerOp(), seq.cpuMicrosPerOp())));
        }
        if (bin != null) {
            out.println(
                    String.format(
                            Locale.ROOT,
                            "  dbench binary (tmpfs)       %9.2f MB/s    %6.2fx     %6.2f us     %6.2fx",
                            bin.mbPerSec(),
                            ratio(seq.mbPerSec(), bin.mbPerSec()),
                            bin.cpuMicrosPerOp(),
                            ratio(bin.cpuMicrosPerOp(), seq.cpuMicrosPerOp())));
        }
        out.println(
                "  (CPU per op counts every thread and process of the run, JIT and GC included; on a busy"
                        + " machine it is the steadier figure)");
        if (DbenchReport.tooShort(seq) != null
                || (host != null && DbenchReport.tooShort(host) != null)) {
            out.println(
                    "  (the replay was too short to mean much, see its summary above: so are these ratios)");
        }
    }

    private static double ratio(double a, double b) {
        return a < 0 || b <= 0 ? Double.NaN : a / b;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ", -1)[0];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
