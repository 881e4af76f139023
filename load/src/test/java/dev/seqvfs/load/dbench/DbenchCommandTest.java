package dev.seqvfs.load.dbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.seqvfs.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies the {@code seqvfs load dbench} command line: its exit status (0 when every line matched
 * the capture, 1 when one did not, 2 for bad input), its messages for bad input, and the fields of
 * {@code --json}.
 */
class DbenchCommandTest {
    /** A loadfile whose lines all succeed, as a first pass of {@code client.txt} would. */
    private static final String GOOD =
            """
            Deltree "\\clients\\client1" NT_STATUS_OK
            Mkdir "\\clients" NT_STATUS_OK
            NTCreateX "\\clients\\client1" 0x1 0x2 1 NT_STATUS_OK
            Close 1 NT_STATUS_OK
            NTCreateX "\\clients\\client1\\f" 0x40 0x2 2 NT_STATUS_OK
            WriteX 2 0 1000 1000 NT_STATUS_OK
            ReadX 2 0 1000 1000 NT_STATUS_OK
            Close 2 NT_STATUS_OK
            """;

    @TempDir Path dir;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream oldOut;
    private PrintStream oldErr;

    @BeforeEach
    void capture() {
        oldOut = System.out;
        oldErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(oldOut);
        System.setErr(oldErr);
    }

    /**
     * Runs {@code seqvfs load dbench args...} as {@code seqvfs} does ({@link Main#commandLine}).
     */
    private int run(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "load";
        all[1] = "dbench";
        System.arraycopy(args, 0, all, 2, args.length);
        return Main.commandLine().execute(all);
    }

