package dev.seqvfs.load.dbench;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Prints the first few lines whose outcome differed from the capture, with their line numbers, for
 * every client at once. Thread-safe: clients report concurrently; each message is one {@code
 * println}.
 */
public final class MismatchLog {
    private final PrintStream out;
    private final int limit;
    private final AtomicInteger printed = new AtomicInteger();

    /**
     * @param out where to print
     * @param limit how many to print in all (the rest are only counted)
     */
    public MismatchLog(PrintStream out, int limit) {
        this.out = out;
        this.limit = limit;
    }

    /** Reports that {@code client}'s run of {@code op} ended with {@code got}. */
    public void report(int client, LoadOp op, DbenchClient.Outcome got) {
        int n = printed.incrementAndGet();
        if (n > limit) {
            return;
        }
        StringBuilder sb =
                new StringBuilder("MISMATCH client ")
                        .append(client)
                        .append(" line ")
                        .append(op.line())
                        .append(": ")
                        .append(op.text())
                        .append(" -> got ")
                        .append(got.status().name());
        if (got.detail() != null) {
            sb.append(" (").append(got.detail()).append(')');
        }
        if (n == limit) {
            sb.append(" [further mismatches are only counted]");
        }
        out.println(sb);
    }

    /** Reports a line that failed with something other than a file-system answer (a bug). */
    public void failure(int client, LoadOp op, Throwable t) {
        int n = printed.incrementAndGet();
        if (n <= limit) {
            out.println(
                    "FAILURE client "
                            + client
                            + " line "
                            + op.line()
                            + ": "
                            + op.text()
                            + " -> "
                            + t);
        }
    }
}
