package dev.seqvfs.protocol;

/**
 * The answer of {@code stat(2)}: a copy of an inode's attributes at one instant.
 *
 * <p>Times are nanoseconds since the Unix epoch (UTC). {@code blocks} counts 512-byte units, as
 * {@code st_blocks} does; {@code blksize} is the preferred I/O size in bytes. Immutable;
 * thread-safe.
 *
 * @param dev id of the superblock holding the inode ({@code st_dev})
 * @param ino inode number
 * @param mode file type and permission bits
 * @param nlink number of hard links
 * @param uid owner
 * @param gid group
 * @param rdev device id for device files, else 0
 * @param size size in bytes (symlinks: length of the target; directories: implementation defined)
 * @param blksize preferred I/O block size in bytes
 * @param blocks allocated 512-byte blocks
 * @param atimeNanos last access, nanoseconds since the epoch
 * @param mtimeNanos last modification of content, nanoseconds since the epoch
 * @param ctimeNanos last status change, nanoseconds since the epoch
 */
public record Stat(
        long dev,
        long ino,
        int mode,
        long nlink,
        int uid,
        int gid,
        long rdev,
        long size,
        int blksize,
        long blocks,
        long atimeNanos,
        long mtimeNanos,
        long ctimeNanos) {

    /**
     * {@return the file type named by {@link #mode()}, or {@code null} for type bits SeqVFS does
     * not model}
     */
    public FileType type() {
        return FileType.ofMode(mode);
    }

    /** {@return the twelve permission bits of {@link #mode()}} */
    public int permissions() {
        return mode & Mode.PERMISSION_MASK;
    }

    /** {@return whether this is a directory} */
    public boolean isDirectory() {
        return Mode.isDirectory(mode);
    }

    /** {@return whether this is a regular file} */
    public boolean isRegular() {
        return Mode.isRegular(mode);
    }

    /** {@return whether this is a symbolic link} */
    public boolean isSymlink() {
        return Mode.isSymlink(mode);
    }
}
