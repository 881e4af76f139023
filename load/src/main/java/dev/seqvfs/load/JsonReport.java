package dev.seqvfs.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes a {@link LoadReport} as JSON for scripts.
 *
 * <p>Top-level fields: {@code workload}; {@code parameters} (the command's options); {@code ops}
 * and {@code ops_per_sec} of the primary run; {@code mb_per_sec} and {@code mismatches} (dbench;
 * {@code null} elsewhere); {@code ratio} (primary over reference ops/s, higher is better; {@code
 * null} without {@code --compare}); {@code ratio_of} (which runs it divides); {@code latency_us} of
 * the primary run ({@code mean}, {@code p50}, {@code p99}, {@code max}, microseconds, from
 * HdrHistogram); {@code partial} (the run was interrupted); {@code load_average} of the host
 * ({@code before} and {@code after} the command, "1m 5m 15m"); {@code runs}: every run with {@code
 * target}, {@code variant}, {@code clients}, {@code ops}, {@code seconds}, {@code ops_per_sec},
 * {@code latency_us} and {@code per_second} ({@code [seconds since start, ops/s]} pairs).
 */
public final class JsonReport {
    private static final ObjectMapper MAPPER =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {}

    /** Returns the report as a JSON tree. */
    public static ObjectNode toJson(LoadReport report) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("workload", report.workload());
        ObjectNode params = root.putObject("parameters");
        for (Map.Entry<String, Object> e : report.parameters().entrySet()) {
            params.set(e.getKey(), MAPPER.valueToTree(e.getValue()));
        }
        RunResult p = report.primary();
        if (p != null) {
            root.put("ops", p.ops());
            root.put("ops_per_sec", p.opsPerSec());
        } else {
            root.putNull("ops");
            root.putNull("ops_per_sec");
        }
        putNullable(root, "mb_per_sec", report.mbPerSec());
        if (report.mismatches() == null) {
            root.putNull("mismatches");
        } else {
            root.put("mismatches", report.mismatches());
        }
        putNullable(root, "ratio", report.ratio());
        RunResult ref = report.referenceRun();
        if (p != null && ref != null) {
            root.put("ratio_of", p.name() + " / " + ref.name() + ", " + p.clients() + " clients");
        } else {
            root.putNull("ratio_of");
        }
        if (p != null) {
            latency(root.putObject("latency_us"), p);
        } else {
            root.putNull("latency_us");
        }
        boolean partial = false;
        ArrayNode runs = root.putArray("runs");
        for (RunResult r : report.runs()) {
            partial |= r.interrupted();
            ObjectNode o = runs.addObject();
            o.put("target", r.target());
            o.put("variant", r.variant());
            o.put("clients", r.clients());
            o.put("ops", r.ops());
            o.put("seconds", r.seconds());
            o.put("ops_per_sec", r.opsPerSec());
            latency(o.putObject("latency_us"), r);
            ArrayNode series = o.putArray("per_second");
            for (double[] point : r.perSecond()) {
                series.addArray().add(point[0]).add(point[1]);
            }
        }
        root.put("partial", partial);
        ObjectNode load = root.putObject("load_average");
        String[] la = report.loadAverages();
        load.put("before", la[0]);
        load.put("after", la[1]);
        return root;
    }

    /** Writes the report to {@code file}. */
    public static void write(LoadReport report, Path file) throws IOException {
        MAPPER.writeValue(file.toFile(), toJson(report));
    }

    private static void latency(ObjectNode o, RunResult r) {
        o.put("mean", r.meanUs());
        o.put("p50", r.latencyUs(50));
        o.put("p99", r.latencyUs(99));
        o.put("max", r.maxUs());
    }

    private static void putNullable(ObjectNode o, String name, Double value) {
        if (value == null) {
            o.putNull(name);
        } else {
            o.put(name, value);
        }
    }
}
