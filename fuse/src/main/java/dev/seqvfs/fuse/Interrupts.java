package dev.seqvfs.fuse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Signals for requests that wait: a host process blocked in {@code F_SETLKW} or a blocking {@code
 * flock} through the mount must get {@code EINTR} when a signal comes (and die at once on {@code
 * SIGKILL}), as on tmpfs. The kernel's FUSE client then waits for the file system's answer (the
 * request is in userspace; libfuse 2's interrupt support signals a native thread, which does not
 * wake a Java wait). So while a worker waits in such a call, a watchdog reads the caller's {@code
 * /proc/PID/status} every 20 ms and interrupts the worker ({@link Thread#interrupt()}) when the
 * caller has a signal pending that it does not block, or is gone; the engine's wait then fails with
 * {@code EINTR} having changed nothing.
 *
 * <p><b>Concurrency.</b> Watched calls are in a concurrent map; one daemon thread polls it. A
 * {@link Watch} is closed by its worker under the watch's monitor, which the watchdog also holds to
 * interrupt, so no interrupt lands after the call has left; closing clears the worker's interrupt
 * status.
 */
final class Interrupts {
    private static final long POLL_MILLIS = 20;

    private final ConcurrentHashMap<Watch, Boolean> watched = new ConcurrentHashMap<>();
    private final ScheduledExecutorService poller;

    Interrupts(String name) {
        poller =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, name + "-interrupts");
                            t.setDaemon(true);
                            return t;
                        });
        poller.scheduleWithFixedDelay(this::poll, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** One call that waits: its worker thread and its caller's process (or thread) id. */
    final class Watch implements AutoCloseable {
        private final Thread worker = Thread.currentThread();
        private final int pid;
        private boolean done;

        private Watch(int pid) {
            this.pid = pid;
        }

        private synchronized void interruptIfSignalled() {
            if (!done && signalPending(pid)) {
                worker.interrupt();
            }
        }

        @Override
        public void close() {
            watched.remove(this);
            synchronized (this) {
                done = true;
            }
            Thread.interrupted(); // an interrupt meant for this call must not reach the next
        }
    }

    /** Starts watching caller {@code pid} for the call the current thread is about to make. */
    Watch watch(int pid) {
        Watch w = new Watch(pid);
        watched.put(w, Boolean.TRUE);
        return w;
    }

    private void poll() {
        for (Watch w : watched.keySet()) {
            w.interruptIfSignalled();
        }
    }

    /** Ends the watchdog (the mount has ended). */
    void shutdown() {
        poller.shutdownNow();
    }

    /**
     * Returns whether process (or thread) {@code pid} has a signal pending that it does not block
     * ({@code SigPnd | ShdPnd} without {@code SigBlk}), or no longer exists.
     */
    static boolean signalPending(int pid) {
        if (pid <= 0) {
            return false;
        }
        long pending = 0;
        long blocked = 0;
        try {
            for (String line :
                    Files.readAllLines(
                            Path.of("/proc", Integer.toString(pid), "status"),
                            StandardCharsets.US_ASCII)) {
                if (line.startsWith("SigPnd:") || line.startsWith("ShdPnd:")) {
                    pending |= Long.parseUnsignedLong(line.substring(7).trim(), 16);
                } else if (line.startsWith("SigBlk:")) {
                    blocked = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                }
            }
        } catch (IOException | RuntimeException e) {
            return true; // gone
        }
        return (pending & ~blocked) != 0;
    }
}
