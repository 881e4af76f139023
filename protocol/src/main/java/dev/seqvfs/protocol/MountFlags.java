package dev.seqvfs.protocol;

/** {@code mount(2)} and {@code umount2(2)} flag values of Linux. */
public final class MountFlags {
    /** Mount read-only. */
    public static final long MS_RDONLY = 1;

    /** Ignore set-user-ID bits (recorded on the mount and shown by {@code /proc/mounts}). */
    public static final long MS_NOSUID = 2;

    /** Do not allow device files (recorded on the mount and shown by {@code /proc/mounts}). */
    public static final long MS_NODEV = 4;

    /**
     * Writes are synchronous ({@code sync}): a type that keeps data durable writes a file back
     * before each write to it returns (persistfs); others ignore it, as tmpfs does.
     */
    public static final long MS_SYNCHRONOUS = 16;

    /** Do not allow execution (recorded on the mount and shown by {@code /proc/mounts}). */
    public static final long MS_NOEXEC = 8;

    /** Change the flags of an existing mount. */
    public static final long MS_REMOUNT = 32;

    /** Do not update access times (reads through the mount leave {@code st_atime}). */
    public static final long MS_NOATIME = 1024;

    /** Do not update directories' access times (recorded and shown). */
    public static final long MS_NODIRATIME = 2048;

    /** Make a bind mount. */
    public static final long MS_BIND = 4096;

    /** With {@code MS_BIND}: bind the whole subtree of mounts. */
    public static final long MS_REC = 16384;

    /**
     * Update access times as {@code relatime} does (the default): only when older than the
     * modification or change time, or a day old.
     */
    public static final long MS_RELATIME = 1 << 21;

    /** Update access times on every access (neither {@code relatime} nor {@code noatime}). */
    public static final long MS_STRICTATIME = 1 << 24;

    /** {@code umount2(2)}: force (no effect on an in-memory file system). */
    public static final int MNT_FORCE = 1;

    /** {@code umount2(2)}: lazy unmount, detach now even if busy. */
    public static final int MNT_DETACH = 2;

    /** {@code umount2(2)}: do not follow a final symbolic link. */
    public static final int UMOUNT_NOFOLLOW = 8;

    /** {@code statfs(2)} {@code f_flags}: read-only mount. */
    public static final long ST_RDONLY = 1;

    private MountFlags() {}
}
