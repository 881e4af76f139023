package dev.seqvfs.protocol;

/**
 * The answer of {@code statfs(2)} for the file system holding a path.
 *
 * <p>Block counts are in units of {@code bsize} bytes. A limit that is not configured reads as the
 * largest value a {@code long} of that unit can hold, with the matching free count. Immutable;
 * thread-safe.
 *
 * @param type file-system magic number ({@code TMPFS_MAGIC} 0x01021994 for tmpfs)
 * @param bsize block size in bytes
 * @param blocks total data blocks
 * @param bfree free blocks
 * @param bavail free blocks available to unprivileged users
 * @param files total inodes
 * @param ffree free inodes
 * @param fsid file-system id (the superblock's {@code st_dev})
 * @param namelen maximum file-name length in bytes (255)
 * @param flags mount flags ({@link MountFlags#ST_RDONLY}, ...)
 */
public record StatFs(
        long type,
        int bsize,
        long blocks,
        long bfree,
        long bavail,
        long files,
        long ffree,
        long fsid,
        int namelen,
        long flags) {
    /** {@code TMPFS_MAGIC} from {@code <linux/magic.h>}. */
    public static final long TMPFS_MAGIC = 0x01021994L;

    /** {@code PROC_SUPER_MAGIC} from {@code <linux/magic.h>}. */
    public static final long PROC_SUPER_MAGIC = 0x9fa0L;
}
