package dev.seqvfs.engine.sb;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The writers of one superblock (Linux's per-CPU {@code mnt_writers}, kept per superblock): a
 * striped counter whose stripes are picked by the calling thread, so that threads opening and
 * closing files for writing rarely touch the same cache line.
 *
 * <h2>Concurrency</h2>
 *
 * Every {@link #add} is a sequentially consistent read-modify-write of one stripe and every {@link
 * #sum} reads each stripe with volatile semantics, so the count can be one side of a Dekker
 * handshake ({@link Superblock#tryBeginWrite} against {@link Superblock#remount}). Why not {@link
 * java.util.concurrent.atomic.LongAdder}: it creates its cells lazily and stores a new cell in its
 * array with a plain write, and its {@code sum()} reads the array without an edge to that store, so
 * a sum could miss an increment that precedes it in the synchronization order. Here the stripes
 * exist from the start and never move. A stripe may go negative (a file opened on one thread,
 * closed on another); only the sum means anything.
 *
 * <h2>Invariants</h2>
 *
 * The sum, read after a writer-hold flag was raised, counts at least every writer that incremented
 * before the flag and has not decremented yet (see {@link Superblock}).
 */
final class WriterCount {
    /** Longs per stripe: 128 bytes, two cache lines, so adjacent-line prefetch shares nothing. */
    private static final int PAD = 16;

    /** Most stripes, whatever the CPU count. */
    private static final int MAX_STRIPES = 64;

    private final AtomicLongArray cells;
    private final int mask;

    /** A counter with one stripe per hardware thread times two, rounded up to a power of two. */
    WriterCount() {
        int want = Math.min(MAX_STRIPES, 2 * Runtime.getRuntime().availableProcessors());
        int stripes = Integer.highestOneBit(Math.max(1, want - 1)) << 1;
        this.mask = stripes - 1;
        this.cells = new AtomicLongArray(stripes * PAD);
    }

    /** Adds {@code delta} to the calling thread's stripe (sequentially consistent). */
    void add(long delta) {
        cells.getAndAdd((int) (Thread.currentThread().getId() & mask) * PAD, delta);
    }

    /** Returns the sum of the stripes, each read with volatile semantics. */
    long sum() {
        long s = 0;
        for (int i = 0; i <= mask; i++) {
            s += cells.get(i * PAD);
        }
        return s;
    }
}
