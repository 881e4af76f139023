package dev.seqvfs.protocol;

import java.time.Instant;

/**
 * The time source for inode timestamps, in nanoseconds since the Unix epoch. Implementations must
 * be thread-safe and must not block.
 */
@FunctionalInterface
public interface VfsClock {
    /** The wall clock, at the resolution {@link Instant#now()} offers (microseconds on Linux). */
    VfsClock SYSTEM =
            () -> {
                Instant i = Instant.now();
                return i.getEpochSecond() * 1_000_000_000L + i.getNano();
            };

    /** {@return the current time in nanoseconds since the epoch} */
    long nowNanos();
}
