package dev.seqvfs.engine.sb;

/**
 * The limits and sizes of one superblock, from the {@code seqvfs.tmpfs} configuration or the {@code
 * mount(2)} data string ({@code nr_inodes=N,size=BYTES}).
 *
 * @param maxInodes most inodes alive at once (the root included); {@code Long.MAX_VALUE} for no
 *     limit
 * @param maxBytes most bytes of data and long symlink targets; {@code Long.MAX_VALUE} for no limit
 * @param blockSize {@code st_blksize} and the {@code statfs} block size, in bytes
 * @param inodeBatch inode numbers a directory actor takes from the superblock at a time
 */
public record SuperblockConfig(long maxInodes, long maxBytes, int blockSize, int inodeBatch) {
    /** No limits, 4096-byte blocks, batches of 64 inode numbers. */
    public static final SuperblockConfig UNLIMITED =
            new SuperblockConfig(Long.MAX_VALUE, Long.MAX_VALUE, 4096, 64);

    /**
     * Validates the values.
     *
     * @param maxInodes most inodes alive at once (the root included)
     * @param maxBytes most bytes of data and long symlink targets
     * @param blockSize {@code st_blksize}, in bytes
     * @param inodeBatch inode numbers a directory actor takes at a time
     */
    public SuperblockConfig {
        if (maxInodes < 1 || maxBytes < 0 || blockSize <= 0 || inodeBatch < 1) {
            throw new IllegalArgumentException(
                    "bad superblock config: inodes="
                            + maxInodes
                            + " bytes="
                            + maxBytes
                            + " blockSize="
                            + blockSize
                            + " batch="
                            + inodeBatch);
        }
    }
}
