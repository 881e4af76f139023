package dev.seqvfs.tests.differential;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Runs the same calls on a host {@link DataSide} and a SeqVFS one, in step, and keeps a transcript:
 * every call with both answers, and the calls whose answers differ.
 */
final class DataDiff {
    private final DataSide host;
    private final DataSide vfs;
    private final List<String> transcript = new ArrayList<>();
    private final List<String> mismatches = new ArrayList<>();

    DataDiff(DataSide host, DataSide vfs) {
        this.host = host;
        this.vfs = vfs;
    }

    /**
     * Makes {@code call} on both sides.
     *
     * @return the host's answer
     */
    String step(String what, Function<DataSide, String> call) {
        String h = call.apply(host);
        String v = call.apply(vfs);
        String line = what + " -> host " + h + (h.equals(v) ? "" : ", vfs " + v);
        transcript.add(line);
        if (!h.equals(v)) {
            mismatches.add(line);
        }
        return h;
    }

    /** Returns the calls whose answers differed. */
    List<String> mismatches() {
        return mismatches;
    }

    /** Returns every call with its answers, one per line. */
    String transcript() {
        return String.join("\n", transcript);
    }
}
