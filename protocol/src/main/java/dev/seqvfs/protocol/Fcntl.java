package dev.seqvfs.protocol;

/** {@code fcntl(2)} commands and flags, and {@code close_range(2)} flags, with Linux's values. */
public final class Fcntl {
    /** Duplicate onto the lowest free descriptor {@code >= arg}. */
    public static final int F_DUPFD = 0;

    /** Get descriptor flags ({@link #FD_CLOEXEC}). */
    public static final int F_GETFD = 1;

    /** Set descriptor flags. */
    public static final int F_SETFD = 2;

    /** Get access mode and status flags. */
    public static final int F_GETFL = 3;

    /**
     * Set status flags ({@code O_APPEND}, {@code O_NONBLOCK}, {@code O_NOATIME}, {@code O_DIRECT},
     * {@code O_ASYNC}).
     */
    public static final int F_SETFL = 4;

    /** Test for a conflicting record lock. */
    public static final int F_GETLK = 5;

    /** Acquire or release a record lock, failing with {@code EAGAIN}. */
    public static final int F_SETLK = 6;

    /** Acquire or release a record lock, waiting. */
    public static final int F_SETLKW = 7;

    /** Like {@link #F_DUPFD} and set {@link #FD_CLOEXEC} on the new descriptor. */
    public static final int F_DUPFD_CLOEXEC = 1030;

    /** Set a pipe's capacity in bytes. */
    public static final int F_SETPIPE_SZ = 1031;

    /** Get a pipe's capacity in bytes. */
    public static final int F_GETPIPE_SZ = 1032;

    /** The close-on-exec descriptor flag. */
    public static final int FD_CLOEXEC = 1;

    /**
     * {@code close_range(2)}: give the caller a private table first (SeqVFS: no effect beyond the
     * close).
     */
    public static final int CLOSE_RANGE_UNSHARE = 1 << 1;

    /** {@code close_range(2)}: set close-on-exec instead of closing. */
    public static final int CLOSE_RANGE_CLOEXEC = 1 << 2;

    /** Status flags {@code F_SETFL} may change; the others are ignored, as in Linux. */
    public static final int SETFL_MASK =
            OpenFlags.O_APPEND
                    | OpenFlags.O_NONBLOCK
                    | OpenFlags.O_NOATIME
                    | 040000 /* O_DIRECT */
                    | 020000 /* O_ASYNC */;

    private Fcntl() {}
}
