package dev.seqvfs.persist;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/**
 * The journal of one directory of a persistent file system: an event-sourced entity (persistence id
 * {@code seqvfs-dir|<fsid>-<ino>}) whose events are the directory's changes ({@link DirEvent}) and
 * whose state is what they add up to ({@link DirState}).
 *
 * <p>{@link Append} persists one drained batch of the directory actor's commands as one {@code
 * persist(List)} (group commit) and answers after the journal has it; {@link Recover} answers the
 * state, after recovery (Pekko stashes commands until then). Snapshots every {@code snapshotEvery}
 * events, the last two kept, and the events before the older of them deleted.
 *
 * <h2>Supervision</h2>
 *
 * A failed journal write restarts the entity with backoff (0.2 s to 5 s): it recovers from the
 * journal, so its state is what was written, and the writes that failed are not answered (their
 * callers' asks time out: {@code EIO}). Commands that arrive while a write is in flight are stashed
 * by Pekko; with {@code stash-overflow-strategy = fail} (this module's {@code reference.conf}) a
 * full stash fails the entity rather than dropping them.
 *
 * <p>Runs one message at a time (Pekko); its state is immutable.
 */
public final class DirectoryEntity
        extends EventSourcedBehaviorWithEnforcedReplies<
                DirectoryEntity.Command, DirEvent, DirState> {
    /** A message to a directory's journal. */
    public sealed interface Command {}

    /**
     * Persists {@code events} (one batch) and answers {@link Appended} once the journal has them.
     *
     * @param events the batch's events, in order; an empty list is answered at once
     * @param replyTo where the answer goes
     */
    public record Append(List<DirEvent> events, ActorRef<Appended> replyTo) implements Command {}

    /**
     * The answer to {@link Append}.
     *
     * @param seqNr the sequence number of the batch's last event
     */
    public record Appended(long seqNr) {}

    /**
     * Answers the recovered state.
     *
     * @param replyTo where the state goes
     */
    public record Recover(ActorRef<DirState> replyTo) implements Command {}

    /**
     * Stops the entity after what it has in hand (a write in flight finishes first: Pekko holds
     * commands until it has), answering {@code replyTo} as it stops.
     *
     * @param replyTo told {@link org.apache.pekko.Done} once every earlier write is done
     */
    public record Passivate(ActorRef<org.apache.pekko.Done> replyTo) implements Command {}

    private final ActorContext<Command> ctx;
    private final PersistStore store;
    private final int snapshotEvery;

    private DirectoryEntity(
            ActorContext<Command> ctx, PersistenceId id, PersistStore store, int snapshotEvery) {
        super(
                id,
                SupervisorStrategy.restartWithBackoff(
                        Duration.ofMillis(200), Duration.ofSeconds(5), 0.1));
        this.ctx = ctx;
        this.store = store;
        this.snapshotEvery = snapshotEvery;
    }

    /**
     * {@return the persistence id of directory {@code ino} of file system {@code fsid}}
     *
     * @param fsid the file system's id (a UUID, kept in its data directory)
     * @param ino the directory's inode number
     */
    public static PersistenceId persistenceId(String fsid, long ino) {
        return PersistenceId.of("seqvfs-dir", fsid + "-" + ino, "|");
    }

    /**
     * {@return the behavior of the journal of directory {@code ino}}
     *
     * @param store where the journal is kept
     * @param fsid the file system's id
     * @param ino the directory's inode number
     * @param snapshotEvery events between snapshots
     */
    public static Behavior<Command> create(
            PersistStore store, String fsid, long ino, int snapshotEvery) {
        return Behaviors.setup(
                ctx -> new DirectoryEntity(ctx, persistenceId(fsid, ino), store, snapshotEvery));
    }

    @Override
    public DirState emptyState() {
        return DirState.EMPTY;
    }

    @Override
    public CommandHandlerWithReply<Command, DirEvent, DirState> commandHandler() {
        return newCommandHandlerWithReplyBuilder()
                .forAnyState()
                .onCommand(
                        Append.class,
                        (state, c) ->
                                c.events().isEmpty()
                                        ? Effect()
                                                .reply(
                                                        c.replyTo(),
                                                        new Appended(lastSequenceNumber()))
                                        : Effect()
                                                .persist(c.events())
                                                .thenReply(
                                                        c.replyTo(),
                                                        s -> new Appended(lastSequenceNumber())))
                .onCommand(Recover.class, (state, c) -> Effect().reply(c.replyTo(), state))
                .onCommand(
                        Passivate.class,
                        (state, c) ->
                                Effect()
                                        .stop()
                                        .thenReply(
                                                c.replyTo(),
                                                s -> org.apache.pekko.Done.getInstance()))
                .build();
    }

    private long lastSequenceNumber() {
        return lastSequenceNumber(ctx);
    }

    @Override
    public EventHandler<DirState, DirEvent> eventHandler() {
        return newEventHandlerBuilder().forAnyState().onAnyEvent(DirState::apply);
    }

    @Override
    public RetentionCriteria retentionCriteria() {
        // events older than the older kept snapshot are deleted: the store can reclaim them (the
        // segment log's compaction), and a journal does not grow without bound
        return RetentionCriteria.snapshotEvery(snapshotEvery, 2).withDeleteEventsOnSnapshot();
    }

    @Override
    public String journalPluginId() {
        return store.journalPluginId();
    }

    @Override
    public Optional<com.typesafe.config.Config> journalPluginConfig() {
        return Optional.of(store.journalPluginConfig());
    }

    @Override
    public String snapshotPluginId() {
        return store.snapshotPluginId();
    }

    @Override
    public Optional<com.typesafe.config.Config> snapshotPluginConfig() {
        return Optional.of(store.snapshotPluginConfig());
    }
}
