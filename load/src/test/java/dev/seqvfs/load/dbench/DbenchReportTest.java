package dev.seqvfs.load.dbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Specifies a replay's summary ({@link DbenchReport}): loadfile passes per client measured, and
 * when a run is too short to mean much (measured under 10 s, under one pass per client, or warmed
 * up under 4 s), saying why and what {@code --time} would do. Also the default warm-up ({@link
 * DbenchRunner.Schedule#defaultWarmup}): a fifth of the time as dbench, at least 4 s, never zero.
 */
class DbenchReportTest {
    private static final int LINES = 1000;

    /** Returns a result of {@code ops} lines by {@code clients} clients of a 1000-line file. */
    private static ReplayResult result(int clients, long ops, double seconds, double warmup) {
        ClientStats stats = new ClientStats();
        for (long i = 0; i < ops; i++) {
            stats.record(OpType.CLOSE, 1000, false, 0);
        }
        return new ReplayResult(
                "SeqVFS",
                clients,
                (long) (seconds * 1e9),
                stats,
                0,
                0,
                0,
                false,
                -1,
                (long) (warmup * 1e9),
                LINES);
    }

    private static String printed(ReplayResult r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DbenchReport.print(new PrintStream(b, true, StandardCharsets.UTF_8), r);
        return b.toString(StandardCharsets.UTF_8);
    }

    @Test
    void tooShort_measuredUnderTenSeconds_saysSoAndWhatTimeWouldDo() {
        ReplayResult r = result(4, 8 * LINES, 2, 4); // 2 passes per client in 2 s

        String why = DbenchReport.tooShort(r);
        assertEquals(
                "measured 2.0 s, under 10 s (the rate still climbs and swings from second to second);"
                        + " --time 10 would do here",
                why);
        assertTrue(
                printed(r).contains("\n too short to mean much: measured 2.0 s, under 10 s"),
                printed(r));
    }

    @Test
    void tooShort_underOnePassPerClient_asksForTheTimeOfOnePass() {
        String why = DbenchReport.tooShort(result(4, 2 * LINES, 20, 4)); // half a pass each in 20 s

        assertEquals(
                "0.50 loadfile passes per client, under 1 (part of the file only); --time 40 would do here",
                why);
    }

    @Test
    void tooShort_noWarmup_saysSo() {
        String why = DbenchReport.tooShort(result(1, 20 * LINES, 10, 0));
        assertEquals("no warm-up, under 4 s (the JIT still compiling)", why);
    }

    @Test
    void tooShort_everyReason_oneLine() {
        String why = DbenchReport.tooShort(result(2, LINES, 1, 0.5));
        assertTrue(
                why.contains("measured 1.0 s")
                        && why.contains("0.50 loadfile passes")
                        && why.contains("a 0.5 s warm-up, under 4 s")
                        && why.endsWith("--time 10 would do here"),
                why);
        assertEquals(1, why.lines().count(), why);
    }

    @Test
    void tooShort_stopJustUnderItsTimer_stillMeetsTheBound() {
        assertNull(DbenchReport.tooShort(result(1, 20 * LINES, 9.95, 3.95)));
    }

    @Test
    void tooShort_warmedRunOfManyPasses_isNull() {
        ReplayResult r = result(4, 60 * LINES, 20, 4);
        assertNull(DbenchReport.tooShort(r));
        assertFalse(printed(r).contains("too short"), printed(r));
    }

    @Test
    void print_summaryLine_givesTheMeasuredPassesPerClient() {
        assertTrue(
                printed(result(4, 59_700, 20, 4))
                        .contains("  14.9 loadfile passes per client  mismatches 0"));
    }

    @Test
    void defaultWarmup_isAFifthOfTheTime_atLeastFourSeconds() {
        assertEquals(
                Duration.ofSeconds(4), DbenchRunner.Schedule.defaultWarmup(Duration.ofMillis(100)));
        assertEquals(
                Duration.ofSeconds(4), DbenchRunner.Schedule.defaultWarmup(Duration.ofSeconds(2)));
        assertEquals(
                Duration.ofSeconds(4), DbenchRunner.Schedule.defaultWarmup(Duration.ofSeconds(20)));
        assertEquals(
                Duration.ofSeconds(20),
                DbenchRunner.Schedule.defaultWarmup(Duration.ofSeconds(100)));
    }
}
