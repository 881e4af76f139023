package dev.seqvfs.load.makestat;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.load.LoadException;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;

/**
 * Copies a {@link SourceTree} into a directory, either of an embedded SeqVFS (through a task:
 * {@code mkdir}, {@code open(O_CREAT)}, then {@code write} of the contents or only {@code
 * ftruncate} to the size, {@code close}, {@code utimensat} to the source's modification time) or of
 * the host (the same through {@code java.nio}).
 *
 * <p>Without contents, a file is a hole of its source's size: {@code stat} shows the right {@code
 * st_size} and {@code st_mtime} (all that make looks at) and no data is kept.
 */
public final class TreeImport {
    private static final int CHUNK = 64 * 1024;

    private TreeImport() {}

    /**
     * Imports {@code tree} under {@code root} (made if missing) of SeqVFS, as {@code task}.
     *
     * @param contents copy the data ({@code write}), else only set sizes ({@code ftruncate})
     * @throws LoadException a call that failed (named with its path), or a source file that could
     *     not be read
     */
    public static void intoSeqVfs(SourceTree tree, VfsTask task, String root, boolean contents) {
        String base = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
        String current = base;
        try {
            mkdirs(task, base);
            for (String d : tree.dirs()) {
                current = base + "/" + d;
                task.mkdir(current, 0755);
            }
            byte[] buf = new byte[CHUNK];
            for (SourceTree.FileEntry f : tree.files()) {
                current = base + "/" + f.path();
                int fd =
                        task.open(
                                current,
                                OpenFlags.O_CREAT | OpenFlags.O_WRONLY | OpenFlags.O_TRUNC,
                                0644);
                try {
                    if (contents) {
                        try (InputStream in = tree.open(f)) {
                            for (int n; (n = in.read(buf)) > 0; ) {
                                task.write(fd, buf, 0, n);
                            }
                        }
                    } else {
                        task.ftruncate(fd, f.size());
                    }
                } finally {
                    task.close(fd);
                }
                Timespec mtime = Timespec.ofNanos(f.mtimeMillis() * 1_000_000L);
                task.utimensat(VfsTask.AT_FDCWD, current, mtime, mtime, 0);
            }
        } catch (VfsException e) {
            throw new LoadException(
                    "import into SeqVFS failed at " + current + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new LoadException(
                    "--tree "
                            + tree.source()
                            + ": cannot read "
                            + current.substring(base.length() + 1)
                            + ": "
                            + e,
                    e);
        }
    }

    private static void mkdirs(VfsTask task, String path) {
        StringBuilder p = new StringBuilder();
        for (String part : path.split("/", -1)) {
            if (part.isEmpty()) {
                continue;
            }
            p.append('/').append(part);
            try {
                task.mkdir(p.toString(), 0755);
            } catch (VfsException e) {
                if (e.errno() != Errno.EEXIST) {
                    throw e;
                }
            }
        }
    }

    /**
     * Extracts {@code tree} under the host directory {@code root} (made if missing); without {@code
     * contents}, each file is a sparse file of its size.
     *
     * @throws LoadException a host error
     */
    public static void intoHost(SourceTree tree, Path root, boolean contents) {
        Path current = root;
        try {
            Files.createDirectories(root);
            for (String d : tree.dirs()) {
                current = root.resolve(d);
                Files.createDirectory(current);
            }
            for (SourceTree.FileEntry f : tree.files()) {
                current = root.resolve(f.path());
                if (contents) {
                    try (InputStream in = tree.open(f);
                            OutputStream out =
                                    Files.newOutputStream(
                                            current,
                                            StandardOpenOption.CREATE_NEW,
                                            StandardOpenOption.WRITE)) {
                        in.transferTo(out);
                    }
                } else {
                    try (var ch =
                            FileChannel.open(
                                    current,
                                    StandardOpenOption.CREATE_NEW,
                                    StandardOpenOption.WRITE)) {
                        if (f.size() > 0) {
                            // a sparse file of the size: its last byte a zero, the rest a hole
                            ch.write(ByteBuffer.wrap(new byte[1]), f.size() - 1);
                        }
                    }
                }
                Files.setLastModifiedTime(current, FileTime.fromMillis(f.mtimeMillis()));
            }
        } catch (IOException e) {
            throw new LoadException(
                    "extracting the tree to the host failed at " + current + ": " + e, e);
        }
    }
}
