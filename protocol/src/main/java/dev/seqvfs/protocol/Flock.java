package dev.seqvfs.protocol;

/**
 * A {@code struct flock} for {@code fcntl(2)} record locks ({@code F_GETLK}, {@code F_SETLK},
 * {@code F_SETLKW}), and the {@code flock(2)} operation constants.
 *
 * @param type {@link #F_RDLCK}, {@link #F_WRLCK} or {@link #F_UNLCK}
 * @param whence {@code SEEK_SET} (0), {@code SEEK_CUR} (1) or {@code SEEK_END} (2): what {@code
 *     start} is relative to
 * @param start first byte of the range, relative to {@code whence}
 * @param len bytes in the range; 0 means "to the end of the file, however it grows"; negative means
 *     the {@code -len} bytes before {@code start}
 * @param pid for {@code F_GETLK}'s answer: the process holding the conflicting lock
 */
public record Flock(int type, int whence, long start, long len, int pid) {
    /** Shared (read) lock. */
    public static final int F_RDLCK = 0;

    /** Exclusive (write) lock. */
    public static final int F_WRLCK = 1;

    /** Unlock. */
    public static final int F_UNLCK = 2;

    /** {@code flock(2)}: shared lock. */
    public static final int LOCK_SH = 1;

    /** {@code flock(2)}: exclusive lock. */
    public static final int LOCK_EX = 2;

    /** {@code flock(2)}: do not block. */
    public static final int LOCK_NB = 4;

    /** {@code flock(2)}: unlock. */
    public static final int LOCK_UN = 8;

    /**
     * A request for {@code type} over {@code [start, start + len)} from the start of the file.
     *
     * @param type {@link #F_RDLCK}, {@link #F_WRLCK} or {@link #F_UNLCK}
     * @param start first byte of the range
     * @param len bytes in the range (0: to the end of the file)
     * @return the request, with {@code whence} {@code SEEK_SET} and {@code pid} 0
     */
    public static Flock of(int type, long start, long len) {
        return new Flock(type, 0, start, len, 0);
    }
}
