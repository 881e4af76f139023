package dev.seqvfs.bench;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Measures where a file's 4 KiB pages should live (the file-data issue's memory item): the same
 * page operations on six page stores, one thread, with no engine code involved.
 *
 * <p>Stores ({@link #store}):
 *
 * <ul>
 *   <li>{@code heap}: one {@code byte[4096]} per page, what {@code FileData} holds today;
 *   <li>{@code heapCache}: the same, with the pages of a dropped file kept in a free list and
 *       handed out again zero-filled (Jimfs's {@code HeapDisk} keeps freed blocks the same way);
 *   <li>{@code direct}: one 4 KiB direct {@code ByteBuffer} per page ({@code allocateDirect});
 *   <li>{@code directSlab}: 1 MiB direct buffers, a page being a 4 KiB range of one of them;
 *   <li>{@code slab1m}: 1 MiB {@code byte[]} arrays holding 256 pages each;
 *   <li>{@code slab256k}: 256 KiB {@code byte[]} arrays holding 64 pages each (the fan-out of a
 *       {@code FileData} radix leaf).
 * </ul>
 *
 * A file's page table is a flat array indexed by page number, standing for the radix tree's leaves
 * (which cost about the same: 4 bytes of reference per page). The slab stores give each file its
 * own slabs and never reuse a freed slot, so they leave out what a shared slab allocator would add:
 * a free list, zeroing a reused slot (a 4 KiB fill), and slabs kept alive by one live page.
 *
 * <p>The {@code heap} store's {@link #write4k}, {@link #samePage4k} and {@link #read4k} are the
 * floor of {@code FileDataBench}'s {@code randomWrite4k}, {@code samePage4k} and {@code
 * randomRead4k}: the copy alone, with no file system around it.
 *
 * <p>Operations (one op each; {@code Mode.Throughput}, reported in ops/s):
 *
 * <ul>
 *   <li>{@link #write4k}: copies a 4 KiB buffer into a random page of a 256 MiB file whose pages
 *       all exist ({@code pwrite} in place);
 *   <li>{@link #samePage4k}: copies a 4 KiB buffer into page 1,000 of that file, every time;
 *   <li>{@link #read4k}: copies a random page of that file into a 4 KiB buffer ({@code pread});
 *   <li>{@link #append4k}: allocates the next page of a second, growing file and copies 4 KiB into
 *       it (a sequential write that extends the file); at 256 MiB the growing file is dropped whole
 *       and starts again at zero pages, so its pages die at every age up to 256 MiB old.
 * </ul>
 *
 * The 256 MiB file stays live during all four, so the collector always has it to trace.
 *
 * <p>Footprint: the trial's setup prints one {@code footprint:} line with the heap bytes and the
 * direct (native) buffer bytes that the 256 MiB file adds, each divided by its 268,435,456 bytes of
 * data: used heap ({@code Runtime.totalMemory() - freeMemory()}) and the JDK's {@code direct}
 * buffer pool, both read after three {@code System.gc()} calls, before and after the file is made.
 * On G1 the heap figure includes the unused tail of a humongous object's regions (an array of half
 * a region or more gets whole regions to itself). It leaves out {@code malloc}'s own overhead for
 * direct buffers (typically 16 bytes per allocation). The fork runs with a 2 GiB heap ({@code
 * -Xms2g -Xmx2g}, so G1 regions of 1 MiB, and a direct memory limit of 2 GiB).
 *
 * <p>Run with {@code -prof gc} for each op's allocation rate in bytes per op and the collector's
 * time: {@code java -cp bench/target/benchmarks.jar org.openjdk.jmh.Main PageStorageBench -f 1 -wi
 * 2 -i 3 -w 1 -r 1 -prof gc}. Not part of {@code bench/run}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Thread)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class PageStorageBench {
    private static final int PAGE = 4096;
    private static final long FILE_BYTES = 256L << 20;
    private static final int FILE_PAGES = (int) (FILE_BYTES / PAGE);

    /** The page store, one of the names in the class comment. */
    @Param({"heap", "heapCache", "direct", "directSlab", "slab1m", "slab256k"})
    public String store;

    private Pages file;
    private Pages growing;
    private int grown;
    private final byte[] buf = new byte[PAGE];
    private final SplittableRandom rnd = new SplittableRandom(42);
    private final ArrayDeque<byte[]> freePages = new ArrayDeque<>();

    /**
     * Makes the 256 MiB file (every page allocated and written once) and an empty growing file, and
     * prints the file's footprint as described in the class comment. Runs once per trial, before
     * the first measured op.
     */
    @Setup(Level.Trial)
    public void setUp() {
        long heap0 = usedHeapAfterGc();
        long direct0 = directBytes();
        file = newPages(store, freePages);
        for (int p = 0; p < FILE_PAGES; p++) {
            file.allocate(p);
            file.write(p, buf);
        }
        long heap = usedHeapAfterGc() - heap0;
        long direct = directBytes() - direct0;
        System.out.printf(
                Locale.ROOT,
                "%nfootprint: store=%s heap bytes per data byte %.4f, direct bytes per data byte"
                        + " %.4f%n",
                store,
                heap / (double) FILE_BYTES,
                direct / (double) FILE_BYTES);
        growing = newPages(store, freePages);
        grown = 0;
    }

    /**
     * Copies 4 KiB into a random page of the 256 MiB file.
     *
     * @return a byte of the buffer written, so the write is not dead code
     */
    @Benchmark
    public byte write4k() {
        buf[0]++;
        file.write(rnd.nextInt(FILE_PAGES), buf);
        return buf[0];
    }

    /**
     * Copies 4 KiB into one page of the 256 MiB file, always the same (page 1,000): the floor of
     * {@code FileDataBench.samePage4k}, as {@link #write4k} is of its {@code randomWrite4k}.
     *
     * @return a byte of the buffer written
     */
    @Benchmark
    public byte samePage4k() {
        buf[0]++;
        file.write(1000, buf);
        return buf[0];
    }

    /**
     * Copies a random page of the 256 MiB file into a 4 KiB buffer.
     *
     * @return a byte of what was read
     */
    @Benchmark
    public byte read4k() {
        file.read(rnd.nextInt(FILE_PAGES), buf);
        return buf[PAGE - 1];
    }

    /**
     * Allocates the growing file's next page and copies 4 KiB into it; at 256 MiB (65,536 pages)
     * drops the whole file (in {@code heapCache} its pages go to the free list) and starts a new,
     * empty one first.
     *
     * @return a byte of the buffer written
     */
    @Benchmark
    public byte append4k() {
        if (grown == FILE_PAGES) {
            growing.free();
            growing = newPages(store, freePages);
            grown = 0;
        }
        growing.allocate(grown);
        growing.write(grown, buf);
        grown++;
        return buf[0];
    }

    private static Pages newPages(String store, ArrayDeque<byte[]> freePages) {
        return switch (store) {
            case "heap" -> new HeapPages();
            case "heapCache" -> new HeapCachePages(freePages);
            case "direct" -> new DirectPages();
            case "directSlab" -> new DirectSlab(256);
            case "slab1m" -> new ArraySlab(256);
            case "slab256k" -> new ArraySlab(64);
            default -> throw new IllegalArgumentException("unknown store " + store);
        };
    }

    /** Runs three full collections and returns the used heap in bytes. */
    private static long usedHeapAfterGc() {
        Runtime r = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return r.totalMemory() - r.freeMemory();
    }

    /** Returns the bytes held by the JDK's direct buffers, or 0 if the pool is not found. */
    private static long directBytes() {
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b.getMemoryUsed();
            }
        }
        return 0;
    }

    /**
     * The pages of one file of at most 256 MiB, indexed by page number. Not thread-safe: one thread
     * uses each.
     */
    private abstract static class Pages {
        /** Makes page {@code p} exist, zero-filled; {@code p} is not yet allocated. */
        abstract void allocate(int p);

        /** Copies the 4 KiB of {@code src} into page {@code p}, which exists. */
        abstract void write(int p, byte[] src);

        /** Copies page {@code p}, which exists, into the 4 KiB of {@code dst}. */
        abstract void read(int p, byte[] dst);

        /**
         * Gives up every page; the file is not used again. Does nothing unless a store reuses
         * pages.
         */
        void free() {}
    }

    /** One {@code byte[4096]} per page. */
    private static final class HeapPages extends Pages {
        private final byte[][] pages = new byte[FILE_PAGES][];

        @Override
        void allocate(int p) {
            pages[p] = new byte[PAGE];
        }

        @Override
        void write(int p, byte[] src) {
            System.arraycopy(src, 0, pages[p], 0, PAGE);
        }

        @Override
        void read(int p, byte[] dst) {
            System.arraycopy(pages[p], 0, dst, 0, PAGE);
        }
    }

    /** One {@code byte[4096]} per page, taken from and given back to a shared free list. */
    private static final class HeapCachePages extends Pages {
        private final byte[][] pages = new byte[FILE_PAGES][];
        private final ArrayDeque<byte[]> freePages;

        HeapCachePages(ArrayDeque<byte[]> freePages) {
            this.freePages = freePages;
        }

        @Override
        void allocate(int p) {
            byte[] page = freePages.pollLast();
            if (page == null) {
                page = new byte[PAGE];
            } else {
                Arrays.fill(page, (byte) 0);
            }
            pages[p] = page;
        }

        @Override
        void write(int p, byte[] src) {
            System.arraycopy(src, 0, pages[p], 0, PAGE);
        }

        @Override
        void read(int p, byte[] dst) {
            System.arraycopy(pages[p], 0, dst, 0, PAGE);
        }

        @Override
        void free() {
            for (byte[] page : pages) {
                if (page != null) {
                    freePages.addLast(page);
                }
            }
        }
    }

    /** One 4 KiB direct buffer per page; its native memory is freed when its cleaner runs. */
    private static final class DirectPages extends Pages {
        private final ByteBuffer[] pages = new ByteBuffer[FILE_PAGES];

        @Override
        void allocate(int p) {
            pages[p] = ByteBuffer.allocateDirect(PAGE);
        }

        @Override
        void write(int p, byte[] src) {
            pages[p].put(0, src, 0, PAGE);
        }

        @Override
        void read(int p, byte[] dst) {
            pages[p].get(0, dst, 0, PAGE);
        }
    }

    /** Direct buffers of {@code perSlab} pages each, allocated when a page first falls in one. */
    private static final class DirectSlab extends Pages {
        private final int shift;
        private final int mask;
        private final ByteBuffer[] slabs;

        DirectSlab(int perSlab) {
            shift = Integer.numberOfTrailingZeros(perSlab);
            mask = perSlab - 1;
            slabs = new ByteBuffer[FILE_PAGES / perSlab];
        }

        @Override
        void allocate(int p) {
            if (slabs[p >>> shift] == null) {
                slabs[p >>> shift] = ByteBuffer.allocateDirect((mask + 1) * PAGE);
            }
        }

        @Override
        void write(int p, byte[] src) {
            slabs[p >>> shift].put((p & mask) * PAGE, src, 0, PAGE);
        }

        @Override
        void read(int p, byte[] dst) {
            slabs[p >>> shift].get((p & mask) * PAGE, dst, 0, PAGE);
        }
    }

    /**
     * {@code byte[]} arrays of {@code perSlab} pages each, allocated when a page first falls in
     * one.
     */
    private static final class ArraySlab extends Pages {
        private final int shift;
        private final int mask;
        private final byte[][] slabs;

        ArraySlab(int perSlab) {
            shift = Integer.numberOfTrailingZeros(perSlab);
            mask = perSlab - 1;
            slabs = new byte[FILE_PAGES / perSlab][];
        }

        @Override
        void allocate(int p) {
            if (slabs[p >>> shift] == null) {
                slabs[p >>> shift] = new byte[(mask + 1) * PAGE];
            }
        }

        @Override
        void write(int p, byte[] src) {
            System.arraycopy(src, 0, slabs[p >>> shift], (p & mask) * PAGE, PAGE);
        }

        @Override
        void read(int p, byte[] dst) {
            System.arraycopy(slabs[p >>> shift], (p & mask) * PAGE, dst, 0, PAGE);
        }
    }
}
