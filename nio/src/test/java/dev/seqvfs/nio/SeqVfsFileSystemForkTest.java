package dev.seqvfs.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.Fsck;
import java.io.IOException;
import java.nio.file.ClosedFileSystemException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SeqVfsFileSystem#fork}: a file system with the same contents, user and working directory,
 * whose writes neither side sees from the other, and which closes its own engine.
 */
class SeqVfsFileSystemForkTest {
    @Test
    void fork_hasTheContents_andWritesStayOnTheirSide() throws IOException {
        try (SeqVfsFileSystem fs =
                SeqVfsFileSystem.builder()
                        .name("fork-src")
                        .directories("/w")
                        .workingDirectory("/w")
                        .build()) {
            Files.createDirectories(fs.getPath("/w/d"));
            Files.writeString(fs.getPath("/w/d/f"), "fixture");
            try (SeqVfsFileSystem f = fs.fork("fork-dst")) {
                assertEquals("fork-dst", f.name());
                assertEquals(f.getPath("/w/d/f"), f.getPath("d/f").toAbsolutePath());
                assertEquals("fixture", Files.readString(f.getPath("/w/d/f")));
                Files.writeString(f.getPath("/w/d/f"), "fork");
                Files.delete(fs.getPath("/w/d/f"));
                Files.setPosixFilePermissions(
                        f.getPath("/w/d"), PosixFilePermissions.fromString("rwx------"));
                assertEquals("fork", Files.readString(f.getPath("/w/d/f")));
                assertFalse(Files.exists(fs.getPath("/w/d/f")));
                assertEquals(
                        PosixFilePermissions.fromString("rwxr-xr-x"),
                        Files.getPosixFilePermissions(fs.getPath("/w/d")));
                assertEquals(List.of(), Fsck.check(f.engine(), true));
                fs.close();
                assertTrue(f.isOpen());
                assertEquals("fork", Files.readString(f.getPath("/w/d/f")));
            }
            assertThrows(ClosedFileSystemException.class, () -> fs.fork("again"));
        }
    }

    @Test
    void closingTheFork_closesItsEngine_only() throws IOException {
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().name("fork-src2").build()) {
            SeqVfsFileSystem f = fs.fork("fork-dst2");
            f.close();
            assertTrue(f.engine().isClosed());
            assertFalse(fs.engine().isClosed());
            Files.writeString(fs.getPath("/still"), "open");
        }
    }
}
