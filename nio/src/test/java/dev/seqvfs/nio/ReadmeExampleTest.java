package dev.seqvfs.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's "Through java.nio.file" example, as it is there, with its comments checked. */
class ReadmeExampleTest {
    @Test
    void readmeExample_runsAsItsCommentsSay() throws Exception {
        try (FileSystem fs =
                FileSystems.newFileSystem(
                        URI.create("seqvfs://demo/"),
                        Map.of("uid", 1000, "gid", 1000, "size", 64L << 20))) {
            Path dir = Files.createDirectories(fs.getPath("/tmp/work"));
            Path f = Files.writeString(dir.resolve("hello.txt"), "hello\n");
            assertEquals(URI.create("seqvfs://demo/tmp/work/hello.txt"), f.toUri());
            assertEquals("hello\n", Files.readString(Path.of(f.toUri())));
            Files.move(f, dir.resolve("hello.1"), StandardCopyOption.ATOMIC_MOVE);
            assertTrue(Files.exists(dir.resolve("hello.1")));
            assertEquals("1000", Files.getOwner(dir).getName());
        }
        try (SeqVfsFileSystem fs =
                SeqVfsFileSystem.builder()
                        .user(1000, 1000)
                        .umask(077)
                        .maxBytes(1 << 20)
                        .maxInodes(1000)
                        .directories("/etc", "/home/u")
                        .build()) {
            assertFalse(Files.exists(fs.getPath("/etc/shadow")));
            assertTrue(Files.isDirectory(fs.getPath("/home/u")));
        }
    }
}
