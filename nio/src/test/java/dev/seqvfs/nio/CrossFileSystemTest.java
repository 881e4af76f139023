package dev.seqvfs.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Calls that involve two SeqVFS file systems, or the empty path, as a newcomer's first session
 * found them wrong: a move or copy between two file systems landed in the source file system (and
 * an {@code ATOMIC_MOVE} reported success); the empty path was "no such file" where the JDK's
 * provider takes it as the working directory; two builders both named their file systems {@code
 * default}, the name of the JVM's default file system in default-provider mode. The expected
 * answers are the JDK's Linux provider's ({@code UnixCopyFile.move} across devices, {@code
 * UnixPath} handing {@code "."} to its system calls for the empty path).
 */
class CrossFileSystemTest {
    private final SeqVfsFileSystem a = SeqVfsFileSystem.builder().build();
    private final SeqVfsFileSystem b = SeqVfsFileSystem.builder().build();

    @AfterEach
    void close() throws IOException {
        a.close();
        b.close();
    }

    @Test
    void moveAndCopyBetweenFileSystems_landInTheTarget() throws IOException {
        Files.writeString(a.getPath("/f"), "one");
        Files.copy(a.getPath("/f"), b.getPath("/c"));
        assertEquals("one", Files.readString(b.getPath("/c")));
        assertFalse(Files.exists(a.getPath("/c")), "the copy landed in the source file system");
        Files.move(a.getPath("/f"), b.getPath("/m"));
        assertEquals("one", Files.readString(b.getPath("/m")));
        assertFalse(Files.exists(a.getPath("/f")), "the moved source is still there");
        assertFalse(Files.exists(a.getPath("/m")), "the move landed in the source file system");
        Files.writeString(a.getPath("/g"), "two");
        Files.writeString(b.getPath("/m"), "old");
        assertThrows(
                FileAlreadyExistsException.class,
                () -> Files.move(a.getPath("/g"), b.getPath("/m")));
        Files.move(a.getPath("/g"), b.getPath("/m"), StandardCopyOption.REPLACE_EXISTING);
        assertEquals("two", Files.readString(b.getPath("/m")));
    }

    @Test
    void atomicMoveBetweenFileSystems_isNotSupported_andChangesNothing() throws IOException {
        Files.writeString(a.getPath("/f"), "x");
        AtomicMoveNotSupportedException e =
                assertThrows(
                        AtomicMoveNotSupportedException.class,
                        () ->
                                Files.move(
                                        a.getPath("/f"),
                                        b.getPath("/f"),
                                        StandardCopyOption.ATOMIC_MOVE));
        assertEquals("Invalid cross-device link", e.getReason());
        assertTrue(Files.exists(a.getPath("/f")));
        assertFalse(Files.exists(b.getPath("/f")));
    }

    @Test
    void movingANonEmptyDirectoryBetweenFileSystems_isDirectoryNotEmpty() throws IOException {
        Files.createDirectories(a.getPath("/d/e"));
        assertThrows(
                DirectoryNotEmptyException.class,
                () -> Files.move(a.getPath("/d"), b.getPath("/d")));
        assertTrue(Files.isDirectory(a.getPath("/d/e")));
        assertFalse(Files.exists(b.getPath("/d")));
        Files.delete(a.getPath("/d/e"));
        Files.move(a.getPath("/d"), b.getPath("/d"));
        assertTrue(Files.isDirectory(b.getPath("/d")));
        assertFalse(Files.exists(a.getPath("/d")));
    }

    @Test
    void theEmptyPath_isTheWorkingDirectory_asOnTheHost() throws IOException {
        Path hostEmpty = Path.of("");
        Path empty = a.getPath("");
        Files.writeString(a.getPath("/x"), "");
        assertEquals(Files.exists(hostEmpty), Files.exists(empty));
        assertEquals(Files.isDirectory(hostEmpty), Files.isDirectory(empty));
        try (Stream<Path> s = Files.list(empty)) {
            assertEquals(List.of("x"), s.map(Path::toString).toList());
        }
        assertThrows(FileAlreadyExistsException.class, () -> Files.createDirectory(empty));
        FileSystemException e = assertThrows(FileSystemException.class, () -> Files.delete(empty));
        assertEquals("Invalid argument", e.getReason());
        assertEquals("", e.getFile());
    }

    @Test
    void buildersName_theirFileSystemsApart_andNeverDefault() {
        assertNotEquals(a.name(), b.name());
        assertNotEquals("default", a.name());
        assertNotEquals(a.getPath("/f").toUri(), b.getPath("/f").toUri());
    }

    @Test
    void aWorkingDirectory_isWhereRelativePathsLand_andAMissingOneIsRefused() throws IOException {
        try (SeqVfsFileSystem w =
                SeqVfsFileSystem.builder().directories("/w").workingDirectory("/w").build()) {
            Files.createFile(w.getPath("x"));
            assertTrue(Files.exists(w.getPath("/w/x")));
            assertFalse(Files.exists(w.getPath("/x")));
            assertEquals("/w/x", w.getPath("x").toAbsolutePath().toString());
        }
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> SeqVfsFileSystem.builder().workingDirectory("/nope").build());
        assertTrue(e.getMessage().contains("/nope"), e.getMessage());
    }

    @Test
    void readOnlyDirectories_getTheirParents() throws IOException {
        try (SeqVfsFileSystem ro =
                SeqVfsFileSystem.builder().directories("/tmp/ro").readOnly(true).build()) {
            assertTrue(Files.isDirectory(ro.getPath("/tmp/ro")));
        }
    }
}
