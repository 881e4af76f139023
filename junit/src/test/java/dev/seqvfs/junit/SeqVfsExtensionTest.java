package dev.seqvfs.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.nio.SeqVfsFileSystem;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What {@link SeqVfsExtension} injects: a fresh, empty file system per test (field and parameter),
 * the initial tree from test resources, the limits, read-only, another user's view; and that it
 * closes every file system after the test.
 */
@ExtendWith(SeqVfsExtension.class)
class SeqVfsExtensionTest {
    private static final List<FileSystem> SEEN = new java.util.concurrent.CopyOnWriteArrayList<>();

    @TempSeqVfs(directories = "/work")
    Path root;

    @AfterAll
    static void everyFileSystem_isClosedAfterItsTest() {
        assertTrue(SEEN.size() >= 3);
        for (FileSystem fs : SEEN) {
            assertFalse(fs.isOpen(), fs + " still open");
        }
    }

    @RepeatedTest(3)
    void field_isAFreshFileSystemPerTest() throws IOException {
        SEEN.add(root.getFileSystem());
        try (Stream<Path> s = Files.list(root.resolve("work"))) {
            assertEquals(0, s.count(), "nothing left from an earlier repetition");
        }
        Files.writeString(root.resolve("work/left-behind"), "x");
    }

    /** The resource tree is built once for the class; each repetition gets a fork of it. */
    @RepeatedTest(3)
    void initialTree_isAForkOfOneSharedFixture_privateToEachTest(
            @TempSeqVfs(resources = "fixture") SeqVfsFileSystem fs) throws IOException {
        SEEN.add(fs);
        Path conf = fs.getPath("/conf/app.properties");
        assertEquals("key=value\n", Files.readString(conf), "an earlier test's write leaked");
        Files.writeString(conf, "changed by this test\n");
        Files.writeString(fs.getPath("/conf/left-behind"), "x");
    }

    @Test
    void parameter_isAnotherFileSystem_withTheInitialTreeFromResources(
            @TempSeqVfs(resources = "fixture") SeqVfsFileSystem fs) throws IOException {
        SEEN.add(fs);
        assertNotSame(root.getFileSystem(), fs);
        assertEquals("key=value\n", Files.readString(fs.getPath("/conf/app.properties")));
        try (Stream<Path> s = Files.walk(fs.getPath("/"))) {
            assertEquals(
                    List.of("/", "/README", "/conf", "/conf/app.properties"),
                    s.map(Path::toString).sorted().collect(Collectors.toList()));
        }
    }

    @Test
    void readOnlyAndUser_areApplied(
            @TempSeqVfs(resources = "fixture", readOnly = true) FileSystem ro,
            @TempSeqVfs(uid = 1000, gid = 1000, directories = "/etc") Path user)
            throws IOException {
        SEEN.add(ro);
        SEEN.add(user.getFileSystem());
        assertTrue(Files.exists(ro.getPath("/README")));
        FileSystemException e =
                assertThrows(FileSystemException.class, () -> Files.createFile(ro.getPath("/x")));
        assertEquals("Read-only file system", e.getReason());
        assertThrows(AccessDeniedException.class, () -> Files.createFile(user.resolve("etc/x")));
        assertEquals("1000", Files.getOwner(Files.createFile(user.resolve("mine"))).getName());
    }

    @Test
    void limits_areApplied(@TempSeqVfs(maxBytes = 8192) Path small) {
        SEEN.add(small.getFileSystem());
        assertThrows(IOException.class, () -> Files.write(small.resolve("big"), new byte[65536]));
    }
}
