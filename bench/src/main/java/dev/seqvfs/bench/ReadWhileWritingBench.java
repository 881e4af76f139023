package dev.seqvfs.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The file-data issue's read goal: random 4 KiB {@code pread}s of a 256 MiB file by one thread
 * while another thread writes random 4 KiB pages of the same file, in its other half (so no read
 * overlaps a write, but both use one file: on SeqVFS one sequence count, one write lock and one
 * published version; on Jimfs one file's lock). The reader's ops/s is the figure ({@code
 * readWhileWriting:reader}); the writer's is printed beside it.
 *
 * <pre>
 * /big     256 MiB, every page written once in setup; reads in [0, 128 MiB), writes in [128, 256)
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Group)
public class ReadWhileWritingBench {
    private static final int PAGE = 4096;
    private static final long BIG = 256L << 20;
    private static final long HALF_PAGES = BIG / 2 / PAGE;
    private static final int MIB = 1 << 20;

    /** Which target. */
    @Param({FsTarget.SEQVFS, FsTarget.JIMFS, FsTarget.HOST})
    public String fs;

    FsTarget<Object> target;
    Object big;

    /** One thread's buffer and random numbers. */
    @State(Scope.Thread)
    public static class Own {
        final byte[] page = new byte[PAGE];
        final SplittableRandom rnd = new SplittableRandom(Thread.currentThread().getId());
    }

    /** Opens the target and writes the file. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        target = FsTarget.open(fs);
        big = target.openData(target.path("/big"));
        byte[] mib = new byte[MIB];
        for (long off = 0; off < BIG; off += MIB) {
            target.pwrite(big, mib, off);
        }
    }

    /** Closes the file and the target. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        target.closeData(big);
        target.close();
    }

    /**
     * A 4 KiB read at a random page of the first half.
     *
     * @param own this thread's buffer
     * @return the bytes read
     */
    @Benchmark
    @Group("readWhileWriting")
    @GroupThreads(1)
    public int reader(Own own) throws Exception {
        return target.pread(big, own.page, own.rnd.nextLong(HALF_PAGES) * PAGE);
    }

    /**
     * A 4 KiB write at a random page of the second half.
     *
     * @param own this thread's buffer
     */
    @Benchmark
    @Group("readWhileWriting")
    @GroupThreads(1)
    public void writer(Own own) throws Exception {
        own.page[0]++;
        target.pwrite(big, own.page, (HALF_PAGES + own.rnd.nextLong(HALF_PAGES)) * PAGE);
    }
}
