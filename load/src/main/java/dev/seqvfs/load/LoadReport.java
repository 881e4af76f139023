package dev.seqvfs.load;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The results of one command: its workload, parameters, every run, and what the summary and the
 * JSON say about them.
 *
 * <p><b>Primary run and ratio.</b> The headline figures ({@code ops}, {@code ops_per_sec}, latency)
 * are those of the primary run: the last run of {@code primaryTarget} (and {@code primaryVariant})
 * at the largest client count. {@link #ratio()} is its ops/s over the ops/s of the reference
 * target's run with the same variant and client count (higher is better; {@code null} without a
 * reference).
 *
 * <p><b>Concurrency.</b> Runs are added by the command's thread and read by the Ctrl-C hook: every
 * method is synchronized.
 */
public final class LoadReport {
    private final String workload;
    private final String title;
    private final Map<String, Object> parameters = new LinkedHashMap<>();
    private final List<RunResult> runs = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private String primaryTarget = "seqvfs";
    private String primaryVariant = "";
    private String reference;
    private Double mbPerSec;
    private Long mismatches;
    private Function<LoadReport, List<String>> extraLines = r -> List.of();
    private String loadBefore;
    private String loadAfter;

    /**
     * Creates an empty report.
     *
     * @param workload the workload's name, as on the command line ({@code socket-close})
     * @param title one line saying what one op is and how the clients run
     */
    public LoadReport(String workload, String title) {
        this.workload = workload;
        this.title = title;
    }

    /** Returns the workload's name. */
    public String workload() {
        return workload;
    }

    /** Returns the one-line title. */
    public String title() {
        return title;
    }

    /** Sets a parameter (kept in insertion order); returns this. */
    public synchronized LoadReport parameter(String name, Object value) {
        parameters.put(name, value);
        return this;
    }

    /** Returns a copy of the parameters. */
    public synchronized Map<String, Object> parameters() {
        return new LinkedHashMap<>(parameters);
    }

    /** Adds a line printed under the title (what was imported, which driver ran). */
    public synchronized void note(String line) {
        notes.add(line);
    }

    /** Returns the notes. */
    public synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    /** Chooses the primary run's target and variant (default {@code seqvfs}, {@code ""}). */
    public synchronized void primary(String target, String variant) {
        this.primaryTarget = target;
        this.primaryVariant = variant;
    }

    /**
     * Sets the reference target of {@link #ratio()} ({@code host}, {@code seqvfs-old}), or null.
     */
    public synchronized void reference(String target) {
        this.reference = target;
    }

    /** Returns the reference target, or null. */
    public synchronized String reference() {
        return reference;
    }

    /** Sets MB/s (dbench). */
    public synchronized void mbPerSec(Double value) {
        this.mbPerSec = value;
    }

    /** Returns MB/s, or null (every workload but dbench). */
    public synchronized Double mbPerSec() {
        return mbPerSec;
    }

    /** Sets the count of results that did not match what was expected (dbench). */
    public synchronized void mismatches(Long value) {
        this.mismatches = value;
    }

    /** Returns the mismatches, or null (every workload but dbench). */
    public synchronized Long mismatches() {
        return mismatches;
    }

    /**
     * Sets the workload's own summary lines (ratio tables, scaling factors), computed from the
     * runs.
     */
    public synchronized void extraLines(Function<LoadReport, List<String>> lines) {
        this.extraLines = lines;
    }

    /** Records the host's load averages ({@code "1m 5m 15m"}) when the command started or ended. */
    public synchronized void loadAverage(boolean before, String value) {
        if (before) {
            loadBefore = value;
        } else {
            loadAfter = value;
        }
    }

    /** Returns the load averages {@code {before, after}} (either may be null). */
    public synchronized String[] loadAverages() {
        return new String[] {loadBefore, loadAfter};
    }

    /** Adds a run. */
    public synchronized void add(RunResult run) {
        runs.add(run);
    }

    /** Returns the runs in the order they were added. */
    public synchronized List<RunResult> runs() {
        return Collections.unmodifiableList(new ArrayList<>(runs));
    }

    /**
     * Returns the run of {@code target} and {@code variant} with {@code clients} clients (the last
     * one), or null.
     */
    public synchronized RunResult find(String target, String variant, int clients) {
        RunResult found = null;
        for (RunResult r : runs) {
            if (r.target().equals(target)
                    && r.variant().equals(variant)
                    && r.clients() == clients) {
                found = r;
            }
        }
        return found;
    }

    /** Returns the primary run (see the class comment), or null before it ran. */
    public synchronized RunResult primary() {
        RunResult best = null;
        for (RunResult r : runs) {
            if (r.target().equals(primaryTarget)
                    && r.variant().equals(primaryVariant)
                    && (best == null || r.clients() >= best.clients())) {
                best = r;
            }
        }
        return best;
    }

    /** Returns the reference run that {@link #ratio()} divides by, or null. */
    public synchronized RunResult referenceRun() {
        RunResult p = primary();
        return p == null || reference == null ? null : find(reference, p.variant(), p.clients());
    }

    /** Returns the primary run's ops/s over the reference run's, or null if either is missing. */
    public synchronized Double ratio() {
        RunResult p = primary();
        RunResult ref = referenceRun();
        if (p == null || ref == null || ref.opsPerSec() == 0) {
            return null;
        }
        return p.opsPerSec() / ref.opsPerSec();
    }

    /** Returns a ratio of two runs' ops/s, or null if either is missing or empty. */
    public static Double ratio(RunResult a, RunResult b) {
        if (a == null || b == null || b.opsPerSec() == 0 || a.ops() == 0) {
            return null;
        }
        return a.opsPerSec() / b.opsPerSec();
    }

    /**
     * Prints the human-readable summary: title, notes, one line per run, the workload's lines, the
     * ratio.
     */
    public synchronized void print(PrintWriter out) {
        out.println(workload + ": " + title);
        out.println(
                String.format(
                        "  %d CPUs, Java %s; load average before %s, after %s",
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("java.version"),
                        loadBefore == null ? "?" : loadBefore,
                        loadAfter == null ? "?" : loadAfter));
        for (String n : notes) {
            out.println("  " + n);
        }
        out.printf(
                "%-22s %7s %13s %9s %13s %9s %9s %9s %10s%n",
                "target", "clients", "ops", "time s", "ops/s", "mean us", "p50 us", "p99 us",
                "max us");
        for (RunResult r : runs) {
            out.printf(
                    "%-22s %7d %,13d %9.3f %,13.0f %9.2f %9.2f %9.2f %10.1f%s%n",
                    r.name(),
                    r.clients(),
                    r.ops(),
                    r.seconds(),
                    r.opsPerSec(),
                    r.meanUs(),
                    r.latencyUs(50),
                    r.latencyUs(99),
                    r.maxUs(),
                    r.interrupted() ? "  (interrupted)" : "");
        }
        for (String line : extraLines.apply(this)) {
            out.println(line);
        }
        Double ratio = ratio();
        RunResult p = primary();
        if (ratio != null) {
            out.printf(
                    "ratio (%s / %s, %d %s): %.2fx%n",
                    p.name(),
                    referenceRun().name(),
                    p.clients(),
                    p.clients() == 1 ? "client" : "clients",
                    ratio);
        }
        out.flush();
    }

    /** Formats a ratio as {@code 1.75x}, or {@code -} for null. */
    public static String fmt(Double ratio) {
        return ratio == null ? "-" : String.format("%.2fx", ratio);
    }
}
