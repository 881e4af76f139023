package dev.seqvfs.engine;

import dev.seqvfs.protocol.Syscall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Specifies {@link Revalidate}: a call is re-run while it fails with {@code ESTALE}
 * (Linux's {@code LOOKUP_REVAL} retry); cancelling the asynchronous form's future cancels
 * the attempt in flight and starts no further one; the blocking form runs every attempt on
 * the calling thread.
 */
class RevalidateTest {
    private static VfsException stale() {
        return new VfsException(Errno.ESTALE, Syscall.REQUEST, null);
    }

    @Test
    void retrying_cancelledWhileTheFirstAttemptIsInFlight_cancelsThatAttempt() {
        List<CompletableFuture<String>> attempts = new ArrayList<>();
        CompletableFuture<String> out = Revalidate.retrying(() -> {
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
        CompletableFuture<String> out = Revalidate.retrying(() -> {
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
        CompletableFuture<String> out = Revalidate.retrying(() -> {
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
        CompletableFuture<String> out = Revalidate.retrying(() -> {
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
        String v = Revalidate.retryingBlocking(() -> {
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
    void retryingBlocking_otherError_isThrownAtOnce() {
        List<Integer> calls = new ArrayList<>();
        VfsException e = assertThrows(VfsException.class, () -> Revalidate.retryingBlocking(() -> {
            calls.add(1);
            throw new VfsException(Errno.EINTR, Syscall.OPEN, null);
        }));
        assertSame(Errno.EINTR, e.errno());
        assertEquals(1, calls.size());
    }
}
