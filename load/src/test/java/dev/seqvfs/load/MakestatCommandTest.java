package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies {@code seqvfs load makestat} end to end: a short run over a small zip against the host
 * gives files/s for both and their ratio, the JSON fields scripts read, a chart file; bad input (no
 * tree, a corrupt zip, a bad chart name) fails with a clear message and exit status 1 before
 * anything runs.
 */
class MakestatCommandTest {
    @TempDir Path tmp;

    @Test
    void makestat_smallZipWithCompareHost_reportsFilesPerSecondRatioJsonAndChart()
            throws IOException {
        Path zip = Cli.smallZip(tmp);
        Path json = Files.createDirectories(tmp.resolve("out")).resolve("makestat.json");
        Path chart = tmp.resolve("makestat.png");
        Cli.Result r =
                Cli.run(
                        "load",
                        "makestat",
                        "--tree",
                        zip.toString(),
                        "--clients",
                        "2",
                        "--time",
                        "0.3",
                        "--warmup",
                        "0.1",
                        "--compare",
                        "host",
                        "--json",
                        json.toString(),
                        "--chart",
                        chart.toString(),
                        "--no-progress");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("3 directories, 4 files, 1,016 bytes of sizes only"), r.out());
        assertTrue(r.out().contains("ratio (seqvfs / host, 2 clients)"), r.out());

        JsonNode j = new ObjectMapper().readTree(json.toFile());
        assertEquals("makestat", j.get("workload").asText());
        assertEquals(zip.toString(), j.get("parameters").get("tree").asText());
        assertTrue(j.get("ops").asLong() > 0);
        assertTrue(j.get("ops_per_sec").asDouble() > 0);
        assertTrue(j.get("mb_per_sec").isNull());
        assertTrue(j.get("mismatches").isNull());
        JsonNode runs = j.get("runs");
        assertEquals(2, runs.size());
        double ratio =
                runs.get(0).get("ops_per_sec").asDouble()
                        / runs.get(1).get("ops_per_sec").asDouble();
        assertEquals(ratio, j.get("ratio").asDouble(), 1e-9);
        JsonNode lat = j.get("latency_us");
        assertTrue(lat.get("p50").asDouble() > 0);
        assertTrue(lat.get("p50").asDouble() <= lat.get("p99").asDouble());
        assertTrue(lat.get("p99").asDouble() <= lat.get("max").asDouble());
        assertTrue(lat.get("mean").asDouble() > 0);
        assertFalse(j.get("partial").asBoolean());

        byte[] png = Files.readAllBytes(chart);
        assertEquals((byte) 0x89, png[0]);
        assertEquals("PNG", new String(png, 1, 3, StandardCharsets.US_ASCII));
        try (Stream<Path> shm = Files.list(Path.of("/dev/shm"))) {
            assertTrue(
                    shm.noneMatch(
                            p ->
                                    p.getFileName()
                                            .toString()
                                            .equals(
                                                    "seqvfs-load-makestat-"
                                                            + ProcessHandle.current().pid())),
                    "host tree removed");
        }
    }

    @Test
    void makestat_missingTree_failsWithClearErrorAndExit2() {
        Cli.Result r =
                Cli.run(
                        "load",
                        "makestat",
                        "--tree",
                        tmp.resolve("absent.zip").toString(),
                        "--time",
                        "0.1");
        assertEquals(2, r.exit());
        assertTrue(
                r.err()
                        .contains(
                                "seqvfs load makestat: --tree "
                                        + tmp.resolve("absent.zip")
                                        + ": no such file or directory"),
                r.err());
        assertEquals("", r.out());
    }

    @Test
    void makestat_corruptZip_failsWithClearErrorAndExit2() throws IOException {
        Cli.Result r =
                Cli.run(
                        "load",
                        "makestat",
                        "--tree",
                        Cli.corruptZip(tmp).toString(),
                        "--time",
                        "0.1");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("not a readable zip file"), r.err());
    }

    @Test
    void makestat_chartWithUnknownExtension_failsBeforeRunning() throws IOException {
        Cli.Result r =
                Cli.run(
                        "load",
                        "makestat",
                        "--tree",
                        Cli.smallZip(tmp).toString(),
                        "--chart",
                        tmp.resolve("c.gif").toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("must end in .svg or .png"), r.err());
    }

    @Test
    void makestat_withoutTree_isAUsageErrorWithExit2() {
        Cli.Result r = Cli.run("load", "makestat");
        assertEquals(2, r.exit());
        assertEquals("seqvfs load makestat: --tree PATH is required", r.err().strip());
    }
}
