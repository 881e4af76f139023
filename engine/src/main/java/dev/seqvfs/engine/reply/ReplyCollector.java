package dev.seqvfs.engine.reply;

import dev.seqvfs.engine.dispatch.OutOfMemoryGuard;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * Fails the requests of one {@link Pending} registry that get no reply in time: the timeout side of
 * the engine's request-reply, in place of one temporary actor and one timer per ask. Replies
 * themselves do not pass through this actor: a {@link ReplyTo} completes its future directly.
 *
 * <h2>Concurrency</h2>
 *
 * The {@link Pending} registry is shared: callers register futures from any thread (a CAS into a
 * ring slot, id from an {@link AtomicLong}); a replying actor ({@link ReplyTo#tell}) or this
 * actor's sweep removes and completes them. A future is completed at most once (whoever removes the
 * entry completes it). Completing a future runs its synchronous dependent stages on the completing
 * thread.
 *
 * <h2>Supervision</h2>
 *
 * {@code SupervisorStrategy.resume()}: a dependent stage that throws must not lose the registry; on
 * stop every pending future fails with {@code EIO}, so no caller waits forever.
 */
public final class ReplyCollector extends AbstractBehavior<ReplyCollector.Command> {
    /** A message to a collector. */
    public sealed interface Command {}

    private record Sweep() implements Command {}

    /**
     * The requests waiting for replies through one collector. Thread-safe.
     *
     * <p>A request lives in slot {@code id & (RING - 1)} of a ring of {@link AtomicReferenceArray}
     * slots, put there by CAS from null and taken out by CAS to null by whoever completes it (the
     * reply, a sweep, a stop): one CAS each way and one small object per request, where a {@link
     * ConcurrentHashMap} took a boxed key, a node and two contended size-counter updates. A request
     * whose slot is still held by one registered {@code RING} requests earlier (a reply that waits
     * long) goes to the {@code overflow} map instead. A reply checks the id it carries against the
     * slot's entry, so a late or second reply never completes another request.
     */
    public static final class Pending {
        /** Ring slots (a power of two). */
        static final int RING = 1024;

        private static final class Entry {
            final long id;
            final CompletableFuture<Object> future;
            final long deadlineNanos;

            Entry(long id, CompletableFuture<Object> future, long deadlineNanos) {
                this.id = id;
                this.future = future;
                this.deadlineNanos = deadlineNanos;
            }
        }

        private static VfsException stopped() {
            return new VfsException(Errno.EIO, Syscall.REQUEST, null);
        }

        private final AtomicReferenceArray<Entry> ring = new AtomicReferenceArray<>(RING);
        private final ConcurrentHashMap<Long, Entry> overflow = new ConcurrentHashMap<>();
        private final AtomicLong ids = new AtomicLong();

        /**
         * Registers a future until its reply or its deadline.
         *
         * @param future the future the reply completes
         * @param deadlineNanos {@link System#nanoTime()} after which a sweep fails it with a {@link
         *     TimeoutException}
         * @return the id to put in the {@link ReplyTo}
         */
        @SuppressWarnings("unchecked")
        public long register(CompletableFuture<?> future, long deadlineNanos) {
            long id = ids.incrementAndGet();
            Entry e = new Entry(id, (CompletableFuture<Object>) future, deadlineNanos);
            if (!ring.compareAndSet((int) id & (RING - 1), null, e)) {
                overflow.put(id, e);
            }
            return id;
        }

        /** {@return the number of requests waiting} */
        public int size() {
            int n = overflow.size();
            for (int i = 0; i < RING; i++) {
                if (ring.get(i) != null) {
                    n++;
                }
            }
            return n;
        }

        /**
         * Completes the future registered under {@code id}, if it is still waiting.
         *
         * @return whether this call completed it
         */
        boolean complete(long id, Object payload) {
            int i = (int) id & (RING - 1);
            Entry e = ring.get(i);
            if (e != null && e.id == id) {
                return ring.compareAndSet(i, e, null) && e.future.complete(payload);
            }
            if (!overflow.isEmpty()) {
                e = overflow.remove(id);
                if (e != null) {
                    return e.future.complete(payload);
                }
            }
            return false;
        }

        void sweep(long now) {
            for (int i = 0; i < RING; i++) {
                Entry e = ring.get(i);
                if (e != null && now - e.deadlineNanos > 0 && ring.compareAndSet(i, e, null)) {
                    e.future.completeExceptionally(
                            new TimeoutException("no reply to request " + e.id));
                }
            }
            for (Iterator<Entry> it = overflow.values().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (now - e.deadlineNanos > 0 && overflow.remove(e.id, e)) {
                    e.future.completeExceptionally(
                            new TimeoutException("no reply to request " + e.id));
                }
            }
        }

        /**
         * Fails every request still waiting with {@code EIO} ({@link Syscall#REQUEST}; the task's
         * view names its own call): at the instance's close, and when this collector stops. Each
         * future fails with an exception of its own.
         */
        public void failAll() {
            for (int i = 0; i < RING; i++) {
                // A plain read first: a write to every slot (1024 atomic swaps) made the stop
                // of an idle collector the largest part of closing an instance. A slot taken
                // between the read and the CAS was completed by its taker; one registered
                // after the read fails itself (its caller sees the instance closed).
                Entry e = ring.get(i);
                if (e != null && ring.compareAndSet(i, e, null)) {
                    e.future.completeExceptionally(stopped());
                }
            }
            for (Long id : overflow.keySet()) {
                Entry e = overflow.remove(id);
                if (e != null) {
                    e.future.completeExceptionally(stopped());
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
     * {@return the behavior of a collector over {@code pending}, sweeping for overdue requests
     * every {@code sweepEvery}}
     *
     * @param pending the requests to collect replies for
     * @param sweepEvery how often overdue requests are failed
     */
    public static Behavior<Command> create(Pending pending, Duration sweepEvery) {
        return OutOfMemoryGuard.guard(
                Behaviors.supervise(
                                Behaviors.<Command>withTimers(
                                        timers -> {
                                            timers.startTimerAtFixedRate(new Sweep(), sweepEvery);
                                            return Behaviors.setup(
                                                    ctx -> new ReplyCollector(ctx, pending));
                                        }))
                        .onFailure(SupervisorStrategy.resume()));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(
                        Sweep.class,
                        s -> {
                            pending.sweep(System.nanoTime());
                            return this;
                        })
                .onSignal(
                        PostStop.class,
                        s -> {
                            pending.failAll();
                            return this;
                        })
                .build();
    }
}
