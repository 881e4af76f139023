package dev.seqvfs.engine.anon;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.StreamFileOperations;
import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Poll;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An {@code eventfd(2)} counter, the file operations of an {@code anon_inode:[eventfd]} file: a
 * {@code write} of an 8-byte little-endian value adds it to the counter (waiting while the sum
 * would exceed {@code 0xfffffffffffffffe}; any other length is {@code EINVAL}); a {@code read} of
 * at least 8 bytes waits while the counter is 0, then returns it and resets it to 0, or with {@code
 * EFD_SEMAPHORE} returns 1 and decrements it. {@code lseek} succeeds and returns 0.
 *
 * <h2>Concurrency</h2>
 *
 * Guarded by this object's monitor; blocking callers wait on it (an interrupt is {@code EINTR}, its
 * status left set; the instance's close wakes them through its {@link Shutdown} and they fail with
 * {@code EIO}), asynchronous readers are queued and completed after the monitor is released.
 */
public final class EventFd implements StreamFileOperations {
    /** {@code EFD_SEMAPHORE}. */
    public static final int EFD_SEMAPHORE = 1;

    private static final long MAX = 0xfffffffffffffffeL;

    private final boolean semaphore;
    private final Shutdown shutdown;
    private long count;
    private final ArrayDeque<Object[]> pendingReads = new ArrayDeque<>();

    /**
     * Creates a counter with an initial value.
     *
     * @param initial the counter's first value
     * @param flags {@link #EFD_SEMAPHORE}, or 0
     * @param shutdown the instance's closed state, which ends every wait on this counter
     */
    public EventFd(long initial, int flags, Shutdown shutdown) {
        this.count = initial;
        this.semaphore = (flags & EFD_SEMAPHORE) != 0;
        this.shutdown = shutdown;
    }

    private long take() {
        long v = semaphore ? 1 : count;
        count -= v;
        return v;
    }

    private static void put(long v, byte[] dst, int off) {
        for (int i = 0; i < 8; i++) {
            dst[off + i] = (byte) (v >>> (8 * i));
        }
    }

    @Override
    public int read(OpenFile f, byte[] dst, int off, int len, boolean nonblock) {
        if (len < 8) {
            throw new VfsException(Errno.EINVAL, Syscall.READ, null);
        }
        synchronized (this) {
            while (count == 0) {
                if (nonblock) {
                    throw new VfsException(Errno.EAGAIN, Syscall.READ, null);
                }
                await(Syscall.READ);
            }
            put(take(), dst, off);
            notifyAll();
            return 8;
        }
    }

    @Override
    public int write(OpenFile f, byte[] src, int off, int len, boolean nonblock) {
        if (len != 8) {
            // eventfd_write: Linux 6.18 takes exactly 8 bytes (the man page names only shorter
            // buffers)
            throw new VfsException(Errno.EINVAL, Syscall.WRITE, null);
        }
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v |= (src[off + i] & 0xffL) << (8 * i);
        }
        if (v == -1L) {
            throw new VfsException(Errno.EINVAL, Syscall.WRITE, null);
        }
        List<Runnable> done = new ArrayList<>();
        synchronized (this) {
            while (Long.compareUnsigned(MAX - count, v) < 0) {
                if (nonblock) {
                    throw new VfsException(Errno.EAGAIN, Syscall.WRITE, null);
                }
                await(Syscall.WRITE);
            }
            count += v;
            while (count != 0 && !pendingReads.isEmpty()) {
                Object[] r = pendingReads.poll();
                long got = take();
                put(got, (byte[]) r[0], (Integer) r[1]);
                @SuppressWarnings("unchecked")
                CompletableFuture<Integer> fut = (CompletableFuture<Integer>) r[2];
                done.add(() -> fut.complete(8));
            }
            notifyAll();
        }
        done.forEach(Runnable::run);
        return 8;
    }

    @Override
    public CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len) {
        if (len < 8) {
            return CompletableFuture.failedFuture(
                    new VfsException(Errno.EINVAL, Syscall.READ, null));
        }
        synchronized (this) {
            if (count != 0 && pendingReads.isEmpty()) {
                put(take(), dst, off);
                notifyAll();
                return CompletableFuture.completedFuture(8);
            }
            CompletableFuture<Integer> fut = new CompletableFuture<>();
            pendingReads.add(new Object[] {dst, off, fut});
            return fut;
        }
    }

    @Override
    public CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len) {
        try {
            return CompletableFuture.completedFuture(write(f, src, off, len, true));
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * {@code noop_llseek}: returns the file position, which never moves from 0, whatever the
     * arguments (measured on Linux 6.18: {@code lseek(efd, 5, SEEK_CUR)} and {@code lseek(efd, -5,
     * SEEK_SET)} both return 0).
     */
    @Override
    public long llseek(OpenFile f, long offset, int whence) {
        synchronized (f) {
            return f.offset();
        }
    }

    /**
     * {@code eventfd_poll}: readable ({@code POLLIN}) while the counter is not zero, writable
     * ({@code POLLOUT}) while at least 1 can be added without overflowing.
     */
    @Override
    public synchronized int poll(OpenFile f) {
        int mask = 0;
        if (count != 0) {
            mask |= Poll.POLLIN | Poll.POLLRDNORM;
        }
        if (Long.compareUnsigned(count, MAX) < 0) {
            mask |= Poll.POLLOUT | Poll.POLLWRNORM;
        }
        return mask;
    }

    /**
     * Waits on this monitor until notified, as a waiter of the instance's {@link Shutdown} for the
     * time it waits. Caller holds the monitor, from the registration to the wait, and re-checks the
     * counter after it.
     *
     * @throws VfsException {@code EIO} if the instance is shut down, before the wait or when it
     *     wakes; {@code EINTR} if the thread is interrupted (its interrupt status is set again)
     */
    private void await(Syscall op) {
        shutdown.awaitOn(this, 0, op);
    }

    /** {@return the current counter value} */
    public synchronized long value() {
        return count;
    }
}
