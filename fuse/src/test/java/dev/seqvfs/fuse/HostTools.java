package dev.seqvfs.fuse;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs host programs for the tool tests. A program that is not installed fails the test (it is
 * never skipped): {@code .ci/run} installs every one of them.
 */
final class HostTools {
    /** What a program printed (stdout and stderr together) and its exit status. */
    record Result(int exit, String output) {}

    private HostTools() {}

    /** Fails unless {@code tool} is on the {@code PATH}, naming the Debian package to install. */
    static void require(String tool, String debianPackage) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return;
            }
        }
        fail(tool + " is not installed: apt-get install " + debianPackage + " (.ci/run does)");
    }

    /** Runs {@code cmd} in {@code dir}, killing it after {@code timeoutSeconds}. */
    static Result run(Path dir, long timeoutSeconds, List<String> cmd)
            throws IOException, InterruptedException {
        Path log = Files.createTempFile("seqvfs-tool-", ".log");
        try {
            Process p =
                    new ProcessBuilder(cmd)
                            .directory(dir.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile())
                            .redirectInput(
                                    ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                            .start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor();
                fail(
                        String.join(" ", cmd)
                                + ": still running after "
                                + timeoutSeconds
                                + " s:\n"
                                + tail(Files.readString(log, StandardCharsets.UTF_8)));
            }
            return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** Runs a shell command line ({@code sh -c}) in {@code dir}. */
    static Result sh(Path dir, long timeoutSeconds, String script)
            throws IOException, InterruptedException {
        return run(dir, timeoutSeconds, List.of("sh", "-c", script));
    }

    /** Returns the last 40 lines of {@code s}, for failure messages. */
    static String tail(String s) {
        String[] lines = s.split("\n");
        int from = Math.max(0, lines.length - 40);
        return String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
    }

    /**
     * Returns a JDK source archive ({@code lib/src.zip}: the Temurin JDK's, or Debian's {@code
     * openjdk-17-source}), failing if there is none.
     */
    static Path jdkSources() {
        List<Path> candidates =
                List.of(
                        Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip"),
                        Path.of(System.getProperty("java.home"), "lib/src.zip"),
                        Path.of("/usr/lib/jvm/openjdk-17/lib/src.zip"));
        for (Path p : candidates) {
            if (Files.isReadable(p)) {
                return p;
            }
        }
        fail(
                "no JDK src.zip ("
                        + candidates
                        + "): apt-get install openjdk-17-source (.ci/run does)");
        return null;
    }
}
