package dev.seqvfs.cli;

import dev.seqvfs.load.LoadException;
import java.util.List;
import java.util.Locale;

/**
 * The limits every workload checks its options against before it runs, each failure a {@link
 * LoadException#usage usage} error naming the option and the value (exit 2). Stateless;
 * thread-safe.
 */
final class Checks {
    /**
     * The most clients any workload runs (per count of a {@code --clients} list): each client holds
     * its own buffers and latency histograms (a dbench client some hundreds of kilobytes), and
     * 20000 of them exhausted a 6 GB heap.
     */
    static final int MAX_CLIENTS = 4096;

    /**
     * The longest {@code --time} and {@code --warmup}, in seconds (one day): Pekko's scheduler
     * refuses delays past about 248 days, and no load test needs more.
     */
    static final int MAX_SECONDS = 86_400;

    private Checks() {}

    /** Checks one client count: 1 to {@link #MAX_CLIENTS}. */
    static int clients(int c) {
        if (c < 1 || c > MAX_CLIENTS) {
            throw LoadException.usage(
                    "--clients " + c + ": a client count must be between 1 and " + MAX_CLIENTS);
        }
        return c;
    }

    /** Checks a --clients list: not empty, every count 1 to {@link #MAX_CLIENTS}. */
    static List<Integer> clients(List<Integer> clients) {
        if (clients == null || clients.isEmpty()) {
            throw LoadException.usage("--clients needs at least one count");
        }
        for (int c : clients) {
            clients(c);
        }
        return List.copyOf(clients);
    }

    /**
     * Checks a duration in seconds: at least {@code min} (or above it, when {@code exclusiveMin}),
     * at most {@link #MAX_SECONDS}, not NaN.
     */
    static double seconds(String option, double value, double min, boolean exclusiveMin) {
        boolean low = exclusiveMin ? !(value > min) : !(value >= min);
        if (low || !(value <= MAX_SECONDS)) {
            throw LoadException.usage(
                    option
                            + " "
                            + format(value)
                            + ": must be "
                            + (exclusiveMin ? "above " : "from ")
                            + format(min)
                            + (exclusiveMin ? " and at most " : " to ")
                            + MAX_SECONDS
                            + " seconds");
        }
        return value;
    }

    /** Checks a count: {@code min} to {@code max}. */
    static long range(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw LoadException.usage(
                    option
                            + " "
                            + value
                            + ": must be "
                            + (max == Long.MAX_VALUE
                                    ? "at least " + min
                                    : "from " + min + " to " + max));
        }
        return value;
    }

    private static String format(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15
                ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%s", v);
    }
}
