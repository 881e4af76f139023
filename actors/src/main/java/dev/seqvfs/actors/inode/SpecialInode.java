package dev.seqvfs.actors.inode;

/**
 * A FIFO, socket or device node made by {@code mknod(2)}: an inode with no content of
 * its own in the file system.
 */
public final class SpecialInode extends Inode {
    /** Creates a special file; the type comes from the mode bits of {@code attrs}. */
    public SpecialInode(long ino, InodeOwner owner, InodeOperations ops, InodeAttrs attrs) {
        super(ino, owner, ops, attrs);
    }
}
