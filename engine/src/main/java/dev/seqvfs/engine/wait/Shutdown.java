package dev.seqvfs.engine.wait;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An instance's closed state and the waits that its close must end: what Linux does to a file
 * system that is shut down ({@code FS_IOC_SHUTDOWN}: every operation from then on fails with {@code
 * EIO}) together with the wake-up a fatal signal gives every task sleeping in it ({@code
 * signal_wake_up}). {@code SeqVfs.close()} calls {@link #shutDown()} first, before it stops the
 * instance's actors.
 *
 * <p>A waiter is whatever would otherwise wait past the close: a thread about to park on a pipe's
 * condition or a monitor (its {@link Waiter#wake} signals that condition), or an async call's
 * pending future (its {@code wake} fails the future with {@code EIO}). Waiters are registered only
 * on the slow path, when a call really waits, so a call that completes at once touches nothing here
 * but one volatile read.
 *
 * <h2>Concurrency</h2>
 *
 * {@code down} is written once (false → true) with a volatile store; {@code waiters} is a
 * concurrent set. The handshake is Dekker's: {@link #enter} adds its waiter (a CAS or a volatile
 * store inside the set), then reads {@code down}; {@link #shutDown} stores {@code down}, issues a
 * full fence, then reads the set. Whichever comes second sees the other: a waiter either is refused
 * or is in the set when the close walks it (a refused waiter may be in the set for that instant
 * too, and be woken once though refused: a {@link Waiter#wake} must do no harm when nothing waits).
 * A waiter's {@code wake} runs on the closing thread, which holds no lock of the engine then, so it
 * may take the lock or monitor its waiter parks on (it must take it, so that the signal cannot fall
 * between the waiter's check and its park). Thread-safe.
 *
 * <h2>States</h2>
 *
 * open → shut down ({@link #shutDown}, once; later calls do nothing).
 */
public final class Shutdown {
    private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);

    /** Something that must stop waiting when the instance closes. */
    @FunctionalInterface
    public interface Waiter {
        /**
         * Ends the wait: signals the condition or monitor a thread parks on (it then re-checks
         * {@link #isShutDown()} and fails with {@code EIO}), or fails a pending future with {@code
         * EIO}. Runs at most once, on the closing thread, holding no engine lock; must not block
         * beyond taking the lock its waiter parks under, and must do no harm if nothing waits any
         * more (the waiter left, or was refused, meanwhile).
         */
        void wake();
    }

    private volatile boolean down;
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();

    /** Creates the state of an open instance. */
    public Shutdown() {}

    /**
     * {@return whether the instance has been shut down ({@code SeqVfs.close()} has begun)} A
     * volatile read; never blocks.
     */
    public boolean isShutDown() {
        return down;
    }

    /**
     * Registers {@code w} to be woken at the shutdown, unless it has begun. A waiter enters before
     * it parks (each wait its own {@code Waiter} object: the set compares by identity) and {@link
     * #leave}s when it stops waiting, whatever the reason.
     *
     * @param w the waiter
     * @return {@code true} if registered; {@code false} if the instance is shut down (nothing is
     *     registered: the caller fails with {@code EIO} instead of waiting)
     */
    public boolean enter(Waiter w) {
        waiters.add(w);
        if (down) {
            waiters.remove(w);
            return false;
        }
        return true;
    }

    /**
     * Unregisters {@code w}; a waiter not (or no longer) registered is ignored.
     *
     * @param w the waiter
     */
    public void leave(Waiter w) {
        waiters.remove(w);
    }

    /**
     * Shuts the instance down: from now on {@link #isShutDown()} is {@code true} and {@link #enter}
     * refuses; then wakes every registered waiter once, on this thread, in no particular order. A
     * waiter's failure is logged and does not stop the others. Idempotent: a second call does
     * nothing.
     */
    public void shutDown() {
        synchronized (this) {
            if (down) {
                return;
            }
            down = true;
        }
        VarHandle.fullFence();
        List<Waiter> all = new ArrayList<>(waiters);
        waiters.removeAll(all);
        for (Waiter w : all) {
            try {
                w.wake();
            } catch (RuntimeException e) {
                LOG.warn("waking a wait at close failed", e);
            }
        }
    }

    /**
     * Waits on {@code monitor}'s {@code wait} for at most {@code timeoutMillis} ({@code 0}: until
     * notified), registered as a waiter for the time it waits, whose wake-up is the monitor's
     * {@code notifyAll}. The caller holds the monitor from before it checked its condition through
     * this call, so the shutdown's {@code notifyAll} cannot be lost, and re-checks its condition
     * after it returns (a wake-up may be spurious).
     *
     * @param monitor the object whose monitor the caller holds and waits on
     * @param timeoutMillis the longest wait in milliseconds, or {@code 0} for no bound
     * @param op the call that waits, named by its error
     * @throws VfsException {@code EIO} if the instance is shut down, before the wait or when it
     *     wakes; {@code EINTR} if the thread is interrupted (its interrupt status is set again)
     */
    @SuppressWarnings("WaitNotInLoop") // every caller's loop re-checks its condition after a wake
    public void awaitOn(Object monitor, long timeoutMillis, Syscall op) {
        Waiter w =
                () -> {
                    synchronized (monitor) {
                        monitor.notifyAll();
                    }
                };
        if (!enter(w)) {
            throw error(op);
        }
        try {
            monitor.wait(timeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw down ? error(op) : new VfsException(Errno.EINTR, op, null);
        } finally {
            leave(w);
        }
        if (down) {
            throw error(op);
        }
    }

    /** {@return the number of waiters registered (tests: 0 when nothing waits)} */
    public int waiting() {
        return waiters.size();
    }

    /**
     * {@return the error of a call that met the shutdown: {@code EIO}, naming {@code op}} The
     * task's view names the call and its paths again ({@code TaskContext.raise}).
     *
     * @param op the call, or the step of it, that met the shutdown
     */
    public static VfsException error(Syscall op) {
        return new VfsException(Errno.EIO, op, null);
    }
}
