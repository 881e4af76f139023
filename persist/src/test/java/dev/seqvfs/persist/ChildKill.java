package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The kill step the store kill tests share ({@code EmbeddedStoreRollbackTest}, {@code
 * LogStoreKillTest}): start a workload's {@code main} in a child JVM (this JVM's java and
 * classpath, {@code -Xmx128m}, its output and errors to files), wait up to 60 s for it to print
 * {@code READY}, let it run 100 to 700 ms more, then SIGKILL it and wait for its death.
 */
public final class ChildKill {
    private ChildKill() {}

    /**
     * Runs one round.
     *
     * @param main the workload class (its {@code main} prints {@code READY} once it writes)
     * @param out the file its standard output goes to
     * @param err the file its standard error goes to
     * @param r where the run time after {@code READY} comes from
     * @param where the round's name, for failure messages
     * @param args the workload's arguments
     * @return whether it printed {@code READY} before it was killed
     * @throws IOException if the child cannot be started or its output read
     * @throws InterruptedException if interrupted while waiting
     */
    public static boolean killAtRandom(
            Class<?> main, Path out, Path err, Random r, String where, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx128m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        Process p =
                new ProcessBuilder(cmd)
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(out).startsWith("READY")
                && p.isAlive()
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        boolean ready = Files.readString(out).startsWith("READY");
        if (ready) {
            Thread.sleep(100 + r.nextInt(600));
        }
        p.destroyForcibly(); // SIGKILL
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), where + ": the child outlived SIGKILL");
        return ready;
    }
}
