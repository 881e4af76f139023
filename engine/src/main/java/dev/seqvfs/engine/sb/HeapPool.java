package dev.seqvfs.engine.sb;

import java.math.BigInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of file data that the tmpfs superblocks of one JVM may hold together: the part the
 * machine's RAM plays for every tmpfs of a Linux system, where each mount has its own {@code size=}
 * but all of them live in the same memory. Here the memory is the heap, so the pool ({@link #JVM})
 * holds half of {@link Runtime#maxMemory()}: however many instances and mounts an embedder makes,
 * their file data cannot take the heap from the rest of the application, and a write that would
 * answers {@code ENOSPC} (as a full tmpfs does) instead of running the heap out.
 *
 * <p>Every superblock mounted with a byte limit charges its bytes here in addition to its own
 * limit, through its {@link Account}; one mounted without ({@code size=0}, as on Linux: no limit)
 * never joins. A superblock gives its bytes back when its files shrink or are freed, and all that
 * is left when its last mount is released or its instance closes ({@link Account#close}).
 *
 * <h2>Concurrency</h2>
 *
 * Lock-free. {@code free} is one {@link AtomicLong} changed only by read-modify-writes: a charge is
 * a CAS that takes {@code n} bytes only if at least {@code n} are free at that instant ({@link
 * #tryTake}), a return an atomic add ({@link #give}). Those are volatile read-modify-writes, so
 * they are totally ordered with one another and each sees the result of every one before it: {@code
 * 0 <= free <= capacity} at every instant, with no lock and no retry beyond a lost CAS. No other
 * memory is published through the pool (a charge hands no data to anyone), so nothing pairs with it
 * beyond that atomicity: {@link #free()} is a plain volatile read, exact at the instant it is made
 * and advisory after ({@code statfs}, the size of a short write, which its charge then checks).
 *
 * <h2>Invariants</h2>
 *
 * {@code free + sum of every open account's held bytes == capacity}, between operations; each byte
 * taken is given back exactly once (see {@link Account}).
 */
public final class HeapPool {
    /**
     * The pool of this JVM: half of {@link Runtime#maxMemory()} (rounded down to whole pages), or
     * no bound when the JVM has none ({@code Long.MAX_VALUE}).
     */
    public static final HeapPool JVM = new HeapPool(halfOf(ramBytes()));

    private static final long PAGE = 4096;

    private final long capacity;
    private final AtomicLong free;

    /**
     * Creates a pool of {@code capacity} bytes; {@link #JVM} is the one superblocks use unless a
     * test gives them their own.
     *
     * @param capacity the bytes the pool holds, at least 0
     */
    public HeapPool(long capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("pool capacity " + capacity);
        }
        this.capacity = capacity;
        this.free = new AtomicLong(capacity);
    }

    /**
     * {@return the memory tmpfs sizes are a percentage of ({@code size=50%}): {@link
     * Runtime#maxMemory()}, in bytes, the part Linux's {@code totalram_pages()} plays}
     */
    public static long ramBytes() {
        return Runtime.getRuntime().maxMemory();
    }

    /**
     * {@code size=N%} of {@code tmpfs(5)}: {@code percent} percent of the "RAM", computed as {@code
     * shmem_parse_one} does ({@code (N << PAGE_SHIFT) * totalram_pages / 100}, whole pages of
     * {@code ramBytes} standing for {@code totalram_pages}) and rounded up to whole pages. SeqVFS's
     * RAM is the heap ({@link #ramBytes()}, {@code Runtime.maxMemory()}): {@code size=50%} is half
     * of it, the Linux default. {@code 0%} is 0 bytes, which as a size means no limit. Deviation: a
     * result past {@code 2^63 - 1} bytes is an error where Linux's 64-bit arithmetic wraps. Pure;
     * thread-safe.
     *
     * @param percent {@code N}, as {@code memparse} read it (unsigned)
     * @param ramBytes the memory it is a percentage of, in bytes; {@code Long.MAX_VALUE} (a heap
     *     without a limit) makes any percentage but 0 no limit
     * @return the size in bytes, a whole number of pages; {@code Long.MAX_VALUE} for no limit
     * @throws ArithmeticException if the size does not fit in 63 bits
     */
    public static long percentOfRam(long percent, long ramBytes) {
        if (percent == 0) {
            return 0;
        }
        if (ramBytes == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        BigInteger bytes =
                new BigInteger(Long.toUnsignedString(percent))
                        .shiftLeft(12)
                        .multiply(BigInteger.valueOf(ramBytes / PAGE))
                        .divide(BigInteger.valueOf(100));
        BigInteger page = BigInteger.valueOf(PAGE);
        BigInteger pages = bytes.add(page).subtract(BigInteger.ONE).divide(page);
        if (pages.compareTo(BigInteger.valueOf(Long.MAX_VALUE / PAGE)) > 0) {
            throw new ArithmeticException("size=" + Long.toUnsignedString(percent) + "% overflows");
        }
        return pages.longValueExact() * PAGE;
    }

    private static long halfOf(long ram) {
        return ram == Long.MAX_VALUE ? Long.MAX_VALUE : ram / 2 / PAGE * PAGE;
    }

    /** {@return the bytes the pool holds in all} */
    public long capacity() {
        return capacity;
    }

    /** {@return the bytes not charged now (a volatile read; advisory once returned)} */
    public long free() {
        return free.get();
    }

    /**
     * Takes {@code bytes} from the pool if that many are free, in one CAS (retried only when
     * another charge or return moved the count). Never blocks.
     *
     * @param bytes at least 0
     * @return {@code true} if they were taken; {@code false} if fewer are free (nothing taken)
     */
    boolean tryTake(long bytes) {
        while (true) {
            long cur = free.get();
            if (bytes > cur) {
                return false;
            }
            if (free.compareAndSet(cur, cur - bytes)) {
                return true;
            }
        }
    }

    /** Gives back {@code bytes} a {@link #tryTake} took (one atomic add). */
    void give(long bytes) {
        free.addAndGet(bytes);
    }

    /**
     * Opens an account for one superblock.
     *
     * @return an account holding nothing
     */
    Account open() {
        return new Account(this);
    }

    /**
     * The bytes one superblock holds in a pool. Lock-free and thread-safe: charges and returns come
     * from any writer of the superblock.
     *
     * <h2>States</h2>
     *
     * <em>open</em> ({@code held >= 0}, the bytes it holds) → <em>closed</em> ({@code held ==
     * Long.MIN_VALUE}, final), by {@link #close}, which gives back everything held in one swap.
     * Each byte is given back exactly once: a return subtracts from {@code held} by CAS and then
     * gives to the pool, unless it finds the account closed (then the close, whose swap came first,
     * gave that byte back already); a charge takes from the pool first and then adds to {@code
     * held} by CAS, and gives back at once if it finds the account closed.
     */
    static final class Account {
        private static final long CLOSED = Long.MIN_VALUE;

        private final HeapPool pool;
        private final AtomicLong held = new AtomicLong();

        private Account(HeapPool pool) {
            this.pool = pool;
        }

        /** {@return the pool} */
        HeapPool pool() {
            return pool;
        }

        /**
         * Charges {@code bytes} to the pool for this account.
         *
         * @return {@code true} if charged; {@code false} if the pool has fewer free, or the account
         *     is closed (nothing charged)
         */
        boolean tryCharge(long bytes) {
            if (!pool.tryTake(bytes)) {
                return false;
            }
            while (true) {
                long h = held.get();
                if (h == CLOSED) {
                    pool.give(bytes);
                    return false;
                }
                if (held.compareAndSet(h, h + bytes)) {
                    return true;
                }
            }
        }

        /** Returns {@code bytes} this account charged; nothing once it is closed. */
        void uncharge(long bytes) {
            while (true) {
                long h = held.get();
                if (h == CLOSED) {
                    return;
                }
                if (held.compareAndSet(h, h - bytes)) {
                    pool.give(bytes);
                    return;
                }
            }
        }

        /** Gives back everything held and closes the account; idempotent. */
        void close() {
            long h = held.getAndSet(CLOSED);
            if (h != CLOSED) {
                pool.give(h);
            }
        }

        /** {@return the bytes held now; 0 once closed} */
        long held() {
            long h = held.get();
            return h == CLOSED ? 0 : h;
        }
    }
}
