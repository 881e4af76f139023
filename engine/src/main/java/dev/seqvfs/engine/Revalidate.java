package dev.seqvfs.engine;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * Re-runs a namespace call, walk included, while its writer answers {@code ESTALE}: the
 * path the call was resolved through changed between the walk and the instant the writer
 * applied it (Linux retries the same way with {@code LOOKUP_REVAL}). Each retry walks the
 * current tree, so the call ends with the answer of a walk that held when it applied.
 *
 * <p>{@link #retrying} is asynchronous: a retry is chained on the failed stage, never
 * blocking a thread. Completing its future exceptionally (cancelling it) cancels the
 * attempt in flight and starts no further one. A cancelled stage never runs its function,
 * so an attempt must not hand a resource from one stage to a dependent one (acquire and
 * hand over in the same stage), or must withdraw its source itself (as {@link OpenFuture}
 * does for a waiting FIFO open). {@link #retryingBlocking} runs every
 * attempt on the calling thread. Both are bounded by {@link #MAX_TRIES}; past it (a path
 * renamed continuously) the call fails with {@code ESTALE}. Thread-safe; stateless.
 */
final class Revalidate {
    /** Attempts before giving up with {@code ESTALE}. */
    static final int MAX_TRIES = 10_000;

    private Revalidate() {
    }

    /** Runs {@code attempt}, again while it fails with {@code ESTALE}. */
    static <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> attempt) {
        return retrying(attempt, MAX_TRIES);
    }

    /**
     * The blocking form: runs {@code attempt} on the calling thread, again while it throws
     * {@code ESTALE}.
     */
    static <T> T retryingBlocking(Supplier<T> attempt) {
        for (int left = MAX_TRIES; ; left--) {
            try {
                return attempt.get();
            } catch (VfsException e) {
                if (left <= 1 || e.errno() != Errno.ESTALE) {
                    throw e;
                }
            }
        }
    }

    private static <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> attempt, int tries) {
        CompletableFuture<T> first = start(attempt);
        if (first.isDone() && !isStale(first)) {
            return first;
        }
        Retry<T> r = new Retry<>(attempt);
        r.follow(first, tries);
        return r.out;
    }

    private static <T> CompletableFuture<T> start(Supplier<CompletableFuture<T>> attempt) {
        try {
            return attempt.get();
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * One retried call: {@code out} is what the caller holds; {@code current} the attempt in
     * flight (volatile: written before {@code out} is checked, read after {@code out} is
     * completed, so a cancellation and a new attempt never miss each other).
     */
    private static final class Retry<T> {
        final CompletableFuture<T> out = new CompletableFuture<>();
        final Supplier<CompletableFuture<T>> attempt;
        volatile CompletableFuture<T> current;

        Retry(Supplier<CompletableFuture<T>> attempt) {
            this.attempt = attempt;
            var unused = out.whenComplete((v, e) -> {
                CompletableFuture<T> c = current;
                if (e != null && c != null) {
                    c.cancel(false);
                }
            });
        }

        void follow(CompletableFuture<T> f, int left) {
            current = f;
            if (out.isDone()) {
                f.cancel(false);
                return;
            }
            var unused = f.whenComplete((v, e) -> {
                if (e == null) {
                    out.complete(v);
                } else if (left > 1 && stale(e) && !out.isDone()) {
                    CompletableFuture<T> next;
                    try {
                        next = start(attempt);
                    } catch (RuntimeException x) {
                        // Thrown into this callback's own stage, it would be lost and out
                        // never completed: the call fails with it instead.
                        next = CompletableFuture.failedFuture(x);
                    }
                    follow(next, left - 1);
                } else {
                    out.completeExceptionally(e instanceof CompletionException && e.getCause() != null
                            ? e.getCause() : e);
                }
            });
        }
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
        Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return c instanceof VfsException v && v.errno() == Errno.ESTALE;
    }
}
