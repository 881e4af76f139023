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
 * <p>Asynchronous: a retry is chained on the failed stage, never blocking a thread.
 * Bounded by {@link #MAX_TRIES}; past it (a path renamed continuously) the call fails
 * with {@code ESTALE}.
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

    private static <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> attempt, int left) {
        CompletableFuture<T> f;
        try {
            f = attempt.get();
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (f.isDone() && !isStale(f)) {
            return f;
        }
        return f.handle((v, e) -> {
            if (e != null && left > 1 && stale(e)) {
                return retrying(attempt, left - 1);
            }
            return f;
        }).thenCompose(x -> x);
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
