package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Specifies the client drivers ({@link Clients}, {@link ClientActor}) and {@link Meter}'s counting:
 * each client does exactly its share of ops, an async op completed later on another thread is
 * awaited without blocking and still counted, one client's failure stops the others and surfaces as
 * a {@link LoadException}, and sampling times one op in N while counting them all.
 */
class ClientsTest {
    private static ActorSystem<Void> system;
    private static ExecutorService other;

    @BeforeAll
    static void start() {
        system =
                ActorSystem.create(
                        Behaviors.empty(),
                        "clients-test",
                        Clients.dispatcherConfig(2).withFallback(ConfigFactory.load()));
        other = Executors.newSingleThreadExecutor();
    }

    @AfterAll
    static void stop() {
        system.terminate();
        other.shutdown();
    }

    @Test
    void actors_threeClients_eachDoesExactlyItsOps() {
        Meter m = new Meter("t", "", 3);
        AtomicLong[] done = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        List<Clients.AsyncOp> ops = new ArrayList<>();
        for (AtomicLong d : done) {
            ops.add(() -> CompletableFuture.completedFuture(d.incrementAndGet()));
        }
        Clients.actors(system, m, ops, 1000);
        RunResult r = m.finish();
        for (AtomicLong d : done) {
            assertEquals(1000, d.get());
        }
        assertEquals(3000, r.ops());
        assertEquals(3000, r.latency().getTotalCount());
    }

    @Test
    void actors_stageCompletedOnAnotherThread_isAwaitedAndCounted() {
        Meter m = new Meter("t", "", 1);
        AtomicLong done = new AtomicLong();
        List<Clients.AsyncOp> ops =
                List.of(() -> CompletableFuture.supplyAsync(done::incrementAndGet, other));
        Clients.actors(system, m, ops, 200);
        assertEquals(200, done.get());
        assertEquals(200, m.finish().ops());
    }

    @Test
    void actors_failedStage_stopsTheRunWithLoadException() {
        Meter m = new Meter("t", "", 2);
        AtomicLong calls = new AtomicLong();
        List<Clients.AsyncOp> ops =
                List.of(
                        () ->
                                calls.incrementAndGet() == 10
                                        ? CompletableFuture.failedFuture(
                                                new IllegalStateException("boom"))
                                        : CompletableFuture.completedFuture(null),
                        () -> CompletableFuture.completedFuture(null));
        LoadException e =
                assertThrows(
                        LoadException.class, () -> Clients.actors(system, m, ops, Long.MAX_VALUE));
        assertTrue(e.getMessage().contains("boom"), e.getMessage());
        assertTrue(m.stopRequested());
    }

    @Test
    void threads_oneClientThrows_stopsTheOthersAndRethrows() {
        Meter m = new Meter("t", "", 2);
        List<Clients.BlockingOp> ops =
                List.of(
                        () -> {
                            throw new java.io.IOException("EMFILE");
                        },
                        () -> {});
        LoadException e =
                assertThrows(LoadException.class, () -> Clients.threads(m, ops, Long.MAX_VALUE));
        assertTrue(e.getMessage().contains("EMFILE"), e.getMessage());
    }

    @Test
    void threads_sampleEvery4_countsEveryOpAndTimesOneInFour() {
        Meter m = new Meter("t", "", 2, 4);
        AtomicLong n = new AtomicLong();
        Clients.threads(m, List.of(n::incrementAndGet, n::incrementAndGet), 1000);
        RunResult r = m.finish();
        assertEquals(2000, n.get());
        assertEquals(2000, r.ops());
        assertEquals(500, r.latency().getTotalCount());
    }
}
