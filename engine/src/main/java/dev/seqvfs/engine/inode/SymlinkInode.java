package dev.seqvfs.engine.inode;

import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;

/**
 * A symbolic link: an inode whose content is an immutable target path.
 *
 * <p>The target is final, so a walk that reads it needs no validation beyond the dentry that led to
 * it. It is held in SeqVFS's internal path form (one {@code char} per byte, see {@code
 * dev.seqvfs.protocol.PathNames}).
 */
public final class SymlinkInode extends Inode {
    private final String target;

    /**
     * Creates a link.
     *
     * @param ino the inode number
     * @param owner the superblock, as its accounting interface
     * @param ops the inode operations ({@code i_op})
     * @param attrs the initial attributes
     * @param target the target in internal form; its length in bytes is the inode's size
     */
    public SymlinkInode(
            long ino, InodeOwner owner, InodeOperations ops, InodeAttrs attrs, String target) {
        super(ino, owner, ops, FileOperations.NONE, attrs);
        this.target = target;
    }

    /** {@return the stored target in internal form} */
    public String target() {
        return target;
    }

    /** Long targets are charged as bytes, as tmpfs charges a page for them. */
    @Override
    public long chargedBytes() {
        return target.length();
    }

    @Override
    public long chargedBytesNow() {
        return target.length();
    }

    /** Its target's bytes leave the tree with its last name (they were added when it was made). */
    @Override
    protected long leftTree() {
        return target.length();
    }
}
