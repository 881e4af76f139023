package dev.seqvfs.tests.differential;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The host's op server binary: {@code src/test/c/hostops.c}, compiled with {@code gcc} into {@code
 * target/} once per JVM (again when the source is newer), and the conditions for using it (gcc,
 * root for {@code chroot}, a tmpfs at {@code /dev/shm}).
 */
final class HostKernel {
    /** Where sandboxes are made: the host's tmpfs, so that sizes and link counts are tmpfs's. */
    static final Path SHM = Path.of("/dev/shm");

    private static Path binary;
    private static String unavailable;

    private HostKernel() {}

    /** The host cannot run the differential test (the test is skipped, not failed). */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String why) {
            super(why);
        }
    }

    /**
     * Returns why the host side cannot run, or {@code null} when it can (compiling on the first
     * call).
     *
     * @throws IllegalStateException if gcc exists but fails on the source (a harness bug, not a
     *     skip)
     */
    static synchronized String unavailableReason() {
        if (binary == null && unavailable == null) {
            try {
                binary = compile();
            } catch (Unavailable e) {
                unavailable = e.getMessage();
            } catch (IOException e) {
                throw new IllegalStateException("cannot build hostops", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while compiling hostops", e);
            }
        }
        return unavailable;
    }

    /**
     * Returns whether the host restricts O_CREAT opens of other users' files in sticky
     * world-writable directories, even for root ({@code fs.protected_regular} or {@code
     * fs.protected_fifos} non-zero, {@code may_create_in_sticky}). SeqVFS does not model these
     * sysctls, so then the generators never give a file to a user other than root.
     */
    static boolean protectsStickyFiles() {
        for (String knob : new String[] {"protected_regular", "protected_fifos"}) {
            try {
                if (!Files.readString(Path.of("/proc/sys/fs", knob)).trim().equals("0")) {
                    return true;
                }
            } catch (IOException | RuntimeException e) {
                return true;
            }
        }
        return false;
    }

    /** Returns the compiled op server. */
    static synchronized Path binary() {
        String why = unavailableReason();
        if (why != null) {
            throw new IllegalStateException(why);
        }
        return binary;
    }

    private static Path compile() throws IOException, InterruptedException, Unavailable {
        Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        if (!Integer.valueOf(0).equals(uid)) {
            throw new Unavailable(
                    "the differential test needs root (chroot into the sandbox, root's semantics);"
                            + " running as uid "
                            + uid);
        }
        if (!Files.isDirectory(SHM) || !"tmpfs".equals(Files.getFileStore(SHM).type())) {
            throw new Unavailable("the differential test needs a tmpfs at " + SHM);
        }
        Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        Path src = base.resolve("src/test/c/hostops.c");
        if (!Files.isRegularFile(src)) {
            throw new IllegalStateException("hostops source not found at " + src);
        }
        Path out = base.resolve("target/hostops");
        Files.createDirectories(out.getParent());
        if (Files.isExecutable(out)
                && Files.getLastModifiedTime(out).compareTo(Files.getLastModifiedTime(src)) >= 0) {
            return out;
        }
        Process gcc;
        try {
            gcc =
                    new ProcessBuilder(
                                    List.of(
                                            "gcc",
                                            "-O2",
                                            "-Wall",
                                            "-pthread",
                                            "-o",
                                            out.toString(),
                                            src.toString()))
                            .redirectErrorStream(true)
                            .start();
        } catch (IOException e) {
            throw new Unavailable(
                    "gcc not found: the differential test compiles "
                            + src
                            + " at test time ("
                            + e.getMessage()
                            + ")");
        }
        String log = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            throw new IllegalStateException("gcc failed on " + src + ":\n" + log);
        }
        return out;
    }
}
