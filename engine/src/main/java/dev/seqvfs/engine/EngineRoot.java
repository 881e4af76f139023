package dev.seqvfs.engine;

import dev.seqvfs.engine.reply.ReplyCollector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The root of one SeqVFS engine's actors ({@code engine-N}, spawned by {@link SeqVfs} through the
 * {@link EngineHost} of the actor system it runs in): the parent of that engine's {@link
 * EngineGuardian} and {@link ReplyCollector}s, and of nothing else, so that stopping it stops
 * exactly one engine's actors whether the system is shared with other engines or is an embedder's.
 *
 * <p>It and its children run on the engine's dispatcher ({@code seqvfs.dispatcher}); none is a
 * top-level actor, so the calling-thread executor runs them inline without Pekko's pre-start lock:
 * {@code SeqVfs.create} spawns them, and {@code close()} stops them, on the calling thread, with no
 * thread hand-off. Its handlers never block.
 *
 * <h2>States</h2>
 *
 * Running, from its setup (which spawns the children and completes the {@code started} future with
 * their references), until {@link Stop}; then stopped: Pekko stops the children first (the
 * collectors fail what is pending, the descriptor tables release their files), then this actor's
 * {@code PostStop} completes the {@code stopped} future.
 *
 * <h2>Supervision</h2>
 *
 * Stop on failure (Pekko's default; the only thing that can fail is the setup, which then fails
 * {@code started} first, so the creating call does not wait for its timeout). The children
 * supervise themselves ({@link EngineGuardian}: restart keeping its children; collectors: resume).
 */
final class EngineRoot extends AbstractBehavior<EngineRoot.Command> {
    /** A message to the root. */
    sealed interface Command {}

    /** Stops the engine's actors (the engine is closing). */
    enum Stop implements Command {
        INSTANCE
    }

    /**
     * The children, as the setup spawned them.
     *
     * @param root the root itself (its {@link Stop} closes the engine)
     * @param guardian the engine's guardian (spawns superblock and descriptor-table actors)
     * @param collectors one reply collector per registry given to {@link #create}, in that order
     */
    record Started(
            ActorRef<Command> root,
            ActorRef<EngineGuardian.Command> guardian,
            List<ActorRef<ReplyCollector.Command>> collectors) {}

    private final CompletableFuture<Void> stopped;

    private EngineRoot(ActorContext<Command> ctx, CompletableFuture<Void> stopped) {
        super(ctx);
        this.stopped = stopped;
    }

    /**
     * Returns the behavior of an engine's root.
     *
     * @param dispatcher the engine's dispatcher, for the children
     * @param pending the reply registries, one collector each
     * @param sweepEvery how often each collector fails overdue requests
     * @param started completed with the children once spawned (or with the setup's failure)
     * @param stopped completed once the root and all its children have stopped (or when the setup
     *     fails)
     */
    static Behavior<Command> create(
            DispatcherSelector dispatcher,
            List<ReplyCollector.Pending> pending,
            Duration sweepEvery,
            CompletableFuture<Started> started,
            CompletableFuture<Void> stopped) {
        return Behaviors.setup(
                ctx -> {
                    try {
                        ActorRef<EngineGuardian.Command> guardian =
                                ctx.spawn(
                                        EngineGuardian.create(dispatcher), "guardian", dispatcher);
                        List<ActorRef<ReplyCollector.Command>> collectors =
                                new ArrayList<>(pending.size());
                        for (int i = 0; i < pending.size(); i++) {
                            collectors.add(
                                    ctx.spawn(
                                            ReplyCollector.create(pending.get(i), sweepEvery),
                                            "replies-" + (i + 1),
                                            dispatcher));
                        }
                        started.complete(
                                new Started(ctx.getSelf(), guardian, List.copyOf(collectors)));
                    } catch (RuntimeException e) {
                        started.completeExceptionally(e);
                        stopped.complete(
                                null); // no PostStop without a behavior; Pekko stops what was
                        // spawned
                        throw e;
                    }
                    return new EngineRoot(ctx, stopped);
                });
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessageEquals(Stop.INSTANCE, () -> Behaviors.stopped())
                .onSignal(
                        PostStop.class,
                        s -> {
                            stopped.complete(null);
                            return this;
                        })
                .build();
    }
}
