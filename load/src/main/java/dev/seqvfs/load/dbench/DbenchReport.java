package dev.seqvfs.load.dbench;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.AbstractHistogram;

/**
 * The final table of a replay: throughput as dbench prints it (with the loadfile passes per client
 * measured), whether the run was too short to mean much ({@link #tooShort}), then per operation the
 * count, the mismatches and the latency (mean, p50, p99, max, in microseconds), then the engine's
 * walk counters.
 */
public final class DbenchReport {
    /**
     * The shortest measured time that means much, in seconds. After the warm-up the rate still
     * climbs (the JIT's last tiers) and swings from one second to the next (GC, the scheduler): in
     * a 30-s run of Debian's {@code client.txt} at 4 clients after a 4-s warm-up, on a 2-vCPU
     * machine, the running figure was 74% of the final one at 2 s, 92% at 8 s, 97% at 10 s.
     */
    public static final double MIN_SECONDS = 10;

    /**
     * The fewest loadfile passes per client a run must measure: fewer, and part of the file never
     * ran while measured. dbench's MB/s counts the bytes of ReadX and WriteX lines, which vary
     * along the file: over 5,000-line stretches of {@code client.txt}, from 4,900 to 9,000 bytes
     * per line (5,430 over the whole file).
     */
    public static final double MIN_PASSES_PER_CLIENT = 1;

    /**
     * Seconds a measured time or warm-up may fall short of its bound and still meet it: a replay
     * stops, or starts measuring, a little after its timer (the host replay's clients check the
     * clock between lines), which is not the user's doing.
     */
    private static final double SLACK_SECONDS = 0.1;

    private DbenchReport() {}

    /**
     * Returns why {@code r} was too short to mean much, one line, or {@code null} when it was not:
     * measured under {@link #MIN_SECONDS}, fewer than {@link #MIN_PASSES_PER_CLIENT} loadfile
     * passes per client, or a warm-up under {@link DbenchRunner.Schedule#MIN_WARMUP} (the JIT still
     * compiling). For the first two it adds the {@code --time} that would do.
     */
    public static String tooShort(ReplayResult r) {
        List<String> why = new ArrayList<>();
        double passes = r.passesPerClient();
        boolean time = r.seconds() < MIN_SECONDS - SLACK_SECONDS;
        boolean few = passes < MIN_PASSES_PER_CLIENT;
        if (time) {
            why.add(
                    String.format(
                            Locale.ROOT,
                            "measured %.1f s, under %.0f s (the rate still climbs and swings from"
                                    + " second to second)",
                            r.seconds(),
                            MIN_SECONDS));
        }
        if (few) {
            why.add(
                    String.format(
                            Locale.ROOT,
                            "%s loadfile passes per client, under %.0f (part of the file only)",
                            passes(passes),
                            MIN_PASSES_PER_CLIENT));
        }
        double minWarmup = DbenchRunner.Schedule.MIN_WARMUP.toNanos() / 1e9;
        if (r.warmupSeconds() < minWarmup - SLACK_SECONDS) {
            why.add(
                    String.format(
                            Locale.ROOT,
                            "%s warm-up, under %.0f s (the JIT still compiling)",
                            r.warmupNanos() == 0
                                    ? "no"
                                    : String.format(Locale.ROOT, "a %.1f s", r.warmupSeconds()),
                            minWarmup));
        }
        if ((time || few) && passes > 0 && !r.interrupted()) {
            double enough = Math.max(MIN_SECONDS, r.seconds() * MIN_PASSES_PER_CLIENT / passes);
            why.add(
                    String.format(
                            Locale.ROOT, "--time %d would do here", (long) Math.ceil(enough)));
        }
        return why.isEmpty() ? null : String.join("; ", why);
    }

    /**
     * Latency of one operation type, in microseconds.
     *
     * @param count lines run
     * @param mismatches lines whose outcome differed from the capture
     * @param meanUs mean
     * @param p50Us median
     * @param p99Us 99th percentile
     * @param maxUs maximum
     */
    public record OpLatency(
            long count,
            long mismatches,
            @JsonProperty("mean_us") double meanUs,
            @JsonProperty("p50_us") double p50Us,
            @JsonProperty("p99_us") double p99Us,
            @JsonProperty("max_us") double maxUs) {}

    /**
     * Returns the per-operation latencies of {@code r}, in {@link OpType} order, for the operations
     * that ran.
     */
    public static Map<String, OpLatency> latencies(ReplayResult r) {
        Map<String, OpLatency> m = new LinkedHashMap<>();
        for (OpType t : OpType.values()) {
            AbstractHistogram h = r.total().latency(t);
            if (h == null || h.getTotalCount() == 0) {
                continue;
            }
            m.put(
                    t.displayName(),
                    new OpLatency(
                            h.getTotalCount(),
                            r.total().mismatches(t),
                            h.getMean() / 1e3,
                            h.getValueAtPercentile(50) / 1e3,
                            h.getValueAtPercentile(99) / 1e3,
                            h.getMaxValue() / 1e3));
        }
        return m;
    }

    /** Returns a count of passes: one decimal, two under one pass (0.04, not 0.0). */
    private static String passes(double p) {
        return String.format(Locale.ROOT, p < 1 ? "%.2f" : "%.1f", p);
    }

    /** Prints the summary of {@code r}. */
    public static void print(PrintStream out, ReplayResult r) {
        out.println();
        out.println(
                String.format(
                        Locale.ROOT,
                        "%s: Throughput %.2f MB/sec  %d clients  %.1f s  %d ops (%.0f ops/s)"
                                + "  %s loadfile passes per client  mismatches %d%s",
                        r.target(),
                        r.mbPerSec(),
                        r.clients(),
                        r.seconds(),
                        r.ops(),
                        r.opsPerSec(),
                        passes(r.passesPerClient()),
                        r.mismatches(),
                        r.interrupted() ? "  (interrupted: partial)" : ""));
        String shortBy = tooShort(r);
        if (shortBy != null) {
            out.println(" too short to mean much: " + shortBy);
        }
        if (r.cpuNanos() >= 0) {
            out.println(
                    String.format(
                            Locale.ROOT,
                            " process CPU %.1f s (%.0f%% of %d CPUs), %.2f us per op",
                            r.cpuNanos() / 1e9,
                            100.0
                                    * r.cpuNanos()
                                    / r.nanos()
                                    / Runtime.getRuntime().availableProcessors(),
                            Runtime.getRuntime().availableProcessors(),
                            r.cpuMicrosPerOp()));
        }
        out.println(
                " Operation        Count  Mismatch   Mean(us)    p50(us)    p99(us)     Max(us)");
        out.println(
                " ------------------------------------------------------------------------------");
        for (Map.Entry<String, OpLatency> e : latencies(r).entrySet()) {
            OpLatency l = e.getValue();
            out.println(
                    String.format(
                            Locale.ROOT,
                            " %-12s %9d  %8d  %9.2f  %9.2f  %9.2f  %10.2f",
                            e.getKey(),
                            l.count(),
                            l.mismatches(),
                            l.meanUs(),
                            l.p50Us(),
                            l.p99Us(),
                            l.maxUs()));
        }
        if ("SeqVFS".equals(r.target())) {
            out.println(
                    String.format(
                            Locale.ROOT,
                            " walk retries +%d, ref-walks +%d",
                            r.walkRetries(),
                            r.refWalks()));
        }
    }
}
