package dev.seqvfs.persist.log;

import com.typesafe.config.Config;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * persistfs's own store: an append-only log of segment files in a directory ({@code
 * D/seqvfs.log/}), holding the directories' journals and snapshots (through {@link LogJournal} and
 * {@link LogSnapshotStore}, Pekko Persistence plugins), the files' written-back contents and the
 * store's metadata, each as records ({@link LogRecord}) with a CRC.
 *
 * <h2>Group commit</h2>
 *
 * Every append, from any journal, snapshot store or content write-back, goes into one queue. The
 * holder of the writer role (the writer thread, or a caller that waits for its own append and finds
 * the role free: leader/follower, {@link #appendAndWait}) takes everything queued (up to {@link
 * #MAX_BATCH} bytes), writes it at the end of the head segment with one positional write, forces
 * the file once ({@code FileChannel.force(false)}, {@code fdatasync(2)}), applies it to the
 * in-memory index ({@link LogIndex}), and only then completes every append in it. So 16 threads'
 * {@code fsync}s, and the journal writes of 16 directories, cost one force together, as a
 * journaling file system commits many transactions in one. The head segment's space is preallocated
 * with zeros ahead of the writer by the housekeeper thread ({@link Housekeeper}), so that a force
 * flushes data only, no file metadata.
 *
 * <h2>Atomicity and crashes</h2>
 *
 * An append is a group of records written together; at recovery a group counts only when all its
 * frames are valid ({@link LogRecord#MORE}), so a torn tail after a crash loses whole groups (the
 * last, unacknowledged ones), never part of one. Recovery ({@link LogRecovery}) reads every
 * segment, stops each at its first invalid frame, seals the last one there and starts a new head
 * segment (so that nothing a crash left after the cut is ever read as valid). A segment other than
 * the last that does not end with its seal is corrupt: the open fails ({@code IOException}).
 *
 * <h2>Space</h2>
 *
 * Segments roll at {@link Settings#segmentBytes}; the housekeeper removes a sealed segment that has
 * no live frame left, and when dead frames exceed {@link Settings#compactRatio} of the sealed bytes
 * (and {@link Settings#compactMinBytes}) it compacts the oldest segment: it copies its live frames
 * to the head (keeping their log sequence numbers) and removes it. Tombstones (a deleted snapshot,
 * inode or range of blocks) are dropped when their segment goes as the oldest, never copied: every
 * record a tombstone kills is in its segment or an older one.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@code pending}, {@code copies}, {@code closing}, {@code commitDue}: guarded by {@code
 *       queueLock}; the writer waits on {@code work}, a housekeeper with a full copy queue on
 *       {@code room}.
 *   <li>{@code head}, {@code lsn}, {@code unforced}, {@code unforcedSince}, the batch buffer:
 *       written and read only by the holder of the writer role ({@code writerRole}: the writer
 *       thread, or a caller leading a batch, {@link #appendAndWait}; the opening thread before they
 *       start); {@code head} is volatile for the housekeeper.
 *   <li>The commit interval: a batch that leaves frames unforced where none were sets {@code
 *       commitDue} to when they will have waited {@link Settings#commitMillis}, and signals {@code
 *       work}; the writer thread waits for that time on {@code work}, then takes the writer role
 *       and forces them if nothing did meanwhile. So a lazy append is forced within the interval
 *       (plus the wake-up and the force) whichever thread wrote it.
 *   <li>{@code segments}: a concurrent map; a segment is removed (and its channel closed) only
 *       under the write side of {@code segmentsLock}; readers of frames hold its read side from the
 *       index lookup to the read ({@link #read}).
 *   <li>The index: see {@link LogIndex}.
 * </ul>
 *
 * <p>Thread-safe. {@link #append} never blocks; {@link #write}, {@link #read} and {@link #close}
 * block for the disk.
 */
public final class SegmentLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentLog.class);

    /** The name of the log's directory inside a data directory. */
    public static final String DIR = "seqvfs.log";

    /** Bytes taken into one batch at most (more when one append alone is larger). */
    static final int MAX_BATCH = 16 << 20;

    /** Bytes of compaction copies taken into one batch at most (they ride with appends). */
    static final int MAX_COPY_BATCH = 1 << 20;

    /** Bytes of compaction copies queued at most (the housekeeper waits beyond). */
    static final int MAX_COPY_QUEUE = 4 << 20;

    /** How long an open waits for another process to let the log go, in milliseconds. */
    private static final long OPEN_WAIT_MILLIS = 30_000;

    /**
     * The log's settings.
     *
     * @param segmentBytes bytes of a segment before the writer rolls to a new one (a batch larger
     *     than that makes one segment larger)
     * @param compactRatio compaction runs while dead bytes exceed this fraction of the sealed
     *     segments' bytes
     * @param compactMinBytes and while they exceed this many bytes
     * @param preallocBytes bytes of zeros written ahead of the writer at most, per step
     * @param commitMillis a lazy append ({@link #appendLazy}) is forced within this many
     *     milliseconds even if nothing else forces it
     * @param batchWait whether a batch that follows one of several appends waits for more, up to
     *     half a force's mean time (at most 1 ms) after its first append was queued, as jbd2 holds
     *     a commit back while several writers sync at once
     */
    public record Settings(
            long segmentBytes,
            double compactRatio,
            long compactMinBytes,
            long preallocBytes,
            long commitMillis,
            boolean batchWait) {
        /**
         * The defaults: 64 MiB segments, compaction past 50% dead and 64 MiB, 4 MiB steps, lazy
         * appends forced within 1 s, batches held back for more appends under concurrency.
         */
        public static final Settings DEFAULT =
                new Settings(64L << 20, 0.5, 64L << 20, 4L << 20, 1000, true);

        /**
         * {@return the settings under {@code c}} ({@code segment-size}, {@code compact-ratio},
         * {@code compact-min}, {@code prealloc}, {@code commit-interval}, {@code batch-wait}; each
         * defaults to {@link #DEFAULT}'s)
         *
         * @param c the configuration ({@code seqvfs.persistfs.log})
         */
        public static Settings from(Config c) {
            return new Settings(
                    c.hasPath("segment-size") ? c.getBytes("segment-size") : DEFAULT.segmentBytes(),
                    c.hasPath("compact-ratio")
                            ? c.getDouble("compact-ratio")
                            : DEFAULT.compactRatio(),
                    c.hasPath("compact-min")
                            ? c.getBytes("compact-min")
                            : DEFAULT.compactMinBytes(),
                    c.hasPath("prealloc") ? c.getBytes("prealloc") : DEFAULT.preallocBytes(),
                    c.hasPath("commit-interval")
                            ? c.getDuration("commit-interval").toMillis()
                            : DEFAULT.commitMillis(),
                    c.hasPath("batch-wait") ? c.getBoolean("batch-wait") : DEFAULT.batchWait());
        }
    }

    // ---- registry: one open log per directory in this JVM ----------------------------------

    private static final ConcurrentHashMap<Path, SegmentLog> OPEN = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<Integer, SegmentLog> BY_ID = new ConcurrentHashMap<>();
    private static final AtomicInteger IDS = new AtomicInteger();

    /**
     * Opens the log in {@code dir} (made if absent), or shares the one this JVM has open there
     * (then {@code settings} are those it was opened with): each open is matched by a {@link
     * #close}. Recovers it first ({@link LogRecovery}); blocks for the disk, and up to 30 s while
     * another process holds it.
     *
     * @param dir the log's directory
     * @param settings segment size and compaction
     * @return the log
     * @throws IOException if it cannot be made, locked (another process holds it) or recovered (a
     *     corrupt segment)
     */
    public static SegmentLog open(Path dir, Settings settings) throws IOException {
        Path d = dir.toAbsolutePath().normalize();
        synchronized (OPEN) {
            SegmentLog l = OPEN.get(d);
            if (l != null) {
                l.refs++;
                return l;
            }
            l = new SegmentLog(d, settings);
            OPEN.put(d, l);
            BY_ID.put(l.id, l);
            return l;
        }
    }

    /**
     * {@return the open log of id {@code id}} (the plugins of a mount find their store so).
     *
     * @param id the log's id ({@link #id()})
     * @throws IllegalStateException if no open log has it (closed: its mount is gone)
     */
    public static SegmentLog byId(int id) {
        SegmentLog l = BY_ID.get(id);
        if (l == null) {
            throw new IllegalStateException("segment log " + id + " is closed");
        }
        return l;
    }

    // ---- state -------------------------------------------------------------------------------

    final Path dir;
    private final int id = IDS.incrementAndGet();
    final Settings settings;
    private final FileChannel lockChannel;
    private final FileLock lock;

    /** Opens matched by no close yet; guarded by {@code OPEN}. */
    private int refs = 1;

    /** The segments by number; the last is the head. */
    final ConcurrentSkipListMap<Long, Segment> segments = new ConcurrentSkipListMap<>();

    /** Segments are removed under its write side; frames are read under its read side. */
    final ReentrantReadWriteLock segmentsLock = new ReentrantReadWriteLock();

    /** Serializes the head's growth beyond its preallocated space with the housekeeper's. */
    final ReentrantLock allocLock = new ReentrantLock();

    /** The segment the writer appends to. Written by the writer role's holder. */
    volatile Segment head;

    /** The last log sequence number given. Guarded by the writer role. */
    long lsn;

    final LogIndex index;
    private final LogContent content = new LogContent(this);

    private final ReentrantLock queueLock = new ReentrantLock();
    private final Condition work = queueLock.newCondition();
    private final Condition room = queueLock.newCondition();

    /** Signalled at every append (a batch held back for more appends waits on it). */
    private final Condition arrived = queueLock.newCondition();

    /** Appends in the last batch; guarded by the writer role. */
    private int lastBatch;

    /** A moving mean of a force's time, in nanoseconds; guarded by the writer role. */
    private long avgForceNanos = 200_000;

    private final ArrayDeque<Request> pending = new ArrayDeque<>();
    private final ArrayDeque<Copy> copies = new ArrayDeque<>();
    private long copyBytes;
    private boolean closing;

    /** The failure that stopped the writer, or {@code null}: every append fails with it. */
    private volatile IOException broken;

    /** Batches to fail before writing them (tests: an I/O error). The writer role reads it. */
    final AtomicInteger failNext = new AtomicInteger();

    /** Appends completed, batches (forces) that completed them. */
    final AtomicLong appends = new AtomicLong();

    final AtomicLong batches = new AtomicLong();

    /**
     * What the writer spent: bytes written, nanoseconds in writes, in forces, waiting for the
     * housekeeper's zeros (the allocation lock). Written by the writer role's holder; read by any.
     */
    final AtomicLong bytesWritten = new AtomicLong();

    final AtomicLong writeNanos = new AtomicLong();
    final AtomicLong forces = new AtomicLong();

    /**
     * Forces by time: bucket {@code i} counts those of {@code [62.5 us * 2^i, 62.5 us * 2^(i+1))}
     * (bucket 0 from 0). For the statistics.
     */
    final java.util.concurrent.atomic.AtomicLongArray forceHistogram =
            new java.util.concurrent.atomic.AtomicLongArray(16);

    /** Records written, by kind ({@link LogRecord}'s constants). The writer role writes. */
    final java.util.concurrent.atomic.AtomicLongArray recordsByKind =
            new java.util.concurrent.atomic.AtomicLongArray(16);

    final AtomicLong forceNanos = new AtomicLong();
    final AtomicLong allocWaitNanos = new AtomicLong();

    /** Forced appends, and the nanoseconds they waited in the queue before the writer took them. */
    final AtomicLong forcedAppends = new AtomicLong();

    final AtomicLong forcedQueueNanos = new AtomicLong();

    private final Thread writer;
    final Housekeeper housekeeper;

    /** One append: a group of records and when they are durable. */
    private record Request(
            List<LogRecord> group,
            long bytes,
            boolean direct,
            boolean force,
            long queuedAt,
            CompletableFuture<Void> done) {}

    /**
     * Whether frames were written since the last force, and since when (nanoTime). Guarded by the
     * writer role.
     */
    private boolean unforced;

    private long unforcedSince;

    /**
     * Whether the writer thread must take the writer role at {@code commitDueAt} (nanoTime) to
     * force lazy appends that nothing else forced. Guarded by {@code queueLock}, not the role: the
     * writer thread waits on it while it does not hold the role, so it never reads {@code unforced}
     * or {@code unforcedSince} there. Set by a holder whose batch left frames unforced where none
     * were ({@link #scheduleCommit}: once per commit interval at most), whichever thread it is;
     * cleared by the writer thread when it acts on it. A deadline that a force made stale costs one
     * look under the role ({@link #process} forces only what waited the whole interval).
     */
    private boolean commitDue;

    private long commitDueAt;

    /**
     * Completes the appends whose futures run Pekko's callbacks (the journal's and snapshot
     * store's), off the writer thread: with the plugins on the calling-thread dispatcher those
     * callbacks run the persistent actors' whole reply chain where they are completed, and the
     * writer must get on with the next batch meanwhile.
     */
    private final java.util.concurrent.ExecutorService completer;

    /**
     * A live frame compaction copies to the head, or (with {@code record == null}) a marker that
     * completes once every copy queued before it is durable.
     */
    record Copy(
            LogIndex.Key key, long from, long lsn, LogRecord record, CompletableFuture<Void> done) {
        int bytes() {
            return record == null ? 0 : record.frameLength();
        }
    }

    private SegmentLog(Path dir, Settings settings) throws IOException {
        this.dir = dir;
        this.settings = settings;
        Files.createDirectories(dir);
        lockChannel =
                FileChannel.open(
                        dir.resolve("LOCK"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock l;
        try {
            l = lockWaiting(lockChannel, dir);
        } catch (IOException | RuntimeException e) {
            lockChannel.close();
            throw e;
        }
        lock = l;
        index = new LogIndex(new Accounts());
        try {
            LogRecovery.recover(this);
        } catch (IOException | RuntimeException e) {
            closeChannels();
            throw e;
        }
        completer =
                java.util.concurrent.Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "seqvfs-log-" + id + "-completer");
                            t.setDaemon(true);
                            return t;
                        });
        writer = new Thread(this::writerLoop, "seqvfs-log-" + id + "-writer");
        writer.setDaemon(true);
        housekeeper = new Housekeeper(this);
        writer.start();
        housekeeper.start();
    }

    private static FileLock lockWaiting(FileChannel ch, Path dir) throws IOException {
        long deadline = System.nanoTime() + OPEN_WAIT_MILLIS * 1_000_000;
        while (true) {
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null;
            }
            if (l != null) {
                return l;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("segment log " + dir + " is held by another process");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("waiting for the lock of " + dir);
            }
        }
    }

    /** {@return this open log's id, unique in the JVM (for {@link #byId})} */
    public int id() {
        return id;
    }

    /** {@return the log's directory} */
    public Path directory() {
        return dir;
    }

    /** Updates the segments' live bytes and tombstones as the index changes. */
    private final class Accounts implements LogIndex.Accounting {
        @Override
        public void live(long loc, int size) {
            Segment s = segments.get(seg(loc));
            if (s != null) {
                s.live.addAndGet(size);
            }
        }

        @Override
        public void dead(long loc, int size) {
            Segment s = segments.get(seg(loc));
            if (s != null) {
                s.live.addAndGet(-size);
            }
        }

        @Override
        public void tombstone(long loc) {
            Segment s = segments.get(seg(loc));
            if (s != null) {
                s.tombstones.incrementAndGet();
            }
        }
    }

    // ---- locations ---------------------------------------------------------------------------

    /** {@return the location of the frame at {@code off} of segment {@code seg}} */
    static long loc(long seg, long off) {
        return seg << 40 | off;
    }

    /** {@return the segment number of location {@code loc}} */
    static long seg(long loc) {
        return loc >>> 40;
    }

    /** {@return the offset of location {@code loc}} */
    static long off(long loc) {
        return loc & ((1L << 40) - 1);
    }

    // ---- appends -----------------------------------------------------------------------------

    /**
     * Queues {@code group} (one atomic group: at recovery all of it or none) and returns at once.
     *
     * @param group the records, in order
     * @return completes once they are forced to the device and in the index; fails with the
     *     writer's {@code IOException} (nothing of the group is acknowledged; it may or may not be
     *     on disk), or if the log is closed
     */
    CompletableFuture<Void> append(List<LogRecord> group) {
        return append(group, false, true);
    }

    /**
     * Queues {@code group} to be written at once and forced later: by the next batch that is forced
     * (any append but a lazy one), by {@link #force}, or within {@link Settings#commitMillis},
     * whichever comes first. Its future completes once it is written (in the page cache, and in the
     * index), not forced. What a crash keeps is still a prefix of the log: frames after one the
     * crash lost are never read. For writes whose durability a later barrier provides (an {@code
     * async} mount's journal, snapshots, deletions of events).
     *
     * @param group the records, in order (one atomic group)
     * @return completes once the group is written
     */
    public CompletableFuture<Void> appendLazy(List<LogRecord> group) {
        return append(group, false, false);
    }

    /**
     * {@return a future completed once everything written before this call is forced} (at once if
     * nothing is waiting to be forced). A barrier for lazy appends.
     */
    public CompletableFuture<Void> force() {
        return append(List.of(), false, true);
    }

    /**
     * Queues {@code group} as {@link #append(List)} does; with {@code direct}, the returned future
     * is completed on the writer thread itself (for a caller that waits for it and chains nothing
     * long to it: the completion then costs one wake-up, not two), else on the log's completer
     * thread.
     */
    CompletableFuture<Void> append(List<LogRecord> group, boolean direct) {
        return append(group, direct, true);
    }

    private CompletableFuture<Void> append(List<LogRecord> group, boolean direct, boolean force) {
        return append(group, direct, force, true);
    }

    private CompletableFuture<Void> append(
            List<LogRecord> group, boolean direct, boolean force, boolean signal) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long bytes = 0;
        for (LogRecord r : group) {
            bytes += r.frameLength();
        }
        IOException b = broken;
        if (b != null) {
            done.completeExceptionally(b);
            return done;
        }
        queueLock.lock();
        try {
            if (closing) {
                done.completeExceptionally(new IOException("segment log " + dir + " is closed"));
                return done;
            }
            pending.add(new Request(group, bytes, direct, force, System.nanoTime(), done));
            arrived.signal();
            if (signal) {
                work.signal();
            }
        } finally {
            queueLock.unlock();
        }
        return done;
    }

    /**
     * Appends {@code group} and waits until it is durable (uninterruptibly: the write goes on
     * anyway; the thread's interrupt status is kept).
     *
     * @param group the records, in order (one atomic group)
     * @throws UncheckedIOException if the write failed (nothing acknowledged) or the log is closed
     */
    void write(List<LogRecord> group) {
        appendAndWait(group, true);
    }

    /**
     * Waits for {@code f} (an append or a force of a log) uninterruptibly (the thread's interrupt
     * status is kept).
     *
     * @param f the future
     * @throws UncheckedIOException with the {@code IOException} {@code f} failed with
     */
    public static void await(CompletableFuture<Void> f) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    f.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable c = e.getCause();
                    throw c instanceof IOException io
                            ? new UncheckedIOException(io)
                            : new UncheckedIOException(new IOException(c));
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Queues a compaction copy (housekeeper thread), waiting while {@link #MAX_COPY_QUEUE} bytes of
     * them wait.
     *
     * @return {@code false} if the log is closing (nothing queued)
     */
    boolean queueCopy(Copy c) throws InterruptedException {
        queueLock.lock();
        try {
            while (copyBytes > MAX_COPY_QUEUE && !closing) {
                room.await();
            }
            if (closing) {
                return false;
            }
            copies.add(c);
            copyBytes += c.bytes();
            work.signal();
            return true;
        } finally {
            queueLock.unlock();
        }
    }

    /**
     * The writer role: whoever holds it writes (the writer thread, or a caller that waits for its
     * own append and finds the role free: {@link #appendAndWait}). Guards {@code head}'s writes,
     * {@code lsn}, {@code unforced}, {@code unforcedSince} and {@code buf}.
     */
    private final ReentrantLock writerRole = new ReentrantLock();

    /** The batch buffer; guarded by {@code writerRole}. */
    private ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);

    private void writerLoop() {
        while (true) {
            queueLock.lock();
            try {
                boolean commit = false;
                while (pending.isEmpty() && copies.isEmpty() && !closing) {
                    if (!commitDue) {
                        work.awaitUninterruptibly();
                        continue;
                    }
                    long left = commitDueAt - System.nanoTime();
                    if (left <= 0) {
                        commitDue = false;
                        commit = true; // lazy appends waited long enough: force them now
                        break;
                    }
                    try {
                        work.awaitNanos(left);
                    } catch (InterruptedException e) {
                        // the writer is not interrupted; go round
                    }
                }
                if (pending.isEmpty() && copies.isEmpty() && !commit) {
                    break; // closing, all written
                }
            } finally {
                queueLock.unlock();
            }
            writerRole.lock();
            try {
                takeAndProcess(true);
            } finally {
                writerRole.unlock();
            }
        }
        writerRole.lock();
        try {
            if (broken == null) {
                Segment h = head;
                writeMark(h, h.end, LogRecord.CLOSE);
            }
        } catch (IOException e) {
            LOG.warn("segment log {}: close record not written: {}", dir, e.toString());
        } finally {
            writerRole.unlock();
        }
    }

    /**
     * Takes one batch from the queue (with compaction copies when {@code withCopies}) and writes it
     * ({@link #process}); with nothing queued, forces lazy appends that waited past the commit
     * interval. The caller holds the writer role.
     */
    private void takeAndProcess(boolean withCopies) {
        List<Request> reqs = new ArrayList<>();
        List<Copy> cps = new ArrayList<>();
        queueLock.lock();
        try {
            long bytes = 0;
            while (!pending.isEmpty()
                    && (reqs.isEmpty() || bytes + pending.peek().bytes() <= MAX_BATCH)) {
                Request r = pending.poll();
                bytes += r.bytes();
                reqs.add(r);
            }
            boolean forced = false;
            for (Request r : reqs) {
                forced |= r.force();
            }
            if (settings.batchWait() && forced && lastBatch > 1 && !closing) {
                // as jbd2 does when several writers sync at once: hold the force back for a
                // fraction of a force's time, so that more of them join this one
                long deadline = reqs.get(0).queuedAt() + Math.min(avgForceNanos / 2, 1_000_000L);
                long left;
                while ((left = deadline - System.nanoTime()) > 0 && !closing) {
                    try {
                        arrived.awaitNanos(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                while (!pending.isEmpty() && bytes + pending.peek().bytes() <= MAX_BATCH) {
                    Request r = pending.poll();
                    bytes += r.bytes();
                    reqs.add(r);
                }
            }
            lastBatch = reqs.size();
            long cb = 0;
            while (withCopies
                    && !copies.isEmpty()
                    && (cps.isEmpty() || cb + copies.peek().bytes() <= MAX_COPY_BATCH)) {
                Copy c = copies.poll();
                cb += c.bytes();
                copyBytes -= c.bytes();
                cps.add(c);
            }
            room.signalAll();
        } finally {
            queueLock.unlock();
        }
        buf = process(reqs, cps, buf);
    }

    /**
     * Appends {@code group} (forced or lazy) and waits until it is done, writing it on this thread
     * when the writer role is free (leader/follower group commit: the leader writes every append
     * queued by then, its own among them, and forces once; a caller that finds the role taken waits
     * for its holder or the writer thread). A lone {@code fsync} so costs no hand-over to the
     * writer thread and back. Uninterruptible (the interrupt status is kept).
     *
     * @param group the records, in order (one atomic group)
     * @param force whether to force it (else it is written, and forced later: {@link #appendLazy})
     * @throws UncheckedIOException if the write failed (nothing acknowledged) or the log is closed
     */
    void appendAndWait(List<LogRecord> group, boolean force) {
        CompletableFuture<Void> f = append(group, true, force, false);
        if (!f.isDone()) {
            if (writerRole.tryLock()) {
                try {
                    while (!f.isDone()) {
                        takeAndProcess(false);
                    }
                } finally {
                    writerRole.unlock();
                }
                signalIfQueued();
            } else {
                signalIfQueued(); // the holder may be a leader about to let go
            }
        }
        await(f);
    }

    /**
     * Tells the writer thread to force, at {@code at} (nanoTime), frames this batch left unforced
     * where none were, and wakes it (it may be waiting with no deadline: a leader wrote the batch).
     * The writer role's holder.
     */
    private void scheduleCommit(long at) {
        queueLock.lock();
        try {
            commitDue = true;
            commitDueAt = at;
            work.signal();
        } finally {
            queueLock.unlock();
        }
    }

    /** Wakes the writer thread if anything waits in the queue. */
    private void signalIfQueued() {
        queueLock.lock();
        try {
            if (!pending.isEmpty() || !copies.isEmpty()) {
                work.signal();
            }
        } finally {
            queueLock.unlock();
        }
    }

    /** Writes one batch: copies still live, then the appends; one force; index; completions. */
    private ByteBuffer process(List<Request> reqs, List<Copy> cps, ByteBuffer buffer) {
        ByteBuffer buf = buffer;
        IOException b = broken;
        if (b != null) {
            fail(reqs, cps, b);
            return buf;
        }
        List<Copy> live = new ArrayList<>(cps.size());
        long total = 0;
        for (Copy c : cps) {
            if (c.record() != null && index.isCurrent(c.key(), c.from())) {
                live.add(c);
                total += c.bytes();
            }
        }
        for (Request r : reqs) {
            total += r.bytes();
        }
        long taken = System.nanoTime();
        for (Request r : reqs) {
            if (r.force()) {
                forcedAppends.incrementAndGet();
                forcedQueueNanos.addAndGet(taken - r.queuedAt());
            }
        }
        boolean force =
                !cps.isEmpty()
                        || (unforced
                                && System.nanoTime() - unforcedSince
                                        >= settings.commitMillis() * 1_000_000L);
        for (Request r : reqs) {
            force |= r.force();
        }
        Segment h = head;
        long start = h.end;
        boolean began = false; // whether this batch's frames began an unforced stretch
        try {
            if (total > 0 && start > 0 && start + total + sealLength() > settings.segmentBytes()) {
                roll(); // the seal forces what was written before
                unforced = false;
                h = head;
                start = h.end;
            }
            if (buf.capacity() < total) {
                buf = ByteBuffer.allocateDirect((int) Math.max(total, buf.capacity() * 2L));
            }
            buf.clear();
            long[] copyLocs = new long[live.size()];
            for (int i = 0; i < live.size(); i++) {
                Copy c = live.get(i);
                copyLocs[i] = loc(h.number, start + buf.position());
                c.record().writeFrame(buf, h.number, c.lsn(), (byte) 0);
            }
            List<long[]> locs = new ArrayList<>();
            long firstLsn = lsn + 1;
            for (Request r : reqs) {
                List<LogRecord> g = r.group();
                for (int i = 0; i < g.size(); i++) {
                    LogRecord rec = g.get(i);
                    locs.add(new long[] {loc(h.number, start + buf.position()), rec.frameLength()});
                    rec.writeFrame(buf, h.number, ++lsn, i < g.size() - 1 ? LogRecord.MORE : 0);
                }
            }
            buf.flip();
            if (failNext.get() > 0 && failNext.decrementAndGet() >= 0) {
                lsn = firstLsn - 1;
                throw new IOException("injected write failure (test)");
            }
            long t0 = System.nanoTime();
            if (total > 0) {
                writeAt(h, buf, start);
                bytesWritten.addAndGet(total);
                if (!unforced) {
                    unforced = true;
                    unforcedSince = t0;
                    began = true;
                }
            }
            long t1 = System.nanoTime();
            writeNanos.addAndGet(t1 - t0);
            if (force && unforced) {
                h.channel.force(false);
                unforced = false;
                forces.incrementAndGet();
                long ft = System.nanoTime() - t1;
                forceNanos.addAndGet(ft);
                avgForceNanos += (ft - avgForceNanos) / 8;
                forceHistogram.incrementAndGet(
                        Math.min(15, 63 - Long.numberOfLeadingZeros(Math.max(1, ft / 62_500))));
            }
            h.end = start + total;
            for (int i = 0; i < live.size(); i++) {
                Copy c = live.get(i);
                index.move(c.key(), c.from(), copyLocs[i], c.bytes());
            }
            int k = 0;
            for (Request r : reqs) {
                for (LogRecord rec : r.group()) {
                    recordsByKind.incrementAndGet(rec.kind);
                    long[] at = locs.get(k++);
                    index.apply(
                            LogIndex.parse(rec.kind, ByteBuffer.wrap(rec.head)),
                            at[0],
                            (int) at[1]);
                }
            }
            batches.incrementAndGet();
            appends.addAndGet(reqs.size());
            if (began && unforced) {
                // nothing may come to force them: the writer thread will, once they waited the
                // commit interval (a leader's lazy append would otherwise wait for the next write)
                scheduleCommit(unforcedSince + settings.commitMillis() * 1_000_000L);
            }
        } catch (IOException | RuntimeException e) {
            IOException io = e instanceof IOException x ? x : new IOException(e);
            LOG.error(
                    "segment log {}: a batch of {} appends failed: {}",
                    dir,
                    reqs.size(),
                    e.toString());
            fail(reqs, cps, io);
            recoverFromFailure(h, start, io);
            return buf;
        }
        List<Request> later = null;
        for (Request r : reqs) {
            if (r.direct()) {
                r.done().complete(null);
            } else {
                if (later == null) {
                    later = new ArrayList<>();
                }
                later.add(r);
            }
        }
        if (later != null) {
            List<Request> rs = later;
            Runnable complete =
                    () -> {
                        for (Request r : rs) {
                            r.done().complete(null);
                        }
                    };
            if (Thread.currentThread() == writer && queueEmpty()) {
                complete.run(); // nothing waits for the writer: spare the hand-over
            } else {
                completer.execute(complete); // (a leading caller returns to its own work)
            }
        }
        for (Copy c : cps) {
            if (c.record() == null) {
                c.done().complete(null);
            }
        }
        housekeeper.wakeIfLow(h);
        return buf;
    }

    /** {@return whether no append waits in the queue (a racy hint, for the writer)} */
    private boolean queueEmpty() {
        queueLock.lock();
        try {
            return pending.isEmpty();
        } finally {
            queueLock.unlock();
        }
    }

    private static void fail(List<Request> reqs, List<Copy> cps, IOException e) {
        for (Request r : reqs) {
            r.done().completeExceptionally(e);
        }
        for (Copy c : cps) {
            if (c.record() == null) {
                c.done().completeExceptionally(e);
            }
        }
    }

    /**
     * After a failed batch: seals the head where the batch began (whatever of it reached the disk
     * is never read) and rolls to a new segment; if even that fails, the log is broken and every
     * later append fails.
     */
    private void recoverFromFailure(Segment h, long start, IOException cause) {
        try {
            writeMark(h, start, LogRecord.SEAL);
            unforced = false;
            h.end = start + sealLength();
            h.sealed = true;
            head = newSegment(h.number + 1);
        } catch (IOException e) {
            e.addSuppressed(cause);
            broken = e;
            LOG.error(
                    "segment log {}: broken, every write fails until it is opened again: {}",
                    dir,
                    e.toString());
        }
    }

    /** Writes {@code buf} at {@code pos} of {@code h}, under the allocation lock past its zeros. */
    private void writeAt(Segment h, ByteBuffer buf, long pos) throws IOException {
        long endAfter = pos + buf.remaining();
        if (endAfter <= h.allocated) {
            h.writeFully(buf, pos);
            return;
        }
        long t0 = System.nanoTime();
        allocLock.lock();
        try {
            allocWaitNanos.addAndGet(System.nanoTime() - t0);
            h.writeFully(buf, pos);
            h.allocated = Math.max(h.allocated, endAfter);
        } finally {
            allocLock.unlock();
        }
    }

    /** {@return the length of a seal's (or close's) frame} */
    static int sealLength() {
        return LogRecord.HEADER;
    }

    /** Writes a seal or close frame at {@code pos} of {@code s} and forces it. */
    void writeMark(Segment s, long pos, byte kind) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(sealLength());
        LogRecord.mark(kind).writeFrame(b, s.number, kind == LogRecord.SEAL ? 0 : lsn, (byte) 0);
        b.flip();
        writeAt(s, b, pos);
        s.channel.force(false);
    }

    /** Seals the head and makes the next segment the head. The writer role's holder. */
    private void roll() throws IOException {
        Segment h = head;
        writeMark(h, h.end, LogRecord.SEAL);
        h.end += sealLength();
        h.sealed = true;
        head = newSegment(h.number + 1);
    }

    /**
     * Makes segment {@code n}: the file (none of that name may exist), its first zeros, forced, and
     * the directory forced, so that the file is there after a crash before any frame is.
     */
    Segment newSegment(long n) throws IOException {
        Path p = dir.resolve(Segment.fileName(n));
        FileChannel ch =
                FileChannel.open(
                        p,
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
        Segment s = new Segment(n, p, ch);
        try {
            long first =
                    Math.min(
                            settings.preallocBytes(),
                            Math.max(64 << 10, settings.segmentBytes() / 16));
            Housekeeper.zeros(s, 0, first);
            ch.force(true);
            s.allocated = first;
            forceDirectory();
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        segments.put(n, s);
        return s;
    }

    /** Forces the log's directory (a made or removed segment file). */
    void forceDirectory() throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    // ---- reads -------------------------------------------------------------------------------

    /** Reads frames. */
    interface Reader<T> {
        /**
         * Reads what it needs through {@link SegmentLog#body}.
         *
         * @return the result
         */
        T read() throws IOException;
    }

    /**
     * {@return what {@code r} reads, with no segment removed meanwhile}: look the locations up in
     * the index and read them inside {@code r}. Blocks for the disk.
     *
     * @throws UncheckedIOException if a read fails or a frame's CRC does not match (corruption)
     */
    <T> T read(Reader<T> r) {
        segmentsLock.readLock().lock();
        try {
            return r.read();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            segmentsLock.readLock().unlock();
        }
    }

    /**
     * {@return the body of the frame at {@code loc}, {@code size} bytes long, its CRCs checked}
     * Call inside {@link #read}.
     */
    ByteBuffer body(long loc, int size) throws IOException {
        Segment s = segments.get(seg(loc));
        if (s == null) {
            throw new IOException(
                    "segment log " + dir + ": frame of a removed segment " + seg(loc));
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        if (!s.readFully(b, off(loc))) {
            throw new IOException(s + " ends before offset " + (off(loc) + size));
        }
        int length = b.getInt(0);
        if (length != size - LogRecord.HEADER
                || b.getInt(18) != LogRecord.headerCrc(s.number, b, 0)
                || LogRecord.crc(b.array(), LogRecord.HEADER, length) != b.getInt(4)) {
            throw new IOException(s + ": the frame at offset " + off(loc) + " is corrupt");
        }
        return ByteBuffer.wrap(b.array(), LogRecord.HEADER, length).slice();
    }

    /** {@return the file contents and metadata in this log} */
    public LogContent content() {
        return content;
    }

    /**
     * Makes the next {@code n} batches fail with an {@code IOException} before anything of them is
     * written, as a failing disk would (tests of the callers' error paths; the log then seals its
     * head and goes on in a new segment).
     *
     * @param n batches to fail
     */
    public void injectWriteFailures(int n) {
        failNext.set(n);
    }

    /**
     * {@return what the writer did since the log opened, one line: appends, batches (forces),
     * bytes, and the mean time of a write, a force and a wait for preallocated space}
     */
    public String stats() {
        long b = Math.max(1, batches.get());
        long f = Math.max(1, forces.get());
        return String.format(
                        "%d appends in %d batches, %d forces (%.1f appends per force), %.1f MB written;"
                                + " write %.0f us per batch, force %.0f us, wait for zeros %.0f us per"
                                + " batch",
                        appends.get(),
                        batches.get(),
                        forces.get(),
                        appends.get() / (double) f,
                        bytesWritten.get() / 1e6,
                        writeNanos.get() / 1e3 / b,
                        forceNanos.get() / 1e3 / f,
                        allocWaitNanos.get() / 1e3 / b)
                + String.format(
                        "; a forced append waited %.0f us in the queue",
                        forcedQueueNanos.get() / 1e3 / Math.max(1, forcedAppends.get()))
                + "; forces under 0.125/0.25/0.5/1/2/4/8/16/32 ms, more:"
                + histogram()
                + "; records: events "
                + recordsByKind.get(LogRecord.EVENT)
                + ", snapshots "
                + recordsByKind.get(LogRecord.SNAPSHOT)
                + ", blocks "
                + recordsByKind.get(LogRecord.BLOCK)
                + ", rows "
                + recordsByKind.get(LogRecord.FILE)
                + ", other "
                + (recordsByKind.get(LogRecord.EVENTS_DELETED)
                        + recordsByKind.get(LogRecord.META)
                        + recordsByKind.get(LogRecord.BLOCKS_DELETED)
                        + recordsByKind.get(LogRecord.INODE_DELETED)
                        + recordsByKind.get(LogRecord.SNAPSHOT_DELETED)
                        + recordsByKind.get(LogRecord.SNAPSHOTS_DELETED));
    }

    private String histogram() {
        StringBuilder b = new StringBuilder();
        long more = 0;
        for (int i = 0; i < forceHistogram.length(); i++) {
            if (i < 9) {
                b.append(' ').append(forceHistogram.get(i));
            } else {
                more += forceHistogram.get(i);
            }
        }
        return b.append(' ').append(more).toString();
    }

    /** {@return {appends completed, batches that completed them}} For tests. */
    public long[] groupCounts() {
        return new long[] {appends.get(), batches.get()};
    }

    /** {@return the segment files' numbers, oldest first} For tests. */
    List<Long> segmentNumbers() {
        return new ArrayList<>(segments.keySet());
    }

    /** {@return the bytes of every segment's valid frames} For tests and statistics. */
    public long bytes() {
        long n = 0;
        for (Segment s : segments.values()) {
            n += s.end;
        }
        return n;
    }

    /** {@return the bytes of live frames} For tests and statistics. */
    public long liveBytes() {
        long n = 0;
        for (Segment s : segments.values()) {
            n += s.live.get();
        }
        return n;
    }

    /**
     * Closes one open of the log; the last one writes what is queued, a close record, stops the
     * threads, closes the files and unlocks the directory. Blocks for the disk.
     */
    @Override
    public void close() {
        synchronized (OPEN) {
            if (--refs > 0) {
                return;
            }
            OPEN.remove(dir, this);
            BY_ID.remove(id, this);
        }
        LOG.debug("segment log {} closed: {}", dir, stats());
        queueLock.lock();
        try {
            closing = true;
            work.signalAll();
            room.signalAll();
        } finally {
            queueLock.unlock();
        }
        housekeeper.stop();
        boolean interrupted = false;
        while (true) {
            try {
                writer.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        housekeeper.join();
        completer.shutdown();
        try {
            if (!completer.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS)) {
                LOG.warn("segment log {}: completions still running after 30 s", dir);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        closeChannels();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeChannels() {
        for (Segment s : segments.values()) {
            try {
                s.channel.close();
            } catch (IOException e) {
                LOG.warn("segment log {}: close of {}: {}", dir, s, e.toString());
            }
        }
        try {
            if (lock != null) {
                lock.release();
            }
            lockChannel.close();
        } catch (IOException e) {
            LOG.warn("segment log {}: unlock: {}", dir, e.toString());
        }
    }

    @Override
    public String toString() {
        return "segment log " + dir;
    }
}
