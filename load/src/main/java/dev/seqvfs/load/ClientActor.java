package dev.seqvfs.load;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * A load client as a Pekko actor: it starts its op through SeqVFS's async API and reacts to the
 * stage's completion; it never blocks its thread.
 *
 * <p>On {@link Go} it runs a batch of up to {@link #BATCH} ops: while each op's stage is already
 * complete when it returns (the usual case: the engine's calling-thread dispatcher runs the
 * descriptor-table actor on this thread), it records the latency and starts the next; then it sends
 * itself {@link Go} so that other clients on the same dispatcher thread take their turn. An op
 * whose stage is not complete yet (another thread is running the owner actor) is awaited by {@code
 * pipeToSelf}: its {@link Completed} message resumes the client. It completes {@code done} and
 * stops after {@code opsPerClient} ops, when the meter asks it to stop, or on the first failure
 * (completing {@code done} exceptionally).
 *
 * <p><b>States.</b> running (between {@link Go}s), waiting (one op in flight, its {@link Completed}
 * due), stopped.
 */
final class ClientActor extends AbstractBehavior<ClientActor.Command> {
    /** Ops per {@link Go} message before the actor yields its dispatcher thread. */
    static final int BATCH = 64;

    /** The client's protocol. */
    sealed interface Command {}

    /** Runs the next batch of ops. */
    enum Go implements Command {
        INSTANCE
    }

    /**
     * The in-flight op that started at {@code startNanos} (0 if it is not timed) completed ({@code
     * failure} null if it succeeded).
     */
    record Completed(long startNanos, Throwable failure) implements Command {}

    private final Clients.AsyncOp op;
    private final Meter.Probe probe;
    private final CompletableFuture<Void> done;
    private final long opsPerClient;
    private long count;

    private ClientActor(
            ActorContext<Command> context,
            Clients.AsyncOp op,
            Meter.Probe probe,
            long opsPerClient,
            CompletableFuture<Void> done) {
        super(context);
        this.op = op;
        this.probe = probe;
        this.opsPerClient = opsPerClient;
        this.done = done;
    }

    /**
     * Returns the behaviour of a client that does {@code op} {@code opsPerClient} times once told
     * {@link Go}.
     */
    static Behavior<Command> create(
            Clients.AsyncOp op,
            Meter.Probe probe,
            long opsPerClient,
            CompletableFuture<Void> done) {
        return Behaviors.setup(ctx -> new ClientActor(ctx, op, probe, opsPerClient, done));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Go.class, g -> onGo())
                .onMessage(Completed.class, this::onCompleted)
                .build();
    }

    private Behavior<Command> onCompleted(Completed c) {
        if (c.failure() != null) {
            return fail(c.failure());
        }
        if (c.startNanos() != 0) {
            probe.record(System.nanoTime() - c.startNanos());
        }
        count++;
        return onGo();
    }

    private Behavior<Command> onGo() {
        try {
            for (int i = 0; i < BATCH; i++) {
                if (count >= opsPerClient || probe.stopRequested()) {
                    probe.publish(count);
                    done.complete(null);
                    return Behaviors.stopped();
                }
                // 0: an op that is not timed (see Meter's sampling)
                long t0 = probe.sampled(count) ? System.nanoTime() : 0;
                CompletableFuture<?> f = op.start().toCompletableFuture();
                if (!f.isDone()) {
                    probe.publish(count);
                    getContext().pipeToSelf(f, (v, e) -> new Completed(t0, e));
                    return this;
                }
                f.join();
                if (t0 != 0) {
                    probe.record(System.nanoTime() - t0);
                }
                count++;
            }
            probe.publish(count);
        } catch (CompletionException e) {
            return fail(e.getCause() != null ? e.getCause() : e);
        } catch (RuntimeException e) {
            return fail(e);
        }
        getContext().getSelf().tell(Go.INSTANCE);
        return this;
    }

    private Behavior<Command> fail(Throwable e) {
        probe.publish(count);
        done.completeExceptionally(
                e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
        return Behaviors.stopped();
    }
}
