package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.load.makestat.SourceTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies {@link SourceTree}: what {@code seqvfs load makestat --tree} reads from a zip file or a
 * directory (directories parents first, implied ones included; regular files with sizes and times)
 * and the clear errors for a missing tree, a dangling link, a file that is not a zip and an entry
 * that escapes the tree (java.util.zip, zip slip).
 */
class SourceTreeTest {
    @TempDir Path tmp;

    @Test
    void open_zipWithImpliedDirectories_listsEveryDirectoryParentsFirstAndEveryFileWithSize()
            throws IOException {
        try (SourceTree t = SourceTree.open(Cli.smallZip(tmp))) {
            assertTrue(t.isZip());
            assertEquals(List.of("top", "top/sub", "top/sub/deep"), t.dirs());
            Map<String, Long> sizes =
                    t.files().stream()
                            .collect(
                                    Collectors.toMap(
                                            SourceTree.FileEntry::path,
                                            SourceTree.FileEntry::size));
            assertEquals(
                    Map.of(
                            "top/a.txt",
                            5L,
                            "top/sub/b.java",
                            11L,
                            "top/sub/deep/c.bin",
                            1000L,
                            "README",
                            0L),
                    sizes);
            assertEquals(1016, t.bytes());
            for (SourceTree.FileEntry f : t.files()) {
                assertEquals(Cli.mtimeMillis(f.size()), f.mtimeMillis(), f.path());
            }
        }
    }

    @Test
    void open_directory_listsDirectoriesAndRegularFilesAndSkipsSymlinks() throws IOException {
        // tree/            tree/x/y/z.txt ("abc")   tree/x/w (empty)   tree/link -> x
        Path root = tmp.resolve("tree");
        Files.createDirectories(root.resolve("x/y"));
        Files.writeString(root.resolve("x/y/z.txt"), "abc");
        Files.createFile(root.resolve("x/w"));
        Files.createSymbolicLink(root.resolve("link"), Path.of("x"));
        try (SourceTree t = SourceTree.open(root)) {
            assertFalse(t.isZip());
            assertEquals(List.of("x", "x/y"), t.dirs());
            Map<String, Long> sizes =
                    t.files().stream()
                            .collect(
                                    Collectors.toMap(
                                            SourceTree.FileEntry::path,
                                            SourceTree.FileEntry::size));
            assertEquals(Map.of("x/y/z.txt", 3L, "x/w", 0L), sizes);
            assertEquals(1, t.skipped());
        }
    }

    @Test
    void open_missingPath_failsSayingNoSuchFile() {
        LoadException e =
                assertThrows(LoadException.class, () -> SourceTree.open(tmp.resolve("nope.zip")));
        assertTrue(e.getMessage().contains("no such file or directory"), e.getMessage());
    }

    @Test
    void open_danglingSymlink_failsNamingTheLinkTarget() throws IOException {
        Path link = Files.createSymbolicLink(tmp.resolve("src.zip"), Path.of("../../gone/src.zip"));
        LoadException e = assertThrows(LoadException.class, () -> SourceTree.open(link));
        assertTrue(
                e.getMessage().contains("dangling symbolic link (to ../../gone/src.zip)"),
                e.getMessage());
    }

    @Test
    void open_fileThatIsNotAZip_failsSayingNotAReadableZip() throws IOException {
        Path bad = Cli.corruptZip(tmp);
        LoadException e = assertThrows(LoadException.class, () -> SourceTree.open(bad));
        assertTrue(e.getMessage().contains("not a readable zip file"), e.getMessage());
    }

    @Test
    void open_zipEntryWithDotDot_isRefusedAsEscapingTheTree() throws IOException {
        Path zip = tmp.resolve("slip.zip");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            out.putNextEntry(new ZipEntry("a/../../evil"));
            out.closeEntry();
        }
        LoadException e = assertThrows(LoadException.class, () -> SourceTree.open(zip));
        assertTrue(e.getMessage().contains("escapes the tree"), e.getMessage());
    }
}
