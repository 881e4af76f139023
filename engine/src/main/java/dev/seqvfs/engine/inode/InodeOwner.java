package dev.seqvfs.engine.inode;

/**
 * The accounting side of a superblock, as an inode sees it: where it returns its quota
 * when it is freed. Implementations must be thread-safe and must not block.
 */
public interface InodeOwner {
    /** Returns the device id ({@code st_dev}) of the superblock. */
    long dev();

    /** Returns the current time in nanoseconds since the epoch, from the superblock's clock. */
    long now();

    /** Takes back the inode's quota (one inode and its {@link Inode#chargedBytes()}); called exactly once per inode. */
    void inodeFreed(Inode inode);

    /**
     * Takes back the inode slots of {@code n} extra hard links that were removed (tmpfs
     * charges every name of a file beyond its first against {@code nr_inodes}).
     */
    default void extraLinksDropped(long n) {
    }
}
