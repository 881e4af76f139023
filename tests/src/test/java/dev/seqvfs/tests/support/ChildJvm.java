package dev.seqvfs.tests.support;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a {@code main} in a fresh JVM, as an embedding application would: the same {@code java}
 * binary, a classpath of the caller's choice, standard output and error captured. For what only a
 * whole JVM shows: whether it exits once {@code main} returns, what logging prints at start-up.
 *
 * <p>Thread-safe: every call has its own child.
 */
public final class ChildJvm {
    /**
     * A finished (or killed) child.
     *
     * @param exited whether it exited on its own in time (else it was killed)
     * @param status its exit status, or -1 if killed
     * @param stdout what it printed on standard output
     * @param stderr what it printed on standard error
     * @param exitMillis milliseconds from its marker line to its exit (or to the kill); -1 without
     *     a marker
     */
    public record Result(
            boolean exited, int status, String stdout, String stderr, long exitMillis) {}

    private ChildJvm() {}

    /**
     * Returns the classpath of this test JVM, entry by entry: Surefire's {@code
     * surefire.test.class.path} when set (its booter jar then stands in for {@code
     * java.class.path}), else {@code java.class.path}.
     */
    public static List<String> testClasspath() {
        String cp =
                System.getProperty(
                        "surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> out = new ArrayList<>();
        for (String e : cp.split(File.pathSeparator, -1)) {
            if (!e.isBlank()) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * Copies the class file of {@code main} (a top-level class without nested classes) under {@code
     * dir}, so that a child can run it without the rest of the test classes (and their resources)
     * on its classpath.
     */
    public static void copyClass(Class<?> main, Path dir) {
        String rel = main.getName().replace('.', '/') + ".class";
        try (InputStream in = main.getClassLoader().getResourceAsStream(rel)) {
            if (in == null) {
                throw new IllegalStateException("no class file for " + main.getName());
            }
            Path target = dir.resolve(rel);
            Files.createDirectories(target.getParent());
            Files.write(target, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code main} with {@code classpath} and waits for it. The child is expected to print
     * {@code marker} as a line on standard output when its {@code main} is about to return; from
     * then on it may run at most {@code exitMillis} before it is killed and reported as not exited.
     * Before the marker it gets two minutes (a JVM's start on a busy machine is slow; that is not
     * what is measured).
     *
     * @param classpath the child's classpath entries
     * @param main the class whose {@code main} to run
     * @param marker the line that says {@code main} is returning
     * @param exitMillis how long the child may run after the marker, in milliseconds
     * @param args the arguments of {@code main}
     * @throws IOException if the child cannot be started
     */
    public static Result run(
            List<String> classpath, String main, String marker, long exitMillis, String... args)
            throws IOException, InterruptedException {
        return run(List.of("-Xmx256m"), classpath, main, marker, exitMillis, args);
    }

    /**
     * Runs {@code main} as {@link #run(List, String, String, long, String...)} does, with {@code
     * jvmArgs} for the child JVM instead of the fixed {@code -Xmx256m} ({@code -Xmx512m}, a system
     * property).
     *
     * @param jvmArgs the child JVM's options, before {@code -cp}
     * @param classpath the child's classpath entries
     * @param main the class whose {@code main} to run
     * @param marker the line that says {@code main} is returning
     * @param exitMillis how long the child may run after the marker, in milliseconds
     * @param args the arguments of {@code main}
     * @throws IOException if the child cannot be started
     */
    @SuppressWarnings(
            "JdkObsolete") // StringBuffer: a pump may still append when its join below times out
    public static Result run(
            List<String> jvmArgs,
            List<String> classpath,
            String main,
            String marker,
            long exitMillis,
            String... args)
            throws IOException, InterruptedException {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", String.join(File.pathSeparator, classpath), main));
        cmd.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        StringBuffer out = new StringBuffer();
        StringBuffer err = new StringBuffer();
        CompletableFuture<Long> markerAt = new CompletableFuture<>();
        Thread outPump = pump(p.getInputStream(), out, marker, markerAt);
        Thread errPump = pump(p.getErrorStream(), err, null, null);
        boolean exited;
        long after;
        try {
            long seen;
            try {
                seen = markerAt.get(120, TimeUnit.SECONDS);
            } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                seen = System.nanoTime();
            }
            exited = p.waitFor(exitMillis, TimeUnit.MILLISECONDS);
            after = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - seen);
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        outPump.join(5000);
        errPump.join(5000);
        return new Result(
                exited, exited ? p.exitValue() : -1, out.toString(), err.toString(), after);
    }

    /**
     * Copies {@code in} line by line into {@code to}, completing {@code seen} at the marker line
     * (or the end).
     */
    private static Thread pump(
            InputStream in, StringBuffer to, String marker, CompletableFuture<Long> seen) {
        Thread t =
                new Thread(
                        () -> {
                            try (BufferedReader r =
                                    new BufferedReader(
                                            new InputStreamReader(in, StandardCharsets.UTF_8))) {
                                String line;
                                while ((line = r.readLine()) != null) {
                                    to.append(line).append('\n');
                                    if (seen != null && line.equals(marker)) {
                                        seen.complete(System.nanoTime());
                                    }
                                }
                            } catch (IOException ignored) {
                                // the child was killed
                            } finally {
                                if (seen != null) {
                                    seen.complete(
                                            System.nanoTime()); // ended without the marker: time
                                    // from here
                                }
                            }
                        },
                        "child-jvm-pump");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
