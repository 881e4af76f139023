package dev.seqvfs.protocol;

/** Path-resolution limits, with the values and origins of Linux. */
public final class Limits {
    /** Longest file-name component in bytes ({@code NAME_MAX}, {@code <linux/limits.h>}). */
    public static final int NAME_MAX = 255;

    /** Longest path in bytes, including the terminating NUL ({@code PATH_MAX}). */
    public static final int PATH_MAX = 4096;

    /**
     * Most symbolic links followed in one path walk ({@code SYMLOOP_MAX}, as in {@code
     * fs/namei.c}).
     */
    public static final int SYMLOOP_MAX = 40;

    /** Atomic write size of a pipe in bytes ({@code PIPE_BUF}). */
    public static final int PIPE_BUF = 4096;

    /**
     * Largest link count of an inode ({@code LINK_MAX} of tmpfs is much larger; we keep 65000 like
     * ext4).
     */
    public static final int LINK_MAX = 65000;

    private Limits() {}
}
