package dev.seqvfs.engine;

import dev.seqvfs.engine.fdtable.FdTableActor;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockActor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The guardian of one SeqVFS engine: parent of every superblock actor and every descriptor-table
 * actor of that engine. They are spawned as its children (not as top-level actors) so that the
 * calling-thread dispatcher runs them inline without Pekko's pre-start lock. It is itself a child
 * of the engine's {@link EngineRoot} and runs on the engine's dispatcher, so a request from an
 * embedding thread ({@code newTask}, a mount) is served on that thread; its replies complete the
 * caller's future directly ({@link ReplyTo}). It never blocks.
 *
 * <p>Supervision: children are supervised by their own behaviors (resume); the guardian itself
 * restarts on failure, which keeps its children (their state is in published snapshots, not in the
 * guardian). It stops when its root stops (the engine closes).
 */
final class EngineGuardian extends AbstractBehavior<EngineGuardian.Command> {
    sealed interface Command {}

    /** Spawns the actor of {@code sb} and publishes it in the superblock. */
    record SpawnSuperblock(Superblock sb, ReplyTo<Superblock> replyTo) implements Command {}

    /** Spawns the actor of a descriptor table and attaches it. */
    record SpawnFdTable(FilesStruct files, ReplyTo<FilesStruct> replyTo) implements Command {}

    /** Stops a descriptor table's actor (its task exited); its open files are released. */
    record StopFdTable(FilesStruct files) implements Command {}

    private final DispatcherSelector dispatcher;
    private long fdTables;

    private EngineGuardian(ActorContext<Command> ctx, DispatcherSelector dispatcher) {
        super(ctx);
        this.dispatcher = dispatcher;
    }

    /**
     * Returns the behavior of an engine's guardian.
     *
     * @param dispatcher the dispatcher of the engine's actors (the guardian's own too)
     */
    static Behavior<Command> create(DispatcherSelector dispatcher) {
        return Behaviors.supervise(
                        Behaviors.<Command>setup(ctx -> new EngineGuardian(ctx, dispatcher)))
                .onFailure(SupervisorStrategy.restart().withStopChildren(false));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(SpawnSuperblock.class, this::onSpawnSuperblock)
                .onMessage(SpawnFdTable.class, this::onSpawnFdTable)
                .onMessage(StopFdTable.class, this::onStopFdTable)
                .build();
    }

    private Behavior<Command> onSpawnSuperblock(SpawnSuperblock m) {
        ActorRef<SuperblockActor.Command> ref =
                getContext()
                        .spawn(
                                SuperblockActor.create(m.sb(), dispatcher),
                                "sb-" + m.sb().dev(),
                                dispatcher);
        m.sb().publishActorRelease(ref);
        m.replyTo().tell(m.sb());
        return this;
    }

    private Behavior<Command> onSpawnFdTable(SpawnFdTable m) {
        fdTables++;
        ActorRef<FdTableActor.Command> ref =
                getContext().spawn(FdTableActor.create(m.files()), "files-" + fdTables, dispatcher);
        m.files().attach(ref);
        m.replyTo().tell(m.files());
        return this;
    }

    private Behavior<Command> onStopFdTable(StopFdTable m) {
        getContext().stop(m.files().actor());
        return this;
    }
}
