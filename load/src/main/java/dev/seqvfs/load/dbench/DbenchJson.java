package dev.seqvfs.load.dbench;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code --json} result of {@code seqvfs load dbench}.
 *
 * @param workload always {@code "dbench"}
 * @param parameters clients, seconds asked for (measured), warm-up seconds (not measured; 0 with
 *     {@code --once}), loadfile
 * @param ops lines run by all clients
 * @param opsPerSec lines per second
 * @param mbPerSec dbench's throughput (bytes read and written, 10^6 per MB, per second)
 * @param mismatches lines whose status differed from the capture
 * @param seconds how long the clients ran
 * @param passesPerClient loadfile passes each client made while measured, on average
 * @param tooShort whether the run was too short to mean much ({@link DbenchReport#tooShort})
 * @param tooShortWhy why, one line; {@code null} when it was not
 * @param interrupted whether Ctrl-C cut the run short
 * @param partial the same as {@code interrupted}, under the name the other workloads' JSON uses
 * @param cpuUsPerOp process CPU time per line (all threads, JIT and GC included), microseconds
 * @param walkRetries optimistic walks retried during the run
 * @param refWalks walks that fell back to the locked ref-walk
 * @param ratio SeqVFS's MB/s over the reference's (the dbench binary when it ran, else the host
 *     replay), higher is better; {@code null} without {@code --compare}
 * @param reference what {@code ratio} divides by ({@code "dbench-binary"}, {@code "host-nio"}), or
 *     {@code null}
 * @param compare the reference figures: {@code host_nio_mb_per_sec}, {@code ratio_host_nio}, {@code
 *     host_nio_cpu_us_per_op}, {@code dbench_binary_mb_per_sec}, {@code ratio_dbench_binary},
 *     {@code dbench_binary_cpu_us_per_op}, {@code cpu_ratio_dbench_binary} (the binary's CPU per op
 *     over SeqVFS's, higher is better)
 * @param latencyUs per operation: count, mismatches, mean, p50, p99, max (microseconds)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DbenchJson(
        String workload,
        Map<String, Object> parameters,
        long ops,
        @JsonProperty("ops_per_sec") double opsPerSec,
        @JsonProperty("mb_per_sec") double mbPerSec,
        long mismatches,
        double seconds,
        @JsonProperty("passes_per_client") double passesPerClient,
        @JsonProperty("too_short") boolean tooShort,
        @JsonProperty("too_short_why") String tooShortWhy,
        boolean interrupted,
        boolean partial,
        @JsonProperty("cpu_us_per_op") double cpuUsPerOp,
        @JsonProperty("walk_retries") long walkRetries,
        @JsonProperty("ref_walks") long refWalks,
        Double ratio,
        String reference,
        Map<String, Double> compare,
        @JsonProperty("latency_us") Map<String, DbenchReport.OpLatency> latencyUs) {

    /**
     * Builds the record of a SeqVFS run and its references.
     *
     * @param host the host replay (MB/s and CPU per operation compared), or {@code null}
     * @param binary the dbench binary's run (likewise), or {@code null}
     */
    public static DbenchJson of(
            ReplayResult r,
            double seconds,
            double warmup,
            Path loadfile,
            ReplayResult host,
            DbenchBinary.Result binary) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("clients", r.clients());
        params.put("time", seconds);
        params.put("warmup", warmup);
        params.put("loadfile", loadfile.toString());
        Map<String, Double> compare = null;
        Double ratio = null;
        String reference = null;
        if (host != null || binary != null) {
            compare = new LinkedHashMap<>();
            if (host != null) {
                compare.put("host_nio_mb_per_sec", host.mbPerSec());
                compare.put("ratio_host_nio", ratioOf(r.mbPerSec(), host.mbPerSec()));
                compare.put("host_nio_cpu_us_per_op", host.cpuMicrosPerOp());
                ratio = ratioOf(r.mbPerSec(), host.mbPerSec());
                reference = "host-nio";
            }
            if (binary != null) {
                compare.put("dbench_binary_mb_per_sec", binary.mbPerSec());
                compare.put("ratio_dbench_binary", ratioOf(r.mbPerSec(), binary.mbPerSec()));
                compare.put("dbench_binary_cpu_us_per_op", binary.cpuMicrosPerOp());
                compare.put(
                        "cpu_ratio_dbench_binary",
                        ratioOf(binary.cpuMicrosPerOp(), r.cpuMicrosPerOp()));
                ratio = ratioOf(r.mbPerSec(), binary.mbPerSec());
                reference = "dbench-binary";
            }
        }
        String why = DbenchReport.tooShort(r);
        return new DbenchJson(
                "dbench",
                params,
                r.ops(),
                r.opsPerSec(),
                r.mbPerSec(),
                r.mismatches(),
                r.seconds(),
                r.passesPerClient(),
                why != null,
                why,
                r.interrupted(),
                r.interrupted(),
                r.cpuMicrosPerOp(),
                r.walkRetries(),
                r.refWalks(),
                ratio,
                reference,
                compare,
                DbenchReport.latencies(r));
    }

    /** Returns {@code a / b}, or {@code null} when {@code b} is zero. */
    static Double ratioOf(double a, double b) {
        return a < 0 || b <= 0 ? null : a / b;
    }

    /** Writes this record to {@code file}, pretty-printed. */
    public void write(Path file) throws IOException {
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(file.toFile(), this);
    }
}