    private Path loadfile(String text) throws Exception {
        Path f = dir.resolve("load.txt");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void dbench_everyLineMatches_exitsZeroAndWritesJson() throws Exception {
        Path json = dir.resolve("r.json");
        int rc =
                run(
                        "--clients",
                        "2",
                        "--once",
                        "--loadfile",
                        loadfile(GOOD).toString(),
                        "--json",
                        json.toString());

        assertEquals(
                0, rc, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
        JsonNode j = new ObjectMapper().readTree(json.toFile());
        assertEquals("dbench", j.get("workload").asText());
        assertEquals(2, j.get("parameters").get("clients").asInt());
        assertEquals(16, j.get("ops").asLong());
        assertEquals(0, j.get("mismatches").asLong());
        assertEquals(
                4000.0 / 1e6, j.get("mb_per_sec").asDouble() * j.get("seconds").asDouble(), 1e-9);
        assertTrue(j.get("ops_per_sec").asDouble() > 0);
        assertTrue(j.get("latency_us").get("WriteX").get("p99_us").asDouble() > 0);
        assertTrue(j.get("ratio") == null, "no ratio without --compare");
        assertTrue(j.has("partial") && !j.get("partial").asBoolean(), j.toString());
        assertTrue(j.has("interrupted") && j.has("seconds"), j.toString());
    }

    @Test
    void dbench_aLineMismatches_exitsOne() throws Exception {
        int rc =
                run(
                        "--once",
                        "--loadfile",
                        loadfile(GOOD + "Unlink \"\\clients\\client1\\none\" 0x6 NT_STATUS_OK\n")
                                .toString());

        assertEquals(1, rc);
        assertTrue(
                out.toString(StandardCharsets.UTF_8).contains("MISMATCH client 1 line 9"),
                out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void dbench_malformedLoadfile_exitsTwoNamingTheOptionTheFileAndTheLine() throws Exception {
        Path f = loadfile(GOOD + "ReadX 2 0 NT_STATUS_OK\n");
        assertUsageError(
                run("--loadfile", f.toString()),
                "seqvfs load dbench: --loadfile "
                        + f
                        + ": line 9: ReadX takes 0 path(s) and 4 number(s)");
    }

    @Test
    void dbench_missingLoadfile_exitsTwoInTheOptionValueMessageForm() {
        Path absent = dir.resolve("absent.txt");
        assertUsageError(
                run("--loadfile", absent.toString()),
                "seqvfs load dbench: --loadfile " + absent + ": does not exist");
    }

    @Test
    void dbench_loadfileWithoutOperations_exitsTwoInTheOptionValueMessageForm() throws Exception {
        Path f = loadfile("# only a comment\n");
        assertUsageError(
                run("--loadfile", f.toString()),
                "seqvfs load dbench: --loadfile " + f + ": holds no operations");
    }

    @Test
    void dbench_loadfileIsADirectory_exitsTwoInWords() {
        assertUsageError(
                run("--loadfile", dir.toString()),
                "seqvfs load dbench: --loadfile " + dir + ": cannot read: ");
        assertTrue(
                !err.toString(StandardCharsets.UTF_8).contains("java."),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void dbench_compareWithSomethingElseThanHost_exitsTwoInTheOptionValueMessageForm()
            throws Exception {
        assertUsageError(
                run("--compare", "jimfs", "--loadfile", loadfile(GOOD).toString()),
                "seqvfs load dbench: --compare jimfs: expected host");
    }

    @Test
    void dbench_emptyJson_saysItIsEmpty() throws Exception {
        assertUsageError(
                run("--once", "--loadfile", loadfile(GOOD).toString(), "--json", ""),
                "seqvfs load dbench: --json '': empty value");
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing ran");
    }

    @Test
    void dbench_emptyLoadfile_saysItIsEmpty() {
        assertUsageError(run("--loadfile", ""), "seqvfs load dbench: --loadfile '': empty value");
    }

    /**
     * Asserts a usage error: exit 2, exactly one stderr line holding {@code text}, no stack trace.
     */
    private void assertUsageError(int rc, String text) {
        String e = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, rc, out.toString(StandardCharsets.UTF_8) + e);
        assertEquals(1, e.lines().count(), e);
        assertTrue(e.contains(text), e);
        assertTrue(!e.contains("Exception") && !e.contains("\tat "), e);
    }

    @Test
    void dbench_clientsAboveTheLimit_failsUpFront() throws Exception {
        assertUsageError(
                run("--clients", "20000", "--time", "2", "--loadfile", loadfile(GOOD).toString()),
                "seqvfs load dbench: --clients 20000: a client count must be between 1 and 4096");
    }

    @Test
    void dbench_hugeTime_failsUpFrontNamingTheBound() throws Exception {
        assertUsageError(
                run("--time", "2147483647", "--loadfile", loadfile(GOOD).toString()),
                "--time 2147483647: must be above 0 and at most 86400 seconds");
    }

    @Test
    void dbench_zeroTime_failsNamingTheBound() throws Exception {
        assertUsageError(
                run("--time", "0", "--loadfile", loadfile(GOOD).toString()),
                "--time 0: must be above 0 and at most 86400 seconds");
    }

    @Test
    void dbench_fractionalTime_runsThatLongAndIsFlaggedTooShort() throws Exception {
        Path json = dir.resolve("r.json");
        int rc =
                run(
                        "--time",
                        "0.3",
                        "--warmup",
                        "0.2",
                        "--loadfile",
                        loadfile(GOOD).toString(),
                        "--json",
                        json.toString());

        String o = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, o + err.toString(StandardCharsets.UTF_8));
        assertTrue(o.contains("warm-up 0.2 s (not measured), then 0.3 s"), o);
        assertTrue(
                o.matches(
                        "(?s).* too short to mean much: measured 0\\.[3-9] s, under 10 s .*; a 0\\.2 s"
                                + " warm-up, under 4 s .*"),
                o);
        JsonNode j = new ObjectMapper().readTree(json.toFile());
        assertEquals(0.3, j.get("parameters").get("time").asDouble());
        assertEquals(0.2, j.get("parameters").get("warmup").asDouble());
        assertTrue(
                j.get("seconds").asDouble() >= 0.3 && j.get("seconds").asDouble() < 1.5,
                j.toString());
        assertTrue(j.get("too_short").asBoolean(), j.toString());
        assertTrue(j.get("too_short_why").asText().contains("warm-up"), j.toString());
        assertTrue(
                j.get("passes_per_client").asDouble() > 3, "an 8-line file loops many times: " + j);
    }

    @Test
    void dbench_badWarmup_failsNamingWarmup() throws Exception {
        assertUsageError(
                run("--warmup", "-1", "--loadfile", loadfile(GOOD).toString()),
                "--warmup -1: must be from 0 to 86400");
    }

    @Test
    void dbench_negativeThreads_failsNamingThreads() throws Exception {
        assertUsageError(
                run("--threads", "-3", "--loadfile", loadfile(GOOD).toString()),
                "--threads -3: must be from 1 to 4096");
    }

    @Test
    void dbench_zeroThreads_failsNamingThreads() throws Exception {
        assertUsageError(
                run("--threads", "0", "--loadfile", loadfile(GOOD).toString()),
                "--threads 0: must be from 1 to 4096");
    }

    @Test
    void dbench_negativeShowMismatches_failsNamingIt() throws Exception {
        assertUsageError(
                run("--show-mismatches", "-1", "--loadfile", loadfile(GOOD).toString()),
                "--show-mismatches -1: must be at least 0");
    }

    @Test
    void dbench_jsonInMissingDirectory_failsBeforeTheRunAndCreatesNothing() throws Exception {
        Path json = dir.resolve("absent/r.json");
        assertUsageError(
                run("--once", "--loadfile", loadfile(GOOD).toString(), "--json", json.toString()),
                "seqvfs load dbench: --json "
                        + json
                        + ": directory "
                        + json.getParent()
                        + " does not exist");
        assertTrue(!Files.exists(json.getParent()));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing ran");
    }

    @Test
    void dbench_jsonUnderProc_failsBeforeTheRunInWords() throws Exception {
        assertUsageError(
                run("--once", "--loadfile", loadfile(GOOD).toString(), "--json", "/proc/nope.json"),
                "seqvfs load dbench: --json /proc/nope.json: cannot write: ");
        assertTrue(
                !err.toString(StandardCharsets.UTF_8).contains("java."),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void dbench_binaryLoadfile_namesTheLineWithOneShortEscapedExcerpt() throws Exception {
        byte[] junk = new byte[4096];
        new java.util.Random(42).nextBytes(junk);
        for (int i = 0; i < junk.length; i++) {
            if (junk[i] == '\n' || junk[i] == '\r') {
                junk[i] = 0; // one line
            }
        }
        junk[0] = 0x1b; // ESC: a terminal escape if printed raw
        junk[1] = '[';
        Path f = dir.resolve("junk.bin");
        Files.write(f, junk);

        int rc = run("--loadfile", f.toString());

        String e = err.toString(StandardCharsets.UTF_8);
        assertUsageError(rc, "seqvfs load dbench: --loadfile " + f + ": line 1: ");
        assertTrue(e.contains("\\x1b["), e);
        assertTrue(
                e.chars()
                        .noneMatch(
                                c ->
                                        (c < 0x20 && c != '\n')
                                                || (c >= 0x7f && c < 0xa0)
                                                || c == 0xfffd),
                e);
        assertTrue(e.length() < 200, e.length() + ": " + e);
    }
}
