package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Specifies {@link Revalidate}: a call is re-run while it fails with {@code ESTALE} (Linux's {@code
 * LOOKUP_REVAL} retry), at most {@link Revalidate#MAX_TRIES} times, after which it fails with
 * {@code EIO}; cancelling the asynchronous form's future cancels the attempt in flight and starts
 * no further one; the blocking form runs every attempt on the calling thread; the asynchronous
 * form's attempts run in a loop, not in nested frames.
 */
class RevalidateTest {
    private static VfsException stale() {
        return new VfsException(Errno.ESTALE, Syscall.REQUEST, null);
    }

    @Test
    void retrying_cancelledWhileTheFirstAttemptIsInFlight_cancelsThatAttempt() {
        List<CompletableFuture<String>> attempts = new ArrayList<>();
        CompletableFuture<String> out =
                Revalidate.retrying(
                        () -> {
                            CompletableFuture<String> f = new CompletableFuture<>();
                            attempts.add(f);
                            return f;
                        });
        assertTrue(out.cancel(false));
        assertEquals(1, attempts.size());
        assertTrue(attempts.get(0).isCancelled());
    }

    @Test
    void retrying_cancelledDuringARetry_cancelsTheRetry_andStartsNoOther() {
        List<CompletableFuture<String>> attempts = new ArrayList<>();
        CompletableFuture<String> out =
                Revalidate.retrying(
                        () -> {
                            CompletableFuture<String> f = new CompletableFuture<>();
                            attempts.add(f);
                            return f;
                        });
        attempts.get(0).completeExceptionally(stale());
        assertEquals(2, attempts.size());
        assertFalse(out.isDone());
        assertTrue(out.cancel(false));
        assertTrue(attempts.get(1).isCancelled());
        assertEquals(2, attempts.size());
    }

    @Test
    void retrying_staleThenValue_completesWithTheValue() {
        List<CompletableFuture<String>> attempts = new ArrayList<>();
        CompletableFuture<String> out =
                Revalidate.retrying(
                        () -> {
                            CompletableFuture<String> f = new CompletableFuture<>();
                            attempts.add(f);
                            return f;
                        });
        attempts.get(0).completeExceptionally(stale());
        attempts.get(1).complete("done");
        assertEquals("done", out.join());
    }

    @Test
    void retrying_retryThrows_failsTheCallWithWhatItThrew() {
        IllegalStateException bug = new IllegalStateException("attempt threw");
        List<Integer> calls = new ArrayList<>();
        CompletableFuture<String> out =
                Revalidate.retrying(
                        () -> {
                            calls.add(1);
                            if (calls.size() == 1) {
                                return CompletableFuture.failedFuture(stale());
                            }
                            throw bug;
                        });
        assertTrue(out.isDone(), "the call hangs when the retry's exception is lost");
        assertSame(bug, assertThrows(CompletionException.class, out::join).getCause());
        assertEquals(2, calls.size());
    }

    @Test
    void retryingBlocking_staleTwice_runsEveryAttemptOnTheCallingThread() {
        Thread caller = Thread.currentThread();
        List<Thread> ran = new ArrayList<>();
        String v =
                Revalidate.retryingBlocking(
                        () -> {
                            ran.add(Thread.currentThread());
                            if (ran.size() < 3) {
                                throw stale();
                            }
                            return "ok";
                        });
        assertEquals("ok", v);
        assertEquals(List.of(caller, caller, caller), ran);
    }

    @Test
    void retrying_alwaysStaleAtOnce_failsWithEIOAfterMaxTries_withoutGrowingTheStack() {
        int[] calls = new int[1];
        int[] depth = {Integer.MAX_VALUE, 0};
        CompletableFuture<String> out =
                Revalidate.retrying(
                        () -> {
                            calls[0]++;
                            int d = Thread.currentThread().getStackTrace().length;
                            depth[0] = Math.min(depth[0], d);
                            depth[1] = Math.max(depth[1], d);
                            return CompletableFuture.failedFuture(stale());
                        });
        assertTrue(out.isDone());
        VfsException e =
                assertThrows(
                        VfsException.class,
                        () -> {
                            try {
                                out.join();
                            } catch (java.util.concurrent.CompletionException c) {
                                throw c.getCause();
                            }
                        });
        assertSame(Errno.EIO, e.errno());
        assertEquals(Syscall.REQUEST, e.operation());
        assertEquals(Revalidate.MAX_TRIES, calls[0]);
        assertTrue(
                depth[1] - depth[0] < 32,
                "stack grew from " + depth[0] + " to " + depth[1] + " frames");
    }

    @Test
    void retrying_staleAttemptsCompletedByAnotherThread_failWithEIOAfterMaxTries()
            throws Exception {
        java.util.concurrent.ExecutorService other =
                java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            int[] calls = new int[1];
            CompletableFuture<String> out =
                    Revalidate.retrying(
                            () -> {
                                calls[0]++;
                                return CompletableFuture.supplyAsync(
                                        () -> {
                                            throw stale();
                                        },
                                        other);
                            });
            java.util.concurrent.ExecutionException e =
                    assertThrows(
                            java.util.concurrent.ExecutionException.class,
                            () -> out.get(30, java.util.concurrent.TimeUnit.SECONDS));
            assertSame(Errno.EIO, ((VfsException) e.getCause()).errno());
            assertEquals(Revalidate.MAX_TRIES, calls[0]);
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void retryingBlocking_alwaysStale_failsWithEIOAfterMaxTries() {
        int[] calls = new int[1];
        VfsException e =
                assertThrows(
                        VfsException.class,
                        () ->
                                Revalidate.retryingBlocking(
                                        () -> {
                                            calls[0]++;
                                            throw stale();
                                        }));
        assertSame(Errno.EIO, e.errno());
        assertEquals(Revalidate.MAX_TRIES, calls[0]);
    }

    /**
     * The bug class: a writer that needs the retrying caller's CPU to finish (2 cores, more
     * runnable threads) could not within 1,000 immediate retries (about 2 ms), and the call failed
     * with {@code EIO}. Here the path stays stale for 20 ms of wall time; the back-off spreads the
     * tries over more than that, so the call succeeds. Without it, it fails in about a millisecond.
     */
    @Test
    void retryingBlocking_staleFor20Milliseconds_succeeds_becauseRetriesBackOff() {
        long until = System.nanoTime() + 20_000_000L;
        int[] calls = new int[1];
        String v =
                Revalidate.retryingBlocking(
                        () -> {
                            calls[0]++;
                            if (System.nanoTime() < until) {
                                throw stale();
                            }
                            return "done";
                        });
        assertEquals("done", v);
        assertTrue(calls[0] < Revalidate.MAX_TRIES, calls[0] + " tries");
    }

    @Test
    void retryingBlocking_otherError_isThrownAtOnce() {
        List<Integer> calls = new ArrayList<>();
        VfsException e =
                assertThrows(
                        VfsException.class,
                        () ->
                                Revalidate.retryingBlocking(
                                        () -> {
                                            calls.add(1);
                                            throw new VfsException(Errno.EINTR, Syscall.OPEN, null);
                                        }));
        assertSame(Errno.EINTR, e.errno());
        assertEquals(1, calls.size());
    }
}
