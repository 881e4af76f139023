package dev.seqvfs.tests.differential;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs mounted on the host for one test ({@code mount -t tmpfs -o OPTIONS none DIR}, {@code DIR}
 * a fresh directory under {@code /dev/shm}), to run a {@link HostSide} in it: the sandbox's root is
 * then that tmpfs's root, with its own size limit and its own read-only flag. {@link #close}
 * unmounts it (lazily if something still holds it) and removes the directory; a shutdown hook does
 * the same for mounts a dying JVM left.
 */
final class HostTmpfs implements AutoCloseable {
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> LIVE.forEach(HostTmpfs::unmountQuietly),
                                "host-tmpfs-cleanup"));
    }

    private final Path dir;

    /**
     * Mounts a tmpfs with {@code options} ({@code "size=64k"}).
     *
     * @throws IllegalStateException if the mount fails (the directory is removed)
     */
    HostTmpfs(String options) {
        try {
            dir = Files.createTempDirectory(HostKernel.SHM, "seqvfs-tmpfs-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String out = run(List.of("mount", "-t", "tmpfs", "-o", options, "none", dir.toString()));
        if (out != null) {
            deleteDir(dir);
            throw new IllegalStateException("cannot mount a tmpfs at " + dir + ": " + out);
        }
        LIVE.add(dir);
    }

    /**
     * Returns why no tmpfs can be mounted here ({@code null} if one can): the host side's own
     * conditions ({@link HostKernel#unavailableReason()}) and a working {@code mount(8)}.
     */
    static String unavailableReason() {
        String why = HostKernel.unavailableReason();
        if (why != null) {
            return why;
        }
        try {
            HostTmpfs probe = new HostTmpfs("size=4k");
            probe.close();
            return null;
        } catch (RuntimeException e) {
            return "cannot mount a tmpfs on the host: " + e.getMessage();
        }
    }

    /** Returns the mountpoint (the tmpfs's root). */
    Path dir() {
        return dir;
    }

    @Override
    public void close() {
        unmountQuietly(dir);
        LIVE.remove(dir);
    }

    private static void unmountQuietly(Path dir) {
        if (run(List.of("umount", dir.toString())) != null) {
            run(List.of("umount", "-l", dir.toString()));
        }
        deleteDir(dir);
    }

    private static void deleteDir(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // still mounted (a lazy unmount in progress) or not empty: nothing more to do
        }
    }

    /** Runs a command; returns {@code null} on success, else its output and exit status. */
    private static String run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out =
                    new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return String.join(" ", cmd) + ": timed out";
            }
            return p.exitValue() == 0
                    ? null
                    : String.join(" ", cmd) + ": exit " + p.exitValue() + " " + out;
        } catch (IOException e) {
            return String.join(" ", cmd) + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return String.join(" ", cmd) + ": interrupted";
        }
    }
}
