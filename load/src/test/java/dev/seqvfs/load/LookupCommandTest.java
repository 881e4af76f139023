package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies {@code seqvfs load lookup} (seed 004): same-cwd and distinct-cwd runs at each client
 * count, on SeqVFS and the host, each client doing exactly its {@code --ops}; the scaling table and
 * the ratio of SeqVFS's same-cwd run over the host's at the largest count.
 */
class LookupCommandTest {
    @TempDir Path tmp;

    @Test
    void lookup_twoCountsWithCompareHost_runsBothModesOnBothTargetsAndReportsScaling()
            throws IOException {
        Path json = tmp.resolve("l.json");
        Cli.Result r =
                Cli.run(
                        "load",
                        "lookup",
                        "--clients",
                        "1,2",
                        "--ops",
                        "4000",
                        "--warmup",
                        "0.02",
                        "--depth",
                        "4",
                        "--compare",
                        "host",
                        "--json",
                        json.toString(),
                        "--no-progress");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = new ObjectMapper().readTree(json.toFile());
        List<String> runs = new ArrayList<>();
        for (JsonNode run : j.get("runs")) {
            runs.add(
                    run.get("target").asText()
                            + " "
                            + run.get("variant").asText()
                            + "/"
                            + run.get("clients").asInt());
            assertEquals(4000L * run.get("clients").asInt(), run.get("ops").asLong());
        }
        assertEquals(
                List.of(
                        "seqvfs same-cwd/1",
                        "host same-cwd/1",
                        "seqvfs distinct-cwd/1",
                        "host distinct-cwd/1",
                        "seqvfs same-cwd/2",
                        "host same-cwd/2",
                        "seqvfs distinct-cwd/2",
                        "host distinct-cwd/2"),
                runs);
        assertEquals(
                j.get("runs").get(4).get("ops_per_sec").asDouble()
                        / j.get("runs").get(5).get("ops_per_sec").asDouble(),
                j.get("ratio").asDouble(),
                1e-9);
        assertTrue(r.out().contains("stat(\"d1/d2/d3/d4/f\")"), r.out());
        assertTrue(r.out().contains("scaling factor"), r.out());
    }

    @Test
    void lookup_zeroDepth_failsWithExit2() {
        Cli.Result r = Cli.run("load", "lookup", "--depth", "0", "--ops", "10");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--depth 0: must be at least 1"), r.err());
    }
}
