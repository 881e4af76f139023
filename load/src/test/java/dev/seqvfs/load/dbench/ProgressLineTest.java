package dev.seqvfs.load.dbench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Specifies dbench's progress lines ({@code clients, phase, seconds, ops, MB/sec}, as the dbench
 * binary prints them): a tick that races the end of the warm-up is the warm-up's last second with
 * the warm-up's counts, never an {@code execute} line at 0 s.
 */
class ProgressLineTest {
    private static final long S = 1_000_000_000L;
    private static final long START = 1_000 * S;

    @Test
    void progressLine_tickJustAfterMeasuringStarted_isTheLastWarmupSecond() {
        // warm-up of 4 s: measuring started at 4 s (counts reset), the tick at 4 s + 2 ms
        String line =
                DbenchRunner.progressLine(
                        4,
                        START,
                        START + 4 * S,
                        START + 4 * S + 2_000_000,
                        12,
                        9000,
                        68568,
                        400_000_000);

        assertTrue(line.contains(" warmup    4 s  ops      68568"), line);
        assertTrue(line.contains("99.95 MB/sec"), "400 MB over 4.002 s: " + line);
    }

    @Test
    void progressLine_oneSecondIntoMeasuring_isExecuteSecondOne() {
        String line =
                DbenchRunner.progressLine(
                        4,
                        START,
                        START + 4 * S,
                        START + 5 * S,
                        1000,
                        2_000_000,
                        70000,
                        402_000_000);

        assertTrue(line.contains("execute    1 s"), line);
        assertTrue(line.contains("2.00 MB/sec"), line);
    }

    @Test
    void progressLine_duringWarmup_countsFromTheStart() {
        String line =
                DbenchRunner.progressLine(1, START, 0, START + 3 * S, 10, 3_000_000, 10, 3_000_000);

        assertTrue(line.contains(" warmup    3 s"), line);
        assertTrue(line.contains("1.00 MB/sec"), line);
    }
}
