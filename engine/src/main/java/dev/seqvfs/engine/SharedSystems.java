package dev.seqvfs.engine;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The actor systems that the SeqVFS engines of one JVM share: one per distinct actor-system
 * configuration, created by the first engine that needs it, counted by the engines that use it, and
 * terminated a short while ({@code seqvfs.actor-system.linger}) after the last of them closes.
 * Starting an actor system costs tens of milliseconds (configuration, extensions, thread pools, the
 * logger); spawning an engine's actors under a running one costs well under one.
 *
 * <h2>Which engines share</h2>
 *
 * Two engines share a system when their resolved configurations are equal outside the {@code
 * seqvfs} section, {@code seqvfs.dispatcher} included: that is everything the system itself reads
 * (Pekko's settings, any dispatcher or mailbox an embedder configured, system properties). The rest
 * of {@code seqvfs} (limits, timeouts, procfs, the root's mode) is each engine's own and never read
 * from the system. So engines with different Pekko or dispatcher settings never share, and a
 * system's configuration is exactly what each of its engines asked for.
 *
 * <h2>Concurrency</h2>
 *
 * The registry and every {@link Shared}'s count and generation are guarded by the class monitor,
 * held for map operations and for the start of a new system and its {@link EngineHost} (tens of
 * milliseconds, so concurrent first creations wait for one another; the host's start is the one
 * wait for an actor under it, bounded by the ask timeout, and no actor takes this monitor). A
 * lingering system's termination is a timer on that system's own scheduler; a timer that finds the
 * system in use again (its generation moved) does nothing.
 *
 * <h2>What is shared, what is not</h2>
 *
 * Shared: the scheduler, the dispatchers (the calling-thread dispatcher's executor among them: it
 * keeps no state but each thread's trampoline queue, and an actor's single writer comes from its
 * mailbox, whichever engine it belongs to; a blocking call that finds the actor it waits for queued
 * behind it runs it, {@code Asker.helpUntilDone}), the host's spawner (which holds nothing of the
 * engines it spawns) and the event stream (SeqVFS publishes nothing on it). Not shared: every actor
 * of an engine and what it owns, from its {@link EngineRoot} down (guardian, reply collectors and
 * their registries, superblocks, directories, descriptor tables).
 */
final class SharedSystems {
    /**
     * The name of every system started here (threads are named after it: {@code
     * seqvfs-scheduler-1}).
     */
    static final String NAME = "seqvfs";

    /** Guarded by {@code SharedSystems.class}. */
    private static final Map<Key, Shared> SYSTEMS = new HashMap<>();

    /**
     * The hosts started in embedders' systems, one per system, each removed when its system
     * terminates. Guarded by {@code SharedSystems.class}.
     */
    private static final Map<ActorSystem<?>, ActorRef<SpawnProtocol.Command>> BORROWED =
            new HashMap<>();

    private SharedSystems() {}

    /**
     * The part of a resolved configuration that the actor system reads: all of it but the {@code
     * seqvfs} section, plus {@code seqvfs.dispatcher}. Compared by value ({@link
     * ConfigObject#equals}); the hash is computed once.
     */
    static final class Key {
        private final ConfigObject value;
        private final int hash;

        Key(Config full, String dispatcher) {
            Config system = full.withoutPath("seqvfs");
            if (full.hasPath(dispatcher)) {
                system = system.withFallback(full.withOnlyPath(dispatcher));
            }
            this.value = system.root();
            this.hash = value.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && k.value.equals(value);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /**
     * One shared system and the count of engines holding it. Fields guarded by the class monitor.
     */
    private static final class Shared {
        final Key key;
        final ActorSystem<Void> system;
        final ActorRef<SpawnProtocol.Command> spawner;
        int engines;

        /** Moves at every acquire and release, so that a linger timer knows whether it is stale. */
        long generation;

        Shared(Key key, ActorSystem<Void> system, ActorRef<SpawnProtocol.Command> spawner) {
            this.key = key;
            this.system = system;
            this.spawner = spawner;
        }
    }

    /**
     * One engine's hold on its actor system. {@link #release} is idempotent and thread-safe; the
     * hold on an embedder's own system ({@link #borrow}) releases nothing.
     */
    static final class Lease {
        private final ActorSystem<?> system;
        private final ActorRef<SpawnProtocol.Command> spawner;
        private final Shared shared;
        private final AtomicBoolean released = new AtomicBoolean();

        private Lease(
                ActorSystem<?> system, ActorRef<SpawnProtocol.Command> spawner, Shared shared) {
            this.system = system;
            this.spawner = spawner;
            this.shared = shared;
        }

        /** Returns the system. */
        ActorSystem<?> system() {
            return system;
        }

        /**
         * Returns the system's {@link EngineHost} spawner, through which an instance spawns its
         * root.
         */
        ActorRef<SpawnProtocol.Command> spawner() {
            return spawner;
        }

        /** Returns whether the system was started by SeqVFS and is shared by its engines. */
        boolean isShared() {
            return shared != null;
        }

        /**
         * Gives the hold back, once. The last engine's release schedules the system's termination
         * after {@code linger} (at once if it is zero); an engine acquiring the system before then
         * keeps it.
         */
        void release(Duration linger) {
            if (shared != null && released.compareAndSet(false, true)) {
                SharedSystems.release(shared, linger);
            }
        }
    }

    /**
     * Returns a hold on the system for {@code config}, starting it (with {@code config.full()}) if
     * no running system has an equal actor-system configuration.
     *
     * @throws com.typesafe.config.ConfigException if Pekko rejects the configuration
     */
    static Lease acquire(EngineConfig config) {
        Key key = config.systemKey();
        synchronized (SharedSystems.class) {
            Shared s = SYSTEMS.get(key);
            if (s == null || s.system.getWhenTerminated().toCompletableFuture().isDone()) {
                // A system terminated by someone else (system().terminate()) is replaced.
                s = start(key, config);
                SYSTEMS.put(key, s);
            }
            s.engines++;
            s.generation++;
            return new Lease(s.system, s.spawner, s);
        }
    }

    private static Shared start(Key key, EngineConfig config) {
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), NAME, config.full());
        try {
            return new Shared(
                    key,
                    system,
                    EngineHost.start(
                            system,
                            DispatcherSelector.fromConfig(config.vfs().dispatcher()),
                            config.vfs().askTimeout()));
        } catch (RuntimeException e) {
            system.terminate();
            throw e;
        }
    }

    /**
     * Returns a hold on an embedder's own system, which SeqVFS never terminates; starts SeqVFS's
     * {@link EngineHost} in it on first use (it stays, idle, until the system terminates).
     *
     * @param system the embedder's system
     * @param config the instance's configuration (its dispatcher and ask timeout)
     * @throws dev.seqvfs.protocol.VfsException {@code EIO} if the host did not start
     */
    static Lease borrow(ActorSystem<?> system, EngineConfig config) {
        synchronized (SharedSystems.class) {
            ActorRef<SpawnProtocol.Command> spawner = BORROWED.get(system);
            if (spawner == null) {
                spawner =
                        EngineHost.start(
                                system,
                                DispatcherSelector.fromConfig(config.vfs().dispatcher()),
                                config.vfs().askTimeout());
                BORROWED.put(system, spawner);
                system.getWhenTerminated()
                        .thenRun(
                                () -> {
                                    synchronized (SharedSystems.class) {
                                        BORROWED.remove(system);
                                    }
                                });
            }
            return new Lease(system, spawner, null);
        }
    }

    private static void release(Shared s, Duration linger) {
        long generation;
        synchronized (SharedSystems.class) {
            s.engines--;
            generation = ++s.generation;
            if (s.engines > 0) {
                return;
            }
        }
        if (linger.isZero() || linger.isNegative()) {
            expire(s, generation);
            return;
        }
        try {
            s.system
                    .scheduler()
                    .scheduleOnce(linger, () -> expire(s, generation), s.system.executionContext());
        } catch (IllegalStateException schedulerStopped) {
            expire(s, generation); // the system is terminating already
        }
    }

    /** Terminates {@code s} if no engine acquired it since the release of {@code generation}. */
    private static void expire(Shared s, long generation) {
        synchronized (SharedSystems.class) {
            if (s.engines != 0 || s.generation != generation) {
                return;
            }
            SYSTEMS.remove(s.key, s);
        }
        s.system.terminate();
    }
}
