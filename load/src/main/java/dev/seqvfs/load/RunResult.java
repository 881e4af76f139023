package dev.seqvfs.load;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What one run measured: a target ({@code seqvfs}, {@code seqvfs-old}, {@code host}), a workload
 * variant ({@code ""} if none, or e.g. {@code same-cwd}), its clients, the ops done, the wall time
 * from the start signal to the last client's return (nanoseconds), the per-op latency histogram
 * (nanoseconds) and the ops per second over time ({@code {seconds since start, ops/s of the
 * interval ending then}}).
 *
 * @param perSecond ops/s of each second of the run (and of the last part-second)
 * @param fine ops/s of each {@link Meter#FINE_NANOS} (0.1 s) of the run's first {@link
 *     Meter#FINE_LIMIT_NANOS} (30 s), for the chart of a short run; complete when the run was no
 *     longer than that
 * @param interrupted whether the run was cut short (Ctrl-C) and these are partial figures
 */
public record RunResult(
        String target,
        String variant,
        int clients,
        long ops,
        long elapsedNanos,
        Histogram latency,
        List<double[]> perSecond,
        List<double[]> fine,
        boolean interrupted) {
    /** Returns ops per second over the whole run (0 for an empty run). */
    public double opsPerSec() {
        return elapsedNanos == 0 ? 0 : ops / (elapsedNanos / 1e9);
    }

    /** Returns the wall time in seconds. */
    public double seconds() {
        return elapsedNanos / 1e9;
    }

    /** Returns {@code target} and, if any, {@code variant}: {@code "host same-cwd"}. */
    public String name() {
        return variant.isEmpty() ? target : target + " " + variant;
    }

    /** Returns the latency at a percentile, in microseconds. */
    public double latencyUs(double percentile) {
        return latency.getTotalCount() == 0 ? 0 : latency.getValueAtPercentile(percentile) / 1000.0;
    }

    /** Returns the mean latency in microseconds. */
    public double meanUs() {
        return latency.getTotalCount() == 0 ? 0 : latency.getMean() / 1000.0;
    }

    /** Returns the maximum latency in microseconds. */
    public double maxUs() {
        return latency.getTotalCount() == 0 ? 0 : latency.getMaxValue() / 1000.0;
    }
}
