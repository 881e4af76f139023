package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies {@code seqvfs mount}: one line and exit status 1 for a mount point it cannot use, and a
 * foreground server that serves until it is unmounted from outside, then exits with 0; a background
 * server that lets go of its caller's output once the mount is live.
 */
class MountCommandTest {

    @Test
    void mount_onAMissingDirectory_saysSoInOneLine_andExits1() {
        Cli.Result r = Cli.run("mount", "--foreground", "/nonexistent/seqvfs-mp");
        assertEquals(1, r.exit());
        assertEquals("seqvfs mount: /nonexistent/seqvfs-mp: no such directory\n", r.err());
    }

    /** Found by a newcomer: the options were ignored and the mount served tmpfs (exit 0). */
    @Test
    void mount_dataOptionsWithoutDataDir_isRefused_andMountsNothing(@TempDir Path dir) {
        Cli.Result r = Cli.run("mount", "--foreground", "--data-options", "async", dir.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("seqvfs mount: --data-options needs --data-dir"), r.err());
    }

    @Test
    void mount_onAFile_saysNotADirectory(@TempDir Path dir) throws IOException {
        Path f = Files.createFile(dir.resolve("f"));
        Cli.Result r = Cli.run("mount", "--foreground", f.toString());
        assertEquals(1, r.exit());
        assertEquals("seqvfs mount: " + f + ": not a directory\n", r.err());
    }

    @Test
    void mount_onANonEmptyDirectory_saysBusy(@TempDir Path dir) throws IOException {
        Files.createFile(dir.resolve("f"));
        Cli.Result r = Cli.run("mount", "--foreground", dir.toString());
        assertEquals(1, r.exit());
        assertTrue(r.err().contains(": not empty"), r.err());
    }

