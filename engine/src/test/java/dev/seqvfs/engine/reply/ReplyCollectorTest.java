package dev.seqvfs.engine.reply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplyCollector}: a reply completes the future registered under its id exactly once; a
 * request without a reply fails with a {@link TimeoutException} at the sweep after its deadline;
 * stopping the collector fails what is still pending.
 */
class ReplyCollectorTest {
    static final ActorTestKit KIT = ActorTestKit.create();

    @AfterAll
    static void down() {
        KIT.shutdownTestKit();
    }

    @Test
    void reply_completesTheRegisteredFuture_once() throws Exception {
        ReplyCollector.Pending pending = new ReplyCollector.Pending();
        KIT.spawn(ReplyCollector.create(pending, Duration.ofSeconds(10)));
        CompletableFuture<String> f = new CompletableFuture<>();
        long id = pending.register(f, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        ReplyTo<String> to = new ReplyTo<>(pending, id);
        to.tell("first");
        to.tell("second");
        assertEquals("first", f.get(5, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (pending.size() != 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(0, pending.size());
    }

    @Test
    void reply_whileAnOlderRequestHoldsTheSameSlot_completesOnlyItsOwnFuture() throws Exception {
        ReplyCollector.Pending pending = new ReplyCollector.Pending();
        long far = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        CompletableFuture<String> old = new CompletableFuture<>();
        ReplyTo<String> oldTo = new ReplyTo<>(pending, pending.register(old, far));
        // RING requests later, one lands on the slot the old request still holds.
        CompletableFuture<String> clash = null;
        ReplyTo<String> clashTo = null;
        for (int i = 0; i < ReplyCollector.Pending.RING; i++) {
            CompletableFuture<String> f = new CompletableFuture<>();
            ReplyTo<String> to = new ReplyTo<>(pending, pending.register(f, far));
            if (i == ReplyCollector.Pending.RING - 1) {
                clash = f;
                clashTo = to;
            } else {
                to.tell("r" + i);
                assertEquals("r" + i, f.getNow(null));
            }
        }
        assertEquals(
                oldTo.id() % ReplyCollector.Pending.RING,
                clashTo.id() % ReplyCollector.Pending.RING);
        assertEquals(2, pending.size());
        clashTo.tell("clash");
        assertEquals("clash", clash.getNow(null));
        assertFalse(old.isDone());
        oldTo.tell("old");
        oldTo.tell("again");
        assertEquals("old", old.getNow(null));
        assertEquals(0, pending.size());
    }

    @Test
    void noReply_failsWithTimeoutAtTheSweepAfterTheDeadline() {
        ReplyCollector.Pending pending = new ReplyCollector.Pending();
        KIT.spawn(ReplyCollector.create(pending, Duration.ofMillis(20)));
        CompletableFuture<String> f = new CompletableFuture<>();
        pending.register(f, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50));
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof TimeoutException, e.toString());
    }

    @Test
    void stop_failsEveryPendingRequest() {
        ReplyCollector.Pending pending = new ReplyCollector.Pending();
        ActorRef<ReplyCollector.Command> c =
                KIT.spawn(ReplyCollector.create(pending, Duration.ofSeconds(10)));
        CompletableFuture<String> f = new CompletableFuture<>();
        pending.register(f, System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
        KIT.stop(c);
        assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
    }
}
