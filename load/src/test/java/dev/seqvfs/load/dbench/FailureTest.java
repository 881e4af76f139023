package dev.seqvfs.load.dbench;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies how a dbench replay and its references end when something fails: a failure in the
 * clients' actor system ends the run with an exception (not progress forever), and a dbench binary
 * still running at its deadline is killed and reported, not waited for.
 */
class FailureTest {
    @TempDir Path dir;

    @Test
    void runSeqVfs_guardianCannotScheduleTheTime_failsTheRunInsteadOfHanging() throws Exception {
        // past Pekko's largest scheduler delay (about 248 days): the guardian's setup throws
        Loadfile lf = Loadfile.parse("Mkdir \"\\clients\" NT_STATUS_OK\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DbenchRunner runner =
                new DbenchRunner(new PrintStream(out, true, StandardCharsets.UTF_8), 10, 1);
        DbenchRunner.Schedule forever =
                new DbenchRunner.Schedule(Duration.ZERO, Duration.ofDays(100_000), false);

        DbenchRunner.ReplayFailedException e =
                assertTimeoutPreemptively(
                        Duration.ofSeconds(30),
                        () ->
                                assertThrows(
                                        DbenchRunner.ReplayFailedException.class,
                                        () -> runner.runSeqVfs(lf.ops(), 1, forever)));
        assertTrue(e.getMessage().startsWith("the replay failed: "), e.getMessage());
        assertTrue(e.getMessage().lines().count() == 1, e.getMessage());
    }

    @Test
    void dbenchBinary_stillRunningAtItsDeadline_isKilledAndReported() throws Exception {
        Path fake = dir.resolve("dbench");
        Path pid = dir.resolve("sleep.pid");
        Files.writeString(
                fake,
                "#!/bin/sh\necho '   1       100     1.00 MB/sec  warmup   1 sec'\nsleep 600 &\necho $! > "
                        + pid
                        + "\nwait\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        Path loadfile =
                Files.writeString(dir.resolve("client.txt"), "Mkdir \"\\clients\" NT_STATUS_OK\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DbenchBinary bin = new DbenchBinary(fake);

        DbenchBinary.DeadlineException e =
                assertTimeoutPreemptively(
                        Duration.ofSeconds(20),
                        () ->
                                assertThrows(
                                        DbenchBinary.DeadlineException.class,
                                        () ->
                                                bin.run(
                                                        loadfile,
                                                        1,
                                                        1,
                                                        dir,
                                                        new PrintStream(
                                                                out, true, StandardCharsets.UTF_8),
                                                        Duration.ofMillis(500))));
        assertTrue(e.getMessage().contains("killed, no result"), e.getMessage());
        long sleeper = Long.parseLong(Files.readString(pid).strip());
        ProcessHandle.of(sleeper)
                .ifPresent(
                        h ->
                                assertTimeoutPreemptively(
                                        Duration.ofSeconds(10),
                                        () -> h.onExit().join(),
                                        "the stand-in's child (its client) is killed too"));
    }

    @Test
    void dbenchBinary_deadline_isTimePlusWarmupPlusMargin() {
        assertTrue(
                DbenchBinary.deadline(20)
                        .equals(Duration.ofSeconds(20 + 4).plus(DbenchBinary.DEADLINE_MARGIN)));
    }
}
