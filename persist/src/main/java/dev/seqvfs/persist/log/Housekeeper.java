package dev.seqvfs.persist.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segment log's second thread: keeps zeros written and forced ahead of the writer in the head
 * segment (so that the writer's force flushes data, not file metadata), removes segments with
 * nothing live, and compacts.
 *
 * <h2>Compaction</h2>
 *
 * While dead bytes exceed {@code compactRatio} of the sealed segments' bytes and {@code
 * compactMinBytes}, the oldest segment is compacted: its frames the index still points at are read
 * and handed to the writer as copies ({@link SegmentLog.Copy}), which writes each that is still
 * live when it takes it (checked against the index under the writer role, whose holder alone
 * changes it) at the head, keeping its log sequence number, and moves the index to it; once they
 * are durable the segment has nothing live and is removed (under the segment write lock, so no
 * reader is in it), and the directory forced. Its tombstones are dropped, not copied: the segment
 * is the oldest, and a tombstone only ever kills records in its own segment or older ones (a copy
 * is only made of a record live at the copy, and lands in a segment newer than any tombstone
 * applied before it), so none is left for it to kill. The directory is forced after each removal,
 * so that no crash brings back an older segment after a newer one's tombstones went. A sealed
 * segment with nothing live and no tombstone is removed wherever it is; the oldest with nothing
 * live, whatever it holds.
 *
 * <p>Thread-safety: one thread; it shares the log's state as {@link SegmentLog} says.
 */
final class Housekeeper {
    private static final Logger LOG = LoggerFactory.getLogger(Housekeeper.class);

    /** Zeros to write from. */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20);

    private final SegmentLog log;
    private final Thread thread;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private boolean woken;
    private volatile boolean stopping;

    /** Segments removed by compaction or as empty (tests). */
    volatile long removed;

    /** Segments compacted (tests). */
    volatile long compacted;

    Housekeeper(SegmentLog log) {
        this.log = log;
        this.thread = new Thread(this::loop, "seqvfs-log-" + log.id() + "-housekeeper");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() {
        stopping = true;
        signal();
    }

    void join() {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Wakes the housekeeper if the head's zeros run low (the writer role, after a batch). */
    void wakeIfLow(Segment h) {
        if (h.allocated - h.end < log.settings.preallocBytes() / 2) {
            signal();
        }
    }

    /** Wakes the housekeeper (tests: compact now). */
    void signal() {
        lock.lock();
        try {
            woken = true;
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    private void loop() {
        while (!stopping) {
            boolean busy;
            try {
                preallocate();
                busy = removeEmpty() || compactOldest();
            } catch (IOException | RuntimeException e) {
                LOG.warn("segment log {}: housekeeping: {}", log.dir, e.toString());
                busy = false;
            } catch (InterruptedException e) {
                return;
            }
            if (!busy) {
                lock.lock();
                try {
                    if (!woken && !stopping) {
                        wake.await(200, TimeUnit.MILLISECONDS);
                    }
                    woken = false;
                } catch (InterruptedException e) {
                    return;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** Writes {@code len} zero bytes at {@code pos} of {@code s} (not forced). */
    static void zeros(Segment s, long pos, long len) throws IOException {
        long p = pos;
        long left = len;
        while (left > 0) {
            ByteBuffer z = ZEROS.duplicate();
            z.limit((int) Math.min(left, z.capacity()));
            int n = z.remaining();
            s.writeFully(z, p);
            p += n;
            left -= n;
        }
    }

    /**
     * Keeps at least half a step of zeros ahead of the head's end, a step at a time, up to the
     * segment's size: written, forced, then published ({@code allocated}) under the allocation
     * lock, which the writer takes only to write past them.
     */
    private void preallocate() throws IOException {
        Segment h = log.head;
        long step = log.settings.preallocBytes();
        if (h == null || h.sealed || h.allocated - h.end >= step / 2) {
            return;
        }
        long limit = Math.max(log.settings.segmentBytes(), h.end + step);
        log.allocLock.lock();
        try {
            long from = h.allocated;
            long len = Math.min(step, limit - from);
            if (h.sealed || len <= 0) {
                return;
            }
            zeros(h, from, len);
            h.channel.force(false);
            h.allocated = from + len;
        } finally {
            log.allocLock.unlock();
        }
    }

    /** Removes one sealed segment with nothing live that may go; {@return whether one went} */
    private boolean removeEmpty() throws IOException {
        Map.Entry<Long, Segment> first = log.segments.firstEntry();
        for (Segment s : log.segments.values()) {
            if (!s.sealed || s == log.head || s.live.get() != 0) {
                continue;
            }
            if (s.tombstones.get() == 0 || s == first.getValue()) {
                remove(s);
                return true;
            }
        }
        return false;
    }

    /** Compacts the oldest segment if dead bytes call for it; {@return whether it did} */
    private boolean compactOldest() throws IOException, InterruptedException {
        long sealed = 0;
        long live = 0;
        for (Segment s : log.segments.values()) {
            if (s.sealed) {
                sealed += s.end;
                live += s.live.get();
            }
        }
        long dead = sealed - live;
        if (dead < log.settings.compactMinBytes() || dead < log.settings.compactRatio() * sealed) {
            return false;
        }
        Segment victim = log.segments.firstEntry().getValue();
        if (!victim.sealed || victim == log.head) {
            return false;
        }
        compact(victim);
        return true;
    }

    /** Copies {@code victim}'s live frames to the head, then removes it. */
    void compact(Segment victim) throws IOException, InterruptedException {
        boolean[] going = {true};
        victim.scan(
                (off, lsn, kind, flags, body, crc) -> {
                    if (kind == LogRecord.SEAL || stopping) {
                        return false;
                    }
                    if (kind == LogRecord.CLOSE
                            || kind == LogRecord.SNAPSHOT_DELETED
                            || kind == LogRecord.SNAPSHOTS_DELETED
                            || kind == LogRecord.BLOCKS_DELETED
                            || kind == LogRecord.INODE_DELETED) {
                        return true; // tombstones of the oldest segment: dropped
                    }
                    LogIndex.Key k = LogIndex.parse(kind, body.duplicate());
                    long loc = SegmentLog.loc(victim.number, off);
                    if (!log.index.isCurrent(k, loc)) {
                        return true;
                    }
                    byte[] bytes = new byte[body.remaining()];
                    body.duplicate().get(bytes);
                    try {
                        going[0] =
                                log.queueCopy(
                                        new SegmentLog.Copy(
                                                k,
                                                loc,
                                                lsn,
                                                LogRecord.read(kind, bytes, crc),
                                                null));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        going[0] = false;
                    }
                    return going[0];
                });
        if (!going[0] || stopping) {
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!log.queueCopy(new SegmentLog.Copy(null, 0, 0, null, done))) {
            return;
        }
        try {
            done.get();
        } catch (ExecutionException e) {
            throw new IOException("compaction of " + victim + ": " + e.getCause(), e.getCause());
        }
        compacted++;
        if (victim.live.get() != 0) {
            LOG.warn(
                    "segment log {}: {} still has {} live bytes after its compaction; kept",
                    log.dir,
                    victim,
                    victim.live.get());
            return;
        }
        remove(victim);
    }

    /** Removes sealed segment {@code s}: from the map and closed under the write lock, unlinked. */
    private void remove(Segment s) throws IOException {
        log.segmentsLock.writeLock().lock();
        try {
            log.segments.remove(s.number, s);
            s.channel.close();
        } finally {
            log.segmentsLock.writeLock().unlock();
        }
        Files.deleteIfExists(s.path);
        log.forceDirectory();
        removed++;
    }
}
