package dev.seqvfs.load.dbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies a whole replay ({@link DbenchRunner}, {@link ClientActor}, {@link ReplayGuardian}):
 * clients replay Debian's {@code client.txt} in their own directories and every line ends with the
 * status the capture recorded, on SeqVFS and on the host (which checks the NT status mapping
 * against the real kernel); a line that does not is counted and printed with its number.
 */
class DbenchReplayTest {
    private static final int LINES = 2000;
    private static final DbenchRunner.Schedule ONCE =
            new DbenchRunner.Schedule(Duration.ZERO, Duration.ofSeconds(60), true);
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private static List<LoadOp> debianHead() throws LoadfileException {
        Assumptions.assumeTrue(
                Files.isReadable(Loadfile.DEFAULT),
                "skipped: " + Loadfile.missingMessage(Loadfile.DEFAULT));
        return Loadfile.read(Loadfile.DEFAULT).head(LINES).ops();
    }

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void replay_first2000DebianLines_onSeqVfs_haveNoMismatch() throws Exception {
        List<LoadOp> ops = debianHead();
        ReplayResult r = new DbenchRunner(out, 10, 0).runSeqVfs(ops, 2, ONCE);

        assertEquals(0, r.mismatches(), printed());
        assertEquals(2L * LINES, r.ops());
        assertEquals(2, r.loops());
        assertTrue(r.total().bytes() > 0);
        assertFalse(r.interrupted());
    }

    @Test
    void replay_first2000DebianLines_onTheHost_haveNoMismatch(@TempDir Path dir) throws Exception {
        List<LoadOp> ops = debianHead();
        ReplayResult r = new DbenchRunner(out, 10, 0).runHost(ops, 2, ONCE, dir);

        assertEquals(0, r.mismatches(), printed());
        assertEquals(2L * LINES, r.ops());
        try (var left = Files.list(dir)) {
            assertEquals(0, left.count(), "the host directory is removed");
        }
    }

    @Test
    void replay_lineWhoseStatusDiffers_isCountedAndPrintedWithItsLineNumber() throws Exception {
        List<LoadOp> ops =
                Loadfile.parse(
                                """
                Deltree "\\clients\\client1" NT_STATUS_OK
                Mkdir "\\clients" NT_STATUS_OK
                NTCreateX "\\clients\\client1" 0x1 0x2 1 NT_STATUS_OK
                Close 1 NT_STATUS_OK
                Unlink "\\clients\\client1\\never-made" 0x6 NT_STATUS_OK""")
                        .ops();
        ReplayResult r = new DbenchRunner(out, 10, 0).runSeqVfs(ops, 1, ONCE);

        assertEquals(1, r.mismatches());
        assertEquals(1, r.total().mismatches(OpType.UNLINK));
        assertTrue(
                printed()
                        .contains(
                                "MISMATCH client 1 line 5: Unlink \"\\clients\\client1\\never-made\" 0x6 "
                                        + "NT_STATUS_OK -> got NT_STATUS_OBJECT_NAME_NOT_FOUND"),
                printed());
    }

    @Test
    void replay_withWarmup_measuresOnlyTheTimeAfterIt() throws Exception {
        List<LoadOp> ops = debianHead();
        DbenchRunner.Schedule s =
                new DbenchRunner.Schedule(Duration.ofSeconds(1), Duration.ofSeconds(1), false);
        ReplayResult r = new DbenchRunner(out, 10, 0).runSeqVfs(ops, 1, s);

        assertEquals(0, r.mismatches(), printed());
        assertTrue(r.seconds() >= 1.0 && r.seconds() < 1.9, "measured " + r.seconds() + " s");
        assertTrue(r.ops() > 0);
        assertTrue(r.loops() > 0, "the file is looped");
        assertTrue(printed().contains(" warmup ") || r.seconds() < 2, printed());
    }

    @Test
    void stop_beforeTheRun_refusesToStart() throws Exception {
        DbenchRunner runner = new DbenchRunner(out, 10, 0);
        runner.stop();
        assertEquals(
                null,
                runner.runSeqVfs(
                        Loadfile.parse("Mkdir \"\\clients\" NT_STATUS_OK").ops(), 1, ONCE));
    }
}
