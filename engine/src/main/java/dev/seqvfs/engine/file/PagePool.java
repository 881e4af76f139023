package dev.seqvfs.engine.file;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A bounded cache of free 4 KiB pages ({@code byte[}{@value FileData#PAGE}{@code ]}) for one
 * superblock: pages that a truncate dropped are kept here and given to the next writes that need
 * new pages, instead of being left to the garbage collector and allocated again. It is what Jimfs's
 * {@code HeapDisk} block cache does, bounded: a file system that truncates files and writes them
 * again (a log rewritten, an output file written over with {@code O_TRUNC}) then allocates nothing
 * in its steady state, and its pages, already old, are not copied by young collections (README,
 * "Where pages live").
 *
 * <p>Only pages that no reader can still rely on come here: the owner of a file offers its pages
 * after publishing the version without them inside the file's sequence count, so that an optimistic
 * reader still copying from one fails its validation and retries; never pages that a fork, a stable
 * reader or a loader may still hold, nor the pages of a freed file, which an open ordered before
 * its last unlink may still read ({@code RegularInode}, "Free pages"). A page taken from the pool
 * holds old bytes: the caller overwrites or zeroes it.
 *
 * <p>Holds at most {@code capacityPages} pages, and all the pools of a JVM together at most an
 * eighth of the maximum heap; an offer beyond either is dropped (left to the collector). {@link
 * #clear} empties it when the superblock's instance closes. Thread-safe: one monitor around a stack
 * of pages (an offer or a take is a few instructions inside it; files of one superblock are written
 * by many threads).
 */
public final class PagePool {
    /**
     * Pages held by every pool of this JVM together, bounded by {@link #JVM_CAPACITY_PAGES}, so
     * that many instances each keeping free pages cannot hold more than an eighth of the heap
     * between them. Changed inside a pool's monitor, read and written atomically.
     */
    private static final AtomicLong JVM_PAGES = new AtomicLong();

    /** The most pages all pools of this JVM hold together: an eighth of the maximum heap. */
    private static final long JVM_CAPACITY_PAGES =
            Runtime.getRuntime().maxMemory() / 8 / FileData.PAGE;

    private final int capacityPages;

    /** Guarded by {@code this}. */
    private byte[][] pages = new byte[16][];

    /** Guarded by {@code this}. */
    private int count;

    /** Set by {@link #clear}: later offers are refused. Guarded by {@code this}. */
    private boolean closed;

    private final LongAdder reused = new LongAdder();
    private final LongAdder kept = new LongAdder();

    /**
     * Makes an empty pool.
     *
     * @param capacityBytes the most bytes of free pages it keeps; rounded down to whole pages, at
     *     most {@code Integer.MAX_VALUE} pages
     */
    public PagePool(long capacityBytes) {
        this.capacityPages =
                (int) Math.min(Integer.MAX_VALUE - 8, Math.max(0, capacityBytes / FileData.PAGE));
    }

    /**
     * The pool a superblock with a byte limit gets: up to an eighth of the JVM's maximum heap, at
     * most the superblock's byte limit.
     *
     * @param maxBytes the superblock's byte limit
     * @return the pool
     */
    public static PagePool forLimit(long maxBytes) {
        return new PagePool(Math.min(maxBytes, Runtime.getRuntime().maxMemory() / 8));
    }

    /**
     * {@return a free page with any bytes in it, or {@code null} if the pool is empty} The caller
     * overwrites it whole or zeroes what it does not write.
     */
    public byte[] take() {
        byte[] p;
        synchronized (this) {
            if (count == 0) {
                return null;
            }
            p = pages[--count];
            pages[count] = null;
            JVM_PAGES.decrementAndGet();
        }
        reused.increment();
        return p;
    }

    /**
     * Keeps {@code page} for a later {@link #take}, unless the pool is full.
     *
     * @param page a page nothing reads or writes any more, {@value FileData#PAGE} bytes
     * @return whether it was kept
     */
    public boolean offer(byte[] page) {
        if (page.length != FileData.PAGE) {
            return false;
        }
        synchronized (this) {
            if (closed || count == capacityPages) {
                return false;
            }
            if (JVM_PAGES.incrementAndGet() > JVM_CAPACITY_PAGES) {
                JVM_PAGES.decrementAndGet();
                return false;
            }
            if (count == pages.length) {
                pages = Arrays.copyOf(pages, (int) Math.min(capacityPages, 2L * count));
            }
            pages[count++] = page;
        }
        kept.increment();
        return true;
    }

    /**
     * Drops every page it holds (to the collector) and refuses later offers: when the superblock's
     * instance closes.
     */
    public synchronized void clear() {
        closed = true;
        JVM_PAGES.addAndGet(-count);
        pages = new byte[16][];
        count = 0;
    }

    /** {@return the pages all pools of this JVM hold now} */
    public static long jvmPages() {
        return JVM_PAGES.get();
    }

    /** {@return the pages it holds now} */
    public synchronized int size() {
        return count;
    }

    /** {@return the most pages it holds} */
    public int capacityPages() {
        return capacityPages;
    }

    /** {@return the pages {@link #take} has handed out, since the pool was made} */
    public long reusedPages() {
        return reused.sum();
    }

    /** {@return the pages {@link #offer} has kept, since the pool was made} */
    public long keptPages() {
        return kept.sum();
    }
}
