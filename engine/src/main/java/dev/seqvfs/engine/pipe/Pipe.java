package dev.seqvfs.engine.pipe;

import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Poll;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A pipe's buffer, with the semantics of {@code pipe(7)}: a byte ring of {@link #DEFAULT_CAPACITY}
 * bytes (changeable with {@code F_SETPIPE_SZ}), end of file once every writer has closed and the
 * buffer is empty, {@code EPIPE} once every reader has closed, {@code EAGAIN} instead of waiting
 * for non-blocking ends, and writes of at most {@link Limits#PIPE_BUF} bytes that are never
 * interleaved with other writes.
 *
 * <h2>Packet mode</h2>
 *
 * A write through a file with {@code O_DIRECT} ({@code pipe2(O_DIRECT)}, or {@code F_SETFL}) stores
 * packets ({@code pipe(7)}, {@code PIPE_BUF_FLAG_PACKET}): pieces of at most one page (4096 bytes),
 * each taking a whole page of the capacity, so 16 fit in a default pipe whatever their size. As
 * Linux does, the first {@code len % 4096} bytes of such a write join the last stream bytes instead
 * when the pipe is not empty and their last page has room (SeqVFS takes that page's fill to be the
 * stream segment's length modulo 4096). A read gathers stream bytes and stops after the first
 * packet it touches, discarding what of that packet did not fit in the buffer. The reader's own
 * flags do not matter. Measured on Linux 6.18.
 *
 * <h2>Concurrency</h2>
 *
 * All state is guarded by {@code lock} (the analogue of {@code pipe->mutex}); a pipe is a queue
 * with two mutating sides, not a published snapshot. Waiting comes in two forms: plain threads park
 * on {@code notEmpty}/{@code notFull}; asynchronous callers (actors, message-driven clients) get a
 * {@link CompletableFuture} that a later write or read completes. Futures are always completed
 * after {@code lock} is released, so no callback ever runs under it. Nothing here runs on an actor
 * thread, and no actor ever waits here.
 *
 * <p>A named FIFO's pipe ({@link #forFifo(Shutdown)}) starts with no reader and no writer; {@link
 * #openFifo} / {@link #openFifoAsync} count opens and make an open wait for its partner as {@code
 * fifo_open} does: threads park on {@code partner}, async opens get a future completed (after
 * unlocking) by the partner's open. The open counters {@code readOpens}/{@code writeOpens} ({@code
 * r_counter}/{@code w_counter}) only grow, so a partner that opened and closed again while the
 * waiter was parked still wakes it.
 *
 * <p>Every park registers with the instance's {@link Shutdown} first (holding {@code lock}), and
 * re-checks it each time it wakes: the instance's close signals all three conditions (taking {@code
 * lock}, so a signal cannot fall between a waiter's check and its park), and a woken blocking call
 * fails with {@code EIO}, a FIFO open undoing what it counted. An outcome that the close itself can
 * cause (end of file, a short write, because the close released the other end) is reported as
 * {@code EIO} once the instance is shut down. Async callers' futures are failed by the task's view
 * ({@code TaskContext.answer}), not here. An interrupt of a parked thread is {@code EINTR}, its
 * interrupt status left set, and the call has changed nothing (a read took nothing, a FIFO open
 * counts nothing), but for a write that had written some bytes: it returns their count, as {@code
 * pipe_write} does.
 *
 * <h2>Invariants</h2>
 *
 * {@code 0 <= count <= count + packetSlack <= capacity}; while {@code segments} is not empty its
 * lengths add up to {@code count}; a pending async write of at most {@code PIPE_BUF} bytes is taken
 * only when it fits whole; pending operations are served in arrival order.
 *
 * <h2>Why one class</h2>
 *
 * Its length is the four ways of waiting (blocking and async reads and writes) over one ring, one
 * lock and one set of invariants: split, each part would need the lock and the invariants of the
 * others.
 */
public final class Pipe {
    /** Default capacity in bytes (16 pages, as Linux). */
    public static final int DEFAULT_CAPACITY = 65536;

    /**
     * Largest capacity {@code F_SETPIPE_SZ} accepts without privilege ({@code
     * /proc/sys/fs/pipe-max-size}).
     */
    public static final int MAX_CAPACITY = 1 << 20;

    private final Shutdown shutdown;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    private int capacity = DEFAULT_CAPACITY;

