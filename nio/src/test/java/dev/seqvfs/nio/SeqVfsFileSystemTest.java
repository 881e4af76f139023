package dev.seqvfs.nio;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.Fsck;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.ClosedFileSystemException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The provider's lifecycle and the builder's options: URIs and their round trips, the registry,
 * {@code close()} (open channels and streams then fail with {@link ClosedFileSystemException}, the
 * engine is closed and its invariants hold), credentials that really deny (Jimfs #11), size, inode
 * and read-only limits, umask, and locks that really conflict between two views (Jimfs #67).
 */
class SeqVfsFileSystemTest {
    @Test
    void newFileSystem_byUri_isRegistered_pathsRoundTripThroughUris() throws IOException {
        URI uri = URI.create("seqvfs://roundtrip/");
        try (FileSystem fs = FileSystems.newFileSystem(uri, Map.of())) {
            assertTrue(fs.provider() instanceof SeqVfsFileSystemProvider);
            assertSame(fs, FileSystems.getFileSystem(uri));
            assertThrows(
                    FileSystemAlreadyExistsException.class,
                    () -> FileSystems.newFileSystem(uri, Map.of()));
            Path d = Files.createDirectories(fs.getPath("/a b/c"));
            Path f = Files.writeString(fs.getPath("/a b/c/f%1"), "x");
            assertEquals(URI.create("seqvfs://roundtrip/a%20b/c/"), d.toUri());
            assertEquals(URI.create("seqvfs://roundtrip/a%20b/c/f%251"), f.toUri());
            assertEquals(f, Path.of(f.toUri()));
            assertEquals(d, Path.of(d.toUri()));
            assertEquals(f, fs.getPath("rel").toAbsolutePath().resolveSibling("a b/c/f%1"));
        }
        assertThrows(FileSystemNotFoundException.class, () -> FileSystems.getFileSystem(uri));
        assertThrows(FileSystemNotFoundException.class, () -> Path.of(uri));
    }

    /**
     * A name that is not UTF-8 (made through the engine, as a FUSE mount's client can) comes back
     * from a listing as a path that names the same file again: read, rename, delete (the JDK's
     * provider keeps a path's bytes too). A newcomer found such names unusable from java.nio.
     */
    @Test
    void aNameThatIsNotUtf8_listed_namesTheSameFileAgain() throws IOException {
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().build()) {
            fs.task().mkdir("/d", 0755);
            int fd =
                    fs.task()
                            .open(
                                    dev.seqvfs.protocol.Filename.of(
                                            new byte[] {'/', 'd', '/', 'b', (byte) 0xff}),
                                    dev.seqvfs.protocol.OpenFlags.O_CREAT
                                            | dev.seqvfs.protocol.OpenFlags.O_WRONLY,
                                    0644);
            fs.task().write(fd, new byte[] {'h', 'i'});
            fs.task().close(fd);
            List<Path> listed;
            try (var s = Files.list(fs.getPath("/d"))) {
                listed = s.toList();
            }
            assertEquals(1, listed.size());
            Path p = listed.get(0);
            assertEquals("hi", Files.readString(p));
            assertEquals(p, fs.getPath(p.toString()), "its string parses back to the same bytes");
            Path q = Files.move(p, p.resolveSibling("c\u00e9"));
            assertEquals("hi", Files.readString(q));
            Files.move(q, p);
            Files.delete(p);
            try (var s = Files.list(fs.getPath("/d"))) {
                assertEquals(0, s.count());
            }
        }
    }

    @Test
    void newFileSystem_unknownEnvKey_isIllegalArgument() {
        assertThrows(
                IllegalArgumentException.class,
                () -> FileSystems.newFileSystem(URI.create("seqvfs://bad/"), Map.of("nope", 1)));
    }

    @Test
    void close_closesChannelsAndStreams_laterCallsFailWithClosedFileSystemException()
            throws IOException {
        SeqVfsFileSystem fs = SeqVfsFileSystem.builder().name("closing").build();
        Path f = Files.writeString(fs.getPath("/f"), "data");
        SeekableByteChannel ch = Files.newByteChannel(f, StandardOpenOption.READ);
        DirectoryStream<Path> ds = Files.newDirectoryStream(fs.getPath("/"));
        assertEquals(List.of(), Fsck.check(fs.engine(), false));
        fs.close();
        fs.close();
        assertFalse(fs.isOpen());
        assertFalse(ch.isOpen());
        assertThrows(ClosedFileSystemException.class, () -> ch.read(ByteBuffer.allocate(1)));
        assertThrows(ClosedFileSystemException.class, () -> Files.readString(f));
        assertThrows(ClosedFileSystemException.class, () -> Files.exists(f));
        assertThrows(IllegalStateException.class, ds::iterator);
        assertTrue(fs.engine().isClosed());
    }

    @Test
    void jimfs11_permissionsReallyDeny_aUserWithoutPermissionGetsAccessDenied() throws IOException {
        try (SeqVfsFileSystem root = SeqVfsFileSystem.builder().directories("/home/u").build();
                SeqVfsFileSystem user =
                        SeqVfsFileSystem.builder().engine(root.engine()).user(1000, 1000).build()) {
            Path secret = Files.writeString(root.getPath("/secret"), "s");
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
            AccessDeniedException e =
                    assertThrows(
                            AccessDeniedException.class,
                            () -> Files.readString(user.getPath("/secret")));
            assertEquals("/secret", e.getFile());
            assertThrows(
                    AccessDeniedException.class,
                    () -> Files.createFile(user.getPath("/home/u/mine")));
            Files.setOwner(
                    root.getPath("/home/u"),
                    root.getUserPrincipalLookupService().lookupPrincipalByName("1000"));
            Path mine = Files.createFile(user.getPath("/home/u/mine"));
            assertEquals("1000", Files.getOwner(mine).getName());
            assertEquals(
                    "rw-r--r--",
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(mine)));
            assertTrue(Files.exists(root.getPath("/home/u/mine")));
            assertFalse(Files.isWritable(user.getPath("/secret")));
        }
    }

    @Test
    void sizeLimit_writePastIt_failsWithNoSpaceLeftOnDevice() throws IOException {
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().maxBytes(64 * 1024).build()) {
            Path f = fs.getPath("/big");
            IOException e =
                    assertThrows(IOException.class, () -> Files.write(f, new byte[128 * 1024]));
            assertEquals("No space left on device", e.getMessage());
            assertTrue(Files.size(f) <= 64 * 1024);
            assertTrue(Files.getFileStore(f).getTotalSpace() <= 64 * 1024);
        }
    }

    @Test
    void inodeLimit_createPastIt_failsWithNoSpaceLeftOnDevice() throws IOException {
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().maxInodes(3).build()) {
            Files.createFile(fs.getPath("/a"));
            Files.createFile(fs.getPath("/b"));
            FileSystemException e =
                    assertThrows(
                            FileSystemException.class, () -> Files.createFile(fs.getPath("/c")));
            assertEquals("No space left on device", e.getReason());
            assertEquals("/c", e.getFile());
        }
    }

    @Test
    void readOnly_everyWriteFailsWithReadOnlyFileSystem_readsWork() throws IOException {
        try (SeqVfsFileSystem fs =
                SeqVfsFileSystem.builder().readOnly(true).directories("/etc").build()) {
            assertTrue(fs.isReadOnly());
            assertTrue(Files.isDirectory(fs.getPath("/etc")));
            FileSystemException e =
                    assertThrows(
                            FileSystemException.class,
                            () -> Files.createFile(fs.getPath("/etc/x")));
            assertEquals("Read-only file system", e.getReason());
        }
    }

    @Test
    void umask_appliesToEveryCreate() throws IOException {
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().umask(077).build()) {
            Path f = Files.createFile(fs.getPath("/f"));
            assertEquals(
                    "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        }
    }

    @Test
    void jimfs67_locksOfTwoViews_reallyConflict() throws IOException {
        try (SeqVfsFileSystem a = SeqVfsFileSystem.builder().build();
                SeqVfsFileSystem b = SeqVfsFileSystem.builder().engine(a.engine()).build()) {
            Files.writeString(a.getPath("/f"), "0123456789");
            try (FileChannel ca =
                            FileChannel.open(
                                    a.getPath("/f"),
                                    StandardOpenOption.READ,
                                    StandardOpenOption.WRITE);
                    FileChannel cb =
                            FileChannel.open(
                                    b.getPath("/f"),
                                    StandardOpenOption.READ,
                                    StandardOpenOption.WRITE)) {
                FileLock la = ca.lock(0, 5, false);
                assertNull(
                        cb.tryLock(2, 2, false), "a conflicting lock of another view is refused");
                assertNull(cb.tryLock(0, 1, true));
                FileLock other = cb.tryLock(5, 5, false);
                assertNotNull(other, "a disjoint range is granted");
                la.release();
                assertNotNull(cb.tryLock(0, 5, false));
            }
        }
    }

    @Test
    void map_isUnsupported_documented() throws IOException {
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().build();
                FileChannel ch =
                        FileChannel.open(
                                fs.getPath("/f"),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.READ,
                                StandardOpenOption.WRITE)) {
            assertThrows(
                    UnsupportedOperationException.class,
                    () -> ch.map(FileChannel.MapMode.READ_ONLY, 0, 1));
        }
    }

    @Test
    void paths_areEqualByBytes_andParsedOnce() throws IOException {
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().build()) {
            Path p = fs.getPath("/a//b/");
            assertEquals("/a/b", p.toString());
            assertEquals(fs.getPath("/a", "b"), p);
            assertEquals(fs.getPath("/a/b").hashCode(), p.hashCode());
            assertArrayEquals("/a/b".getBytes(UTF_8), ((SeqVfsPath) p).bytes());
            assertSame(((SeqVfsPath) p).filename(), ((SeqVfsPath) p).filename());
        }
    }

    @Test
    void initialTree_isCopiedIn_withItsPermissions_beforeReadOnlyApplies() throws IOException {
        Path src = Files.createTempDirectory(Path.of("/dev/shm"), "seqvfs-tree-");
        try {
            Files.createDirectories(src.resolve("conf/d"));
            Files.writeString(src.resolve("conf/app.properties"), "k=v");
            Files.setPosixFilePermissions(
                    src.resolve("conf/app.properties"),
                    PosixFilePermissions.fromString("rw-------"));
            Files.createSymbolicLink(src.resolve("link"), Path.of("conf/app.properties"));
            try (SeqVfsFileSystem fs =
                    SeqVfsFileSystem.builder().initialTree(src).readOnly(true).build()) {
                assertEquals("k=v", Files.readString(fs.getPath("/link")));
                assertEquals(
                        "rw-------",
                        PosixFilePermissions.toString(
                                Files.getPosixFilePermissions(fs.getPath("/conf/app.properties"))));
                assertTrue(Files.isDirectory(fs.getPath("/conf/d")));
                assertTrue(fs.isReadOnly());
                assertThrows(FileSystemException.class, () -> Files.createFile(fs.getPath("/x")));
            }
        } finally {
            try (java.util.stream.Stream<Path> s = Files.walk(src)) {
                for (Path p :
                        s.sorted((a, b) -> b.compareTo(a))
                                .collect(java.util.stream.Collectors.toList())) {
                    Files.delete(p);
                }
            }
        }
    }
}
