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

    /** {@return the time as nanoseconds since the epoch (not meaningful for NOW/OMIT)} */
    public long toNanos() {
        return sec * 1_000_000_000L + nsec;
    }
}
