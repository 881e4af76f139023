package dev.seqvfs.fuse;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request loop of a mount on {@code /dev/fuse}: worker threads that each {@code read(2)} one
 * whole request from the device into a buffer of their own, serve it ({@link KernelFs}) and {@code
 * write(2)} its reply, until the kernel ends the connection (an unmount: {@code read} fails with
 * {@code ENODEV}). The first request is {@code INIT}, answered here ({@link #init}).
 *
 * <p><b>Threads.</b> As {@code FuseLoop} does for libfuse: a worker is started when a request is
 * taken and no other worker waits for one, and every worker stays until the session ends, so the
 * pool grows to the largest number of requests served at once (a parked {@code SETLKW} holds its
 * worker) and then costs nothing; no thread is started or attached per request. All workers read
 * the same descriptor; the kernel hands each request to one of them.
 *
 * <p><b>End.</b> The first worker that sees {@code ENODEV} interrupts the requests still waiting
 * (nobody will read their answers); the last worker to leave closes the file system's state ({@link
 * KernelFs#close}) and the device, then counts {@link #ended} down.
 *
 * <p><b>Concurrency.</b> {@code idle} (workers waiting in {@code read}) and {@code live} (workers
 * not yet gone) are atomic; {@code exited} is volatile; the negotiated parameters are written by
 * the worker that answers {@code INIT} before it replies, and read after {@link #initialized}.
 */
final class KernelSession {
    private static final Logger LOG = LoggerFactory.getLogger(KernelSession.class);

    /** The largest write (and read) negotiated: 1 MiB, 256 pages ({@code FUSE_MAX_PAGES}). */
    static final int MAX_WRITE = 1 << 20;

    /** Room for the request header and a write's arguments in front of its data. */
    private static final int HEADER_ROOM = 4096;

    /** The INIT flags this server asks for, of those the kernel offers. */
    static final int WANTED_FLAGS =
            FuseAbi.ASYNC_READ
                    | FuseAbi.POSIX_LOCKS
                    | FuseAbi.ATOMIC_O_TRUNC
                    | FuseAbi.BIG_WRITES
                    | FuseAbi.FLOCK_LOCKS
                    | FuseAbi.AUTO_INVAL_DATA
                    | FuseAbi.PARALLEL_DIROPS
                    | FuseAbi.HANDLE_KILLPRIV_V2
                    | FuseAbi.MAX_PAGES
                    | FuseAbi.CACHE_SYMLINKS;

    private final int device;
    private final KernelFs fs;
    private final String name;
    private final AtomicInteger idle = new AtomicInteger();
    private final AtomicInteger live = new AtomicInteger();
    private final AtomicInteger started = new AtomicInteger();
    private final CountDownLatch initialized = new CountDownLatch(1);
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile boolean exited;
    private volatile int minor;
    private volatile int flags;

    /**
     * Makes the session; {@link #start} starts serving.
     *
     * @param device the {@code /dev/fuse} descriptor of the mount (this session closes it at the
     *     end)
     * @param fs what serves the requests
     * @param name the prefix of the workers' thread names
     */
    KernelSession(int device, KernelFs fs, String name) {
        this.device = device;
        this.fs = fs;
        this.name = name;
    }

    /** Starts the first worker. */
    void start() {
        startWorker();
    }

    /** {@return a latch counted down once {@code INIT} is answered} */
    CountDownLatch initialized() {
        return initialized;
    }

    /** {@return a latch counted down once the session has ended and everything is closed} */
    CountDownLatch ended() {
        return ended;
    }

    /** {@return the protocol minor version agreed at INIT (0 before)} */
    int minor() {
        return minor;
    }

    /** {@return the INIT flags agreed (0 before)} */
    int flags() {
        return flags;
    }

    /** {@return the number of worker threads started so far} */
    int workersStarted() {
        return started.get();
    }

    private void startWorker() {
        idle.incrementAndGet();
        live.incrementAndGet();
        Thread t = new Thread(this::work, name + "-worker-" + started.incrementAndGet());
        t.setDaemon(true);
        t.start();
    }

    /** One worker: read a request, start another worker if none is left waiting, serve it. */
    private void work() {
        Exchange x = new Exchange(device, MAX_WRITE + HEADER_ROOM, MAX_WRITE);
        Libc.C c = Libc.c();
        long size = x.in.capacity();
        try {
            while (!exited) {
                long n = c.read(device, x.inAddress, size);
                if (n < 0) {
                    int e = Libc.errno();
                    if (e == Libc.EINTR || e == Libc.EAGAIN || e == Libc.ENOENT) {
                        continue; // interrupted, or a request withdrawn before it was read
                    }
                    if (e != Libc.ENODEV) {
                        LOG.error("FUSE: read of /dev/fuse failed with errno {}; ending", e);
                    }
                    exit();
                    break;
                }
                x.length = (int) n;
                if (idle.decrementAndGet() == 0 && !exited) {
                    startWorker();
                }
                try {
                    serve(x);
                } catch (RuntimeException | Error e) { // a worker must survive a bug
                    LOG.error("FUSE: opcode {} failed", x.opcode(), e);
                } finally {
                    idle.incrementAndGet();
                }
            }
        } finally {
            idle.decrementAndGet();
            if (live.decrementAndGet() == 0) {
                end();
            }
        }
    }

    private void serve(Exchange x) {
        if (x.length < FuseAbi.IN_HEADER) {
            LOG.error("FUSE: a request of {} bytes, shorter than its header", x.length);
            return;
        }
        if (x.opcode() == FuseAbi.INIT) {
            init(x);
        } else {
            fs.handle(x);
        }
    }

    /**
     * Answers {@code INIT} ({@code fuse.rst}, "Protocol version negotiation"): protocol 7, the
     * smaller of the kernel's minor version and {@link FuseAbi#KERNEL_MINOR_VERSION} ({@code
     * EPROTO} under {@link FuseAbi#MIN_MINOR_VERSION}), the flags of {@link #WANTED_FLAGS} the
     * kernel offers, {@code max_write} 1 MiB (256 pages), nanosecond times, the kernel's readahead.
     */
    private void init(Exchange x) {
        int major = x.argInt(0);
        int kernelMinor = x.argInt(4);
        int readahead = x.argInt(8);
        int offered = x.argInt(12);
        if (major != FuseAbi.KERNEL_VERSION || kernelMinor < FuseAbi.MIN_MINOR_VERSION) {
            LOG.error(
                    "FUSE: the kernel speaks protocol {}.{}; this server needs 7.{} or later",
                    major,
                    kernelMinor,
                    FuseAbi.MIN_MINOR_VERSION);
            x.replyError(71); // EPROTO
            return;
        }
        int m = Math.min(kernelMinor, FuseAbi.KERNEL_MINOR_VERSION);
        int f = offered & WANTED_FLAGS;
        x.putInt(0, FuseAbi.KERNEL_VERSION);
        x.putInt(4, m);
        x.putInt(8, readahead);
        x.putInt(12, f);
        x.putShort(16, (short) 0); // max_background: the kernel's default
        x.putShort(18, (short) 0); // congestion_threshold: the kernel's default
        x.putInt(20, MAX_WRITE);
        x.putInt(24, 1); // time_gran: nanoseconds
        x.putShort(28, (short) (MAX_WRITE / 4096));
        x.putShort(30, (short) 0);
        x.zero(32, FuseAbi.INIT_OUT - 32);
        minor = m;
        flags = f;
        x.reply(FuseAbi.INIT_OUT);
        initialized.countDown();
    }

    /** Ends the session: no more reads, and the waiting requests are interrupted. */
    private void exit() {
        exited = true;
        fs.waits().interruptAll();
    }

    private void end() {
        try {
            fs.close();
        } catch (RuntimeException e) {
            LOG.warn("FUSE: closing the file system's state failed", e);
        } finally {
            Libc.c().close(device);
            ended.countDown();
        }
    }
}