    /**
     * The ring of {@code capacity} bytes; null while empty since creation or a resize (allocated by
     * the first write).
     */
    private byte[] buf;

    private int head;
    private int count;
    private int readers;
    private int writers;

    /**
     * Opens for reading so far ({@code r_counter}): a FIFO writer waiting in open waits for it to
     * move.
     */
    private long readOpens;

    /** Opens for writing so far ({@code w_counter}). */
    private long writeOpens;

    /** FIFO opens waiting for a partner: threads park here. */
    private final Condition partner = lock.newCondition();

    private final ArrayDeque<PendingOpen> pendingOpens = new ArrayDeque<>();

    /**
     * The buffered bytes split into stream and packet segments, oldest first; empty while no packet
     * is buffered (then all {@code count} bytes are one stream segment).
     */
    private final ArrayDeque<Segment> segments = new ArrayDeque<>();

    /**
     * Capacity taken by packets beyond their bytes: {@code 4096 - len} for each buffered packet.
     */
    private int packetSlack;

    private static final int PAGE = 4096;

    /** A run of buffered bytes: a packet, or stream bytes written without {@code O_DIRECT}. */
    private static final class Segment {
        int len;
        final boolean packet;
        final int slack;

        Segment(int len, boolean packet) {
            this.len = len;
            this.packet = packet;
            this.slack = packet ? PAGE - len : 0;
        }
    }

    private final ArrayDeque<PendingRead> pendingReads = new ArrayDeque<>();
    private final ArrayDeque<PendingWrite> pendingWrites = new ArrayDeque<>();

    private static final class PendingRead {
        final byte[] dst;
        final int off;
        final int len;
        final CompletableFuture<Integer> result = new CompletableFuture<>();

        PendingRead(byte[] dst, int off, int len) {
            this.dst = dst;
            this.off = off;
            this.len = len;
        }
    }

    private static final class PendingWrite {
        final byte[] src;
        int off;
        int remaining;
        final int total;
        final boolean packet;
        final CompletableFuture<Integer> result = new CompletableFuture<>();

        PendingWrite(byte[] src, int off, int len, boolean packet) {
            this.src = src;
            this.off = off;
            this.remaining = len;
            this.total = len;
            this.packet = packet;
        }
    }

    /**
     * An asynchronous FIFO open waiting for its partner: a writer if {@code forWriter}, else a
     * reader.
     */
    private static final class PendingOpen {
        final boolean forWriter;
        final long seen;
        final CompletableFuture<Void> result = new CompletableFuture<>();

        PendingOpen(boolean forWriter, long seen) {
            this.forWriter = forWriter;
            this.seen = seen;
        }
    }

    /** A completion to run after the lock is released. */
    private record Done(CompletableFuture<Integer> f, int value, Errno error) {
        void fire() {
            if (error != null) {
                f.completeExceptionally(new VfsException(error, Syscall.PIPE, null));
            } else {
                f.complete(value);
            }
        }
    }

    /**
     * Creates a pipe with one reader and one writer (the two ends {@code pipe(2)} returns).
     *
     * @param shutdown the instance's closed state, which ends every wait on this pipe
     */
    public Pipe(Shutdown shutdown) {
        this(1, 1, shutdown);
    }

    private Pipe(int readers, int writers, Shutdown shutdown) {
        this.readers = readers;
        this.writers = writers;
        this.shutdown = shutdown;
    }

    /**
     * Creates a named FIFO's pipe: no reader and no writer until {@link #openFifo} or {@link
     * #openFifoAsync} counts them.
     *
     * @param shutdown the instance's closed state, which ends every wait on this pipe
     * @return the pipe, with no reader and no writer
     */
    public static Pipe forFifo(Shutdown shutdown) {
        return new Pipe(0, 0, shutdown);
    }

