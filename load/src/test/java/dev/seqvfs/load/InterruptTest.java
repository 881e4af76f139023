package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Specifies Ctrl-C handling ({@link Session}'s shutdown hook): a {@code seqvfs} process asked to
 * stop in the middle of a run prints the partial summary, with the run in progress marked
 * interrupted, and stops. The test sends SIGTERM, which runs the same JVM shutdown hooks as
 * Ctrl-C's SIGINT (checked by hand: {@code kill -INT} gives the same output).
 */
class InterruptTest {
    @Test
    void socketClose_stoppedMidRun_printsPartialSummary() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p =
                new ProcessBuilder(
                                List.of(
                                        java,
                                        "-cp",
                                        System.getProperty("java.class.path"),
                                        "dev.seqvfs.cli.Main",
                                        "load",
                                        "socket-close",
                                        "--ops",
                                        "1000000000",
                                        "--warmup",
                                        "0"))
                        .redirectErrorStream(true)
                        .start();
        StringBuilder out = new StringBuilder();
        boolean exited;
        try (BufferedReader r =
                new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            // the first progress line: the run is under way
            while ((line = r.readLine()) != null) {
                out.append(line).append('\n');
                if (line.startsWith("[   1s] seqvfs")) {
                    // SIGTERM (ProcessHandle.destroy, which leaves our end of the pipe open): a
                    // child of a background job inherits SIGINT ignored, and the JVM then
                    // leaves it so; SIGTERM runs the same shutdown hooks as Ctrl-C
                    p.toHandle().destroy();
                    break;
                }
            }
            // the summary is a few lines: the child never blocks on a full pipe while we wait
            exited = p.waitFor(20, TimeUnit.SECONDS);
            if (!exited) {
                p.destroyForcibly().waitFor();
            }
            while ((line = r.readLine()) != null) {
                out.append(line).append('\n');
            }
        }
        String s = out.toString();
        assertTrue(s.contains("interrupted: partial summary"), s);
        assertTrue(s.contains("(interrupted)"), s);
        assertTrue(exited, "the process ended on SIGTERM: " + s);
        assertNotEquals(0, p.exitValue());
    }
}
