package dev.seqvfs.engine.fs.hostfs;

import dev.seqvfs.engine.dir.DirectoryFileOperations;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.protocol.Syscall;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * The file operations of hostfs ({@code hostfs_file_fops}, {@code hostfs_dir_fops}), read-only:
 * {@link #REGULAR} reads the host file's bytes at the position asked ({@code pread(2)} on the host,
 * through the host provider's {@link FileChannel}); it has no {@code ->write}, the superblock being
 * read-only. {@link #DIRECTORY} lists the host directory ({@link
 * dev.seqvfs.engine.fs.InodeOperations#list}). Errors are the host's errno ({@link HostErrors}).
 *
 * <p>Stateless and thread-safe; each read opens the host file, reads and closes it, on the caller's
 * thread (blocking host I/O, never on an actor).
 */
final class HostFileOperations {
    private HostFileOperations() {}

    /** A host regular file: positional reads of the host's bytes. */
    static final FileOperations REGULAR =
            new FileOperations() {
                @Override
                public int fmode() {
                    return FMODE_POSITIONAL | FMODE_CAN_READ;
                }

                @Override
                public int read(
                        OpenFile f, byte[] dst, int off, int len, long pos, boolean nonblock) {
                    HostInode i = (HostInode) f.inode();
                    try (FileChannel ch =
                            i.host()
                                    .getFileSystem()
                                    .provider()
                                    .newFileChannel(i.host(), Set.of(StandardOpenOption.READ))) {
                        ByteBuffer b = ByteBuffer.wrap(dst, off, len);
                        long at = pos;
                        while (b.hasRemaining()) {
                            int n = ch.read(b, at);
                            if (n < 0) {
                                break;
                            }
                            at += n;
                        }
                        return (int) (at - pos);
                    } catch (IOException e) {
                        throw HostErrors.translate(e, Syscall.READ);
                    }
                }
            };

    /** A host directory: {@code getdents} lists what the host lists. */
    static final FileOperations DIRECTORY = DirectoryFileOperations.COMPUTED;
}
