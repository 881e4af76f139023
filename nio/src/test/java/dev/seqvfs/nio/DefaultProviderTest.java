package dev.seqvfs.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SeqVFS installed as the JVM's default provider ({@code
 * -Djava.nio.file.spi.DefaultFileSystemProvider}): a child JVM, the {@code java} of this one, runs
 * {@link DefaultProviderChild}, plain {@code Path.of}/{@code Files} code, and what it writes lands
 * in SeqVFS, not on the host; the JDK's files are readable (hostfs) and read-only; {@code /tmp} is
 * SeqVFS's.
 */
@Timeout(180)
class DefaultProviderTest {
    @Test
    void unmodifiedCode_writesIntoSeqVfs_notOnTheHost() throws IOException, InterruptedException {
        String dir = "/seqvfs-default-probe-" + UUID.randomUUID();
        String target = dir + "/some/file";
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp =
                System.getProperty(
                        "surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx256m");
        cmd.add(
                "-Djava.nio.file.spi.DefaultFileSystemProvider="
                        + SeqVfsDefaultFileSystemProvider.class.getName());
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add(DefaultProviderChild.class.getName());
        cmd.add(target);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out;
        try {
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the child exits");
        } finally {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), out);
        Map<String, String> seen = new HashMap<>();
        for (String line : out.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                seen.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        assertTrue(out.contains("\ndone") || out.startsWith("done"), out);
        assertEquals("written through Path.of", seen.get("read"), out);
        assertEquals("[file]", seen.get("list"), out);
        assertEquals(SeqVfsFileSystem.class.getName(), seen.get("default"), out);
        assertEquals(SeqVfsFileSystem.class.getName(), seen.get("paths"), out);
        assertEquals(SeqVfsFileSystem.class.getName(), seen.get("toPath"), out);
        assertEquals("true", seen.get("jdkRelease"), "the JDK's files through hostfs: " + out);
        assertEquals("Read-only file system", seen.get("jdkWrite"), out);
        assertTrue(seen.get("tmp").endsWith(":temp"), out);
        assertEquals("true", seen.get("fileUri"), out);
        assertEquals("true", seen.get("uriRoundTrip"), out);
        // the host has none of it
        assertFalse(new File(dir).exists(), "nothing of " + dir + " on the host");
        assertFalse(Files.exists(Path.of(target)));
    }
}
