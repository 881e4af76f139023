package dev.seqvfs.engine.fs.hostfs;

import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeOwner;
import java.nio.file.Path;

/**
 * A hostfs regular file: its attributes as the host showed them when it was looked up, and the host
 * path its reads go to ({@code hostfs_inode_info}'s name). A host FIFO, socket or device node is a
 * plain {@code SpecialInode} instead.
 *
 * <p>Immutable but for what {@link Inode} publishes; thread-safe.
 */
final class HostInode extends Inode {
    private final Path host;

    HostInode(
            long ino,
            InodeOwner owner,
            InodeOperations ops,
            FileOperations fileOps,
            InodeAttrs attrs,
            Path host) {
        super(ino, owner, ops, fileOps, attrs);
        this.host = host;
    }

    /** {@return the host file this inode shows} */
    Path host() {
        return host;
    }
}
