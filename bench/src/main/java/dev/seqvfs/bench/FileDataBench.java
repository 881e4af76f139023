package dev.seqvfs.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * File data through each target's positional calls ({@code pwrite}/{@code pread}; Jimfs and the
 * host through {@code FileChannel}), one thread, the workloads of the file-data issue:
 *
 * <ul>
 *   <li>{@code randomWrite4k}: a 4 KiB {@code pwrite} at a random page of a 256 MiB file;
 *   <li>{@code samePage4k}: the same 4 KiB page of that file overwritten again and again;
 *   <li>{@code smallFile4k}: a 4 KiB overwrite of a one-page file;
 *   <li>{@code seqWrite1m}: sequential 1 MiB writes, the file cut back to empty every 256 MiB (so
 *       most writes add pages);
 *   <li>{@code randomRead4k}: a 4 KiB {@code pread} at a random page of the 256 MiB file.
 * </ul>
 *
 * <pre>
 * /big     256 MiB, every page written once in setup
 * /small   one page
 * /seq     grows by 1 MiB per op, cut to 0 at 256 MiB
 * </pre>
 *
 * One op is one call. Run it with {@code --prof gc} to see the garbage each makes.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class FileDataBench {
    private static final int PAGE = 4096;
    private static final long BIG = 256L << 20;
    private static final int MIB = 1 << 20;

    /** Which target. */
    @Param({FsTarget.SEQVFS, FsTarget.JIMFS, FsTarget.HOST})
    public String fs;

    FsTarget<Object> target;
    Object big;
    Object small;
    Object seq;
    long seqPos;
    final byte[] page = new byte[PAGE];
    final byte[] mib = new byte[MIB];
    final SplittableRandom rnd = new SplittableRandom(42);

    /** Opens the target and writes the files. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        target = FsTarget.open(fs);
        big = target.openData(target.path("/big"));
        for (long off = 0; off < BIG; off += MIB) {
            target.pwrite(big, mib, off);
        }
        small = target.openData(target.path("/small"));
        target.pwrite(small, page, 0);
        seq = target.openData(target.path("/seq"));
    }

    /** Closes the files and the target. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        target.closeData(big);
        target.closeData(small);
        target.closeData(seq);
        target.close();
    }

    /** A 4 KiB write at a random page of the 256 MiB file. */
    @Benchmark
    public void randomWrite4k() throws Exception {
        page[0]++;
        target.pwrite(big, page, rnd.nextLong(BIG / PAGE) * PAGE);
    }

    /** The same 4 KiB page of the 256 MiB file, overwritten. */
    @Benchmark
    public void samePage4k() throws Exception {
        page[0]++;
        target.pwrite(big, page, 1000L * PAGE);
    }

    /** A 4 KiB overwrite of a one-page file. */
    @Benchmark
    public void smallFile4k() throws Exception {
        page[0]++;
        target.pwrite(small, page, 0);
    }

    /** A 1 MiB write at the end of a growing file. */
    @Benchmark
    public void seqWrite1m() throws Exception {
        if (seqPos == BIG) {
            target.ftruncate(seq, 0);
            seqPos = 0;
        }
        target.pwrite(seq, mib, seqPos);
        seqPos += MIB;
    }

    /** A 4 KiB read at a random page of the 256 MiB file. */
    @Benchmark
    public int randomRead4k() throws Exception {
        return target.pread(big, page, rnd.nextLong(BIG / PAGE) * PAGE);
    }
}
