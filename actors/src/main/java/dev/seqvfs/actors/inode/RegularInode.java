package dev.seqvfs.actors.inode;

/**
 * A regular file. Its size lives in {@link InodeAttrs#size()}; its data pages arrive with the
 * open-files work (issue 3), which charges them against the superblock's byte limit.
 */
public class RegularInode extends Inode {
    /** Creates a regular file. */
    public RegularInode(long ino, InodeOwner owner, InodeOperations ops, InodeAttrs attrs) {
        super(ino, owner, ops, attrs);
    }
}
