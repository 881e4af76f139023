package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Specifies Ctrl-C handling ({@link Session}'s shutdown hook): a {@code seqvfs} process
 * interrupted in the middle of a run (SIGINT, as Ctrl-C sends) prints the partial
 * summary, with the run in progress marked interrupted, and stops.
 */
class InterruptTest {
    @Test
    void socketClose_stoppedMidRun_printsPartialSummary() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                "dev.seqvfs.cli.Main", "load", "socket-close", "--ops", "1000000000", "--warmup", "0"))
                .redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            String line;
            // the first progress line: the run is under way
            while ((line = r.readLine()) != null) {
                out.append(line).append('\n');
                if (line.startsWith("[   1s] seqvfs")) {
                    // Ctrl-C
                    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
                    break;
                }
            }
            while ((line = r.readLine()) != null) {
                out.append(line).append('\n');
            }
        } finally {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        String s = out.toString();
        assertTrue(s.contains("interrupted: partial summary"), s);
        assertTrue(s.contains("(interrupted)"), s);
        assertNotEquals(0, p.exitValue());
    }
}