    /**
     * Counts a FIFO open ({@code fifo_open} in {@code fs/pipe.c}) and says what it must wait for.
     * Caller holds the lock.
     *
     * @return the open's wait (a reader waits for a writer to open and vice versa), or {@code null}
     *     if it is complete
     * @throws VfsException {@code ENXIO} for a non-blocking write-only open with no reader (nothing
     *     counted)
     */
    private PendingOpen enterFifo(
            boolean reads, boolean writes, boolean nonblock, List<CompletableFuture<Void>> done) {
        if (reads && writes) {
            // O_RDWR never waits: it is its own partner (POSIX leaves it undefined; Linux allows
            // it).
            readers++;
            writers++;
            readOpens++;
            writeOpens++;
            wakePartners(done);
            return null;
        }
        if (reads) {
            readOpens++;
            readers++;
            wakePartners(done);
            return writers == 0 && !nonblock ? new PendingOpen(true, writeOpens) : null;
        }
        if (nonblock && readers == 0) {
            throw new VfsException(Errno.ENXIO, Syscall.OPEN, null);
        }
        writeOpens++;
        writers++;
        wakePartners(done);
        return readers == 0 ? new PendingOpen(false, readOpens) : null;
    }

    /**
     * Whether the partner an open waits for has arrived since it started waiting. Caller holds the
     * lock.
     */
    private boolean partnerCame(PendingOpen w) {
        return (w.forWriter ? writeOpens : readOpens) != w.seen;
    }

    /** Wakes FIFO opens whose partner has come. Caller holds the lock. */
    private void wakePartners(List<CompletableFuture<Void>> done) {
        partner.signalAll();
        pendingOpens.removeIf(
                w -> {
                    if (partnerCame(w)) {
                        done.add(w.result);
                        return true;
                    }
                    return false;
                });
    }

    /**
     * Opens a named FIFO for reading, writing or both ({@code fifo_open}), parking the calling
     * thread until the other side opens when {@code open(2)} says so: a read-only open without
     * {@code O_NONBLOCK} waits for a writer, a write-only open for a reader; {@code
     * O_RDONLY|O_NONBLOCK} and {@code O_RDWR} never wait. The caller must later drop what was
     * counted with {@link #releaseReader()} / {@link #releaseWriter()} (as a {@link PipeEnd} does).
     * Never call it on an actor thread.
     *
     * @param reads whether the end reads
     * @param writes whether the end writes
     * @param nonblock {@code O_NONBLOCK}: fail with {@code EAGAIN} instead of waiting
     * @throws VfsException {@code ENXIO} for {@code O_WRONLY|O_NONBLOCK} without a reader; {@code
     *     EINTR} if the thread is interrupted while waiting (its interrupt status stays set);
     *     {@code EIO} if the instance is closed while it waits. In every case nothing stays
     *     counted.
     */
    public void openFifo(boolean reads, boolean writes, boolean nonblock) {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        boolean undo = false;
        lock.lock();
        try {
            PendingOpen w = enterFifo(reads, writes, nonblock, done);
            while (w != null && !partnerCame(w)) {
                try {
                    await(partner, Syscall.OPEN);
                } catch (VfsException e) {
                    undo = true;
                    throw e;
                }
            }
        } finally {
            lock.unlock();
            done.forEach(f -> f.complete(null));
            if (undo) {
                undoOpen(reads, writes);
            }
        }
    }

    /**
     * The asynchronous twin of {@link #openFifo}: never blocks a thread. The future completes when
     * the open is complete (at once, or when the partner opens). If the future is completed
     * exceptionally by anyone else first (cancelled, timed out), the open is withdrawn and nothing
     * stays counted.
     *
     * @param reads whether the end reads
     * @param writes whether the end writes
     * @param nonblock {@code O_NONBLOCK}: fail with {@code EAGAIN} instead of waiting
     * @return the open's future; failed with {@code ENXIO} as {@link #openFifo}
     */
    public CompletableFuture<Void> openFifoAsync(boolean reads, boolean writes, boolean nonblock) {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        PendingOpen w;
        lock.lock();
        try {
            w = enterFifo(reads, writes, nonblock, done);
            if (w == null) {
                return CompletableFuture.completedFuture(null);
            }
            pendingOpens.add(w);
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            lock.unlock();
            done.forEach(f -> f.complete(null));
        }
        PendingOpen waiting = w;
        var unused =
                w.result.whenComplete(
                        (v, e) -> {
                            if (e != null) {
                                lock.lock();
                                try {
                                    pendingOpens.remove(waiting);
                                } finally {
                                    lock.unlock();
                                }
                                undoOpen(reads, writes);
                            }
                        });
        return w.result;
    }

    private void undoOpen(boolean reads, boolean writes) {
        if (reads) {
            releaseReader();
        }
        if (writes) {
            releaseWriter();
        }
    }

