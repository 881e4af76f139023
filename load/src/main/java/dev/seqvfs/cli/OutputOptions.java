package dev.seqvfs.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options every workload shares: where to write results for scripts and charts, and whether to
 * print progress. A picocli mixin ({@code @Mixin OutputOptions output;}).
 */
public final class OutputOptions {
    @Option(
            names = "--json",
            paramLabel = "FILE",
            description =
                    "Write the results as JSON: workload, parameters, ops, ops_per_sec, mb_per_sec, mismatches,"
                            + " ratio (SeqVFS over the reference, higher is better), latency_us {mean, p50, p99, max}, and"
                            + " every run.")
    Path json;

    @Option(
            names = "--chart",
            paramLabel = "FILE.svg|png",
            description =
                    "Draw every run's ops/s over time (each 0.1 s for runs up to 30 s, else each second), and"
                            + " the scaling curves when several client counts ran, into an SVG (its text as text) or PNG"
                            + " file.")
    Path chart;

    @Option(
            names = "--no-progress",
            description = "Do not print a progress line per second (on stderr).")
    boolean noProgress;

    /** Returns the JSON file, or null. */
    public Path json() {
        return json;
    }

    /** Returns the chart file, or null. */
    public Path chart() {
        return chart;
    }

    /** Returns whether to print progress. */
    public boolean progress() {
        return !noProgress;
    }
}
