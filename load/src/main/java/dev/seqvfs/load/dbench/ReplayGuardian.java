package dev.seqvfs.load.dbench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The guardian of a replay's actor system: spawns one {@link ClientActor} per client,
 * stops them all when the run's time is up or when {@link Stop} arrives (Ctrl-C), and
 * completes the run's future with what each client reported, then stops.
 *
 * <p><b>States.</b> running &rarr; stopping (clients told to stop; waiting for every
 * {@link ClientFinished}) &rarr; stopped. A second {@code Stop} is ignored.
 */
public final class ReplayGuardian extends AbstractBehavior<ReplayGuardian.Command> {
    /** The guardian's protocol. */
    public sealed interface Command permits Stop, ClientFinished {
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
    public record ClientFinished(int id, long loops, int nextLine) implements Command {
    }

    /**
     * One client to spawn.
     *
     * @param id its number (directory {@code /clients/client<id>})
     * @param client its replay logic
     * @param stats where it records
     */
    public record ClientSpec(int id, DbenchClient<?> client, ClientStats stats) {
    }

    private final List<ActorRef<ClientActor.Command>> clients = new ArrayList<>();
    private final List<ClientFinished> finished = new ArrayList<>();
    private final CompletableFuture<List<ClientFinished>> done;
    private boolean stopping;

    private ReplayGuardian(ActorContext<Command> ctx, CompletableFuture<List<ClientFinished>> done) {
        super(ctx);
        this.done = done;
    }

    /**
     * Creates the guardian, which starts the clients at once.
     *
     * @param specs the clients
     * @param ops the loadfile's lines
     * @param log where mismatches are reported
     * @param time how long to run
     * @param once whether each client stops after one pass over the file (then {@code time} is a limit)
     * @param done completed with every client's report when all have stopped
     */
    public static Behavior<Command> create(List<ClientSpec> specs, List<LoadOp> ops, MismatchLog log, Duration time,
                                           boolean once, CompletableFuture<List<ClientFinished>> done) {
        return Behaviors.setup(ctx -> Behaviors.withTimers((TimerScheduler<Command> timers) -> {
            ReplayGuardian g = new ReplayGuardian(ctx, done);
            for (ClientSpec s : specs) {
                g.clients.add(ctx.spawn(ClientActor.create(s.id(), s.client(), ops, s.stats(), log, ctx.getSelf(), once),
                        "client" + s.id()));
            }
            timers.startSingleTimer(Stop.INSTANCE, time);
            return g;
        }));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessageEquals(Stop.INSTANCE, this::onStop)
                .onMessage(ClientFinished.class, this::onClientFinished)
                .build();
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

    private Behavior<Command> onClientFinished(ClientFinished f) {
        finished.add(f);
        if (finished.size() == clients.size()) {
            done.complete(List.copyOf(finished));
            return Behaviors.stopped();
        }
        return this;
    }
}