    @Test
    void mount_inTheForeground_servesUntilUnmounted_thenExits0(@TempDir Path dir) throws Exception {
        Path mp = Files.createDirectory(dir.resolve("mp"));
        Thread server = new Thread(() -> result = Cli.run("mount", "--foreground", mp.toString()));
        server.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.readString(Path.of("/proc/self/mounts")).contains(" " + mp + " ")) {
            assertTrue(System.nanoTime() < deadline, "no mount after 20 s");
            Thread.sleep(20);
        }
        Files.writeString(mp.resolve("f"), "data");
        assertEquals("data", Files.readString(mp.resolve("f"), StandardCharsets.UTF_8));
        assertTrue(
                mountOptions(mp).contains("allow_other"),
                "a mount made by root lets every user in: " + mountOptions(mp));
        assertTrue(
                mountOptions(mp).contains("default_permissions"),
                "the instance is the mount's alone: the kernel caches and checks permissions: "
                        + mountOptions(mp));
        Process u = new ProcessBuilder("umount", mp.toString()).inheritIO().start();
        assertEquals(0, u.waitFor());
        server.join(20_000);
        assertEquals(0, result.exit(), result.err());
        assertTrue(result.out().startsWith("seqvfs: mounted at " + mp), result.out());
        assertEquals("seqvfs mount: " + mp + " unmounted\n", result.err());
    }

    @Test
    void mount_strict_letsTheKernelCacheNothing(@TempDir Path dir) throws Exception {
        Path mp = Files.createDirectory(dir.resolve("mp"));
        Thread server =
                new Thread(
                        () -> result = Cli.run("mount", "--foreground", "--strict", mp.toString()));
        server.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.readString(Path.of("/proc/self/mounts")).contains(" " + mp + " ")) {
            assertTrue(System.nanoTime() < deadline, "no mount after 20 s");
            Thread.sleep(20);
        }
        assertFalse(
                mountOptions(mp).contains("default_permissions"),
                "the engine alone checks permissions: " + mountOptions(mp));
        Process u = new ProcessBuilder("umount", mp.toString()).inheritIO().start();
        assertEquals(0, u.waitFor());
        server.join(20_000);
        assertEquals(0, result.exit(), result.err());
    }

    /**
     * The background server must not keep the caller's stdout or stderr open: {@code out=$(seqvfs
     * mount MP)} or {@code seqvfs mount MP 2>&1 | tee log} returned only at the unmount while the
     * server held the caller's stderr. Run as a separate process, the command's output must end
     * (EOF on both) while the mount is live.
     */
    @Test
    void mount_inTheBackground_returnsAndLetsGoOfTheCallersOutput_whileTheMountServes(
            @TempDir Path dir) throws Exception {
        Path mp = Files.createDirectory(dir.resolve("mp"));
        Process p =
                new ProcessBuilder(
                                ProcessHandle.current().info().command().orElse("java"),
                                "-cp",
                                System.getProperty("java.class.path"),
                                "dev.seqvfs.cli.Main",
                                "mount",
                                mp.toString())
                        .redirectErrorStream(true)
                        .start();
        CompletableFuture<String> output =
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return new String(
                                        p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        });
        String out;
        Matcher m;
        try {
            try {
                out = output.get(60, TimeUnit.SECONDS); // EOF: nothing holds the pipe any more
            } finally {
                p.destroy();
            }
            assertEquals(0, p.waitFor(), out);
            m = Pattern.compile("server pid (\\d+), log (\\S+)\\)").matcher(out);
            assertTrue(out.startsWith("seqvfs: mounted at " + mp) && m.find(), out);
            assertTrue(Files.readString(Path.of("/proc/self/mounts")).contains(" " + mp + " "));
            Files.writeString(mp.resolve("f"), "data");
            assertEquals("data", Files.readString(mp.resolve("f"), StandardCharsets.UTF_8));
        } finally {
            if (Files.readString(Path.of("/proc/self/mounts")).contains(" " + mp + " ")) {
                Process u = new ProcessBuilder("umount", mp.toString()).inheritIO().start();
                assertEquals(0, u.waitFor());
            }
        }
        ProcessHandle server = ProcessHandle.of(Long.parseLong(m.group(1))).orElse(null);
        Path log = Path.of(m.group(2));
        if (server != null) {
            server.onExit().get(30, TimeUnit.SECONDS);
        }
        assertTrue(!Files.exists(log), "a clean unmount removes the server's log: " + log);
    }

    @Test
    void mount_inTheBackground_onANonEmptyDirectory_saysWhy_andLeavesNoLog(@TempDir Path dir)
            throws IOException {
        Files.createFile(dir.resolve("f"));
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        long logsBefore = logs(tmp);
        Cli.Result r = Cli.run("mount", dir.toString());
        assertEquals(1, r.exit());
        assertTrue(r.err().contains(": not empty"), r.err());
        assertEquals(logsBefore, logs(tmp), "the failed server's log was removed");
    }

    /** {@code --private} keeps FUSE's default: only the user who mounted may enter. */
    @Test
    void mount_private_letsOnlyTheMountingUserIn(@TempDir Path dir) throws Exception {
        Path mp = Files.createDirectory(dir.resolve("mp"));
        Cli.Result r = Cli.run("mount", "--private", mp.toString());
        assertEquals(0, r.exit(), r.err());
        try {
            assertTrue(!mountOptions(mp).contains("allow_other"), mountOptions(mp));
            Process p =
                    new ProcessBuilder("su", "-s", "/bin/sh", "nobody", "-c", "ls " + mp)
                            .redirectErrorStream(true)
                            .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(2, p.waitFor(), out); // ls: cannot open directory: Permission denied
        } finally {
            Process u = new ProcessBuilder("umount", mp.toString()).inheritIO().start();
            assertEquals(0, u.waitFor());
        }
    }

    /**
     * A server killed with SIGKILL leaves a dead mount (stat: "Transport endpoint is not
     * connected"); mounting there again once said "no such directory". It must say what it is and
     * how to clear it, and the clearing must work.
     */
    @Test
    void mount_onTheDeadMountOfAKilledServer_saysHowToClearIt(@TempDir Path dir) throws Exception {
        Path mp = Files.createDirectory(dir.resolve("mp"));
        Cli.Result r = Cli.run("mount", mp.toString());
        assertEquals(0, r.exit(), r.err());
        Matcher m = Pattern.compile("server pid (\\d+), log (\\S+)\\)").matcher(r.out());
        assertTrue(m.find(), r.out());
        try {
            ProcessHandle server = ProcessHandle.of(Long.parseLong(m.group(1))).orElseThrow();
            new ProcessBuilder("kill", "-KILL", m.group(1)).inheritIO().start().waitFor();
            server.onExit().get(30, TimeUnit.SECONDS);
            Cli.Result again = Cli.run("mount", "--foreground", mp.toString());
            assertEquals(1, again.exit());
            assertTrue(
                    again.err().startsWith("seqvfs mount: " + mp + ": a dead FUSE mount")
                            && again.err().contains("umount " + mp),
                    again.err());
        } finally {
            Process u = new ProcessBuilder("umount", mp.toString()).inheritIO().start();
            assertEquals(0, u.waitFor());
            Files.deleteIfExists(Path.of(m.group(2)));
        }
        assertTrue(!mountOptions(mp).contains("fuse"), "cleared");
    }

    /** {@return the options field of {@code mp}'s line in /proc/self/mounts, or ""} */
    private static String mountOptions(Path mp) throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/mounts"))) {
            String[] f = l.split(" ", -1);
            if (f.length > 3 && f[1].equals(mp.toString())) {
                return f[3];
            }
        }
        return "";
    }

    private static long logs(Path tmp) throws IOException {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(f -> f.getFileName().toString().startsWith("seqvfs-mount-")).count();
        }
    }

    private volatile Cli.Result result;
}
