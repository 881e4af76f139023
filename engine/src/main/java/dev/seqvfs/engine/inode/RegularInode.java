package dev.seqvfs.engine.inode;

import dev.seqvfs.engine.file.FileData;
import dev.seqvfs.engine.file.PagePool;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.fs.Kiocb;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Falloc;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A regular file: an inode whose contents are a published {@link FileData}, and the one writer of
 * them ({@link #write}, {@link #truncate}, {@link #fallocate}).
 *
 * <h2>Concurrency</h2>
 *
 * {@code data} is read with acquire ({@link #dataAcquire()}) by readers, who never lock, and
 * replaced with release only inside this class, by a holder of {@link #writeLock()} (the per-inode
 * write lock of DESIGN.md, "File data"), which serializes writers, truncates and {@code O_APPEND}
 * offset choices. A writer publishes the data first and the attributes (size, blocks, mtime, ctime)
 * second, both under the lock, so the attributes' size never runs ahead of the data. The lock is
 * held for one write, never across a message. Every change of the data (write, truncate,
 * allocation) also runs inside the owner's publication gate, entered after the lock ({@link
 * InodeOwner#enterDataGate}), so a fork's cut, which closes the gate, finds none half done.
 *
 * <h2>Forks (issue 15)</h2>
 *
 * The first change after a fork of the owner ({@link InodeOwner#forkGen()} above {@code dataGen})
 * keeps the current version for the forks that may read it ({@code frozen}, with the generation it
 * was published in, {@link #dataAt}) and marks it {@code shared}, so its pages are copied before
 * they are written and never written in place again ({@link #preserveForForks}). A fork's copy of a
 * file starts with no data ({@code data} null, {@link #forkedFrom}) and takes the version its fork
 * reads from its source at its first use, under this file's write lock and then the source file's
 * (a fork's lock before its source's, never the reverse): the one time a reader of file data takes
 * a lock. {@code dataGen}, {@code frozen}, {@code shared} and {@code sharedLeft} are guarded by the
 * write lock.
 *
 * <h2>In-place writes and the sequence count (issue 15)</h2>
 *
 * A write changes the pages it finds in place ({@link FileData#prepareWrite} in place, then {@link
 * FileData#copyIn}): no page is copied, no long-lived garbage is made. It does so between two
 * increments of {@code seq}, the file's sequence count (Linux's {@code write_seqcount_begin} /
 * {@code _end}): odd while a write is changing published pages. The opening increment is an opaque
 * store followed by a store-store fence (the page stores cannot move above it), the closing one a
 * release store (they cannot move below it). A reader ({@link #read}, {@link #readv}) loads {@code
 * seq} with acquire, skips an odd value, copies the bytes from the published {@link FileData},
 * issues a load-load fence and loads {@code seq} again: equal means no write overlapped, so the
 * copy holds all of each write or none of it (POSIX 2.9.7; stronger than Linux's per-page promise).
 * Otherwise it retries, {@value #MAX_OPTIMISTIC_READS} times, and then takes the stable path: it
 * raises {@code stableReaders} (a volatile read-modify-write) before it loads {@code seq}
 * (volatile), and a writer that reads {@code stableReaders} (volatile, under the write lock) as
 * non-zero writes in copy mode, which changes no published page and leaves {@code seq} alone. By
 * the order of volatile accesses, only the in-place writes whose check came before the reader's
 * increment can still overlap it, so the stable reader finishes once they have; it never blocks or
 * sends a message. Retries and stable reads are counted ({@link #readRetries()}, {@link
 * #stableReads()}). Truncation, hole punching and allocation build new versions by copying the
 * pages they change, as before, so they need no bracket.
 *
 * <h2>Sequence counts per range</h2>
 *
 * A file of {@link #STRIPED_BYTES} or more has {@value #STRIPES} more counts, {@code stripes}, page
 * {@code p} covered by count {@code p % STRIPES}, each on its own cache line, so that a read of one
 * part of a large file does not retry (and, after four tries, make the writer copy pages for its
 * stable path) because another part was written. An in-place write makes the counts of the pages it
 * writes odd (opaque stores, then the store-store fence), writes, and makes them even (release
 * stores); a read loads {@code seq}, then {@code stripes} (acquire), sums the counts of the pages
 * it reads (acquire loads; any odd one means retry), copies, issues the load-load fence and sums
 * them again (opaque): each count only grows, so an equal sum means none moved. The whole-file
 * bracket ({@link #beginWrite()}: truncates that free pages, the write that installs the counts)
 * moves {@code seq} and every count. A reader that loaded {@code stripes} as {@code null} validates
 * {@code seq}: the writer that installs the counts (a release store) does so before its whole-file
 * bracket, so such a reader either took its {@code seq} before that bracket closed, and its
 * validation fails, or sees the counts.
 *
 * <h2>Free pages</h2>
 *
 * A write takes the new pages it needs from the owner's {@link PagePool} first. A truncate that
 * drops pages publishes the shorter version inside the sequence count (odd, release of {@code
 * data}, even) and then offers the dropped pages, and the tail page it replaced, to the pool. The
 * free of a file gives nothing back: a path walk that found the file just before its last name went
 * may still open it after the free (the inode stays readable; the open is ordered before the
 * unlink), so its pages are left to the collector. The bracket is what makes the reuse safe: an
 * optimistic reader that loaded the old version before it may still be copying from a page that
 * another file's write now fills, but its validation then sees {@code seq} moved and it retries on
 * the new version (a reader that sees the new {@code seq} sees the new {@code data}: it was
 * released before). Readers that do not validate must never meet a reused page, so a file gives no
 * page to the pool while anything else may hold one ({@link #recyclingPool}): a fork of the owner
 * was ever taken, the data is a fork's or a loader's ({@code lazy}, {@code shared}), versions are
 * kept for forks ({@code frozen}), or a stable reader is waiting. Those pages are left to the
 * collector, as before. {@code
 * FileDataRaceTest.truncateRecyclingPages_readersNeverSeeAnotherFilesBytes} races it (and its
 * negative control sees bad reads without validation); {@code
 * ForkTest.pagesDroppedInTheSource_afterAFork_areNotReusedUnderTheFork} checks the fork rule.
 *
 * <h2>Accounting</h2>
 *
 * New pages are charged to the owner's byte limit before they are published; a write that does not
 * fit whole writes the pages that fit and returns the short count, as tmpfs does ({@code
 * shmem_write_begin} fails the page that does not fit; {@code generic_perform_write} returns what
 * was copied), and {@code ENOSPC} only when not one byte fits.
 */
public class RegularInode extends Inode {
    private static final VarHandle DATA;
    private static final VarHandle SEQ;
    private static final VarHandle STRIPE_ARRAY;
    private static final VarHandle STRIPE = MethodHandles.arrayElementVarHandle(long[].class);

    /** Sequence counts per range of a large file; page {@code p} has count {@code p % STRIPES}. */
    static final int STRIPES = 16;

    /** Longs between two counts of {@code stripes}: 64 bytes, a cache line each. */
    private static final int STRIPE_PAD = 8;

    /** The size from which a file has counts per range: 1 MiB (their 1 KiB is 0.1% of it). */
    static final long STRIPED_BYTES = 1L << 20;

    /** Optimistic attempts of a read before it takes the stable path. */
    static final int MAX_OPTIMISTIC_READS = 4;

    private static final LongAdder READ_RETRIES = new LongAdder();
    private static final LongAdder STABLE_READS = new LongAdder();

    /**
     * Whether readers validate {@code seq}; only tests switch it off, to see a torn read
     * (volatile).
     */
    private static volatile boolean validatingReads = true;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            DATA = l.findVarHandle(RegularInode.class, "data", FileData.class);
            SEQ = l.findVarHandle(RegularInode.class, "seq", long.class);
            STRIPE_ARRAY = l.findVarHandle(RegularInode.class, "stripes", long[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Attempts of a write that only partly fits to charge a shorter prefix before it reports
     * ENOSPC.
     */
    private static final int MAX_CHARGE_ROUNDS = 8;

    /** The terminal value of {@link #charged}: the inode was freed and returned its charge. */
    private static final long FREED_MARK = Long.MIN_VALUE;

    /**
     * The bit of {@link #charged} set once the file's last link went ({@link #leftTree}): from then
     * on its charges are no longer counted in its superblock's tree ({@code ForkGenerations}).
     */
    private static final long UNLINKED = 1L << 62;

    private final ReentrantLock writeLock = new ReentrantLock();

    /**
     * Bytes charged to the owner on this file's behalf: the ledger that makes the last free and a
     * racing write agree. Changed by CAS only; {@link #chargedBytes()} swaps it to {@link
     * #FREED_MARK} once, atomically taking what it must return.
     */
    private final AtomicLong charged = new AtomicLong();

    @SuppressWarnings("unused") // accessed through DATA
    private volatile FileData data;

    @SuppressWarnings("unused") // accessed through SEQ: see the class comment
    private long seq;

    /**
     * The per-range sequence counts of a large file ({@link #STRIPES} of them, each alone on its
     * cache line: element {@code i * STRIPE_PAD}), or {@code null} for a file that never reached
     * {@link #STRIPED_BYTES}. Page {@code p} is covered by count {@code p % STRIPES}. Installed
     * once, with a release store, by the writer (under the write lock), never removed; read with
     * acquire by readers, after {@code seq} ("Sequence counts per range" in the class comment).
     */
    @SuppressWarnings("unused") // accessed through STRIPE_ARRAY
    private volatile long[] stripes;

    /**
     * The version of the data a fork shares with this file ({@code SeqVfs.fork()}), whose pages
     * this file's writes copy before they change them and never write in place; {@code null} when
     * nothing is shared. Guarded by {@link #writeLock} (read and written only by its holder).
     */
    private FileData shared;

    /**
     * Pages of {@link #shared} this file may still hold (not yet replaced by one of its writes); at
     * zero {@code shared} is dropped. Guarded by {@link #writeLock}.
     */
    private long sharedLeft;

    /** Readers on the stable path; non-zero makes writers copy instead of writing in place. */
    private final AtomicInteger stableReaders = new AtomicInteger();

    /**
     * The fork generation of the owner in which {@code data} was last published ({@link
     * Versioned}): a write in a later one first keeps the current version for the forks taken since
     * ({@link #preserveForForks}). Guarded by {@link #writeLock}.
     */
    private long dataGen;

    /**
     * The versions of the data that forks taken since may still read, newest first, each with the
     * generation it was published in ({@link #dataAt}); {@code null} when no open fork reads an
     * older version than {@code data}. Guarded by {@link #writeLock}.
     */
    private Frozen frozen;

    /**
     * For a fork's copy of a file whose data nobody has read yet: where to read it ({@link
     * #forkedFrom}); then {@code data} is {@code null}. Written before the inode is reachable and,
     * to {@code null}, by the holder of {@link #writeLock} that resolved it.
     */
    private volatile Lazy lazy;

    /** A version of the data kept for forks, and the generation it was published in. */
    private static final class Frozen {
        final FileData data;
        final long gen;

        /** Older ones; cut (plain, under the write lock) once no open fork reads them. */
        Frozen next;

        Frozen(FileData data, long gen, Frozen next) {
            this.data = data;
            this.gen = gen;
            this.next = next;
        }
    }

    /** The file a fork's copy takes its data from, at the fork's generation. */
    private record Lazy(RegularInode source, long k) {}

    /**
     * Creates an empty regular file whose open files use {@code fileOps}.
     *
     * @param ino the inode number
     * @param owner the superblock, as its accounting interface
     * @param ops the inode operations ({@code i_op})
     * @param fileOps the operations of files opened on it ({@code i_fop})
     * @param attrs the initial attributes
     */
    public RegularInode(
            long ino,
            InodeOwner owner,
            InodeOperations ops,
            FileOperations fileOps,
            InodeAttrs attrs) {
        super(ino, owner, ops, fileOps, attrs);
        this.dataGen = owner.forkGen();
        DATA.setRelease(this, FileData.empty());
    }

    /**
     * Creates a regular file holding {@code content} (procfs files: their text is made when they
     * are looked up). Charges nothing.
     *
     * @param ino the inode number
     * @param owner the superblock, as its accounting interface
     * @param ops the inode operations ({@code i_op})
     * @param fileOps the operations of files opened on it ({@code i_fop})
     * @param attrs the initial attributes
     * @param content the file's bytes (copied)
     */
    public RegularInode(
            long ino,
            InodeOwner owner,
            InodeOperations ops,
            FileOperations fileOps,
            InodeAttrs attrs,
            byte[] content) {
        super(ino, owner, ops, fileOps, attrs);
        DATA.setRelease(this, FileData.empty().write(0, content, 0, content.length));
    }

    /**
     * Loads the current contents (acquire). Never blocks.
     *
     * @return the current contents (acquire)
     */
    public FileData dataAcquire() {
        FileData d = (FileData) DATA.getAcquire(this);
        return d != null ? d : resolveData();
    }

    /**
     * Makes this new inode, which no other thread can reach yet, a fork's copy of {@code source}
     * whose data is read from it on first use ({@link #dataAcquire()}, or the first write): the
     * version a fork of generation {@code k} reads ({@link #dataAt}). Records {@code bytes} as
     * charged to this file (the fork's superblock charged its whole tree at once) without counting
     * them again in its tree. O(1).
     *
     * @param source the file in the fork's source
     * @param k the fork's generation
     * @param bytes the bytes the version holds ({@code st_blocks * 512} at the cut)
     */
    public void forkedFrom(RegularInode source, long k, long bytes) {
        charged.set(bytes);
        dataGen = 0;
        lazy = new Lazy(source, k);
        DATA.setRelease(this, null);
    }

    /**
     * The first use of a fork's copy whose data is not read yet: takes it from the source under
     * this file's write lock (once; a racing reader waits for it, then finds it done). The one
     * place where a reader of file data takes a lock, once per file and fork.
     */
    private FileData resolveData() {
        writeLock.lock();
        try {
            return resolvedLocked();
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * {@return the data, taken from the fork's source first if this is a fork's copy not yet read}
     * The caller holds the write lock. The version taken is marked shared: this file's writes copy
     * its pages before they change them.
     *
     * @throws IllegalStateException if the version does not hold the bytes charged for it
     */
    private FileData resolvedLocked() {
        FileData d = (FileData) DATA.getAcquire(this);
        if (d != null) {
            return d;
        }
        Lazy l = lazy;
        d = l.source().dataAt(l.k());
        if (d.allocatedBytes() != chargedBytesNow()) {
            throw new IllegalStateException(
                    this + " forked with " + chargedBytesNow() + " bytes, its data holds " + d);
        }
        markShared(d);
        DATA.setRelease(this, d);
        lazy = null;
        return d;
    }

    /**
     * {@return the data a fork taken when this file's superblock went to generation {@code k}
     * reads: the newest version published below {@code k}} Takes this file's write lock for a few
     * loads (the versions are guarded by it); the version returned is never written in place again:
     * a write in generation {@code k} or later first marks the current version shared ({@link
     * #preserveForForks}). Called by the fork's copy on its first use of the data.
     *
     * @param k the fork's generation
     */
    public FileData dataAt(long k) {
        writeLock.lock();
        try {
            FileData d = resolvedLocked();
            if (dataGen < k) {
                return d;
            }
            for (Frozen f = frozen; f != null; f = f.next) {
                d = f.data;
                if (f.gen < k) {
                    break;
                }
            }
            return d; // the oldest kept, if the chain was cut: only for a fork closed meanwhile
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * {@return how many older versions of the data this file keeps for forks (tests)} Takes the
     * write lock.
     */
    public int keptDataVersions() {
        writeLock.lock();
        try {
            int n = 0;
            for (Frozen f = frozen; f != null; f = f.next) {
                n++;
            }
            return n;
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * The writer's side of a fork ({@link Versioned}), first in every change of the data, holding
     * the write lock inside the owner's publication gate (so no fork is taken meanwhile): if a fork
     * was taken since the data was published, marks the current version shared (its pages are
     * copied before they are written, never written in place again) and keeps it, with its
     * generation, for the forks that may read it; then drops what no open fork reads. O(versions
     * kept).
     */
    private void preserveForForks() {
        long g = owner().forkGen();
        if (g > dataGen) {
            FileData d = (FileData) DATA.getAcquire(this);
            markShared(d);
            frozen = new Frozen(d, dataGen, frozen);
            dataGen = g;
        }
        if (frozen != null) {
            frozen = trimmed(frozen, dataGen, owner().oldestForkGen());
        }
    }

    /**
     * {@return {@code f}, the versions kept before the current one (of generation {@code gen}), cut
     * below the one the oldest open fork reads} {@code null} when every open fork reads the current
     * version or none is open.
     */
    private static Frozen trimmed(Frozen f, long gen, long oldest) {
        if (gen < oldest) {
            return null;
        }
        for (Frozen x = f; x != null; x = x.next) {
            if (x.gen < oldest) {
                x.next = null;
                break;
            }
        }
        return f;
    }

    /**
     * {@return the per-inode write lock} Held for the length of one write, never across a message.
     */
    public ReentrantLock writeLock() {
        return writeLock;
    }

    /**
     * Copies up to {@code len} bytes at byte offset {@code pos} into {@code dst}, from one
     * published version: lock-free, never blocks.
     *
     * @param pos the byte offset to read at
     * @param dst the buffer the bytes are read into
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @return the bytes copied, 0 at or past the end
     */
    public int read(long pos, byte[] dst, int off, int len) {
        return readInto(pos, dst, off, len);
    }

    /**
     * {@link #read(long, byte[], int, int)} into a {@link java.nio.ByteBuffer}, heap or direct, at
     * absolute index {@code index} (its position and limit unused and unchanged): the same
     * guarantee (one published version, all of a racing write or none of it), with no array between
     * the pages and a direct buffer.
     *
     * @param pos the byte offset to read at
     * @param dst the buffer the bytes are read into
     * @param index the index in the buffer of the first byte
     * @param len the number of bytes, at most {@code dst.capacity() - index}
     * @return the bytes copied, 0 at or past the end
     */
    public int read(long pos, java.nio.ByteBuffer dst, int index, int len) {
        return readInto(pos, dst, index, len);
    }

    /** One read from one published version into {@code dst}, a {@code byte[]} or a buffer. */
    private static int copy(FileData d, long pos, Object dst, int off, int len) {
        return dst instanceof byte[] a
                ? d.read(pos, a, off, len)
                : d.read(pos, (java.nio.ByteBuffer) dst, off, len);
    }

    private int readInto(long pos, Object dst, int off, int len) {
        for (int attempt = 0; attempt < MAX_OPTIMISTIC_READS; attempt++) {
            long s = (long) SEQ.getAcquire(this);
            long[] st = (long[]) STRIPE_ARRAY.getAcquire(this);
            long t = st == null ? s : stripeTicket(st, pos, len);
            if ((t & 1) == 0) {
                int n = copy(dataAcquire(), pos, dst, off, len);
                if (validate(st, t, pos, len)) {
                    return Math.max(0, n);
                }
            } else {
                Thread.onSpinWait();
            }
            READ_RETRIES.increment();
        }
        STABLE_READS.increment();
        stableReaders.getAndIncrement();
        try {
            while (true) {
                long s = (long) SEQ.getVolatile(this);
                long[] st = (long[]) STRIPE_ARRAY.getAcquire(this);
                long t = st == null ? s : stripeTicket(st, pos, len);
                if ((t & 1) == 0) {
                    int n = copy(dataAcquire(), pos, dst, off, len);
                    if (validate(st, t, pos, len)) {
                        return Math.max(0, n);
                    }
                }
                Thread.onSpinWait();
            }
        } finally {
            stableReaders.getAndDecrement();
        }
    }

    /**
     * Whether no write changed published pages of {@code [pos, pos + len)} since the ticket {@code
     * t} was taken: {@code seq} unchanged (no counts per range), or the sum of the range's counts
     * unchanged (each count only grows, so an equal sum means every one is unchanged).
     */
    private boolean validate(long[] st, long t, long pos, long len) {
        VarHandle.loadLoadFence();
        if (!validatingReads) {
            return true;
        }
        return st == null ? (long) SEQ.getOpaque(this) == t : stripeSum(st, pos, len) == t;
    }

    /**
     * {@return the ticket of an optimistic read of {@code [pos, pos + len)} on a file with counts
     * per range: the sum of the counts covering its pages (acquire loads), or -1 (odd) if one of
     * them is odd (a write of that range is open)}
     */
    private static long stripeTicket(long[] st, long pos, long len) {
        int mask = stripeMask(pos, len);
        long sum = 0;
        for (int m = mask; m != 0; m &= m - 1) {
            long v = (long) STRIPE.getAcquire(st, Integer.numberOfTrailingZeros(m) * STRIPE_PAD);
            if ((v & 1) != 0) {
                return -1;
            }
            sum += v;
        }
        return sum;
    }

    /** {@return the sum of the counts covering {@code [pos, pos + len)} (opaque loads)} */
    private static long stripeSum(long[] st, long pos, long len) {
        int mask = stripeMask(pos, len);
        long sum = 0;
        for (int m = mask; m != 0; m &= m - 1) {
            sum += (long) STRIPE.getOpaque(st, Integer.numberOfTrailingZeros(m) * STRIPE_PAD);
        }
        return sum;
    }

    /** {@return the counts (one bit each) covering the pages of {@code [pos, pos + len)}} */
    private static int stripeMask(long pos, long len) {
        if (len <= 0 || pos < 0) {
            return 0;
        }
        long first = pos / FileData.PAGE;
        long last = (pos + len - 1) / FileData.PAGE;
        if (last < first || last - first + 1 >= STRIPES) {
            return (1 << STRIPES) - 1;
        }
        int mask = 0;
        for (long p = first; p <= last; p++) {
            mask |= 1 << (int) (p % STRIPES);
        }
        return mask;
    }

    /** Opens a write that changes published pages: {@code seq} odd. The caller holds the lock. */
    private long beginWrite() {
        long s = (long) SEQ.getOpaque(this);
        SEQ.setOpaque(this, s + 1);
        long[] st = (long[]) STRIPE_ARRAY.getOpaque(this);
        if (st != null) {
            bumpStripes(st, (1 << STRIPES) - 1, false);
        }
        VarHandle.storeStoreFence();
        return s + 2;
    }

    /** The token of {@link #beginWrite(long, long)} that only counts per range were opened. */
    private static final long RANGE_OPENED = -1;

    /**
     * Opens an in-place write of {@code [at, at + count)}: on a file with counts per range, only
     * the counts of its pages go odd; otherwise (installing the counts first when the file or the
     * write reaches {@link #STRIPED_BYTES}) the whole-file bracket, {@link #beginWrite()}. The
     * caller holds the lock and closes it with {@link #endWrite(long, long, long)}.
     */
    private long beginWrite(long at, long count) {
        long[] st = (long[]) STRIPE_ARRAY.getOpaque(this);
        if (st == null) {
            FileData cur = (FileData) DATA.getOpaque(this);
            if (Math.max(at + count, cur == null ? 0 : cur.size()) >= STRIPED_BYTES) {
                // before the whole-file bracket below: a reader that loaded no counts took its
                // seq before that bracket's close, so its validation fails
                STRIPE_ARRAY.setRelease(this, new long[STRIPES * STRIPE_PAD]);
            }
            return beginWrite();
        }
        bumpStripes(st, stripeMask(at, count), false);
        VarHandle.storeStoreFence();
        return RANGE_OPENED;
    }

    /** Closes what {@link #beginWrite(long, long)} opened, after every page store. */
    private void endWrite(long token, long at, long count) {
        if (token == RANGE_OPENED) {
            bumpStripes((long[]) STRIPE_ARRAY.getOpaque(this), stripeMask(at, count), true);
        } else {
            endWrite(token);
        }
    }

    /**
     * Adds 1 to each count of {@code mask}: opaque stores when opening (the caller's store-store
     * fence follows), release stores when closing. Only the holder of the write lock writes them.
     */
    private static void bumpStripes(long[] st, int mask, boolean release) {
        for (int m = mask; m != 0; m &= m - 1) {
            int i = Integer.numberOfTrailingZeros(m) * STRIPE_PAD;
            long v = (long) STRIPE.getOpaque(st, i) + 1;
            if (release) {
                STRIPE.setRelease(st, i, v);
            } else {
                STRIPE.setOpaque(st, i, v);
            }
        }
    }

    /** Closes it: {@code seq} even again (release), after every page store. */
    private void endWrite(long even) {
        long[] st = (long[]) STRIPE_ARRAY.getOpaque(this);
        if (st != null) {
            bumpStripes(st, (1 << STRIPES) - 1, true);
        }
        SEQ.setRelease(this, even);
    }

    /**
     * {@return the optimistic reads of file data, in every instance of this JVM, that overlapped a
     * write and were retried} A striped counter, touched only on the slow path.
     */
    public static long readRetries() {
        return READ_RETRIES.sum();
    }

    /**
     * {@return the reads of file data, in every instance of this JVM, that took the stable path
     * after {@value #MAX_OPTIMISTIC_READS} overlapped attempts}
     */
    public static long stableReads() {
        return STABLE_READS.sum();
    }

    /**
     * Switches the readers' validation of the sequence count off ({@code false}) or on: tests only,
     * to show that the race tests see torn reads without it.
     *
     * @param on whether readers validate
     */
    public static void validateReadsForTesting(boolean on) {
        validatingReads = on;
    }

    /**
     * Reads into the buffers in order from one published version, as one {@code readv}.
     *
     * @param pos the byte offset to read at
     * @param iov the buffers, in order
     * @return the bytes read in all
     */
    public long readv(long pos, byte[][] iov) {
        long len = 0;
        for (byte[] b : iov) {
            len += b.length;
        }
        for (int attempt = 0; ; attempt++) {
            boolean stable = attempt == MAX_OPTIMISTIC_READS;
            if (stable) {
                STABLE_READS.increment();
                stableReaders.getAndIncrement();
            }
            try {
                while (true) {
                    long s = (long) (stable ? SEQ.getVolatile(this) : SEQ.getAcquire(this));
                    long[] st = (long[]) STRIPE_ARRAY.getAcquire(this);
                    long t = st == null ? s : stripeTicket(st, pos, len);
                    if ((t & 1) == 0) {
                        long total = readvFrom(dataAcquire(), pos, iov);
                        if (validate(st, t, pos, len)) {
                            return total;
                        }
                    }
                    Thread.onSpinWait();
                    if (!stable) {
                        READ_RETRIES.increment();
                        break;
                    }
                }
            } finally {
                if (stable) {
                    stableReaders.getAndDecrement();
                }
            }
        }
    }

    private static long readvFrom(FileData d, long pos, byte[][] iov) {
        long total = 0;
        for (byte[] b : iov) {
            int n = Math.max(0, d.read(pos + total, b, 0, b.length));
            total += n;
            if (n < b.length) {
                break;
            }
        }
        return total;
    }

    /**
     * Writes the buffers as one atomic change at {@code k.pos()} (at the end with {@code O_APPEND},
     * even for {@code pwrite}, as Linux does), under the write lock, and leaves {@code k.pos()}
     * after the bytes written.
     *
     * @param k the write's position and flags
     * @param bufs the buffers, in order
     * @param offs the index of the first byte in each buffer
     * @param lens the number of bytes of each buffer
     * @param cred who writes: an unprivileged writer clears set-user-ID ({@code file_remove_privs})
     * @param op the call, for the error
     * @return the bytes written: fewer than asked at the largest file size or when only part fits
     *     in the file system
     * @throws VfsException {@code EINVAL} if the position plus the count overflows, {@code EFBIG}
     *     at the maximum size, {@code ENOSPC} when not one byte fits (checked before any page is
     *     allocated), {@code ENOMEM} when the heap cannot hold the new pages; nothing is written
     *     then
     */
    public long write(
            Kiocb k, byte[][] bufs, int[] offs, int[] lens, Credentials cred, Syscall op) {
        long total = 0;
        for (int l : lens) {
            total += l;
        }
        long pos = k.pos();
        if (pos + total < 0) {
            // rw_verify_area: the end of the write overflows the offset type (checked on the
            // position asked for, before O_APPEND moves it)
            throw new VfsException(Errno.EINVAL, op, null);
        }
        writeLock.lock();
        try {
            return writeUnderLock(k, bufs, offs, lens, cred, op, total);
        } finally {
            writeLock.unlock();
        }
    }

    /** {@link #write} of {@code total} bytes once the write lock is held. */
    private long writeUnderLock(
            Kiocb k,
            byte[][] bufs,
            int[] offs,
            int[] lens,
            Credentials cred,
            Syscall op,
            long total) {
        FileData d = resolvedLocked();
        long at = k.append() ? d.size() : k.pos();
        if (total == 0) {
            // Nothing written: the position stays where it was, even with O_APPEND.
            return 0;
        }
        // generic_write_check_limits: nothing at or past the maximum size; a write
        // crossing it is cut short there.
        if (at >= FileData.MAX_SIZE) {
            throw new VfsException(Errno.EFBIG, op, null);
        }
        int gate = owner().enterDataGate();
        try {
            preserveForForks();
            return writeLocked(k, bufs, offs, lens, cred, op, d, at, total);
        } finally {
            owner().exitDataGate(gate);
        }
    }

    /**
     * {@code write(2)} and {@code pwrite(2)} of one buffer: the same change, results and errors as
     * {@link #write(Kiocb, byte[][], int[], int[], Credentials, Syscall)} with {@code bufs =
     * {buf}}. A write that lies within one page the file already has, when no fork shares that
     * version and no stable reader waits, copies its bytes straight into the page inside the
     * sequence count: no page walk for charging, no page allocated, no buffer arrays; every other
     * write takes the general path.
     *
     * @param k the write's position and flags
     * @param buf the buffer
     * @param off the index in {@code buf} of the first byte
     * @param len the number of bytes
     * @param cred who writes
     * @param op the call, for the error
     * @return the bytes written, as the general form returns them
     * @throws VfsException as the general form throws
     */
    public long write(Kiocb k, byte[] buf, int off, int len, Credentials cred, Syscall op) {
        long pos = k.pos();
        if (len <= 0 || pos + len < 0) {
            return write(k, new byte[][] {buf}, new int[] {off}, new int[] {len}, cred, op);
        }
        writeLock.lock();
        try {
            FileData d = resolvedLocked();
            long at = k.append() ? d.size() : pos;
            if (at + len < 0 || !d.withinOnePage(at, len)) {
                return writeUnderLock(
                        k, new byte[][] {buf}, new int[] {off}, new int[] {len}, cred, op, len);
            }
            int gate = owner().enterDataGate();
            try {
                preserveForForks();
                if (shared != null || stableReaders.get() != 0) {
                    return writeLocked(
                            k,
                            new byte[][] {buf},
                            new int[] {off},
                            new int[] {len},
                            cred,
                            op,
                            d,
                            at,
                            len);
                }
                long token = beginWrite(at, len);
                try {
                    d.copyIn(at, buf, off, len);
                    publish(d, d.withSizeAtLeast(at + len), cred);
                } finally {
                    endWrite(token, at, len);
                }
                k.setPos(at + len);
                return len;
            } finally {
                owner().exitDataGate(gate);
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * The body of {@link #write}, holding the write lock inside the owner's publication gate:
     * charges, allocates, copies the bytes in and publishes.
     */
    private long writeLocked(
            Kiocb k,
            byte[][] bufs,
            int[] offs,
            int[] lens,
            Credentials cred,
            Syscall op,
            FileData d,
            long at,
            long total) {
        long count = Math.min(total, FileData.MAX_SIZE - at);
        for (int round = 0; ; round++) {
            // Charge first, build after: the pages a write adds are counted without
            // allocating them, so a write that does not fit allocates nothing.
            long delta = d.missingPages(at, count) * FileData.PAGE;
            long fits = charge(d, delta, at, count, op);
            if (fits != count) {
                if (round == MAX_CHARGE_ROUNDS) {
                    // Racing writers kept taking the room this write measured: full.
                    throw new VfsException(Errno.ENOSPC, op, null);
                }
                count = fits;
                continue;
            }
            // In place unless a stable reader is waiting (see the class comment).
            boolean inPlace = stableReaders.get() == 0;
            FileData next;
            try {
                owner().hooks().allocatingData(this, delta);
                // Every page the write needs, allocated before any byte changes: an
                // OutOfMemoryError here leaves the file as it was.
                next = d.prepareWrite(at, count, inPlace, shared, owner().pagePool());
            } catch (OutOfMemoryError e) {
                returnCharge(delta);
                throw new VfsException(Errno.ENOMEM, op, null);
            }
            checkCharged(d, next, delta);
            if (shared != null) {
                // The shared pages of the range were replaced by copies: no longer shared.
                sharedLeft -= d.sharedPages(at, count, shared);
                if (sharedLeft <= 0) {
                    shared = null;
                }
            }
            long token = inPlace ? beginWrite(at, count) : 0;
            try {
                long p = at;
                long left = count;
                for (int i = 0; i < bufs.length && left > 0; i++) {
                    int n = (int) Math.min(lens[i], left);
                    next.copyIn(p, bufs[i], offs[i], n);
                    p += n;
                    left -= n;
                }
                next = next.withSizeAtLeast(at + count);
                publish(d, next, cred);
            } finally {
                if (inPlace) {
                    endWrite(token, at, count);
                }
            }
            k.setPos(at + count);
            return count;
        }
    }

    /**
     * Makes this new inode, which no reader can reach yet, hold {@code d}, data a file system type
     * loaded at mount (persistfs's recovery), marked shared: the loader may keep its pages, so this
     * file's writes copy a page before changing it. Records {@code d.allocatedBytes()} bytes as
     * charged to this file and counts them in the owner's tree; the caller charged them to the
     * owner ({@code Superblock.chargeBytes}). Takes the write lock; O(1).
     *
     * @param d the data loaded
     */
    public void adoptLoadedData(FileData d) {
        writeLock.lock();
        try {
            DATA.setRelease(this, d);
            markShared(d);
            addCharge(d.allocatedBytes());
        } finally {
            writeLock.unlock();
        }
    }

    private void markShared(FileData d) {
        if (d.pages() > 0) {
            shared = d;
            sharedLeft = d.pages();
        }
    }

    /**
     * Charges {@code delta} bytes, the pages a write of {@code count} at {@code at} adds over
     * {@code prev}. When they do not all fit, charges nothing and returns how many bytes of the
     * write, from {@code at}, need only the pages that fit (the caller charges that shorter write
     * again). The caller holds the write lock.
     *
     * @return {@code count} if charged; else the shorter count to try
     * @throws VfsException {@code ENOSPC} when not one byte fits
     */
    private long charge(FileData prev, long delta, long at, long count, Syscall op) {
        if (delta <= 0) {
            return count;
        }
        try {
            owner().chargeBytes(delta, op);
        } catch (VfsException e) {
            long fits = bytesThatFit(prev, at, count, owner().availableBytes() / FileData.PAGE);
            if (fits <= 0) {
                throw e;
            }
            // A racing writer may have taken the room since; at least one page less each round.
            return Math.min(fits, count - 1);
        }
        if (!addCharge(delta)) {
            // The file was freed (unlinked, last descriptor closed) while this write waited:
            // its account is settled, so this charge goes straight back.
            owner().unchargeBytes(delta);
        }
        return count;
    }

    /**
     * Gives back {@code delta} bytes charged for a change that was not made (its pages could not be
     * allocated). If the file was freed meanwhile, its free settled the account already.
     */
    private void returnCharge(long delta) {
        if (delta > 0 && addCharge(-delta)) {
            owner().unchargeBytes(delta);
        }
    }

    /**
     * Checks that {@code next} adds exactly the {@code delta} bytes charged for it over {@code
     * prev}: both were measured under the write lock, so they agree unless this class is wrong.
     */
    private void checkCharged(FileData prev, FileData next, long delta) {
        long added = Math.max(0, next.allocatedBytes() - prev.allocatedBytes());
        if (added != Math.max(0, delta)) {
            returnCharge(delta);
            throw new IllegalStateException(
                    "inode " + ino() + " charged " + delta + " bytes for " + added + " added");
        }
    }

    /**
     * The bytes of a write of {@code count} at {@code at} that stay within pages already allocated
     * in {@code d} plus {@code freePages} new ones.
     */
    private static long bytesThatFit(FileData d, long at, long count, long freePages) {
        long end = at + count;
        long p = at;
        while (p < end) {
            long page = p / FileData.PAGE;
            if (!d.hasPage(page)) {
                if (freePages == 0) {
                    break;
                }
                freePages--;
            }
            p = Math.min(end, (page + 1) * FileData.PAGE);
        }
        return p - at;
    }

    /**
     * Changes the size to {@code len} bytes ({@code truncate}): pages past the end are dropped
     * (their charge returned), growing adds a hole; mtime and ctime change. inode_newsize_ok's
     * {@code EFBIG} past the maximum size cannot happen: that size, {@link FileData#MAX_SIZE}, is
     * {@code Long.MAX_VALUE}.
     *
     * @param len the new size in bytes
     * @param cred who asks
     * @param op the call, for the error
     */
    public void truncate(long len, Credentials cred, Syscall op) {
        writeLock.lock();
        try {
            resolvedLocked();
            int gate = owner().enterDataGate();
            try {
                preserveForForks();
                FileData d = dataAcquire();
                // Shrinking drops pages and growing adds a hole: a truncate never charges.
                FileData next = d.truncate(len);
                PagePool pool = next != d && len <= d.size() ? recyclingPool() : null;
                if (next.pages() == 0) {
                    shared = null; // no page left to share
                }
                if (pool == null) {
                    publish(d, next, cred);
                } else {
                    // the dropped pages go to the pool: a reader still copying from one fails
                    // its validation ("Free pages" in the class comment)
                    long even = beginWrite();
                    try {
                        publish(d, next, cred);
                    } finally {
                        endWrite(even);
                    }
                    d.releaseDropped(next, len / FileData.PAGE, pool);
                }
            } finally {
                owner().exitDataGate(gate);
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * {@return the pool this file may give the pages it drops to, or {@code null} when something
     * besides this file's validated readers may still read them} That is: the owner keeps no pool;
     * a fork was ever taken of the owner (a fork reads the source's versions, frozen or current,
     * without validating); this is a fork's copy whose data is not its own yet ({@code lazy},
     * {@code shared}); a loader shares its pages ({@code shared}); versions are kept for forks
     * ({@code frozen}); or a stable reader is waiting. The caller holds the write lock.
     */
    private PagePool recyclingPool() {
        PagePool pool = owner().pagePool();
        if (pool == null
                || shared != null
                || frozen != null
                || lazy != null
                || owner().forkGen() != 0
                || stableReaders.get() != 0) {
            return null;
        }
        return pool;
    }

    /**
     * {@code fallocate(2)} on this file: {@code mode} 0 or {@code FALLOC_FL_KEEP_SIZE} allocates
     * the pages of the range (charged; the size grows unless kept), {@code FALLOC_FL_PUNCH_HOLE |
     * FALLOC_FL_KEEP_SIZE} frees them (reads as zeros). Sets mtime and ctime when something
     * changed, as {@code shmem_fallocate}.
     *
     * @param mode 0, {@code FALLOC_FL_KEEP_SIZE}, or {@code FALLOC_FL_PUNCH_HOLE |
     *     FALLOC_FL_KEEP_SIZE}
     * @param offset the first byte of the range
     * @param len the length of the range in bytes
     * @param cred who asks
     * @param op the call, for the error
     * @throws VfsException {@code ENOSPC} when the pages do not all fit (nothing allocated, as
     *     tmpfs undoes a partial allocation; checked before any page is allocated), {@code EFBIG}
     *     past the maximum size, {@code ENOMEM} when the heap cannot hold the pages (the file is
     *     left as it was)
     */
    public void fallocate(int mode, long offset, long len, Credentials cred, Syscall op) {
        // past FileData.MAX_SIZE (Long.MAX_VALUE) exactly when offset + len overflows
        if (offset + len < 0) {
            throw new VfsException(Errno.EFBIG, op, null);
        }
        writeLock.lock();
        try {
            resolvedLocked();
            int gate = owner().enterDataGate();
            try {
                preserveForForks();
                fallocateLocked(mode, offset, len, cred, op);
            } finally {
                owner().exitDataGate(gate);
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * The body of {@link #fallocate}, holding the write lock inside the owner's publication gate.
     */
    private void fallocateLocked(int mode, long offset, long len, Credentials cred, Syscall op) {
        FileData d = dataAcquire();
        if ((mode & Falloc.FALLOC_FL_PUNCH_HOLE) != 0) {
            FileData next = d.punchHole(offset, len);
            if (next != d) {
                publish(d, next, cred);
            }
            return;
        }
        long missing = d.missingPages(offset, len);
        if (missing > Long.MAX_VALUE / FileData.PAGE) {
            throw new VfsException(Errno.ENOSPC, op, null); // more bytes than a long holds
        }
        // Charged before anything is allocated: a range that does not fit costs nothing.
        long delta = missing * FileData.PAGE;
        if (delta > 0) {
            owner().chargeBytes(delta, op);
            if (!addCharge(delta)) {
                owner().unchargeBytes(delta);
            }
        }
        FileData next;
        try {
            if (delta > Runtime.getRuntime().maxMemory()) {
                // No limit stopped it (size=0), but it can never fit in this heap.
                throw new OutOfMemoryError("fallocate of " + delta + " bytes");
            }
            owner().hooks().allocatingData(this, delta);
            next = d.allocate(offset, len, (mode & Falloc.FALLOC_FL_KEEP_SIZE) != 0);
        } catch (OutOfMemoryError e) {
            returnCharge(delta);
            throw new VfsException(Errno.ENOMEM, op, null);
        }
        checkCharged(d, next, delta);
        if (next != d) {
            publish(d, next, cred);
        }
    }

    /**
     * Publishes {@code next} (its new pages already charged), returns the charge of pages it
     * dropped, then publishes the attributes: size, blocks, mtime, ctime, and the privileges a
     * write by an unprivileged caller removes. The caller holds the write lock.
     */
    private void publish(FileData prev, FileData next, Credentials cred) {
        DATA.setRelease(this, next);
        long delta = next.allocatedBytes() - prev.allocatedBytes();
        if (delta < 0 && addCharge(delta)) {
            owner().unchargeBytes(-delta);
        }
        long now = owner().now();
        long size = next.size();
        long blocks = next.allocatedBytes() / 512;
        // a loop rather than updateAttrs(lambda): the write path allocates no closure
        while (true) {
            InodeAttrs a = attrsAcquire();
            if (casAttrs(a, written(a, size, blocks, now, cred))) {
                return;
            }
        }
    }

    /**
     * {@return {@code a} after a write or truncate by {@code cred} left the file at {@code size}
     * bytes and {@code blocks} 512-byte blocks, at {@code now}} mtime and ctime are {@code now};
     * {@code file_remove_privs}: a change by an unprivileged caller clears set-user-ID, and
     * set-group-ID when group-execute is set or the caller is not in the file's group ({@code
     * setattr_should_drop_sgid}).
     */
    private static InodeAttrs written(
            InodeAttrs a, long size, long blocks, long now, Credentials cred) {
        InodeAttrs sized = a.withSize(size, blocks, now);
        if (cred.isRoot()) {
            return sized;
        }
        int perm = sized.permissions();
        int kept = perm & ~Mode.S_ISUID;
        if ((perm & 010) != 0 || !cred.inGroup(sized.gid())) {
            kept &= ~Mode.S_ISGID;
        }
        return kept != perm ? sized.withPermissions(kept, now) : sized;
    }

    /**
     * Records that {@code delta} bytes were charged (or, negative, returned) for this file.
     *
     * @return {@code false} if the file was freed meanwhile: the caller must return the {@code
     *     delta} it charged (or must not return the one it would have), since the free already
     *     settled this file's account
     */
    private boolean addCharge(long delta) {
        while (true) {
            long c = charged.get();
            if (c == FREED_MARK) {
                return false;
            }
            if (charged.compareAndSet(c, c + delta)) {
                if ((c & UNLINKED) == 0) {
                    // a file with a name: its bytes are its superblock's tree's (inside the gate)
                    owner().treeBytesAdd(delta);
                }
                return true;
            }
        }
    }

    /**
     * Its last link went (the caller holds the gate of that change): from now on its charges are
     * not counted in the tree, and the bytes it holds leave it. One CAS of the ledger, so a write
     * racing it (in the gate too) counts its charge in the tree exactly when it came first.
     */
    @Override
    protected long leftTree() {
        while (true) {
            long c = charged.get();
            if (c == FREED_MARK || (c & UNLINKED) != 0) {
                return 0;
            }
            if (charged.compareAndSet(c, c | UNLINKED)) {
                return c;
            }
        }
    }

    /**
     * A nameless ({@code O_TMPFILE}) file's first name was published (the caller holds the gate of
     * that change): its charges count in the tree again, the bytes it holds first. One CAS of the
     * ledger, as {@link #leftTree}; nothing if it was never out of the tree or was freed.
     */
    @Override
    public void enteredTree() {
        while (true) {
            long c = charged.get();
            if (c == FREED_MARK || (c & UNLINKED) == 0) {
                return;
            }
            if (charged.compareAndSet(c, c & ~UNLINKED)) {
                owner().treeBytesAdd(c & ~UNLINKED);
                return;
            }
        }
    }

    /**
     * Returns, once, the bytes this file holds against the owner's limit, and closes its account:
     * later charges are returned at once. Called when the inode is freed.
     */
    @Override
    public long chargedBytes() {
        long c = charged.getAndSet(FREED_MARK);
        if (c == FREED_MARK) {
            return 0;
        }
        if ((c & UNLINKED) == 0 && c != 0) {
            // Freed between the store that took its last link and that change's leftTree (a
            // close racing the unlink or the replacing rename): leftTree will find FREED_MARK
            // and return 0, so the bytes leave the tree here, once.
            owner().treeBytesAdd(-c);
        }
        return c & ~UNLINKED;
    }

    @Override
    public long chargedBytesNow() {
        long c = charged.get();
        return c == FREED_MARK ? 0 : c & ~UNLINKED;
    }
}
