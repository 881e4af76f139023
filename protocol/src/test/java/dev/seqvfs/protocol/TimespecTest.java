package dev.seqvfs.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Specifies {@link Timespec#toNanos()}: exact inside a {@code long}'s range, clamped outside. */
class TimespecTest {

    private static long nanos(String instant) {
        Instant i = Instant.parse(instant);
        return new Timespec(i.getEpochSecond(), i.getNano()).toNanos();
    }

    @Test
    void timesInsideTheRange_areExact_bothEndsIncluded() {
        assertEquals(0L, nanos("1970-01-01T00:00:00Z"));
        assertEquals(-500_000_000L, nanos("1969-12-31T23:59:59.5Z"));
        assertEquals(Long.MAX_VALUE, nanos("2262-04-11T23:47:16.854775807Z"));
        assertEquals(Long.MIN_VALUE, nanos("1677-09-21T00:12:43.145224192Z"));
        assertEquals(Long.MAX_VALUE - 1, nanos("2262-04-11T23:47:16.854775806Z"));
        assertEquals(Long.MIN_VALUE + 1, nanos("1677-09-21T00:12:43.145224193Z"));
    }

    /** The bug class: a time past 2262 wrapped to 1677 (found with touch -d through the mount). */
    @Test
    void timesOutsideTheRange_clampToTheNearestEnd_neverWrap() {
        assertEquals(Long.MAX_VALUE, nanos("2262-04-11T23:47:16.854775808Z"));
        assertEquals(Long.MAX_VALUE, nanos("2262-04-12T00:00:00Z"));
        assertEquals(Long.MAX_VALUE, new Timespec(Long.MAX_VALUE, 999_999_999).toNanos());
        assertEquals(Long.MIN_VALUE, nanos("1677-09-21T00:12:43.145224191Z"));
        assertEquals(Long.MIN_VALUE, nanos("1000-01-01T00:00:00Z"));
        assertEquals(Long.MIN_VALUE, new Timespec(Long.MIN_VALUE, 0).toNanos());
    }
}
