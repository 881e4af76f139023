package dev.seqvfs.engine.dispatch;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs each submitted task on the thread that submits it, trampolining nested submissions, and
 * hands the overflow to a backing pool.
 *
 * <p>Pekko's {@code Dispatcher} calls {@link #execute} with an actor's mailbox when a {@code tell}
 * finds that mailbox idle. Running it right there, on the sender's thread, turns a blocking ask
 * from a plain thread into a plain method call: no thread hand-off, no park/unpark, no vCPU wake-up
 * (about 13 us per ask on a 2-vCPU machine, against well under 1 us here; see {@code
 * seqvfs-dispatcher.conf} for the figures).
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li><b>Outer call.</b> A thread that is not already inside this executor runs the task inline,
 *       then drains its own trampoline queue, then returns.
 *   <li><b>Nested call.</b> A task that calls {@code execute} on the same thread (an actor telling
 *       another actor, a mailbox re-scheduling itself after its throughput batch, a {@code spawn}
 *       sending {@code Create}) is appended to that thread's queue and runs after the current task
 *       returns, never recursively, so a chain of any length uses constant stack.
 *   <li><b>Hand-off.</b> After {@code maxTrampolined} nested tasks in one outer call, further
 *       nested tasks go to the backing pool, so one caller is not held hostage by other threads'
 *       traffic that it happened to pick up. The tasks already queued still run on the caller, in
 *       order. A task is also handed off when the executor is configured with {@code inline = off}
 *       (then the configurator returns the backing pool itself).
 *   <li><b>Never lost.</b> An accepted task always runs: if the backing pool rejects a hand-off (it
 *       is shut down), the task stays on the caller's queue instead.
 *   <li>Nothing here blocks, spins or takes a lock, and nothing is written to shared memory on the
 *       inline path except by the task itself: the queue is thread-confined.
 * </ul>
 *
 * <h2>Why the actor stays single-threaded (memory ordering)</h2>
 *
 * The executor adds no ordering of its own; Pekko's mailbox status word provides it. A {@code
 * Dispatcher} calls {@code execute(mailbox)} only after winning a compare-and-set that adds the
 * <i>Scheduled</i> bit to an idle mailbox's status, and the mailbox clears that bit (another CAS)
 * in the {@code finally} of its {@code run()}, after its last message. Hence at most one thread
 * runs a given mailbox at any time, whichever thread called {@code execute}: a sender that loses
 * the CAS only enqueues its message, and the running thread sees that message in the {@code
 * hasMessages} re-check it makes after clearing the bit (both sides use volatile accesses, so one
 * of them must see the other's write) and re-schedules the mailbox, which here means trampolining
 * it. Because the clear is a volatile write and the next set is a volatile read-modify-write of the
 * same field, every write the actor made in one run happens-before the next run, on whichever
 * thread it happens. Messages are published by the mailbox's concurrent queue; tasks handed off get
 * the {@code Executor} happens-before edge from submission to run.
 *
 * <h2>Consequences for callers</h2>
 *
 * <ul>
 *   <li>{@code tell} may run actor code, of several actors, before it returns. Never tell an actor
 *       on this dispatcher while holding a lock that such an actor (or anything it tells) may take.
 *   <li>An actor on this dispatcher must never block waiting for another actor on it (an {@code
 *       ask(...).join()} inside a handler): the reply's mailbox is queued behind the waiting
 *       handler on the same thread and the wait ends only at its timeout. A waiter that cannot
 *       avoid it (SeqVFS's blocking calls made from a dependent stage that an actor's reply runs)
 *       calls {@link #runQueuedTask()} until its reply is there; a wait for the very actor whose
 *       handler is running still ends at the timeout.
 *   <li>Timers fire on Pekko's scheduler thread, so a timer message to an idle actor runs the actor
 *       there; keep timer-driven handlers short.
 *   <li>Spawn these actors as children ({@code context.spawn}), not as top-level actors: a
 *       top-level actor's ref drains its pre-start queue under a lock, which would then cover the
 *       handlers run inline.
 * </ul>
 *
 * <h2>Failures</h2>
 *
 * A {@code Throwable} escaping a task (Pekko's mailbox lets only fatal errors and {@link
 * InterruptedException} through) does not stop the drain: the queued tasks still run (dropping one
 * would leave its mailbox marked scheduled and the actor wedged). An {@code InterruptedException}
 * restores the thread's interrupt status; any other is rethrown to the outer caller of {@code
 * execute} after the drain, later ones added as suppressed.
 *
 * <h2>Shutdown</h2>
 *
 * {@link #shutdown()} rejects new outer and nested submissions with {@link
 * RejectedExecutionException} (Pekko's {@code Dispatcher} then retries on the fresh executor it has
 * swapped in) and shuts the backing pool down; tasks already accepted, queued on a caller's thread
 * or in the pool, still run. {@link #isTerminated()} and {@link #awaitTermination} reflect the
 * backing pool only: inline drains are not tracked, since tracking them would put a shared counter
 * on every call. {@link #shutdownNow()} returns the pool's pending tasks; caller threads' queues
 * are theirs to finish.
 *
 * <p>Thread-safe. One instance per dispatcher, made by {@link CallingThreadExecutorConfigurator}.
 */
public final class CallingThreadExecutor extends AbstractExecutorService {

    /**
     * The innermost drain running on this thread, of any instance (drains of different instances
     * nest: a task of one may call another's {@code execute}), for {@link #runQueuedTask()}.
     */
    private static final ThreadLocal<Trampoline> DRAINING = new ThreadLocal<>();

    private final ExecutorService pool;
    private final int maxTrampolined;
    private final ThreadLocal<Trampoline> trampoline = ThreadLocal.withInitial(Trampoline::new);
    private volatile boolean shutdown;

    /** One thread's pending nested tasks; touched only by its owning thread. */
    private static final class Trampoline {
        final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        boolean draining;
        int trampolined;

        /** The drain this one runs inside (another instance's, on the same thread), or null. */
        Trampoline outer;

        /** The first failure of this drain's tasks (later ones suppressed); rethrown at its end. */
        Throwable failure;

        /** The executor whose drain this is. */
        CallingThreadExecutor executor;
    }

    /**
     * Creates an executor that runs tasks on the submitting thread.
     *
     * @param pool receives nested tasks past {@code maxTrampolined} per outer call; shut down with
     *     this executor
     * @param maxTrampolined nested tasks run on the caller per outer call, at least 0
     * @throws IllegalArgumentException if {@code maxTrampolined} is negative
     */
    public CallingThreadExecutor(ExecutorService pool, int maxTrampolined) {
        if (maxTrampolined < 0) {
            throw new IllegalArgumentException("maxTrampolined must be >= 0: " + maxTrampolined);
        }
        this.pool = Objects.requireNonNull(pool, "pool");
        this.maxTrampolined = maxTrampolined;
    }

    /**
     * Runs {@code task} now on this thread, or, if this thread is already running a task of this
     * executor, after that task (or on the backing pool past the trampoline bound). Returns after
     * the task and everything it trampolined have run, unless nested.
     *
     * @throws RejectedExecutionException if this executor is shut down; nothing ran
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (shutdown) {
            throw new RejectedExecutionException("CallingThreadExecutor is shut down");
        }
        Trampoline t = trampoline.get();
        if (t.draining) {
            defer(t, task);
        } else {
            drain(t, task);
        }
    }

    private void defer(Trampoline t, Runnable task) {
        if (t.trampolined < maxTrampolined) {
            t.trampolined++;
            t.queue.addLast(task);
            return;
        }
        try {
            pool.execute(task);
        } catch (RejectedExecutionException poolShutDown) {
            t.queue.addLast(task); // accepted tasks are never dropped
        }
    }

    private void drain(Trampoline t, Runnable first) {
        t.draining = true;
        t.executor = this;
        t.trampolined = 0;
        t.failure = null;
        t.outer = DRAINING.get();
        DRAINING.set(t);
        try {
            Runnable next = first;
            do {
                runGuarded(t, next);
            } while ((next = t.queue.pollFirst()) != null);
        } finally {
            t.draining = false;
            DRAINING.set(t.outer);
            t.outer = null;
        }
        Throwable failure = t.failure;
        t.failure = null;
        if (failure != null) {
            rethrow(failure);
        }
    }

    /**
     * {@return the executor whose task is running on this thread (the innermost, if drains of
     * several nest), or {@code null} outside any} An actor on a calling-thread dispatcher calls it
     * from its setup to learn its own executor, on which it can later run work of its own with the
     * same trampolining as its mailbox runs ({@code DirectoryActor}'s inline drains, issue 9).
     */
    public static CallingThreadExecutor current() {
        Trampoline t = DRAINING.get();
        return t == null ? null : t.executor;
    }

    /**
     * Runs, now, the oldest task that a drain on this thread has queued (the innermost drain first,
     * of any instance), for a caller that is about to wait, inside a task of a calling-thread
     * executor, for work that may be queued behind that very task on its own thread: a dependent
     * stage of a reply, run by the replying actor, that makes a blocking call to another actor.
     * Without this the wait could end only at its timeout. The task runs as the drain would have
     * run it later (its failure is rethrown at the end of that drain), nested in the caller's task;
     * an actor whose mailbox is running on this thread is never among the queued tasks (its mailbox
     * is scheduled once), so no actor runs inside itself.
     *
     * @return whether a task ran; {@code false} if this thread is in no drain or nothing is queued
     *     on it
     */
    public static boolean runQueuedTask() {
        for (Trampoline t = DRAINING.get(); t != null; t = t.outer) {
            Runnable next = t.queue.pollFirst();
            if (next != null) {
                runGuarded(t, next);
                return true;
            }
        }
        return false;
    }

    /**
     * Runs {@code task}, recording what it throws as {@code t}'s failure (the first; later ones
     * suppressed).
     */
    private static void runGuarded(Trampoline t, Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            if (e
                    instanceof
                    InterruptedException) { // Mailbox.run throws it after clearing the flag
                Thread.currentThread().interrupt();
            } else if (t.failure == null) {
                t.failure = e;
            } else {
                t.failure.addSuppressed(e);
            }
        }
    }

    private static void rethrow(Throwable failure) {
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        throw new UndeclaredThrowableException(failure);
    }

    /** Rejects new tasks and shuts the backing pool down; accepted tasks still run. */
    @Override
    public void shutdown() {
        shutdown = true;
        pool.shutdown();
    }

    /** Like {@link #shutdown()}, and returns the backing pool's tasks that never started. */
    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return pool.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    /** Returns whether this executor is shut down and its backing pool has terminated. */
    @Override
    public boolean isTerminated() {
        return shutdown && pool.isTerminated();
    }

    /** Waits, as {@link ExecutorService#awaitTermination} must, for the backing pool only. */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return pool.awaitTermination(timeout, unit);
    }

    @Override
    public String toString() {
        return "CallingThreadExecutor[maxTrampolined="
                + maxTrampolined
                + ", shutdown="
                + shutdown
                + ", pool="
                + pool
                + "]";
    }
}
