package dev.seqvfs.fuse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import jnr.ffi.byref.IntByReference;
import jnr.ffi.byref.PointerByReference;
import jnr.ffi.types.size_t;
import ru.serce.jnrfuse.struct.FuseOperations;

/**
 * libfuse 2's request loop, run by Java threads that stay: what {@code fuse_main} and {@code
 * fuse_loop_mt} do, with one change. libfuse's own loop starts a worker thread whenever none is
 * idle and ends one whenever more than 10 are idle; each new native thread is attached to the JVM
 * on its first callback (a new {@code java.lang.Thread}), which on a mount cost more than the
 * request itself (one create + stat + unlink workload: 21,164 threads started for 15,000 calls,
 * 12,000 calls/s, against 31,000 to 43,000 with libfuse's single-threaded loop). Here a worker is
 * started the same way, when a request is taken and no other worker waits, but never ends until the
 * session does: the pool grows to the largest number of requests served at once (a parked {@code
 * F_SETLKW} holds its worker, as in libfuse) and then costs nothing.
 *
 * <p>Uses {@code fuse_setup} (argument parsing, the mount, signal handlers where the JVM left the
 * default), {@code fuse_session_receive_buf} and {@code fuse_session_process_buf} on each worker,
 * and {@code fuse_teardown} once every worker has ended, i.e. after the kernel has ended the
 * session (an unmount makes every worker's read fail with {@code ENODEV}).
 *
 * <p><b>Concurrency.</b> {@link #run} is called once, on the thread that serves the mount; it
 * becomes the first worker. {@code idle} counts workers waiting for a request (atomic); the list of
 * workers is guarded by its own monitor.
 */
final class FuseLoop {
    /** The libfuse 2 entry points this loop uses (all exported by {@code libfuse.so.2}, 2.9). */
    public interface LibFuse2 {
        /** {@code fuse_setup} (2.6): parse, mount, make the {@code struct fuse}. */
        Pointer fuse_setup(
                int argc,
                String[] argv,
                FuseOperations op,
                @size_t long opSize,
                PointerByReference mountpoint,
                IntByReference multithreaded,
                Pointer userData);

        /** {@code fuse_get_session}. */
        Pointer fuse_get_session(Pointer fuse);

        /** {@code fuse_session_next_chan}. */
        Pointer fuse_session_next_chan(Pointer se, Pointer ch);

        /** {@code fuse_chan_bufsize}. */
        @size_t
        long fuse_chan_bufsize(Pointer ch);

        /** {@code fuse_session_receive_buf}: bytes read, or {@code -errno}. */
        int fuse_session_receive_buf(Pointer se, Pointer buf, PointerByReference chp);

        /** {@code fuse_session_process_buf}: runs the request's callback and replies. */
        void fuse_session_process_buf(Pointer se, Pointer buf, Pointer ch);

        /** {@code fuse_session_exited}. */
        int fuse_session_exited(Pointer se);

        /** {@code fuse_session_exit}. */
        void fuse_session_exit(Pointer se);

        /** {@code fuse_teardown}: unmount if still mounted, free the session. */
        void fuse_teardown(Pointer fuse, Pointer mountpoint);
    }

    /** {@code sizeof(struct fuse_buf)} on x86-64 and aarch64 Linux. */
    private static final int FUSE_BUF_SIZE = 40;

    private static final int EINTR = 4;
    private static final int EAGAIN = 11;

    private final LibFuse2 lib;
    private final FuseOperations ops;
    private final String[] argv;
    private final String name;
    private final AtomicInteger idle = new AtomicInteger();
    private final List<Thread> workers = new ArrayList<>();
    private Pointer session;
    private Pointer channel;
    private long bufsize;

    FuseLoop(FuseOperations ops, String[] argv, String name) {
        this.lib = load();
        this.ops = ops;
        this.argv = argv.clone();
        this.name = name;
    }

    private static LibFuse2 load() {
        try {
            return LibraryLoader.create(LibFuse2.class).failImmediately().load("fuse");
        } catch (LinkageError | RuntimeException e) {
            return LibraryLoader.create(LibFuse2.class).failImmediately().load("libfuse.so.2");
        }
    }

    /**
     * Mounts, serves until the session ends, tears down; returns 0, or 1 if libfuse refused the
     * mount (its message is on stderr).
     */
    int run() {
        PointerByReference mp = new PointerByReference();
        IntByReference mt = new IntByReference();
        Pointer fuse = lib.fuse_setup(argv.length, argv, ops, Struct.size(ops), mp, mt, null);
        if (fuse == null) {
            return 1;
        }
        session = lib.fuse_get_session(fuse);
        channel = lib.fuse_session_next_chan(session, null);
        bufsize = lib.fuse_chan_bufsize(channel);
        idle.incrementAndGet();
        work();
        while (true) {
            Thread next;
            synchronized (workers) {
                if (workers.isEmpty()) {
                    break;
                }
                next = workers.remove(workers.size() - 1);
            }
            try {
                next.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        lib.fuse_teardown(fuse, mp.getValue());
        return 0;
    }

    private void startWorker() {
        idle.incrementAndGet();
        Thread t;
        synchronized (workers) {
            t = new Thread(this::work, name + "-worker-" + (workers.size() + 1));
            workers.add(t);
        }
        t.setDaemon(true);
        t.start();
    }

    /** One worker: receive a request, start another worker if none is left waiting, process. */
    private void work() {
        Runtime rt = Runtime.getSystemRuntime();
        Pointer data = Memory.allocateDirect(rt, (int) bufsize);
        // struct fuse_buf { size_t size; enum fuse_buf_flags flags; void *mem; int fd; off_t pos; }
        Pointer raw = Memory.allocateDirect(rt, FUSE_BUF_SIZE);
        try {
            while (lib.fuse_session_exited(session) == 0) {
                raw.putLong(0, bufsize);
                raw.putInt(8, 0);
                raw.putPointer(16, data);
                raw.putInt(24, 0);
                raw.putLong(32, 0);
                PointerByReference ch = new PointerByReference(channel);
                int res = lib.fuse_session_receive_buf(session, raw, ch);
                if (res == -EINTR || res == -EAGAIN) {
                    continue;
                }
                if (res <= 0) {
                    lib.fuse_session_exit(session);
                    break;
                }
                if (idle.decrementAndGet() == 0) {
                    startWorker();
                }
                lib.fuse_session_process_buf(session, raw, ch.getValue());
                idle.incrementAndGet();
            }
        } finally {
            idle.decrementAndGet();
        }
    }
}
