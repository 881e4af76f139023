package dev.seqvfs.protocol;

/**
 * A {@code struct timespec} as {@code utimensat(2)} takes it: seconds and nanoseconds since the
 * epoch, or the special nanosecond values {@link OpenFlags#UTIME_NOW} and {@link
 * OpenFlags#UTIME_OMIT} (then the seconds are ignored).
 *
 * @param sec seconds since the epoch
 * @param nsec nanoseconds, {@code 0..999_999_999}, or {@code UTIME_NOW} / {@code UTIME_OMIT}
 */
public record Timespec(long sec, long nsec) {
    /** "Set to the current time". */
    public static final Timespec NOW = new Timespec(0, OpenFlags.UTIME_NOW);

    /** "Leave unchanged". */
    public static final Timespec OMIT = new Timespec(0, OpenFlags.UTIME_OMIT);

    /**
     * {@return the time {@code nanos} nanoseconds after the epoch}
     *
     * @param nanos nanoseconds since the epoch (negative: before it)
     */
    public static Timespec ofNanos(long nanos) {
        return new Timespec(
                Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    /** {@return whether this is {@code UTIME_NOW}} */
    public boolean isNow() {
        return nsec == OpenFlags.UTIME_NOW;
    }

    /** {@return whether this is {@code UTIME_OMIT}} */
    public boolean isOmit() {
        return nsec == OpenFlags.UTIME_OMIT;
    }

    /**
     * {@return whether {@code nsec} is in range or one of the two special values ({@code EINVAL}
     * otherwise)}
     */
    public boolean isValid() {
        return isNow() || isOmit() || (nsec >= 0 && nsec < 1_000_000_000L);
    }

    /** Seconds of the latest time a {@code long} of nanoseconds holds (2262-04-11T23:47:16Z). */
    private static final long MAX_SEC = Long.MAX_VALUE / 1_000_000_000L;

    /** Seconds of the earliest such time (1677-09-21T00:12:43Z, with a fraction). */
    private static final long MIN_SEC = Math.floorDiv(Long.MIN_VALUE, 1_000_000_000L);

    /**
     * {@return the time as nanoseconds since the epoch (not meaningful for NOW/OMIT), clamped to
     * what a {@code long} holds} SeqVFS keeps times in nanoseconds, so its range is
     * 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z; a time outside it becomes
     * the nearest end, as Linux clamps a time to its file system's range ({@code
     * timestamp_truncate}, {@code s_time_min}/{@code s_time_max}) instead of failing the call.
     * Before this clamp, {@code touch -d 2262-04-12} through the mount stored a time in 1677.
     */
    public long toNanos() {
        if (sec > MAX_SEC || (sec == MAX_SEC && nsec > Long.MAX_VALUE % 1_000_000_000L)) {
            return Long.MAX_VALUE;
        }
        if (sec < MIN_SEC
                || (sec == MIN_SEC && nsec < Math.floorMod(Long.MIN_VALUE, 1_000_000_000L))) {
            return Long.MIN_VALUE;
        }
        return sec * 1_000_000_000L + nsec;
    }
}
