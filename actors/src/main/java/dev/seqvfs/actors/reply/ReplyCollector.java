package dev.seqvfs.actors.reply;

import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * Fails the requests of one {@link Pending} registry that get no reply in time: the
 * timeout side of the engine's request-reply, in place of one temporary actor and one timer
 * per ask. Replies themselves do not pass through this actor: a {@link ReplyTo} completes
 * its future directly.
 *
 * <h2>Concurrency</h2>
 * The {@link Pending} registry is shared: callers register futures from any thread
 * ({@link ConcurrentHashMap} put, id from an {@link AtomicLong}); a replying actor
 * ({@link ReplyTo#tell}) or this actor's sweep removes and completes them. A future is
 * completed at most once (whoever removes the entry completes it). Completing a future runs
 * its synchronous dependent stages on the completing thread.
 *
 * <h2>Supervision</h2>
 * {@code SupervisorStrategy.resume()}: a dependent stage that throws must not lose the
 * registry; on stop every pending future fails, so no caller waits forever.
 */
public final class ReplyCollector extends AbstractBehavior<ReplyCollector.Command> {
    /** A message to a collector. */
    public sealed interface Command {
    }

    private record Sweep() implements Command {
    }

    /** The requests waiting for replies through one collector. Thread-safe. */
    public static final class Pending {
        private record Entry(CompletableFuture<Object> future, long deadlineNanos) {
        }

        private final ConcurrentHashMap<Long, Entry> entries = new ConcurrentHashMap<>();
        private final AtomicLong ids = new AtomicLong();

        /**
         * Registers a future until its reply or its deadline.
         *
         * @param deadlineNanos {@link System#nanoTime()} after which a sweep fails it with a
         *                      {@link TimeoutException}
         * @return the id to put in the {@link ReplyTo}
         */
        @SuppressWarnings("unchecked")
        public long register(CompletableFuture<?> future, long deadlineNanos) {
            long id = ids.incrementAndGet();
            entries.put(id, new Entry((CompletableFuture<Object>) future, deadlineNanos));
            return id;
        }

        /** Returns the number of requests waiting. */
        public int size() {
            return entries.size();
        }

        /** Completes the future registered under {@code id}, if it is still waiting. */
        void complete(long id, Object payload) {
            Entry e = entries.remove(id);
            if (e != null) {
                e.future().complete(payload);
            }
        }

        void sweep(long now) {
            for (Iterator<Map.Entry<Long, Entry>> it = entries.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Long, Entry> me = it.next();
                if (now - me.getValue().deadlineNanos() > 0 && entries.remove(me.getKey(), me.getValue())) {
                    me.getValue().future().completeExceptionally(
                            new TimeoutException("no reply to request " + me.getKey()));
                }
            }
        }

        void failAll() {
            for (Long id : entries.keySet()) {
                Entry e = entries.remove(id);
                if (e != null) {
                    e.future().completeExceptionally(new IllegalStateException("reply collector stopped"));
                }
            }
        }
    }

    private final Pending pending;

    private ReplyCollector(ActorContext<Command> ctx, Pending pending) {
        super(ctx);
        this.pending = pending;
    }

    /**
     * Returns the behavior of a collector over {@code pending}, sweeping for overdue
     * requests every {@code sweepEvery}.
     */
    public static Behavior<Command> create(Pending pending, Duration sweepEvery) {
        return Behaviors.supervise(Behaviors.<Command>withTimers(timers -> {
            timers.startTimerAtFixedRate(new Sweep(), sweepEvery);
            return Behaviors.setup(ctx -> new ReplyCollector(ctx, pending));
        })).onFailure(SupervisorStrategy.resume());
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Sweep.class, s -> {
                    pending.sweep(System.nanoTime());
                    return this;
                })
                .onSignal(PostStop.class, s -> {
                    pending.failAll();
                    return this;
                })
                .build();
    }
}
