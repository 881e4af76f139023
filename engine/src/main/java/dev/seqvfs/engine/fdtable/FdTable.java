package dev.seqvfs.engine.fdtable;

import java.util.Arrays;

/**
 * One immutable version of a descriptor table ({@code struct fdtable}): descriptor → ({@link
 * OpenFile}, close-on-exec), in a two-level array of 64-slot chunks with one occupancy word per
 * chunk.
 *
 * <p>A change copies the top-level arrays (one reference and one {@code long} per 64 descriptors)
 * and the one chunk it touches: O(n/64 + 64), not O(n). Tables grow by doubling the number of
 * chunks. {@link #get} reads two array slots and allocates nothing.
 *
 * <p>Immutable; thread-safe. {@code seq} grows by one per version, so a reader holding an old
 * version can tell it was replaced (the seqcount of seed 002).
 */
public final class FdTable {
    /** Slots per chunk. */
    public static final int CHUNK = 64;

    /**
     * One descriptor slot.
     *
     * @param file the open file description
     * @param cloexec whether the descriptor is closed by exec ({@code FD_CLOEXEC})
     */
    public record Entry(OpenFile file, boolean cloexec) {}

    private static final FdTable EMPTY = new FdTable(0, new Entry[1][], new long[1], 0);

    private final long seq;
    private final Entry[][] chunks;
    private final long[] used;
    private final int count;

    private FdTable(long seq, Entry[][] chunks, long[] used, int count) {
        this.seq = seq;
        this.chunks = chunks;
        this.used = used;
        this.count = count;
    }

    /** {@return the empty table} */
    public static FdTable empty() {
        return EMPTY;
    }

    /** {@return the version number} */
    public long seq() {
        return seq;
    }

    /** {@return the number of open descriptors} */
    public int count() {
        return count;
    }

    /** {@return the capacity before the next growth, in descriptors} */
    public int capacity() {
        return chunks.length * CHUNK;
    }

    /**
     * {@return the entry for {@code fd} ({@code fget} without the reference), or {@code null}}
     * Lock-free, allocation-free.
     *
     * @param fd the descriptor
     */
    public Entry get(int fd) {
        if (fd < 0) {
            return null;
        }
        int c = fd >>> 6;
        if (c >= chunks.length) {
            return null;
        }
        Entry[] chunk = chunks[c];
        return chunk == null ? null : chunk[fd & (CHUNK - 1)];
    }

    /**
     * {@return the lowest free descriptor that is at least {@code min} (POSIX: lowest available)}
     *
     * @param min the lowest descriptor acceptable
     */
    public int lowestFree(int min) {
        int c = min >>> 6;
        if (c < used.length) {
            long word = used[c] | ((1L << (min & 63)) - 1);
            if (word != -1L) {
                return (c << 6) + Long.numberOfTrailingZeros(~word);
            }
            for (c++; c < used.length; c++) {
                if (used[c] != -1L) {
                    return (c << 6) + Long.numberOfTrailingZeros(~used[c]);
                }
            }
        }
        return Math.max(min, used.length << 6);
    }

    /**
     * {@return a version with {@code fd} set to {@code e}, growing the table if needed}
     *
     * @param fd the descriptor
     * @param e its entry
     */
    public FdTable with(int fd, Entry e) {
        int c = fd >>> 6;
        Entry[][] ch = chunks;
        long[] u = used;
        if (c >= ch.length) {
            int n = ch.length;
            while (n <= c) {
                n *= 2;
            }
            ch = Arrays.copyOf(ch, n);
            u = Arrays.copyOf(u, n);
        } else {
            ch = ch.clone();
            u = u.clone();
        }
        Entry[] chunk = ch[c] == null ? new Entry[CHUNK] : ch[c].clone();
        boolean wasUsed = chunk[fd & 63] != null;
        chunk[fd & 63] = e;
        ch[c] = chunk;
        u[c] |= 1L << (fd & 63);
        return new FdTable(seq + 1, ch, u, wasUsed ? count : count + 1);
    }

    /**
     * {@return a version without {@code fd}; this table if it is not open}
     *
     * @param fd the descriptor
     */
    public FdTable without(int fd) {
        if (get(fd) == null) {
            return this;
        }
        int c = fd >>> 6;
        Entry[][] ch = chunks.clone();
        long[] u = used.clone();
        Entry[] chunk = ch[c].clone();
        chunk[fd & 63] = null;
        ch[c] = chunk;
        u[c] &= ~(1L << (fd & 63));
        return new FdTable(seq + 1, ch, u, count - 1);
    }

    /** {@return the open descriptors in increasing order} */
    public int[] openFds() {
        int[] out = new int[count];
        int k = 0;
        for (int c = 0; c < used.length; c++) {
            long w = used[c];
            while (w != 0) {
                int b = Long.numberOfTrailingZeros(w);
                out[k++] = (c << 6) + b;
                w &= w - 1;
            }
        }
        return out;
    }
}
