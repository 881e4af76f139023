package dev.seqvfs.engine.anon;

import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One direction of an {@code AF_UNIX} {@code SOCK_DGRAM} or {@code SOCK_SEQPACKET} connection
 * ({@code unix(7)}): the receiver's queue of datagrams ({@code sk_receive_queue}) and the memory
 * they charge to the sender ({@code sk_wmem_alloc}). Every write is one datagram, a zero-length one
 * included; a read takes exactly one datagram, and what does not fit in the caller's buffer is
 * discarded ({@code recv(2)}: {@code MSG_TRUNC}).
 *
 * <h2>Capacity (measured on Linux 6.18, x86-64)</h2>
 *
 * A datagram longer than {@link #SNDBUF}{@code - 32} bytes is {@code EMSGSIZE} ({@code
 * unix_dgram_sendmsg}). Each queued datagram charges the sender {@link #truesize(int)} bytes until
 * it is read; a write waits (or fails with {@code EAGAIN}) while the charge is {@link #SNDBUF} or
 * more ({@code sock_alloc_send_pskb}). That gives the host's figures: 278 datagrams of 0..192
 * bytes, 93 of 1000, 26 of 4000, 4 of 50000, 3 of 100000. A socket pair has no {@code
 * max_dgram_qlen} limit (Linux applies it only to a receiver that is not connected back to the
 * sender).
 *
 * <h2>End of data</h2>
 *
 * {@code SOCK_SEQPACKET} reads 0 once the queue is empty and the receiver's {@code RCV_SHUTDOWN} is
 * set (its {@code SHUT_RD}, the peer's {@code SHUT_WR} or close). {@code SOCK_DGRAM} has no end of
 * file: an empty queue is {@code EAGAIN} for a non-blocking read and waits otherwise, even when the
 * peer is gone; only the receiver's own {@code SHUT_RD} makes a waiting read return 0 ({@code
 * __skb_wait_for_more_packets}).
 *
 * <h2>Concurrency</h2>
 *
 * All state is guarded by this object's monitor. Blocking callers wait on it (an interrupt is
 * {@code EINTR}; the instance's close wakes them through its {@link Shutdown}, and they fail with
 * {@code EIO}, as does a read that finds end of data once the instance is shut down); asynchronous
 * callers are queued and served in arrival order whenever the state changes; their futures are
 * completed after the monitor is released. The sockets' pending errors ({@code sk_err}) are {@link
 * AtomicReference}s consumed with one {@code getAndSet(null)}, so each error is reported once.
 *
 * <h2>Invariants</h2>
 *
 * {@code wmem} is the sum of {@link #truesize} over the queued datagrams; once {@code receiverDead}
 * the queue is empty and stays so.
 */
final class DgramQueue {
    /** {@code SO_SNDBUF} of a new socket: {@code net.core.wmem_default}, 212992 bytes. */
    static final int SNDBUF = 212992;

    /** {@code SKB_MAX_ALLOC}: the largest linear part of a socket buffer ({@code 32768 - 320}). */
    private static final int SKB_MAX_ALLOC = 32768 - 320;

    private static final int PAGE = 4096;

    /** {@code MAX_SKB_FRAGS}: page fragments one socket buffer may carry. */
    private static final int MAX_FRAGS = 17;

    /** Returned by the try methods when the caller would have to wait. */
    private static final int WOULD_BLOCK = -1;

    private final boolean seqpacket;
    private final Shutdown shutdown;
    private final AtomicReference<Errno> senderErr;
    private final AtomicReference<Errno> receiverErr;
    private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
    private long wmem;

    /** The sender's {@code SEND_SHUTDOWN}. */
    private boolean sendShut;

    /** The receiver's {@code RCV_SHUTDOWN}. */
    private boolean rcvShut;

    /** The receiver was released ({@code SOCK_DEAD}). */
    private boolean receiverDead;

    /** {@code SOCK_DGRAM}: the sender learnt of the dead receiver ({@code unix_peer} cleared). */
    private boolean disconnected;

    private final ArrayDeque<Pending> pendingReads = new ArrayDeque<>();
    private final ArrayDeque<Pending> pendingWrites = new ArrayDeque<>();

    @SuppressWarnings(
            "ArrayRecordComponent") // the caller's buffer, filled in place; never compared
    private record Pending(
            boolean read, byte[] buf, int off, int len, CompletableFuture<Integer> result) {}

    private record Done(CompletableFuture<Integer> f, int value, Errno error) {
        void fire() {
            if (error != null) {
                f.completeExceptionally(new VfsException(error, Syscall.SOCKET, null));
            } else {
                f.complete(value);
            }
        }
    }

    /**
     * @param seqpacket {@code SOCK_SEQPACKET} semantics (end of file, {@code sk_err}), else {@code
     *     SOCK_DGRAM}
     * @param senderErr the sending socket's pending error, or {@code null} for a queue no socket
     *     sends to (an unconnected datagram socket's)
     * @param receiverErr the receiving socket's pending error
     * @param shutdown the instance's closed state, which ends every wait on this queue
     */
    DgramQueue(
            boolean seqpacket,
            AtomicReference<Errno> senderErr,
            AtomicReference<Errno> receiverErr,
            Shutdown shutdown) {
        this.seqpacket = seqpacket;
        this.senderErr = senderErr;
        this.receiverErr = receiverErr;
        this.shutdown = shutdown;
    }

    /**
     * Returns what one datagram of {@code len} bytes charges the sender: Linux's {@code
     * skb->truesize} on x86-64, that is 256 bytes of {@code struct sk_buff} plus the power-of-two
     * {@code kmalloc} block (at least 512 bytes) holding the 64-byte-aligned linear part and 320
     * bytes of {@code skb_shared_info}, plus whole pages for what exceeds {@code SKB_MAX_ALLOC} (at
     * most 17 pages).
     */
    static long truesize(int len) {
        long frags = 0;
        if (len > SKB_MAX_ALLOC) {
            long rest = Math.min((long) len - SKB_MAX_ALLOC, (long) MAX_FRAGS * PAGE);
            frags = (rest + PAGE - 1) / PAGE * PAGE;
        }
        long head = Math.max(0, len - frags);
        long block = Math.max(512, ((head + 63) & ~63L) + 320);
        long kmalloc = Long.highestOneBit(block - 1) << 1;
        return 256 + kmalloc + frags;
    }

    /**
     * Sends one datagram, waiting for send-buffer room unless {@code nonblock}.
     *
     * @return {@code len}
     * @throws VfsException {@code EMSGSIZE} above {@code SNDBUF - 32} bytes; {@code EPIPE} after
     *     the sender's {@code SHUT_WR} or the receiver's {@code SHUT_RD} (and, for {@code
     *     SOCK_SEQPACKET}, the receiver's close); {@code ECONNREFUSED} the first time a {@code
     *     SOCK_DGRAM} sender finds its receiver closed, {@code ENOTCONN} after that; {@code
     *     ECONNRESET} once if the peer closed with data unread ({@code SOCK_SEQPACKET}); {@code
     *     EAGAIN}; {@code EINTR}
     */
    int write(byte[] src, int off, int len, boolean nonblock) {
        return call(false, src, off, len, nonblock);
    }

    /**
     * Receives one datagram into {@code dst}, discarding its bytes past {@code len}; waits while
     * the queue is empty unless {@code nonblock}.
     *
     * @return the bytes copied (0 for a zero-length datagram, or at end of data)
     * @throws VfsException {@code EAGAIN}, {@code EINTR}, {@code ECONNRESET} (see the class
     *     comment)
     */
    int read(byte[] dst, int off, int len, boolean nonblock) {
        return call(true, dst, off, len, nonblock);
    }

    /**
     * A blocking or non-blocking read or write: it waits behind earlier asynchronous calls of its
     * kind.
     */
    private int call(boolean read, byte[] buf, int off, int len, boolean nonblock) {
        List<Done> done = new ArrayList<>();
        try {
            synchronized (this) {
                ArrayDeque<Pending> before = read ? pendingReads : pendingWrites;
                while (true) {
                    int r =
                            !before.isEmpty()
                                    ? WOULD_BLOCK
                                    : read
                                            ? tryRead(buf, off, len, !nonblock)
                                            : tryWrite(buf, off, len);
                    if (r != WOULD_BLOCK) {
                        serve(done);
                        notifyAll();
                        if (r == 0 && shutdown.isShutDown()) {
                            // end of data because the close released the peer: not an answer
                            throw Shutdown.error(read ? Syscall.READ : Syscall.WRITE);
                        }
                        return r;
                    }
                    if (nonblock) {
                        throw new VfsException(
                                Errno.EAGAIN, read ? Syscall.READ : Syscall.WRITE, null);
                    }
                    await(read ? Syscall.READ : Syscall.WRITE);
                }
            }
        } finally {
            done.forEach(Done::fire);
        }
    }

    /**
     * {@link #read} without blocking a thread: completes when a datagram (or end of data) arrives.
     */
    CompletableFuture<Integer> readAsync(byte[] dst, int off, int len) {
        return async(true, dst, off, len);
    }

    /**
     * {@link #write} without blocking a thread: completes when the datagram is queued or refused.
     */
    CompletableFuture<Integer> writeAsync(byte[] src, int off, int len) {
        return async(false, src, off, len);
    }

    private CompletableFuture<Integer> async(boolean read, byte[] buf, int off, int len) {
        List<Done> done = new ArrayList<>();
        CompletableFuture<Integer> f = new CompletableFuture<>();
        synchronized (this) {
            (read ? pendingReads : pendingWrites).add(new Pending(read, buf, off, len, f));
            serve(done);
            notifyAll();
        }
        done.forEach(Done::fire);
        return f;
    }

    /**
     * The sender's {@code SHUT_WR}: its later writes fail with {@code EPIPE}; seqpacket receivers
     * see end of data.
     */
    void shutdownSend() {
        change(
                () -> {
                    sendShut = true;
                    if (seqpacket) {
                        rcvShut = true;
                    }
                });
    }

    /**
     * The receiver's {@code SHUT_RD}: the sender's writes fail with {@code EPIPE}; reads end once
     * the queue is empty.
     */
    void shutdownReceive() {
        change(
                () -> {
                    rcvShut = true;
                    if (seqpacket) {
                        sendShut = true;
                    }
                });
    }

    /**
     * The receiver was closed: queued datagrams are dropped and their charge released ({@code
     * unix_release_sock}).
     *
     * @return whether datagrams were dropped (the seqpacket sender then gets {@code ECONNRESET})
     */
    boolean releaseReceiver() {
        boolean[] dropped = new boolean[1];
        change(
                () -> {
                    dropped[0] = !queue.isEmpty();
                    if (dropped[0] && seqpacket) {
                        senderErr.set(Errno.ECONNRESET);
                    }
                    queue.clear();
                    wmem = 0;
                    receiverDead = true;
                    rcvShut = true;
                    if (seqpacket) {
                        sendShut = true;
                    }
                });
        return dropped[0];
    }

    /** The sender was closed: a seqpacket receiver sees end of data once the queue is empty. */
    void releaseSender() {
        change(
                () -> {
                    sendShut = true;
                    if (seqpacket) {
                        rcvShut = true;
                    }
                });
    }

    /** Wakes waiters after the sockets' pending errors changed. */
    /**
     * Returns whether a datagram is queued, or the receive side was shut (a read would not wait).
     */
    synchronized boolean readable() {
        return !queue.isEmpty() || rcvShut;
    }

    void wake() {
        change(() -> {});
    }

    private void change(Runnable r) {
        List<Done> done = new ArrayList<>();
        synchronized (this) {
            r.run();
            serve(done);
            notifyAll();
        }
        done.forEach(Done::fire);
    }

    /**
     * Completes pending asynchronous calls in order while they need not wait; a served read may
     * make room for a write and a write may feed a read, so both queues are served until neither
     * moves. Caller holds the monitor.
     */
    private void serve(List<Done> done) {
        boolean moved = true;
        while (moved) {
            boolean readsMoved = serve(pendingReads, done);
            boolean writesMoved = serve(pendingWrites, done);
            moved = readsMoved || writesMoved;
        }
    }

    private boolean serve(ArrayDeque<Pending> q, List<Done> done) {
        boolean moved = false;
        while (!q.isEmpty()) {
            Pending p = q.peek();
            try {
                int r =
                        p.read()
                                ? tryRead(p.buf(), p.off(), p.len(), true)
                                : tryWrite(p.buf(), p.off(), p.len());
                if (r == WOULD_BLOCK) {
                    return moved;
                }
                done.add(new Done(p.result(), r, null));
            } catch (VfsException e) {
                done.add(new Done(p.result(), 0, e.errno()));
            }
            q.poll();
            moved = true;
        }
        return moved;
    }

    /** One attempt to send; caller holds the monitor. */
    private int tryWrite(byte[] src, int off, int len) {
        if (seqpacket) {
            Errno err = senderErr.getAndSet(null);
            if (err != null) {
                throw new VfsException(err, Syscall.WRITE, null);
            }
        }
        if (len > SNDBUF - 32) {
            throw new VfsException(Errno.EMSGSIZE, Syscall.WRITE, null);
        }
        if (sendShut) {
            throw new VfsException(Errno.EPIPE, Syscall.WRITE, null);
        }
        if (disconnected) {
            throw new VfsException(Errno.ENOTCONN, Syscall.WRITE, null);
        }
        if (wmem >= SNDBUF) {
            return WOULD_BLOCK;
        }
        if (receiverDead) {
            disconnected = true;
            throw new VfsException(Errno.ECONNREFUSED, Syscall.WRITE, null);
        }
        if (rcvShut) {
            throw new VfsException(Errno.EPIPE, Syscall.WRITE, null);
        }
        byte[] d = new byte[len];
        System.arraycopy(src, off, d, 0, len);
        queue.add(d);
        wmem += truesize(len);
        return len;
    }

    /**
     * One attempt to receive; {@code waiting}: the caller would wait (a blocking or asynchronous
     * read).
     */
    private int tryRead(byte[] dst, int off, int len, boolean waiting) {
        if (seqpacket) {
            Errno err = receiverErr.getAndSet(null);
            if (err != null) {
                throw new VfsException(err, Syscall.READ, null);
            }
        }
        byte[] d = queue.poll();
        if (d != null) {
            wmem -= truesize(d.length);
            int n = Math.min(len, d.length);
            System.arraycopy(d, 0, dst, off, n);
            return n;
        }
        if (rcvShut && (seqpacket || waiting)) {
            return 0;
        }
        return WOULD_BLOCK;
    }

    /**
     * Waits on this monitor for at most a second (the caller's loop re-checks), as a waiter of the
     * instance's {@link Shutdown} for the time it waits. Caller holds the monitor, from the
     * registration to the wait, so the close's {@code notifyAll} cannot be lost.
     *
     * @throws VfsException {@code EIO} if the instance is shut down, before the wait or when it
     *     wakes; {@code EINTR} if the thread is interrupted (its interrupt status is set again)
     */
    private void await(Syscall op) {
        shutdown.awaitOn(this, 1000, op);
    }
}
