package dev.seqvfs.load;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * Runs a run's clients, each doing the same op over and over until it has done its share ({@code
 * opsPerClient}) or the meter asks it to stop, recording every op's latency.
 *
 * <p>Two drivers:
 *
 * <ul>
 *   <li>{@link #threads}: one plain thread per client calling a blocking API (the host's JDK calls,
 *       SeqVFS's blocking calls, and {@code stat}, which never sends a message and so has no async
 *       twin);
 *   <li>{@link #actors}: one Pekko actor per client ({@link ClientActor}) calling SeqVFS's async
 *       twins, on a dispatcher of {@link #DISPATCHER} with as many threads as the caller chose: no
 *       client thread ever waits for a reply.
 * </ul>
 *
 * Both start every client behind one gate, then start the meter, so the clock does not count thread
 * start-up. A client that fails stops the others; the first failure is rethrown as a {@link
 * LoadException}.
 */
public final class Clients {
    /** The config path of the client actors' dispatcher (see {@link #dispatcherConfig}). */
    public static final String DISPATCHER = "seqvfs-load.client-dispatcher";

    private static final AtomicInteger SPAWNED = new AtomicInteger();

    private Clients() {}

    /** One op of a blocking client. */
    @FunctionalInterface
    public interface BlockingOp {
        /** Does the op once; a failure fails the run. */
        void run() throws Exception;
    }

    /** One op of an async client: starts it and returns the stage that completes with it. */
    @FunctionalInterface
    public interface AsyncOp {
        /** Starts the op once; a failed stage (or a throw) fails the run. */
        CompletionStage<?> start();
    }

    /**
     * Returns the config of the client actors' dispatcher: a fixed pool of {@code threads} threads,
     * each actor running one message at a time ({@code throughput = 1}; each message is a batch of
     * ops, see {@link ClientActor}). Merge it into the instance's config ({@code
     * SeqVfs.create(dispatcherConfig(n).withFallback(...))}).
     */
    public static Config dispatcherConfig(int threads) {
        return ConfigFactory.parseString(
                DISPATCHER
                        + " {\n"
                        + "  type = Dispatcher\n"
                        + "  executor = thread-pool-executor\n"
                        + "  thread-pool-executor.fixed-pool-size = "
                        + Math.max(1, threads)
                        + "\n"
                        + "  throughput = 1\n"
                        + "}\n");
    }

    /**
     * Runs one plain thread per op in {@code ops}; each does its op {@code opsPerClient} times or
     * until the meter asks it to stop. Starts the meter once every thread is ready and returns when
     * every thread has returned.
     *
     * @throws LoadException the first client's failure
     */
    public static void threads(Meter meter, List<BlockingOp> ops, long opsPerClient) {
        // Each op timed or not as the meter samples (see Meter); counts published every
        // Probe.PUBLISH_EVERY ops and at the end.
        int n = ops.size();
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            BlockingOp op = ops.get(i);
            Meter.Probe probe = meter.probe(i);
            Thread t =
                    new Thread(
                            () -> {
                                ready.countDown();
                                try {
                                    go.await();
                                    long k = 0;
                                    try {
                                        while (k < opsPerClient && !probe.stopRequested()) {
                                            if (probe.sampled(k)) {
                                                long t0 = System.nanoTime();
                                                op.run();
                                                probe.record(System.nanoTime() - t0);
                                            } else {
                                                op.run();
                                            }
                                            k++;
                                            if ((k & (Meter.Probe.PUBLISH_EVERY - 1)) == 0) {
                                                probe.publish(k);
                                            }
                                        }
                                    } finally {
                                        probe.publish(k);
                                    }
                                } catch (Throwable e) {
                                    failure.compareAndSet(null, e);
                                    meter.requestStop();
                                }
                            },
                            "load-client-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        awaitUninterruptibly(ready);
        meter.start();
        go.countDown();
        for (Thread t : threads) {
            joinUninterruptibly(t);
        }
        rethrow(failure.get());
    }

    /**
     * Spawns one {@link ClientActor} per op in {@code ops} on {@code system}'s {@link #DISPATCHER};
     * each does its op {@code opsPerClient} times or until the meter asks it to stop. Starts the
     * meter, then every actor, and returns when every actor has stopped (the calling thread waits;
     * the clients never do).
     *
     * @throws LoadException the first client's failure
     */
    public static void actors(
            ActorSystem<?> system, Meter meter, List<AsyncOp> ops, long opsPerClient) {
        int n = ops.size();
        List<CompletableFuture<Void>> done = new ArrayList<>(n);
        List<ActorRef<ClientActor.Command>> refs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            var unused =
                    f.whenComplete(
                            (v, e) -> {
                                if (e != null) {
                                    meter.requestStop();
                                }
                            });
            done.add(f);
            refs.add(
                    system.systemActorOf(
                            ClientActor.create(ops.get(i), meter.probe(i), opsPerClient, f),
                            "load-client-" + SPAWNED.incrementAndGet(),
                            DispatcherSelector.fromConfig(DISPATCHER)));
        }
        meter.start();
        for (ActorRef<ClientActor.Command> r : refs) {
            r.tell(ClientActor.Go.INSTANCE);
        }
        Throwable first = null;
        for (CompletableFuture<Void> f : done) {
            try {
                f.get();
            } catch (ExecutionException e) {
                first = first == null ? e.getCause() : first;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                meter.requestStop();
            }
        }
        rethrow(first);
    }

    private static void rethrow(Throwable e) {
        if (e == null) {
            return;
        }
        if (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof LoadException le) {
            throw le;
        }
        throw new LoadException("a client failed: " + e, e);
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
