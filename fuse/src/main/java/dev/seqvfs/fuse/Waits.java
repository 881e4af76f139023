package dev.seqvfs.fuse;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests that wait (a {@code F_SETLKW}, a blocking {@code flock}) and the kernel's {@code
 * FUSE_INTERRUPT}s for them. When a process waiting in such a call gets a signal, the kernel's FUSE
 * client sends {@code INTERRUPT} with the waiting request's {@code unique} and keeps waiting for
 * the request's own answer ({@code fuse.rst}, "Interrupting filesystem operations"); the worker
 * serving it is then interrupted ({@link Thread#interrupt()}), the engine's wait fails with {@code
 * EINTR} having changed nothing, and that is the answer. An {@code INTERRUPT} that arrives before
 * its request started waiting (they may be read by two workers in either order) is kept, and
 * interrupts the wait as soon as it begins; kept ones are dropped after {@link #KEEP_NANOS}.
 *
 * <p><b>Concurrency.</b> Both maps are concurrent. A {@link Wait} is interrupted under its own
 * monitor, which its worker also holds to end the wait, so no interrupt lands after the call has
 * left; ending clears the worker's interrupt status. Thread-safe.
 */
final class Waits {
    /** How long an {@code INTERRUPT} for a request not (yet) waiting is kept: 10 s. */
    static final long KEEP_NANOS = 10_000_000_000L;

    private final ConcurrentHashMap<Long, Wait> waiting = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Long> early = new ConcurrentHashMap<>();

    /** One request that waits: its worker thread. Closed by that worker when the call returns. */
    final class Wait implements AutoCloseable {
        private final long unique;
        private final Thread worker = Thread.currentThread();
        private boolean done;

        private Wait(long unique) {
            this.unique = unique;
        }

        private synchronized void interrupt() {
            if (!done) {
                worker.interrupt();
            }
        }

        @Override
        public void close() {
            waiting.remove(unique, this);
            synchronized (this) {
                done = true;
            }
            Thread.interrupted(); // an interrupt meant for this call must not reach the next
        }
    }

    /**
     * Registers the current thread as waiting for request {@code unique}; an {@code INTERRUPT}
     * already received for it interrupts at once.
     *
     * @return the registration, to close when the call returns
     */
    Wait begin(long unique) {
        Wait w = new Wait(unique);
        waiting.put(unique, w);
        if (early.remove(unique) != null) {
            w.interrupt();
        }
        return w;
    }

    /** Handles {@code FUSE_INTERRUPT} of request {@code unique}. */
    void interrupt(long unique) {
        Wait w = waiting.get(unique);
        if (w != null) {
            w.interrupt();
            return;
        }
        long now = System.nanoTime();
        early.put(unique, now);
        w = waiting.get(unique); // it may have begun meanwhile
        if (w != null && early.remove(unique) != null) {
            w.interrupt();
        }
        for (Iterator<Map.Entry<Long, Long>> i = early.entrySet().iterator(); i.hasNext(); ) {
            if (now - i.next().getValue() > KEEP_NANOS) {
                i.remove();
            }
        }
    }

    /** Interrupts every waiting request (the session is ending: nobody will answer them). */
    void interruptAll() {
        for (Wait w : waiting.values()) {
            w.interrupt();
        }
    }
}
