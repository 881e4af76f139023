package dev.seqvfs.load.dbench;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * One dbench client as an actor: replays the loadfile's lines in order, looping over the file, on
 * its {@link DbenchClient}, until told to stop.
 *
 * <p>Before each pass after the first, the client closes what the previous pass left open ({@link
 * DbenchClient#closeAll()}).
 *
 * <p><b>Never blocks.</b> A line's stage that is already complete (the usual case: SeqVFS runs an
 * idle actor's mailbox on the sender's thread) is recorded at once and the next line runs; one that
 * is not is handed to {@code pipeToSelf} and the actor returns, to resume when {@link LineDone}
 * arrives. After {@link #BATCH} lines in one go it sends itself {@link Continue}, so that other
 * clients sharing the dispatcher's threads, and a {@link Stop}, get their turn.
 *
 * <p><b>States.</b> running (a line in flight or a {@code Continue} queued) &rarr; stopping (a
 * {@code Stop} arrived while a line was in flight) &rarr; stopped (reported {@link
 * ReplayGuardian.ClientFinished} to its parent). A {@code Stop} between lines stops at once; a
 * client told to run the file once stops after its last line.
 */
public final class ClientActor extends AbstractBehavior<ClientActor.Command> {
    /** Lines run per mailbox turn before yielding the thread. */
    static final int BATCH = 64;

    /** The client's protocol. */
    public sealed interface Command permits Continue, LineDone, Stop, EndWarmup, PassClosed {}

    /** The handles left open at the end of a pass are closed. */
    public enum PassClosed implements Command {
        INSTANCE
    }

    /**
     * The warm-up is over: start measuring afresh (latencies, lines, bytes; mismatches are kept).
     */
    public enum EndWarmup implements Command {
        INSTANCE
    }

    /** Run the next batch of lines. */
    public enum Continue implements Command {
        INSTANCE
    }

    /** Stop after the line in flight, and report. */
    public enum Stop implements Command {
        INSTANCE
    }

    /**
     * A line whose stage completed later.
     *
     * @param op the line
     * @param startNanos when it started ({@link System#nanoTime()})
     * @param outcome its outcome, or {@code null} on failure
     * @param failure what went wrong that is not a file-system answer, or {@code null}
     */
    public record LineDone(
            LoadOp op, long startNanos, DbenchClient.Outcome outcome, Throwable failure)
            implements Command {}

    private final int id;
    private final DbenchClient<?> client;
    private final List<LoadOp> ops;
    private final ClientStats stats;
    private final MismatchLog log;
    private final ActorRef<ReplayGuardian.Command> parent;
    private final boolean once;
    private int next;
    private long loops;
    private boolean inFlight;
    private boolean stopping;

    private ClientActor(
            ActorContext<Command> ctx,
            int id,
            DbenchClient<?> client,
            List<LoadOp> ops,
            ClientStats stats,
            MismatchLog log,
            ActorRef<ReplayGuardian.Command> parent,
            boolean once) {
        super(ctx);
        this.once = once;
        this.id = id;
        this.client = client;
        this.ops = ops;
        this.stats = stats;
        this.log = log;
        this.parent = parent;
    }

    /**
     * Creates a client that starts replaying at once.
     *
     * @param id the client's number (its directory is {@code /clients/client<id>})
     * @param client the replay logic, on the client's own file-system view
     * @param ops the loadfile's lines (shared, read-only)
     * @param stats where the client records (it is their only writer)
     * @param log where mismatches are reported
     * @param parent told {@link ReplayGuardian.ClientFinished} when the client stops
     * @param once stop after one pass over the file instead of looping until told to stop
     */
    public static Behavior<Command> create(
            int id,
            DbenchClient<?> client,
            List<LoadOp> ops,
            ClientStats stats,
            MismatchLog log,
            ActorRef<ReplayGuardian.Command> parent,
            boolean once) {
        return Behaviors.setup(
                ctx -> {
                    ctx.getSelf().tell(Continue.INSTANCE);
                    return new ClientActor(ctx, id, client, ops, stats, log, parent, once);
                });
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessageEquals(Continue.INSTANCE, this::onContinue)
                .onMessage(LineDone.class, this::onLineDone)
                .onMessageEquals(Stop.INSTANCE, this::onStop)
                .onMessageEquals(EndWarmup.INSTANCE, this::onEndWarmup)
                .onMessageEquals(PassClosed.INSTANCE, this::onPassClosed)
                .build();
    }

    private Behavior<Command> onContinue() {
        if (stopping) {
            return finish();
        }
        return runBatch();
    }

    private Behavior<Command> onStop() {
        stopping = true;
        return inFlight ? this : finish();
    }

    private Behavior<Command> onEndWarmup() {
        stats.reset(client.bytes());
        return this;
    }

    private Behavior<Command> onPassClosed() {
        inFlight = false;
        return stopping ? finish() : runBatch();
    }

    private Behavior<Command> onLineDone(LineDone d) {
        inFlight = false;
        record(d.op(), d.startNanos(), d.outcome(), d.failure());
        if (stopping) {
            return finish();
        }
        return runBatch();
    }

    private Behavior<Command> runBatch() {
        for (int k = 0; k < BATCH; k++) {
            if (once && loops > 0) {
                return finish();
            }
            if (next == 0 && loops > 0 && client.openHandles() > 0) {
                CompletableFuture<Void> closed = client.closeAll();
                if (!closed.isDone()) {
                    inFlight = true;
                    getContext().pipeToSelf(closed, (v, x) -> PassClosed.INSTANCE);
                    return this;
                }
            }
            LoadOp op = ops.get(next);
            advance();
            long start = System.nanoTime();
            CompletableFuture<DbenchClient.Outcome> f;
            try {
                f = client.run(op);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            if (f.isDone()) {
                DbenchClient.Outcome o = null;
                Throwable failure = null;
                try {
                    o = f.join();
                } catch (RuntimeException e) {
                    failure = e.getCause() != null ? e.getCause() : e;
                }
                record(op, start, o, failure);
                continue;
            }
            inFlight = true;
            getContext().pipeToSelf(f, (o, x) -> new LineDone(op, start, o, x));
            return this;
        }
        getContext().getSelf().tell(Continue.INSTANCE);
        return this;
    }

    private void advance() {
        if (++next == ops.size()) {
            next = 0;
            loops++;
        }
    }

    private void record(LoadOp op, long start, DbenchClient.Outcome o, Throwable failure) {
        long nanos = System.nanoTime() - start;
        boolean mismatch;
        if (failure != null) {
            mismatch = true;
            log.failure(id, op, failure);
        } else {
            mismatch = !o.matches(op);
            if (mismatch) {
                log.report(id, op, o);
            }
        }
        stats.record(op.type(), nanos, mismatch, client.bytes());
    }

    private Behavior<Command> finish() {
        parent.tell(new ReplayGuardian.ClientFinished(id, loops, next));
        return Behaviors.stopped();
    }
}