    /** {@return the capacity in bytes ({@code F_GETPIPE_SZ})} */
    public int capacity() {
        lock.lock();
        try {
            return capacity;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code pipe_poll}: the readiness of an end that reads ({@code reads}) and/or writes: {@code
     * POLLIN | POLLRDNORM} when bytes are buffered, {@code POLLHUP} for a reader when no writer is
     * left, {@code POLLOUT | POLLWRNORM} for a writer when at least {@code PIPE_BUF} bytes fit,
     * {@code POLLERR} for a writer when no reader is left. Never blocks beyond the pipe's own lock.
     *
     * @param reads whether the end reads
     * @param writes whether the end writes
     * @return the {@code Poll} bits that hold now
     */
    public int poll(boolean reads, boolean writes) {
        lock.lock();
        try {
            int mask = 0;
            if (reads) {
                if (count > 0) {
                    mask |= Poll.POLLIN | Poll.POLLRDNORM;
                }
                if (writers == 0) {
                    mask |= Poll.POLLHUP;
                }
            }
            if (writes) {
                if (capacity - count - packetSlack >= Limits.PIPE_BUF) {
                    mask |= Poll.POLLOUT | Poll.POLLWRNORM;
                }
                if (readers == 0) {
                    mask |= Poll.POLLERR;
                }
            }
            return mask;
        } finally {
            lock.unlock();
        }
    }

    /** {@return the number of bytes buffered ({@code FIONREAD})} */
    public int available() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sets the capacity ({@code F_SETPIPE_SZ}): the argument is taken as an unsigned int, as {@code
     * fcntl(2)} passes it, and rounded up to a power of two of at least one page ({@code
     * round_pipe_size}: 0 gives one page).
     *
     * @param arg the size asked for in bytes, as {@code fcntl(2)} passes it
     * @return the capacity set
     * @throws VfsException {@code EINVAL} above 2^31 bytes, {@code EPERM} above {@link
     *     #MAX_CAPACITY} (Linux: without {@code CAP_SYS_RESOURCE}; SeqVFS has no privilege here),
     *     {@code EBUSY} if the buffered bytes do not fit
     */
    public int setCapacity(long arg) {
        long size = arg & 0xFFFFFFFFL;
        if (size > 1L << 31) {
            throw new VfsException(Errno.EINVAL, Syscall.FCNTL, null);
        }
        long rounded = size <= 4096 ? 4096 : Long.highestOneBit(size - 1) << 1;
        if (rounded > MAX_CAPACITY) {
            throw new VfsException(Errno.EPERM, Syscall.FCNTL, null);
        }
        int cap = (int) rounded;
        List<Done> done = new ArrayList<>();
        lock.lock();
        try {
            if (count + packetSlack > cap) {
                throw new VfsException(Errno.EBUSY, Syscall.FCNTL, null);
            }
            if (count > 0) {
                byte[] nb = new byte[cap];
                int buffered = count;
                copyOut(nb, 0, buffered);
                buf = nb;
                count = buffered;
            } else {
                buf = null;
            }
            head = 0;
            capacity = cap;
            serveWrites(done);
            notFull.signalAll();
            return cap;
        } finally {
            lock.unlock();
            done.forEach(Done::fire);
        }
    }

    /** Adds a reader (an end opened or duplicated by {@code fork}). */
    public void addReader() {
        lock.lock();
        try {
            readers++;
        } finally {
            lock.unlock();
        }
    }

    /** Adds a writer. */
    public void addWriter() {
        lock.lock();
        try {
            writers++;
        } finally {
            lock.unlock();
        }
    }

    /** Drops a reader; at the last one, blocked and pending writers fail with {@code EPIPE}. */
    public void releaseReader() {
        List<Done> done = new ArrayList<>();
        lock.lock();
        try {
            if (--readers == 0) {
                for (PendingWrite w : pendingWrites) {
                    int written = w.total - w.remaining;
                    done.add(
                            written > 0
                                    ? new Done(w.result, written, null)
                                    : new Done(w.result, 0, Errno.EPIPE));
                }
                pendingWrites.clear();
                notFull.signalAll();
            }
        } finally {
            lock.unlock();
            done.forEach(Done::fire);
        }
    }

    /** Drops a writer; at the last one, blocked and pending readers see end of file. */
    public void releaseWriter() {
        List<Done> done = new ArrayList<>();
        lock.lock();
        try {
            if (--writers == 0) {
                serveReads(done);
                for (PendingRead r : pendingReads) {
                    done.add(new Done(r.result, 0, null));
                }
                pendingReads.clear();
                notEmpty.signalAll();
            }
        } finally {
            lock.unlock();
            done.forEach(Done::fire);
        }
    }

    /**
     * Reads up to {@code len} bytes, waiting (parking this thread) while the pipe is empty and has
     * writers, unless {@code nonblock}.
     *
     * @param dst the buffer the bytes are read into
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @param nonblock {@code O_NONBLOCK}: fail with {@code EAGAIN} instead of waiting
     * @return the bytes read; 0 at end of file (no writer left, nothing buffered)
     * @throws VfsException {@code EAGAIN} if {@code nonblock} and nothing is buffered while writers
     *     remain; {@code EINTR} if the thread is interrupted while waiting (its interrupt status
     *     stays set); {@code EIO} if the instance is closed while it waits
     */
    public int read(byte[] dst, int off, int len, boolean nonblock) {
        if (len == 0) {
            return 0;
        }
        List<Done> done = new ArrayList<>();
        lock.lock();
        try {
            while (count == 0 || !pendingReads.isEmpty()) {
                if (count == 0 && writers == 0) {
                    failIfShutDown(Syscall.READ); // the close released the writers: not EOF
                    return 0;
                }
                if (nonblock) {
                    throw new VfsException(Errno.EAGAIN, Syscall.READ, null);
                }
                await(notEmpty, Syscall.READ);
            }
            int n = take(dst, off, len);
            serveWrites(done);
            notFull.signalAll();
            return n;
        } finally {
            lock.unlock();
            done.forEach(Done::fire);
        }
    }

    /**
     * Reads without blocking any thread: completes now if bytes are buffered (or at end of file),
     * otherwise when a writer provides some, with the number of bytes read.
     *
     * @param dst the buffer the bytes are read into
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @return a future of the bytes read, 0 at end of file
     */
    public CompletableFuture<Integer> readAsync(byte[] dst, int off, int len) {
        List<Done> done = new ArrayList<>();
        lock.lock();
        try {
            if (len == 0) {
                return CompletableFuture.completedFuture(0);
            }
            if (pendingReads.isEmpty() && (count > 0 || writers == 0)) {
                int n = take(dst, off, len);
                serveWrites(done);
                notFull.signalAll();
                return CompletableFuture.completedFuture(n);
            }
            PendingRead r = new PendingRead(dst, off, len);
            pendingReads.add(r);
            return r.result;
        } finally {
            lock.unlock();
            done.forEach(Done::fire);
        }
    }

    /**
     * Writes {@code len} bytes, waiting while there is no room, unless {@code nonblock}. A write of
     * at most {@code PIPE_BUF} bytes is atomic: it waits until it fits whole. A larger blocking
     * write may be split between other writers' writes.
     *
     * @param src the buffer holding the bytes
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @param nonblock {@code O_NONBLOCK}: fail with {@code EAGAIN} instead of waiting
     * @return the bytes written ({@code len}, or fewer for a non-blocking write of more than {@code
     *     PIPE_BUF} bytes that partly fit, or for a blocking one interrupted after it wrote some)
     * @throws VfsException {@code EPIPE} if no reader is left (before anything was written), {@code
     *     EAGAIN} if {@code nonblock} and nothing could be written, {@code EINTR} if the thread is
     *     interrupted while waiting before it wrote anything (its interrupt status stays set; after
     *     some bytes it returns their count, as {@code pipe_write}), {@code EIO} if the instance is
     *     closed while it waits
     */
    public int write(byte[] src, int off, int len, boolean nonblock) {
        return write(src, off, len, nonblock, false);
    }

    /**
     * {@link #write(byte[], int, int, boolean)}, in packet mode if {@code packet} (the writer's
     * file has {@code O_DIRECT}): see the class comment.
     *
     * @param src the buffer holding the bytes
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @param nonblock {@code O_NONBLOCK}: fail with {@code EAGAIN} instead of waiting
     * @param packet whether the write is in packet mode ({@code O_DIRECT})
     * @return the bytes written, as {@link #write(byte[], int, int, boolean)}
     */
    public int write(byte[] src, int off, int len, boolean nonblock, boolean packet) {
        List<Done> done = new ArrayList<>();
        lock.lock();
        try {
            int written = 0;
            while (written < len) {
                if (readers == 0) {
                    if (written > 0) {
                        failIfShutDown(Syscall.WRITE); // the close released the readers
                        return written;
                    }
                    throw new VfsException(Errno.EPIPE, Syscall.WRITE, null);
                }
                int n = pendingWrites.isEmpty() ? nextPiece(len, written, packet) : 0;
                if (n == 0) {
                    if (nonblock) {
                        if (written > 0) {
                            return written;
                        }
                        throw new VfsException(Errno.EAGAIN, Syscall.WRITE, null);
                    }
                    try {
                        await(notFull, Syscall.WRITE);
                    } catch (VfsException e) {
                        if (written > 0 && e.errno() == Errno.EINTR) {
                            // pipe_write: interrupted after some bytes, it returns their count
                            // (the interrupt status stays set), so the call changed what it says
                            return written;
                        }
                        throw e;
                    }
                    continue;
                }
                store(src, off + written, n, packet && !merges(len, written));
                written += n;
                serveReads(done);
                notEmpty.signalAll();
            }
            return written;
        } finally {
            lock.unlock();
            done.forEach(Done::fire);
        }
    }

    /**
     * Writes without blocking any thread: completes when all {@code len} bytes are in the buffer
     * (with {@code len}), or fails with {@code EPIPE} when the last reader leaves first (or
     * completes with the bytes already written, if some were).
     *
     * @param src the buffer holding the bytes
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @return a future of the bytes written
     */
    public CompletableFuture<Integer> writeAsync(byte[] src, int off, int len) {
        return writeAsync(src, off, len, false);
    }

    /**
     * {@link #writeAsync(byte[], int, int)}, in packet mode if {@code packet}.
     *
     * @param src the buffer holding the bytes
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @param packet whether the write is in packet mode ({@code O_DIRECT})
     * @return a future of the bytes written
     */
    public CompletableFuture<Integer> writeAsync(byte[] src, int off, int len, boolean packet) {
        List<Done> done = new ArrayList<>();
        lock.lock();
        try {
            if (readers == 0) {
                return CompletableFuture.failedFuture(
                        new VfsException(Errno.EPIPE, Syscall.WRITE, null));
            }
            PendingWrite w = new PendingWrite(src, off, len, packet);
            pendingWrites.add(w);
            serveWrites(done);
            return w.result;
        } finally {
            lock.unlock();
            done.forEach(Done::fire);
        }
    }

    /**
     * Moves pending async writes into the buffer, in order, while they fit. Caller holds the lock.
     */
    private void serveWrites(List<Done> done) {
        while (!pendingWrites.isEmpty() && readers > 0) {
            PendingWrite w = pendingWrites.peek();
            int written = w.total - w.remaining;
            int n = nextPiece(w.total, written, w.packet);
            if (n == 0) {
                return;
            }
            store(w.src, w.off, n, w.packet && !merges(w.total, written));
            w.off += n;
            w.remaining -= n;
            serveReads(done);
            notEmpty.signalAll();
            if (w.remaining == 0) {
                pendingWrites.poll();
                done.add(new Done(w.result, w.total, null));
            }
        }
    }

    /** Hands buffered bytes to pending async reads, in order. Caller holds the lock. */
    private void serveReads(List<Done> done) {
        while (!pendingReads.isEmpty() && (count > 0 || writers == 0)) {
            PendingRead r = pendingReads.poll();
            int n = take(r.dst, r.off, r.len);
            done.add(new Done(r.result, n, null));
        }
    }

    /**
     * Returns how many bytes of a write of {@code total} bytes, {@code written} of them already
     * stored, can be stored now as one piece, or 0 if it must wait. Stream bytes need that much
     * room (all of an atomic write at once); a packet needs a page of room. Caller holds the lock.
     */
    private int nextPiece(int total, int written, boolean packet) {
        int room = capacity - count - packetSlack;
        int rest = total - written;
        if (!packet) {
            boolean atomic = total <= Limits.PIPE_BUF;
            return (atomic ? room >= rest : room > 0) ? Math.min(rest, room) : 0;
        }
        if (merges(total, written)) {
            int chars = total % PAGE;
            return room >= chars ? chars : 0;
        }
        return room >= PAGE ? Math.min(PAGE, rest) : 0;
    }

    /**
     * Whether the first piece of a packet-mode write joins the last stream bytes ({@code
     * pipe_write}'s merge of {@code total % PAGE_SIZE} bytes into a mergeable last buffer). Caller
     * holds the lock.
     */
    private boolean merges(int total, int written) {
        int chars = total % PAGE;
        if (written != 0 || chars == 0 || count == 0) {
            return false;
        }
        int last;
        if (segments.isEmpty()) {
            last = count;
        } else if (!segments.peekLast().packet) {
            last = segments.peekLast().len;
        } else {
            return false;
        }
        int fill = last % PAGE;
        return fill != 0 && fill + chars <= PAGE;
    }

    /** Appends {@code n} bytes as stream bytes or as one packet. Caller holds the lock. */
    private void store(byte[] src, int off, int n, boolean packet) {
        if (packet) {
            if (segments.isEmpty() && count > 0) {
                segments.add(new Segment(count, false));
            }
            segments.add(new Segment(n, true));
            packetSlack += PAGE - n;
        } else if (!segments.isEmpty()) {
            if (segments.peekLast().packet) {
                segments.add(new Segment(n, false));
            } else {
                segments.peekLast().len += n;
            }
        }
        copyIn(src, off, n);
    }

    /**
     * Reads up to {@code len} buffered bytes as {@code pipe_read} does: stream bytes, then at most
     * one packet, whose unread rest is discarded. Caller holds the lock.
     *
     * @return the bytes copied
     */
    private int take(byte[] dst, int off, int len) {
        if (segments.isEmpty()) {
            int n = Math.min(len, count);
            copyOut(dst, off, n);
            return n;
        }
        int got = 0;
        while (got < len && !segments.isEmpty()) {
            Segment seg = segments.peek();
            int n = Math.min(len - got, seg.len);
            copyOut(dst, off + got, n);
            got += n;
            seg.len -= n;
            if (seg.packet) {
                skip(seg.len);
                packetSlack -= seg.slack;
                segments.poll();
                break;
            }
            if (seg.len == 0) {
                segments.poll();
            }
        }
        if (segments.size() == 1 && !segments.peek().packet) {
            segments.clear();
        }
        return got;
    }

    private void skip(int n) {
        if (n > 0) {
            head = (head + n) % buf.length;
            count -= n;
        }
    }

    private void copyIn(byte[] src, int off, int n) {
        if (buf == null) {
            buf = new byte[capacity];
        }
        int tail = (head + count) % buf.length;
        int first = Math.min(n, buf.length - tail);
        System.arraycopy(src, off, buf, tail, first);
        System.arraycopy(src, off + first, buf, 0, n - first);
        count += n;
    }

    private void copyOut(byte[] dst, int off, int n) {
        if (n == 0) {
            return;
        }
        int first = Math.min(n, buf.length - head);
        System.arraycopy(buf, head, dst, off, first);
        System.arraycopy(buf, 0, dst, off + first, n - first);
        head = (head + n) % buf.length;
        count -= n;
    }

    /**
     * Parks on {@code c} for at most a second (every caller's loop re-checks its condition), as a
     * waiter of the instance's {@link Shutdown} for the time it parks. Caller holds the lock, from
     * the registration to the park, so the close's signal cannot be lost.
     *
     * @throws VfsException {@code EIO} if the instance is shut down, before the park or when it
     *     wakes; {@code EINTR} if the thread is interrupted (its interrupt status is set again, see
     *     {@code VfsTask})
     */
    @SuppressWarnings(
            "WaitNotInLoop") // every caller's loop re-checks its condition after a wake-up
    private void await(Condition c, Syscall op) {
        Shutdown.Waiter w = this::wakeAll;
        if (!shutdown.enter(w)) {
            throw Shutdown.error(op);
        }
        try {
            c.await(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw shutdown.isShutDown()
                    ? Shutdown.error(op)
                    : new VfsException(Errno.EINTR, op, null);
        } finally {
            shutdown.leave(w);
        }
        failIfShutDown(op);
    }

    /** Fails with {@code EIO} once the instance is shut down. */
    private void failIfShutDown(Syscall op) {
        if (shutdown.isShutDown()) {
            throw Shutdown.error(op);
        }
    }

    /** The close's wake-up: every thread parked on this pipe re-checks (a {@link Shutdown}). */
    private void wakeAll() {
        lock.lock();
        try {
            notEmpty.signalAll();
            notFull.signalAll();
            partner.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
