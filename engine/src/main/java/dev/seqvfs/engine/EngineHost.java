package dev.seqvfs.engine;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * SeqVFS's foothold in one actor system: a top-level system actor ({@code seqvfs-engines-N}, on the
 * system's default dispatcher) whose only child, {@code engines}, is Pekko's {@link SpawnProtocol}
 * on the engines' dispatcher ({@code seqvfs.dispatcher}). Every instance in that system spawns its
 * {@link EngineRoot} through that child. Because the child is not a top-level actor (no pre-start
 * lock) and runs on the calling-thread dispatcher, a {@code SeqVfs.create} in a running system
 * spawns its actors on the creating thread, and a {@code close()} stops them there: no thread
 * hand-off either way. One host per system, started once ({@link SharedSystems}): the hand-off to
 * start it is paid once per system.
 *
 * <p>Supervision: the host stops on failure (only its setup can fail, and it fails the starting
 * call first); the spawner resumes (a spawn that throws, which SeqVFS's own spawns do not, fails
 * only the instance that asked for it, whose creation then times out with {@code EIO}). Both live
 * as long as the actor system and hold no state.
 */
final class EngineHost {
    /** Names the hosts, unique in the JVM (so in any system). */
    private static final AtomicLong HOSTS = new AtomicLong();

    private EngineHost() {}

    /**
     * Starts a host in {@code system} and returns its spawner, once the host's setup has run.
     * Blocks the calling thread for one hand-off to the system's default dispatcher.
     *
     * @param system the actor system
     * @param dispatcher the engines' dispatcher (configured in {@code system})
     * @param timeout how long to wait for the host's setup
     * @throws VfsException {@code EIO} if the setup failed or did not run in time
     */
    static ActorRef<SpawnProtocol.Command> start(
            ActorSystem<?> system, DispatcherSelector dispatcher, Duration timeout) {
        CompletableFuture<ActorRef<SpawnProtocol.Command>> ready = new CompletableFuture<>();
        system.systemActorOf(
                create(dispatcher, ready),
                "seqvfs-engines-" + HOSTS.incrementAndGet(),
                Props.empty());
        try {
            return ready.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VfsException(Errno.EINTR, Syscall.START, null);
        } catch (ExecutionException | TimeoutException e) {
            throw new VfsException(Errno.EIO, Syscall.START, null);
        }
    }

    private static Behavior<Void> create(
            DispatcherSelector dispatcher,
            CompletableFuture<ActorRef<SpawnProtocol.Command>> ready) {
        return Behaviors.setup(
                ctx -> {
                    try {
                        ready.complete(
                                ctx.spawn(
                                        Behaviors.supervise(SpawnProtocol.create())
                                                .onFailure(SupervisorStrategy.resume()),
                                        "engines",
                                        dispatcher));
                    } catch (RuntimeException e) {
                        ready.completeExceptionally(e);
                        throw e;
                    }
                    return Behaviors.empty();
                });
    }
}
