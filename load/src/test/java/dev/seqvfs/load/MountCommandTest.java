package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies {@code seqvfs mount}: one line and exit status 1 for a mount point it cannot use, and a
 * foreground server that serves until it is unmounted from outside, then exits with 0.
 */
class MountCommandTest {

    @Test
    void mount_onAMissingDirectory_saysSoInOneLine_andExits1() {
        Cli.Result r = Cli.run("mount", "--foreground", "/nonexistent/seqvfs-mp");
        assertEquals(1, r.exit());
        assertEquals("seqvfs mount: /nonexistent/seqvfs-mp: no such directory\n", r.err());
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
        Process u = new ProcessBuilder("umount", mp.toString()).inheritIO().start();
        assertEquals(0, u.waitFor());
        server.join(20_000);
        assertEquals(0, result.exit(), result.err());
        assertTrue(result.out().startsWith("seqvfs: mounted at " + mp), result.out());
        assertEquals("seqvfs mount: " + mp + " unmounted\n", result.err());
    }

    private volatile Cli.Result result;
}
