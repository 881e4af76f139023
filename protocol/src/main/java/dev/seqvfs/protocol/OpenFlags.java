package dev.seqvfs.protocol;

/** {@code open(2)} flag values of Linux x86-64 (octal, as in {@code <fcntl.h>}). */
public final class OpenFlags {
    /** Open for reading only. */
    public static final int O_RDONLY = 00;

    /** Open for writing only. */
    public static final int O_WRONLY = 01;

    /** Open for reading and writing. */
    public static final int O_RDWR = 02;

    /** Mask of the access-mode bits. */
    public static final int O_ACCMODE = 03;

    /** Create the file if it does not exist. */
    public static final int O_CREAT = 0100;

    /** With {@code O_CREAT}: fail with {@code EEXIST} if the name exists. */
    public static final int O_EXCL = 0200;

    /** Do not make a terminal the controlling terminal (accepted, no effect). */
    public static final int O_NOCTTY = 0400;

    /** Truncate a regular file opened for writing to length 0. */
    public static final int O_TRUNC = 01000;

    /** Every write appends at the end of the file. */
    public static final int O_APPEND = 02000;

    /** Non-blocking mode (pipes, sockets, FIFOs). */
    public static final int O_NONBLOCK = 04000;

    /** Synchronized data integrity writes (accepted; memory is always in sync). */
    public static final int O_DSYNC = 010000;

    /**
     * Large-file access: x86-64 Linux adds it to every file {@code open(2)} and {@code openat2(2)}
     * open (not {@code O_PATH}; not pipes, sockets or eventfds made by their own calls), so {@code
     * F_GETFL} and {@code /proc/PID/fdinfo} show it.
     */
    public static final int O_LARGEFILE = 0100000;

    /** Fail with {@code ENOTDIR} unless the path names a directory. */
    public static final int O_DIRECTORY = 0200000;

    /** Fail with {@code ELOOP} if the final component is a symbolic link. */
    public static final int O_NOFOLLOW = 0400000;

    /** Do not update the access time (accepted). */
    public static final int O_NOATIME = 01000000;

    /** Set close-on-exec on the new descriptor. */
    public static final int O_CLOEXEC = 02000000;

    /** Full synchronized writes (accepted). */
    public static final int O_SYNC = 04010000;

    /** Obtain a descriptor that only locates a file; no read or write. */
    public static final int O_PATH = 010000000;

    /** Create an unnamed temporary regular file (not supported: {@code EOPNOTSUPP}). */
    public static final int O_TMPFILE = 020200000;

    /** {@code *at} calls: resolve relative paths against the current directory. */
    public static final int AT_FDCWD = -100;

    /** Do not follow a final symbolic link ({@code fstatat}, {@code utimensat}, ...). */
    public static final int AT_SYMLINK_NOFOLLOW = 0x100;

    /** {@code unlinkat(2)}: remove a directory, like {@code rmdir(2)}. */
    public static final int AT_REMOVEDIR = 0x200;

    /** {@code faccessat(2)}: check with the effective ids instead of the real ones. */
    public static final int AT_EACCESS = 0x200;

    /** {@code linkat(2)}: follow a final symbolic link of the source. */
    public static final int AT_SYMLINK_FOLLOW = 0x400;

    /** An empty path names the descriptor itself. */
    public static final int AT_EMPTY_PATH = 0x1000;

    /** {@code renameat2(2)}: fail with {@code EEXIST} instead of replacing the target. */
    public static final int RENAME_NOREPLACE = 1;

    /** {@code renameat2(2)}: atomically exchange the two names. */
    public static final int RENAME_EXCHANGE = 2;

    /** {@code renameat2(2)}: leave a whiteout (overlay file systems; not supported). */
    public static final int RENAME_WHITEOUT = 4;

    /** {@code utimensat(2)}: set the time to now. */
    public static final long UTIME_NOW = (1L << 30) - 1;

    /** {@code utimensat(2)}: leave the time unchanged. */
    public static final long UTIME_OMIT = (1L << 30) - 2;

    private OpenFlags() {}

    /**
     * {@return whether the flags allow reading (access mode O_RDONLY or O_RDWR, no O_PATH)}
     *
     * @param flags {@code open(2)} flags
     */
    public static boolean readable(int flags) {
        int acc = flags & O_ACCMODE;
        return (flags & O_PATH) == 0 && (acc == O_RDONLY || acc == O_RDWR);
    }

    /**
     * {@return whether the flags allow writing (access mode O_WRONLY or O_RDWR, no O_PATH)}
     *
     * @param flags {@code open(2)} flags
     */
    public static boolean writable(int flags) {
        int acc = flags & O_ACCMODE;
        return (flags & O_PATH) == 0 && (acc == O_WRONLY || acc == O_RDWR);
    }
}
