package dev.seqvfs.load.dbench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The guardian of a replay's actor system: spawns one {@link ClientActor} per client, tells them
 * when the warm-up is over, stops them all when the measured time is up or when {@link Stop}
 * arrives (Ctrl-C), and completes the run's future with what each client reported, then stops.
 *
 * <p><b>States.</b> warming up &rarr; measuring &rarr; stopping (clients told to stop; waiting for
 * every {@link ClientFinished}) &rarr; stopped. A second {@code Stop} is ignored; a {@code Stop}
 * during the warm-up ends the run unmeasured.
 *
 * <p><b>Failures.</b> The guardian watches its clients: a client that fails (an exception in the
 * actor) completes the run's future exceptionally with that exception, and the guardian stops the
 * others and itself, which terminates the system. A failure while the guardian sets up (spawning,
 * scheduling) does the same. The run never waits for a client that is gone.
 */
public final class ReplayGuardian extends AbstractBehavior<ReplayGuardian.Command> {
    /** The guardian's protocol. */
    public sealed interface Command permits Stop, EndWarmup, ClientFinished {}

    /** The warm-up is over: tell the clients, start the measured time. */
    public enum EndWarmup implements Command {
        INSTANCE
    }

    /** Stop every client now (the time is up, or the user pressed Ctrl-C). */
    public enum Stop implements Command {
        INSTANCE
    }

    /**
     * A client stopped.
     *
     * @param id the client's number
     * @param loops how many times it went through the whole loadfile
     * @param nextLine the index of the line it would have run next
     */
    public record ClientFinished(int id, long loops, int nextLine) implements Command {}

    /**
     * One client to spawn.
     *
     * @param id its number (directory {@code /clients/client<id>})
     * @param client its replay logic
     * @param stats where it records
     */
    public record ClientSpec(int id, DbenchClient<?> client, ClientStats stats) {}

    private final List<ActorRef<ClientActor.Command>> clients = new ArrayList<>();
    private final List<ClientFinished> finished = new ArrayList<>();
    private final CompletableFuture<List<ClientFinished>> done;
    private final TimerScheduler<Command> timers;
    private final Duration time;
    private final Runnable onMeasureStart;
    private boolean stopping;

    private ReplayGuardian(
            ActorContext<Command> ctx,
            TimerScheduler<Command> timers,
            Duration time,
            Runnable onMeasureStart,
            CompletableFuture<List<ClientFinished>> done) {
        super(ctx);
        this.timers = timers;
        this.time = time;
        this.onMeasureStart = onMeasureStart;
        this.done = done;
    }

    /**
     * Creates the guardian, which starts the clients at once.
     *
     * @param specs the clients
     * @param ops the loadfile's lines
     * @param log where mismatches are reported
     * @param warmup how long to run before measuring (zero: measure from the start)
     * @param time how long to run, measured, after the warm-up
     * @param once whether each client stops after one pass over the file (then {@code time} is a
     *     limit)
     * @param onMeasureStart run (on the guardian's thread) when measuring starts
     * @param done completed with every client's report when all have stopped
     */
    public static Behavior<Command> create(
            List<ClientSpec> specs,
            List<LoadOp> ops,
            MismatchLog log,
            Duration warmup,
            Duration time,
            boolean once,
            Runnable onMeasureStart,
            CompletableFuture<List<ClientFinished>> done) {
        return Behaviors.setup(
                ctx ->
                        Behaviors.withTimers(
                                (TimerScheduler<Command> timers) -> {
                                    try {
                                        ReplayGuardian g =
                                                new ReplayGuardian(
                                                        ctx, timers, time, onMeasureStart, done);
                                        for (ClientSpec s : specs) {
                                            ActorRef<ClientActor.Command> c =
                                                    ctx.spawn(
                                                            ClientActor.create(
                                                                    s.id(),
                                                                    s.client(),
                                                                    ops,
                                                                    s.stats(),
                                                                    log,
                                                                    ctx.getSelf(),
                                                                    once),
                                                            "client" + s.id());
                                            ctx.watch(c);
                                            g.clients.add(c);
                                        }
                                        if (warmup.isZero() || once) {
                                            onMeasureStart.run();
                                            timers.startSingleTimer(Stop.INSTANCE, time);
                                        } else {
                                            timers.startSingleTimer(EndWarmup.INSTANCE, warmup);
                                        }
                                        return g;
                                    } catch (RuntimeException e) {
                                        done.completeExceptionally(e);
                                        return Behaviors.stopped();
                                    }
                                }));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessageEquals(Stop.INSTANCE, this::onStop)
                .onMessageEquals(EndWarmup.INSTANCE, this::onEndWarmup)
                .onMessage(ClientFinished.class, this::onClientFinished)
                .onSignal(ChildFailed.class, this::onClientFailed)
                .onSignal(
                        Terminated.class,
                        t -> this) // a client that stopped after its ClientFinished
                .build();
    }

    private Behavior<Command> onEndWarmup() {
        if (!stopping) {
            onMeasureStart.run();
            for (ActorRef<ClientActor.Command> c : clients) {
                c.tell(ClientActor.EndWarmup.INSTANCE);
            }
            timers.startSingleTimer(Stop.INSTANCE, time);
        }
        return this;
    }

    private Behavior<Command> onStop() {
        if (!stopping) {
            stopping = true;
            for (ActorRef<ClientActor.Command> c : clients) {
                c.tell(ClientActor.Stop.INSTANCE);
            }
        }
        return this;
    }

    private Behavior<Command> onClientFailed(ChildFailed failed) {
        done.completeExceptionally(failed.getCause());
        return Behaviors.stopped();
    }

    private Behavior<Command> onClientFinished(ClientFinished f) {
        finished.add(f);
        if (finished.size() == clients.size()) {
            done.complete(List.copyOf(finished));
            return Behaviors.stopped();
        }
        return this;
    }
}
