package dev.seqvfs.engine.sb;

import java.math.BigInteger;

/**
 * The memory tmpfs sizes are a share of: the heap, which for SeqVFS plays the part the machine's
 * RAM plays for Linux's tmpfs ({@code size=50%}, the default limits). Stateless; thread-safe.
 */
public final class HeapPool {
    private static final long PAGE = 4096;

    private HeapPool() {}

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
}
