package dev.seqvfs.load.dbench;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.IntCountsHistogram;

/**
 * What one client measured: per operation, a latency histogram (nanoseconds, two significant
 * digits, so 1% resolution, up to ten minutes; 32-bit counts keep the hot part of each histogram in
 * a few cache lines, recording costs a cache miss otherwise) and the mismatch count; in total, the
 * lines run and the bytes read and written (dbench's count: each ReadX/WriteX adds its size).
 *
 * <p><b>Concurrency.</b> One writer (the client). {@link #ops()} and {@link #bytes()} are published
 * with release stores ({@code lazySet}) after every line, for the progress reporter to read with
 * acquire loads; the histograms and mismatch counts are read only after the client has finished
 * (its last message to its parent orders them).
 */
public final class ClientStats {
    private static final long HIGHEST_NANOS = 600_000_000_000L;

    private final Map<OpType, AbstractHistogram> latency = new EnumMap<>(OpType.class);
    private final Map<OpType, Long> mismatches = new EnumMap<>(OpType.class);
    private final AtomicLong ops = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    /**
     * Lines and bytes of the warm-up, kept by {@link #reset} (release stores; progress lines only).
     */
    private final AtomicLong warmupOps = new AtomicLong();

    private final AtomicLong warmupBytes = new AtomicLong();
    private long opsPlain;
    private long bytesBase;

    /** Records one finished line. */
    public void record(OpType type, long nanos, boolean mismatch, long bytesTotal) {
        AbstractHistogram h = latency.get(type);
        if (h == null) {
            h = new IntCountsHistogram(HIGHEST_NANOS, 2);
            latency.put(type, h);
        }
        h.recordValue(Math.min(Math.max(nanos, 0), HIGHEST_NANOS));
        if (mismatch) {
            mismatches.merge(type, 1L, Long::sum);
        }
        ops.lazySet(++opsPlain);
        bytes.lazySet(bytesTotal - bytesBase);
    }

    /**
     * Starts measuring afresh at the end of the warm-up: latencies, lines and bytes restart from
     * zero; mismatches are kept (a wrong status counts whenever it happens). Called by the writer.
     *
     * @param bytesTotal the client's byte count so far, which becomes the new zero
     */
    public void reset(long bytesTotal) {
        for (AbstractHistogram h : latency.values()) {
            h.reset();
        }
        warmupOps.lazySet(warmupOps.get() + opsPlain);
        warmupBytes.lazySet(bytesTotal);
        bytesBase = bytesTotal;
        opsPlain = 0;
        ops.lazySet(0);
        bytes.lazySet(0);
    }

    /**
     * Returns the lines run so far, warm-up included (acquire loads: any thread; a reader racing
     * {@link #reset} may see the warm-up's lines twice or not at all, which a progress line
     * tolerates).
     */
    public long opsWithWarmup() {
        return warmupOps.get() + ops.get();
    }

    /** Returns the bytes read and written so far, warm-up included (as {@link #opsWithWarmup}). */
    public long bytesWithWarmup() {
        return warmupBytes.get() + bytes.get();
    }

    /** Returns the lines run so far (acquire load: any thread). */
    public long ops() {
        return ops.get();
    }

    /** Returns the bytes read and written so far (acquire load: any thread). */
    public long bytes() {
        return bytes.get();
    }

    /** Returns the latency histogram of {@code type}, or {@code null} if none ran. */
    public AbstractHistogram latency(OpType type) {
        return latency.get(type);
    }

    /** Returns the mismatches of {@code type}. */
    public long mismatches(OpType type) {
        return mismatches.getOrDefault(type, 0L);
    }

    /** Returns all mismatches. */
    public long mismatches() {
        long s = 0;
        for (long m : mismatches.values()) {
            s += m;
        }
        return s;
    }

    /** Adds {@code other}'s figures to this one's (both finished). */
    public void add(ClientStats other) {
        for (Map.Entry<OpType, AbstractHistogram> e : other.latency.entrySet()) {
            AbstractHistogram h = latency.get(e.getKey());
            if (h == null) {
                latency.put(e.getKey(), e.getValue().copy());
            } else {
                h.add(e.getValue());
            }
        }
        other.mismatches.forEach((type, m) -> mismatches.merge(type, m, Long::sum));
        opsPlain += other.ops();
        ops.set(opsPlain);
        bytes.set(bytes.get() + other.bytes());
    }
}
