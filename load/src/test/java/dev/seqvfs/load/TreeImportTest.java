package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.load.makestat.SourceTree;
import dev.seqvfs.load.makestat.TreeImport;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Specifies {@link TreeImport}: a source tree lands in SeqVFS (and on the host) with its
 * directories, its files' sizes (ftruncate) or contents (write), and their modification times, as
 * {@code stat(2)} then reports them (the {@link Cli#smallZip} tree).
 */
class TreeImportTest {
    private static SeqVfs vfs;

    @TempDir Path tmp;

    @BeforeAll
    static void start() {
        vfs = SeqVfs.create();
    }

    @AfterAll
    static void stop() {
        vfs.close();
    }

    @Test
    void intoSeqVfs_sizesOnly_statShowsSourceSizesAndTimesAndDirectories() throws IOException {
        try (SourceTree tree = SourceTree.open(Cli.smallZip(tmp));
                VfsTask t = vfs.newTask(Credentials.ROOT)) {
            TreeImport.intoSeqVfs(tree, t, "/imp1/src", false);
            assertEquals(Mode.S_IFDIR, t.stat("/imp1/src/top/sub/deep").mode() & Mode.S_IFMT);
            for (SourceTree.FileEntry f : tree.files()) {
                Stat st = t.stat("/imp1/src/" + f.path());
                assertEquals(Mode.S_IFREG, st.mode() & Mode.S_IFMT, f.path());
                assertEquals(f.size(), st.size(), f.path());
                assertEquals(Cli.mtimeMillis(f.size()) * 1_000_000L, st.mtimeNanos(), f.path());
            }
            // sizes only: the data is a hole (zeros), not the source's bytes
            assertArrayEquals(new byte[5], read(t, "/imp1/src/top/a.txt", 5));
        }
    }

    @Test
    void intoSeqVfs_contents_readBackGivesTheSourceBytes() throws IOException {
        try (SourceTree tree = SourceTree.open(Cli.smallZip(tmp));
                VfsTask t = vfs.newTask(Credentials.ROOT)) {
            TreeImport.intoSeqVfs(tree, t, "/imp2", true);
            assertArrayEquals(
                    "class B {}\n".getBytes(StandardCharsets.UTF_8),
                    read(t, "/imp2/top/sub/b.java", 11));
            assertEquals(1000, t.stat("/imp2/top/sub/deep/c.bin").size());
        }
    }

    @Test
    void intoSeqVfs_directoryTree_importsItsFiles() throws IOException {
        Path root = tmp.resolve("d");
        Files.createDirectories(root.resolve("p/q"));
        Files.writeString(root.resolve("p/q/r.c"), "int main;\n");
        Files.setLastModifiedTime(root.resolve("p/q/r.c"), FileTime.fromMillis(1_500_000_000_000L));
        try (SourceTree tree = SourceTree.open(root);
                VfsTask t = vfs.newTask(Credentials.ROOT)) {
            TreeImport.intoSeqVfs(tree, t, "/imp3", false);
            Stat st = t.stat("/imp3/p/q/r.c");
            assertEquals(10, st.size());
            assertEquals(1_500_000_000_000L * 1_000_000L, st.mtimeNanos());
        }
    }

    @Test
    void intoHost_sizesOnly_makesSparseFilesOfTheSourceSizes() throws IOException {
        Path host = tmp.resolve("host");
        try (SourceTree tree = SourceTree.open(Cli.smallZip(tmp))) {
            TreeImport.intoHost(tree, host, false);
        }
        assertEquals(1000, Files.size(host.resolve("top/sub/deep/c.bin")));
        assertEquals(0, Files.size(host.resolve("README")));
        assertEquals(
                Cli.mtimeMillis(5),
                Files.getLastModifiedTime(host.resolve("top/a.txt")).toMillis());
    }

    private static byte[] read(VfsTask t, String path, int n) {
        int fd = t.open(path, OpenFlags.O_RDONLY);
        try {
            byte[] buf = new byte[n];
            assertEquals(n, t.read(fd, buf, 0, n));
            return buf;
        } finally {
            t.close(fd);
        }
    }
}
