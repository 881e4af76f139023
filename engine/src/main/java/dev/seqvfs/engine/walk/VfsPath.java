package dev.seqvfs.engine.walk;

import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.mount.VfsMount;

/**
 * A position in the namespace ({@code struct path}): a mount and an inode reached through it. The
 * same inode reached through two bind mounts gives two different paths.
 *
 * @param mnt the mount
 * @param inode the inode
 */
public record VfsPath(VfsMount mnt, Inode inode) {
    /** {@return the inode as a directory, or {@code null} if it is not one} */
    public DirectoryInode dir() {
        return inode instanceof DirectoryInode d ? d : null;
    }
}
