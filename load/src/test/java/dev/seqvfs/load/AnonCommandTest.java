package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies {@code seqvfs load socket-close} and {@code pipe-close} (seeds 000, 002, 003): every
 * client does exactly its {@code --ops}, for each client count and each compared target; the ratio
 * is the new layout's ops/s over the first compared target's; the before/after table and the chart
 * (with scaling curves) are produced; bad options fail with exit 1.
 */
class AnonCommandTest {
    @TempDir Path tmp;

    @Test
    void socketClose_clientListWithCompareSharedRoot_runsNewAndOldAtEachCountWithExactOps()
            throws IOException {
        Path json = tmp.resolve("sc.json");
        Path svg = tmp.resolve("sc.svg");
        Cli.Result r =
                Cli.run(
                        "load",
                        "socket-close",
                        "--clients",
                        "1,2",
                        "--ops",
                        "3000",
                        "--warmup",
                        "0.05",
                        "--compare",
                        "shared-root",
                        "--json",
                        json.toString(),
                        "--chart",
                        svg.toString(),
                        "--no-progress");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = new ObjectMapper().readTree(json.toFile());
        List<String> runs = new ArrayList<>();
        for (JsonNode run : j.get("runs")) {
            runs.add(run.get("target").asText() + "/" + run.get("clients").asInt());
            assertEquals(
                    3000L * run.get("clients").asInt(), run.get("ops").asLong(), run.toString());
        }
        assertEquals(List.of("seqvfs/1", "seqvfs-old/1", "seqvfs/2", "seqvfs-old/2"), runs);
        assertEquals(6000, j.get("ops").asLong());
        double ratio =
                j.get("runs").get(2).get("ops_per_sec").asDouble()
                        / j.get("runs").get(3).get("ops_per_sec").asDouble();
        assertEquals(ratio, j.get("ratio").asDouble(), 1e-9);
        assertTrue(r.out().contains("new/old"), r.out());
        assertTrue(r.out().contains("Pekko actors"), r.out());
        String chart = Files.readString(svg);
        assertTrue(chart.startsWith("<?xml") && chart.contains("<svg"), "an SVG document");
    }

    @Test
    void pipeClose_sharedFdTableThreadsDriverWithCompareHost_runsBothWithExactOps()
            throws IOException {
        Path json = tmp.resolve("pc.json");
        Cli.Result r =
                Cli.run(
                        "load",
                        "pipe-close",
                        "--clients",
                        "4",
                        "--ops",
                        "1000",
                        "--warmup",
                        "0.05",
                        "--shared-fd-table",
                        "--driver",
                        "threads",
                        "--compare",
                        "host",
                        "--json",
                        json.toString(),
                        "--no-progress");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = new ObjectMapper().readTree(json.toFile());
        assertEquals(2, j.get("runs").size());
        for (JsonNode run : j.get("runs")) {
            assertEquals(4000, run.get("ops").asLong());
        }
        assertEquals("host", j.get("runs").get(1).get("target").asText());
        assertTrue(j.get("ratio").asDouble() > 0);
        assertTrue(j.get("parameters").get("shared_fd_table").asBoolean());
        assertTrue(r.out().contains("threads of one task sharing one descriptor table"), r.out());
    }

    @Test
    void socketClose_withoutCompare_hasNullRatio() throws IOException {
        Path json = tmp.resolve("n.json");
        Cli.Result r =
                Cli.run(
                        "load",
                        "socket-close",
                        "--ops",
                        "500",
                        "--warmup",
                        "0",
                        "--json",
                        json.toString(),
                        "--no-progress");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = new ObjectMapper().readTree(json.toFile());
        assertTrue(j.get("ratio").isNull());
        assertEquals(500, j.get("ops").asLong());
    }

    @Test
    void socketClose_unknownCompareTarget_failsWithExit2() {
        Cli.Result r = Cli.run("load", "socket-close", "--compare", "jimfs");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--compare jimfs: expected shared-root or host"), r.err());
    }

    @Test
    void pipeClose_zeroClients_failsWithExit2() {
        Cli.Result r = Cli.run("load", "pipe-close", "--clients", "0");
        assertEquals(2, r.exit());
        assertTrue(
                r.err().contains("--clients 0: a client count must be between 1 and 4096"),
                r.err());
    }
}
