package dev.seqvfs.engine;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Re-runs a call, walk included, while its writer answers {@code ESTALE}: the path the call was
 * resolved through changed between the walk and the instant the writer applied it (Linux retries
 * the same way with {@code LOOKUP_REVAL}). Each retry walks the current tree, so the call ends with
 * the answer of a walk that held when it applied.
 *
 * <h2>The bound</h2>
 *
 * At most {@link #MAX_TRIES} attempts. If every one of them went stale (the path kept changing
 * under the call faster than it could apply: a livelock with concurrent renames, or a proof that
 * can never hold), the call fails with {@code EIO} and has changed nothing. Linux retries once with
 * {@code LOOKUP_REVAL} and then returns the {@code ESTALE} itself, an errno its local file systems
 * never produce; {@code ENOENT} would claim that a path was missing that the last walk found.
 * {@code EIO} is what SeqVFS already answers for a call it could not complete (an ask that timed
 * out). The bound counts attempts, not time: each attempt waits at most the ask timeout for its own
 * reply, and a blocking caller waits for each attempt separately ({@link #retryingBlocking}), never
 * for the whole chain under one timeout.
 *
 * <h2>Forms</h2>
 *
 * {@link #retryingBlocking} is a loop on the calling thread, which backs off ({@link #backOff})
 * after its first stale attempts. {@link #retrying} is asynchronous (no back-off: it never holds a
 * thread): a retry starts from the completion of the failed attempt, never blocking a thread, and
 * the attempts run in a loop (a work-in-progress counter hands the loop to whichever thread
 * completes an attempt), so a chain of attempts that complete at once does not grow the stack.
 * Completing its future exceptionally (cancelling it) cancels the attempt in flight and starts no
 * further one. A cancelled stage never runs its function, so an attempt must not hand a resource
 * from one stage to a dependent one (acquire and hand over in the same stage), or must withdraw its
 * source itself (as {@link OpenFuture} does for a waiting FIFO open). Thread-safe; stateless.
 */
final class Revalidate {
    /**
     * Attempts before the call gives up with {@code EIO}. Each failed attempt means a concurrent
     * change hit a name on the call's path in the microseconds between its walk and its apply; 1000
     * in a row is a livelock, not bad luck, and costs a few milliseconds.
     */
    static final int MAX_TRIES = 1000;

    private Revalidate() {}

    /**
     * Runs {@code attempt}, again while it fails with {@code ESTALE}, at most {@link #MAX_TRIES}
     * times.
     *
     * @return the first attempt's outcome that is not {@code ESTALE}; {@code EIO} (with the
     *     operation and path of the last {@code ESTALE}) after {@link #MAX_TRIES} stale ones
     */
    static <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> attempt) {
        return retrying(attempt, MAX_TRIES);
    }

    /** {@link #retrying(Supplier)} with a bound of {@code tries} attempts (tests). */
    static <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> attempt, int tries) {
        CompletableFuture<T> first = start(attempt);
        if (first.isDone() && !isStale(first)) {
            return first;
        }
        Retry<T> r = new Retry<>(attempt, tries);
        r.follow(first);
        return r.out;
    }

    /**
     * The blocking form: runs {@code attempt} on the calling thread, again while it throws {@code
     * ESTALE}, at most {@link #MAX_TRIES} times.
     *
     * @throws VfsException the first failure that is not {@code ESTALE}; {@code EIO} after {@link
     *     #MAX_TRIES} stale attempts
     */
    static <T> T retryingBlocking(Supplier<T> attempt) {
        return retryingBlocking(attempt, MAX_TRIES);
    }

    /** {@link #retryingBlocking(Supplier)} with a bound of {@code tries} attempts (tests). */
    static <T> T retryingBlocking(Supplier<T> attempt, int tries) {
        for (int done = 1; ; done++) {
            try {
                return attempt.get();
            } catch (VfsException e) {
                if (e.errno() != Errno.ESTALE) {
                    throw e;
                }
                if (done >= tries) {
                    throw exhausted(e);
                }
                backOff(done);
            }
        }
    }

    /** Stale attempts retried at once, before {@link #backOff} starts yielding the CPU. */
    static final int IMMEDIATE_TRIES = 16;

    /** Stale attempts after which each retry first parks for {@link #PARK_NANOS}. */
    static final int YIELDING_TRIES = 64;

    /** How long a retry parks after {@link #YIELDING_TRIES} stale attempts: 50 us. */
    static final long PARK_NANOS = 50_000;

    /**
     * Waits before the retry that follows stale attempt {@code done}: not at all for the first
     * {@link #IMMEDIATE_TRIES}, then a {@code Thread.yield()}, and from {@link #YIELDING_TRIES} on
     * a park of {@link #PARK_NANOS}. A stale answer means another writer changed the path; on a
     * machine with fewer cores than runnable threads that writer (an actor run by another thread)
     * may need this caller's CPU to finish, and 1,000 retries in a tight loop took 2 ms, too short
     * for it (an rmdir racing an unlink ran out of tries on 2 cores and failed with {@code EIO}).
     * With the waits, {@link #MAX_TRIES} stale attempts take at least 45 ms.
     */
    @SuppressWarnings("ThreadPriorityCheck") // yield: a back-off, not for correctness
    private static void backOff(int done) {
        if (done < IMMEDIATE_TRIES) {
            return;
        }
        if (done < YIELDING_TRIES) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(PARK_NANOS);
        }
    }

    /** The answer once every attempt went stale. */
    private static VfsException exhausted(VfsException lastStale) {
        return new VfsException(
                Errno.EIO, lastStale.operation(), lastStale.path(), lastStale.otherPath());
    }

    private static <T> CompletableFuture<T> start(Supplier<CompletableFuture<T>> attempt) {
        try {
            return attempt.get();
        } catch (RuntimeException e) {
            // Thrown into an attempt's completion callback, it would be lost and the call's
            // future never completed: the call fails with it instead.
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * One retried call: {@code out} is what the caller holds; {@code current} the attempt in flight
     * (volatile: written before {@code out} is checked, read after {@code out} is completed, so a
     * cancellation and a new attempt never miss each other).
     *
     * <p>The loop: an attempt's completion calls {@link #restart}, which runs {@link #startNext}
     * only if no other thread (or an outer frame of this thread) is running the loop; otherwise it
     * counts one more turn for that runner ({@code wip}, as a drain loop). {@code tries} is touched
     * only by the runner of the moment, and the counter's atomic updates order one runner's writes
     * before the next one's reads.
     */
    private static final class Retry<T> {
        final CompletableFuture<T> out = new CompletableFuture<>();
        final Supplier<CompletableFuture<T>> attempt;
        final int maxTries;
        final AtomicInteger wip = new AtomicInteger();
        volatile CompletableFuture<T> current;
        private int tries = 1;

        Retry(Supplier<CompletableFuture<T>> attempt, int maxTries) {
            this.attempt = attempt;
            this.maxTries = maxTries;
            var unused =
                    out.whenComplete(
                            (v, e) -> {
                                CompletableFuture<T> c = current;
                                if (e != null && c != null) {
                                    c.cancel(false);
                                }
                            });
        }

        /** Follows attempt {@code f} (already started and counted). */
        void follow(CompletableFuture<T> f) {
            current = f;
            if (out.isDone()) {
                f.cancel(false);
                return;
            }
            var unused = f.whenComplete(this::onAttempt);
        }

        private void onAttempt(T v, Throwable e) {
            if (e == null) {
                out.complete(v);
                return;
            }
            Throwable c = unwrap(e);
            if (!(c instanceof VfsException stale) || stale.errno() != Errno.ESTALE) {
                out.completeExceptionally(c);
            } else if (tries >= maxTries) {
                out.completeExceptionally(exhausted(stale));
            } else {
                restart();
            }
        }

        private void restart() {
            if (wip.getAndIncrement() != 0) {
                return;
            }
            do {
                startNext();
            } while (wip.decrementAndGet() != 0);
        }

        private void startNext() {
            if (out.isDone()) {
                return;
            }
            tries++;
            follow(start(attempt));
        }
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    private static boolean isStale(CompletableFuture<?> f) {
        if (!f.isCompletedExceptionally()) {
            return false;
        }
        try {
            f.join();
            return false;
        } catch (CompletionException e) {
            return stale(e);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean stale(Throwable e) {
        Throwable c = unwrap(e);
        return c instanceof VfsException v && v.errno() == Errno.ESTALE;
    }
}
