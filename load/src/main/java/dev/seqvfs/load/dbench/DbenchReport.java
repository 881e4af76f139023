package dev.seqvfs.load.dbench;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.AbstractHistogram;

/**
 * The final table of a replay: throughput as dbench prints it, then per operation the
 * count, the mismatches and the latency (mean, p50, p99, max, in microseconds), then the
 * engine's walk counters.
 */
public final class DbenchReport {
    private DbenchReport() {
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
    public record OpLatency(long count, long mismatches, @JsonProperty("mean_us") double meanUs,
                            @JsonProperty("p50_us") double p50Us, @JsonProperty("p99_us") double p99Us,
                            @JsonProperty("max_us") double maxUs) {
    }

    /** Returns the per-operation latencies of {@code r}, in {@link OpType} order, for the operations that ran. */
    public static Map<String, OpLatency> latencies(ReplayResult r) {
        Map<String, OpLatency> m = new LinkedHashMap<>();
        for (OpType t : OpType.values()) {
            AbstractHistogram h = r.total().latency(t);
            if (h == null || h.getTotalCount() == 0) {
                continue;
            }
            m.put(t.displayName(), new OpLatency(h.getTotalCount(), r.total().mismatches(t), h.getMean() / 1e3,
                    h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getMaxValue() / 1e3));
        }
        return m;
    }

    /** Prints the summary of {@code r}. */
    public static void print(PrintStream out, ReplayResult r) {
        out.println();
        out.println(String.format(Locale.ROOT, "%s: Throughput %.2f MB/sec  %d clients  %.1f s  %d ops (%.0f ops/s)"
                        + "  %d loadfile passes  mismatches %d%s",
                r.target(), r.mbPerSec(), r.clients(), r.seconds(), r.ops(), r.opsPerSec(), r.loops(),
                r.mismatches(), r.interrupted() ? "  (interrupted: partial)" : ""));
        if (r.cpuNanos() >= 0) {
            out.println(String.format(Locale.ROOT, " process CPU %.1f s (%.0f%% of %d CPUs), %.2f us per op", r.cpuNanos() / 1e9,
                    100.0 * r.cpuNanos() / r.nanos() / Runtime.getRuntime().availableProcessors(),
                    Runtime.getRuntime().availableProcessors(), r.cpuMicrosPerOp()));
        }
        out.println(" Operation        Count  Mismatch   Mean(us)    p50(us)    p99(us)     Max(us)");
        out.println(" ------------------------------------------------------------------------------");
        for (Map.Entry<String, OpLatency> e : latencies(r).entrySet()) {
            OpLatency l = e.getValue();
            out.println(String.format(Locale.ROOT, " %-12s %9d  %8d  %9.2f  %9.2f  %9.2f  %10.2f", e.getKey(),
                    l.count(), l.mismatches(), l.meanUs(), l.p50Us(), l.p99Us(), l.maxUs()));
        }
        if ("SeqVFS".equals(r.target())) {
            out.println(String.format(Locale.ROOT, " walk retries +%d, ref-walks +%d", r.walkRetries(),
                    r.refWalks()));
        }
    }
}
