package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A blocking call running on a thread of its own, parked in it, and how it ended: its result (an
 * {@code int[]} as {@code Arrays.toString}) or the exception it threw, and whether the thread's
 * interrupt status was set when it ended. Tests wait for states ({@link #awaitParkedIn}), never for
 * time.
 *
 * @param thread the thread running the call
 * @param outcome the call's result or exception, once it ended
 * @param interruptedAtEnd whether the thread's interrupt status was set when the call ended
 */
record ParkedCall(Thread thread, AtomicReference<Object> outcome, AtomicBoolean interruptedAtEnd) {
    /** How long any awaited state may take before the test fails. */
    static final long WAIT_SECONDS = 10;

    /**
     * Starts {@code call} on a new thread and returns once that thread is parked inside a method of
     * {@code parkedIn} (a class name), that is, inside the blocking call.
     */
    static ParkedCall park(Callable<?> call, String parkedIn) {
        return park(th -> {}, call, parkedIn);
    }

    /**
     * {@link #park(Callable, String)}, running {@code before} on the new thread first (to interrupt
     * it before the call, say).
     */
    static ParkedCall park(Consumer<Thread> before, Callable<?> call, String parkedIn) {
        AtomicReference<Object> outcome = new AtomicReference<>();
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread th =
                new Thread(
                        () -> {
                            before.accept(Thread.currentThread());
                            Object o;
                            try {
                                Object r = call.call();
                                o = r instanceof int[] a ? Arrays.toString(a) : r;
                            } catch (Exception e) {
                                o = e;
                            }
                            interrupted.set(Thread.currentThread().isInterrupted());
                            outcome.set(o);
                        },
                        "parked-call");
        th.setDaemon(true);
        th.start();
        ParkedCall p = new ParkedCall(th, outcome, interrupted);
        p.awaitParkedIn(parkedIn);
        return p;
    }

    /** Waits until the thread is parked inside a method of {@code parkedIn} (a class name). */
    @SuppressWarnings("ThreadPriorityCheck") // Thread.yield between polls of a state, bounded
    void awaitParkedIn(String parkedIn) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!isParkedIn(thread, parkedIn)) {
            if (!thread.isAlive()) {
                fail("the call ended instead of blocking: " + outcome.get());
            }
            if (System.nanoTime() > deadline) {
                fail("the call did not block in " + parkedIn + ": " + thread.getState());
            }
            Thread.yield();
        }
    }

    /**
     * Interrupts the thread and waits until it has taken the interrupt (its status cleared) and is
     * parked in {@code parkedIn} again: the call went on waiting. Fails if the call ended instead.
     */
    @SuppressWarnings("ThreadPriorityCheck") // Thread.yield between polls of a state, bounded
    void interruptAndAwaitParkedAgainIn(String parkedIn) {
        thread.interrupt();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (thread.isInterrupted()) {
            if (!thread.isAlive()) {
                fail("the call ended at the interrupt: " + outcome.get());
            }
            if (System.nanoTime() > deadline) {
                fail("the call did not take the interrupt");
            }
            Thread.yield();
        }
        awaitParkedIn(parkedIn);
    }

    /** Waits for the call to end (failing the test if it stays parked) and returns its outcome. */
    Object end() throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        if (thread.isAlive()) {
            fail("still parked: " + Arrays.toString(thread.getStackTrace()).replace(", ", "\n  "));
        }
        return outcome.get();
    }

    /**
     * Asserts that the call ended within {@link #WAIT_SECONDS} (no thread is left parked) with
     * {@code errno} naming {@code op} and {@code path}.
     */
    void assertFailedWith(Errno errno, Syscall op, String path) throws InterruptedException {
        Object o = end();
        if (!(o instanceof VfsException e)) {
            throw new AssertionError("expected " + errno + " from " + op + ", got " + o);
        }
        assertEquals(errno, e.errno(), e.getMessage());
        assertEquals(op, e.operation(), e.getMessage());
        assertEquals(path, e.path(), e.getMessage());
    }

    /** {@link #assertFailedWith(Errno, Syscall, String)} with {@code EIO}. */
    void assertFailedWith(Syscall op, String path) throws InterruptedException {
        assertFailedWith(Errno.EIO, op, path);
    }

    /** {@return whether {@code th} is parked inside a method of {@code parkedIn} (a class name)} */
    static boolean isParkedIn(Thread th, String parkedIn) {
        Thread.State s = th.getState();
        if (s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) {
            return false;
        }
        return Arrays.stream(th.getStackTrace()).anyMatch(f -> f.getClassName().equals(parkedIn));
    }
}
