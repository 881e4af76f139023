package dev.seqvfs.engine.inode;

import dev.seqvfs.engine.fs.InodeOperations;

/**
 * Bits that cache, once per inode, which inode operations exist, so that the path walk tests a bit
 * instead of calling through the file-system type (the {@code i_opflags} / {@code IOP_*} idea of
 * seed {@code 001}).
 *
 * <p>Computed by {@link #compute} when an inode is instantiated and never changed. The walk's hot
 * loop reads only {@link Inode#iopFlags()}, a final field, which shares the inode's header cache
 * line.
 */
public final class IopFlags {
    /** The inode is a directory: the walk may look names up in it. */
    public static final int IOP_LOOKUP = 1;

    /** The inode is a symbolic link: the walk follows it unless told not to. */
    public static final int IOP_FOLLOW_LINK = 1 << 1;

    /**
     * Permission checks call {@link InodeOperations#permission}; without it the generic mode-bit
     * check runs.
     */
    public static final int IOP_PERMISSION = 1 << 2;

    /**
     * Lookup calls {@link InodeOperations#lookup} instead of reading the directory snapshot
     * (procfs).
     */
    public static final int IOP_CUSTOM_LOOKUP = 1 << 3;

    /**
     * The link target comes from {@link InodeOperations#getLink} (procfs magic links), not a stored
     * string.
     */
    public static final int IOP_CUSTOM_LINK = 1 << 4;

    /** The directory has a {@code DirectoryActor} and accepts namespace changes. */
    public static final int IOP_MUTABLE_DIR = 1 << 5;

    private IopFlags() {}

    /**
     * Computes the flags of a new inode from its type and its file system's operations.
     *
     * @param directory whether the inode is a directory
     * @param symlink whether the inode is a symbolic link
     * @param ops the file-system type's operations for this inode
     * @return the flag word
     */
    public static int compute(boolean directory, boolean symlink, InodeOperations ops) {
        int f = 0;
        if (directory) {
            f |= IOP_LOOKUP;
            if (ops.hasLookup()) {
                f |= IOP_CUSTOM_LOOKUP;
            } else {
                f |= IOP_MUTABLE_DIR;
            }
        }
        if (symlink) {
            f |= IOP_FOLLOW_LINK;
            if (ops.hasGetLink()) {
                f |= IOP_CUSTOM_LINK;
            }
        }
        if (ops.hasPermission()) {
            f |= IOP_PERMISSION;
        }
        return f;
    }
}
