package dev.seqvfs.engine;

import com.typesafe.config.Config;
import dev.seqvfs.engine.anon.AnonFs;
import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.FileSystemTypes;
import dev.seqvfs.engine.fs.MountContext;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.fs.TaskRegistry;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.lock.FileLockTable;
import dev.seqvfs.engine.mount.MountTable;
import dev.seqvfs.engine.mount.Namespace;
import dev.seqvfs.engine.reply.ReplyCollector;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.NamespaceLocks;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockConfig;
import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.engine.walk.PathWalk;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsClock;
import dev.seqvfs.protocol.VfsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.slf4j.LoggerFactory;

/**
 * One embedded SeqVFS instance: its actors, a mount namespace whose root is a tmpfs superblock, and
 * the path walker. Create tasks with {@link #newTask(Credentials)} and call the file system through
 * them.
 *
 * <pre>{@code
 * try (SeqVfs vfs = SeqVfs.create()) {
 *     VfsTask t = vfs.newTask(Credentials.ROOT);
 *     t.mkdir("/data", 0755);
 *     int fd = t.open("/data/a", O_CREAT | O_WRONLY, 0644);
 *     t.close(fd);
 *     Stat st = t.stat("/data/a");
 * }
 * }</pre>
 *
 * <p>Thread-safe: any number of threads may create tasks and call through them. {@link #close()}
 * stops the instance's actors; calls after it fail with {@code EIO}.
 *
 * <p><b>Actor systems.</b> An instance's actors run under a guardian of its own, in an actor system
 * that is either the embedder's ({@link #create(ActorSystem, Config)}) or one that SeqVFS starts on
 * first use and shares among the instances of this JVM whose configurations agree outside the
 * {@code seqvfs} section ({@code seqvfs.dispatcher} included): Pekko settings that differ get a
 * system of their own. A shared system outlives its last instance by {@code
 * seqvfs.actor-system.linger} (2 s by default), so that creating a fresh instance after closing one
 * costs a few actor spawns, not an actor system's start (tens of milliseconds). Instances never see
 * each other's state: each has its own namespace, superblocks, tasks, descriptor tables and reply
 * collectors; what they share is the system's threads, scheduler and dispatchers.
 *
 * <p>The threads of a system SeqVFS starts are daemon threads ({@code pekko.daemonic = on} in
 * {@code seqvfs-pekko.conf}): an instance that is never closed does not keep the JVM alive, but its
 * actors and memory stay until the JVM exits. Close every instance.
 */
public final class SeqVfs implements AutoCloseable {
    static {
        // Bind SLF4J before Pekko's threads log concurrently, so that no early call is
        // queued and replayed (SLF4J then prints three "replay" warnings to stderr).
        LoggerFactory.getILoggerFactory();
    }

    /** Names the instances' root actors, unique in the JVM (so in any system): {@code engine-N}. */
    private static final AtomicLong ENGINES = new AtomicLong();

    private final EngineConfig engineConfig;
    private final VfsConfig config;
    private final SharedSystems.Lease lease;
    private final ActorSystem<?> system;

    /** The root of the instance's actors: parent of its guardian and reply collectors. */
    private final ActorRef<EngineRoot.Command> rootActor;

    private final ActorRef<EngineGuardian.Command> guardian;

    /** Completed by the root's {@code PostStop}, after every actor of this instance stopped. */
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    private final AtomicBoolean closing = new AtomicBoolean();

    /** The instance's closed state and the waits its close ends ({@link #close()}). */
    private final Shutdown shutdown = new Shutdown();

    private final Duration linger;
    private final NamespaceLocks locks = new NamespaceLocks();
    private final AtomicLong devs = new AtomicLong();
    private final VfsClock clock;
    private final Namespace namespace;
    private final PathWalk walker;
    private final Asker asker;
    private final AnonFs anonFs;
    private final FileSystemTypes types;
    private final FileLockTable.WaitGraph lockWaitGraph = new FileLockTable.WaitGraph();
    private final ExecutorService blocking =
            new ThreadPoolExecutor(
                    0,
                    Integer.MAX_VALUE,
                    60,
                    TimeUnit.SECONDS,
                    new SynchronousQueue<>(),
                    r -> {
                        Thread th = new Thread(r, "seqvfs-parked");
                        th.setDaemon(true);
                        return th;
                    });
    private final ConcurrentHashMap<Integer, TaskContext> tasks = new ConcurrentHashMap<>();

    /**
     * The superblocks this instance made and that still have a mount ({@code close} gives back what
     * they hold in the JVM's {@code HeapPool}); a deactivated one is dropped at the next mount.
     */
    private final Set<Superblock> superblocks = ConcurrentHashMap.newKeySet();

    private final AtomicInteger pids = new AtomicInteger();
    private final TaskRegistryView procTasks = new TaskRegistryView();

    /**
     * Holds on what this instance's forks read through ({@link #fork()}): one for the instance
     * until it is closed, one per open fork of it. When the last goes, a fork releases what it
     * holds of its source ({@link #releaseSource}): the fork generations it registered, then its
     * hold on the source, since a fork of this fork may still read, through this one's views, the
     * versions this one's source keeps. Changed by CAS; never rises again from zero.
     */
    private final AtomicInteger forkHolds = new AtomicInteger(1);

    /** Whether {@link #close()} dropped the instance's own hold (once). */
    private final AtomicBoolean ownHoldDropped = new AtomicBoolean();

    /** A fork's release of its source, run when {@link #forkHolds} reaches zero; else null. */
    private volatile Runnable releaseSource;

    /**
     * Spawns the instance's root actor through the system's {@link EngineHost} (the root spawns the
     * guardian and the reply collectors), then the root superblock's actor and, with procfs, the
     * first task: all served on this thread by the calling-thread dispatcher, with no hand-off. On
     * failure, stops what it started and releases the lease before rethrowing.
     */
    private SeqVfs(EngineConfig engineConfig, VfsClock clock, SharedSystems.Lease lease) {
        this(engineConfig, clock, lease, null);
    }

    /**
     * As {@link #SeqVfs(EngineConfig, VfsClock, SharedSystems.Lease)}; with {@code forkOf}, the
     * instance's superblocks and mounts are a fork of that one's ({@link #fork()}) instead of a new
     * root (and no {@code /proc} is mounted but the fork of the source's).
     */
    private SeqVfs(
            EngineConfig engineConfig, VfsClock clock, SharedSystems.Lease lease, SeqVfs forkOf) {
        VfsConfig config = engineConfig.vfs();
        this.engineConfig = engineConfig;
        this.config = config;
        this.clock = clock;
        this.lease = lease;
        this.system = lease.system();
        this.linger = engineConfig.linger();
        this.types = FileSystemTypes.installed();
        FileSystemType rootType = types.get(config.rootType());
        if (rootType == null) {
            lease.release(linger);
            throw VfsConfig.bad(
                    engineConfig.full().getConfig("seqvfs"),
                    "root.type",
                    "must be a registered file-system type ("
                            + typeNames()
                            + "), not "
                            + config.rootType());
        }
        this.asker = new Asker(config.askTimeout(), shutdown);
        List<ReplyCollector.Pending> pending = new ArrayList<>();
        for (int i = 0; i < collectorCount(); i++) {
            pending.add(new ReplyCollector.Pending());
        }
        CompletableFuture<EngineRoot.Started> started = new CompletableFuture<>();
        DispatcherSelector dispatcher = DispatcherSelector.fromConfig(config.dispatcher());
        lease.spawner()
                .tell(
                        new SpawnProtocol.Spawn<>(
                                EngineRoot.create(
                                        dispatcher,
                                        pending,
                                        sweepInterval(config.askTimeout()),
                                        started,
                                        stopped),
                                "engine-" + ENGINES.incrementAndGet(),
                                dispatcher,
                                system.ignoreRef()));
        EngineRoot.Started children;
        try {
            children = asker.join(started, Syscall.START, null);
        } catch (RuntimeException e) {
            // Not started in time: stop it whenever it starts, and give the system back.
            var unused = started.thenAccept(c -> c.root().tell(EngineRoot.Stop.INSTANCE));
            lease.release(linger);
            throw e;
        }
        this.rootActor = children.root();
        try {
            this.guardian = children.guardian();
            Asker.Slot[] slots = new Asker.Slot[pending.size()];
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Asker.Slot(children.collectors().get(i), pending.get(i));
            }
            this.asker.attach(slots);
            Superblock root = null;
            VfsFork cut = null;
            if (forkOf != null) {
                if (!forkOf.retainForFork()) {
                    throw new VfsException(Errno.EIO, Syscall.FORK, null);
                }
                VfsFork c;
                try {
                    c = VfsFork.capture(forkOf);
                } catch (RuntimeException | Error e) {
                    forkOf.releaseForkHold();
                    throw e;
                }
                releaseSource =
                        () -> {
                            c.release();
                            forkOf.releaseForkHold();
                        };
                cut = c;
                root = cut.buildSuperblocks(forkTarget());
            }
            try {
                if (root == null) {
                    root =
                            mount(
                                    rootType,
                                    config.rootSource(),
                                    "/",
                                    0,
                                    config.rootOptions(),
                                    config.rootMode(),
                                    config.rootUid(),
                                    config.rootGid());
                }
            } catch (VfsException e) {
                if (forkOf != null) {
                    throw e;
                }
                String why =
                        e.errno() == Errno.EINVAL
                                ? "must be options "
                                        + config.rootType()
                                        + " takes; mount(2) refused \""
                                        + config.rootOptions()
                                        + "\" with EINVAL"
                                : "mount(2) of "
                                        + config.rootType()
                                        + " with \""
                                        + config.rootOptions()
                                        + "\" failed with "
                                        + e.errno()
                                        + (e.getCause() == null ? "" : " (" + e.getCause() + ")");
                throw VfsConfig.bad(
                        engineConfig.full().getConfig("seqvfs"), "root.options", why, e);
            }
            this.namespace = new Namespace(locks, root);
            this.anonFs = new AnonFs(devs.incrementAndGet(), clock, config.anonSharedRoot());
            this.walker = new PathWalk(namespace, config.optimisticAttempts());
            if (cut != null) {
                cut.attachMounts(namespace, forkTarget());
            } else if (config.mountProc()) {
                // As a booted system's init does: the first task (pid 1) mounts /proc and exits.
                try (VfsTask init = newTask(Credentials.ROOT)) {
                    try {
                        init.mkdir("/proc", 0555);
                    } catch (VfsException e) {
                        // a persistent root kept the mount point of an earlier instance
                        if (e.errno() != Errno.EEXIST) {
                            throw e;
                        }
                    }
                    init.mount("proc", "/proc", "proc", 0, null);
                }
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Creates an instance with the default configuration: system properties and {@code
     * application.conf} (or the {@code config.resource}/{@code config.file} properties) over
     * SeqVFS's defaults. Equivalent to {@code create(config)} with that configuration; see {@link
     * #create(Config, VfsClock)}.
     *
     * @return a new, empty instance (procfs at {@code /proc} unless configured off); close it
     * @throws com.typesafe.config.ConfigException if the configuration is invalid
     */
    public static SeqVfs create() {
        return create(EngineConfig.defaultApplication());
    }

    /**
     * Creates an instance from a configuration holding a {@code seqvfs} section (see {@code
     * reference.conf}) and any Pekko settings; see {@link #create(Config, VfsClock)}.
     *
     * @param config the settings; missing ones come from SeqVFS's and Pekko's defaults
     * @return a new, empty instance; close it
     * @throws com.typesafe.config.ConfigException if the configuration is invalid
     */
    public static SeqVfs create(Config config) {
        return create(config, VfsClock.SYSTEM);
    }

    /**
     * Creates an instance with an explicit clock (tests). The configuration is layered: {@code
     * config} first, then SeqVFS's Pekko settings ({@code seqvfs-pekko.conf}), then every {@code
     * reference.conf} (SeqVFS's and Pekko's defaults).
     *
     * <p>SeqVFS's Pekko settings hold unless the embedder set them: a value in {@code config} that
     * came from a {@code reference.conf} (as every value of {@code ConfigFactory.load()} the
     * embedder did not write does) gives way to SeqVFS's, so {@code
     * SeqVfs.create(ConfigFactory.load())} runs exactly as {@code SeqVfs.create()}; a value from
     * the embedder's {@code application.conf}, a system property or a parsed string wins. The
     * settings, and why:
     *
     * <ul>
     *   <li>{@code pekko.jvm-exit-on-fatal-error = off}: a fatal error in an engine thread (an
     *       {@code OutOfMemoryError}) must never exit the embedder's JVM;
     *   <li>{@code pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off}, {@code
     *       terminate-actor-system = on}: the engine adds no JVM shutdown hook; {@link #close()}
     *       (or the JVM's exit) ends it;
     *   <li>{@code pekko.daemonic = on}: engine threads never keep the JVM alive;
     *   <li>{@code pekko.loggers = [QuietSlf4jLogger]}, {@code use-slf4j = off}, {@code
     *       logging-filter} (SLF4J), {@code loglevel = WARNING}, {@code stdout-loglevel = OFF},
     *       {@code log-dead-letters = 0}, {@code log-dead-letters-during-shutdown = off}: Pekko
     *       logs through the embedder's SLF4J backend, warnings and errors only, and prints nothing
     *       on stdout;
     *   <li>{@code pekko.actor.serialize-messages = off}: messages stay in the JVM and are never
     *       serialized.
     * </ul>
     *
     * The engine's dispatcher ({@code seqvfs.dispatcher}) is SeqVFS's own, from its {@code
     * reference.conf}, and no Pekko default replaces it.
     *
     * <p>The instance runs in the actor system SeqVFS shares among the instances whose
     * configurations agree outside {@code seqvfs} ({@code seqvfs.dispatcher} included), starting it
     * if none runs (tens of milliseconds, once per system; concurrent first creations wait for one
     * another). A fresh instance in a running system costs a few actor spawns, run on the calling
     * thread (a fraction of a millisecond), each wait bounded by {@code seqvfs.ask-timeout}. The
     * resolved configuration is cached by value (the last 32 distinct ones), so repeating a
     * configuration does not resolve it again. Thread-safe.
     *
     * @param config the settings; missing ones come from SeqVFS's and Pekko's defaults
     * @param clock the clock of every timestamp (thread-safe, non-blocking)
     * @return a new, empty instance; close it
     * @throws com.typesafe.config.ConfigException if the configuration is invalid
     * @throws VfsException {@code EIO} if an actor did not answer within the ask timeout (nothing
     *     is left running)
     */
    public static SeqVfs create(Config config, VfsClock clock) {
        EngineConfig c = EngineConfig.of(config);
        return new SeqVfs(c, clock, SharedSystems.acquire(c));
    }

    /**
     * Creates an instance whose actors run in an embedder's actor system, under a root of their
     * own. The first instance in a system starts SeqVFS's host there (a system actor {@code
     * seqvfs-engines-N}, idle until the system terminates; one hand-off to the system's default
     * dispatcher). {@link #close()} stops the instance's actors and leaves the system running;
     * terminating the system before closing the instance makes its calls fail ({@code EIO} after
     * the ask timeout).
     *
     * <p>The {@code seqvfs} settings are read from {@code config}, then from the system's own
     * configuration, then from SeqVFS's defaults. The system's configuration must define the
     * engine's dispatcher ({@code seqvfs.dispatcher}): a system started with {@code
     * ConfigFactory.load()} has it, from SeqVFS's {@code reference.conf}. Pekko settings in {@code
     * config} are ignored (the system's are in force). Blocks as {@link #create(Config, VfsClock)}
     * does; thread-safe.
     *
     * @param system the actor system to run in; SeqVFS never terminates it
     * @param config the instance's settings ({@code ConfigFactory.empty()} for the defaults)
     * @return a new, empty instance; close it before terminating {@code system}
     * @throws IllegalArgumentException if {@code system} has no configuration for the dispatcher
     *     named by {@code seqvfs.dispatcher}
     * @throws com.typesafe.config.ConfigException if the configuration is invalid
     * @throws VfsException {@code EIO} if an actor did not answer within the ask timeout
     */
    public static SeqVfs create(ActorSystem<?> system, Config config) {
        Objects.requireNonNull(system, "system");
        EngineConfig c = EngineConfig.over(config, system.settings().config());
        if (!system.settings().config().hasPath(c.vfs().dispatcher())) {
            throw new IllegalArgumentException(
                    "actor system "
                            + system.name()
                            + " has no dispatcher "
                            + c.vfs().dispatcher()
                            + ": start it with a configuration that includes SeqVFS's"
                            + " reference.conf (ConfigFactory.load() does)");
        }
        return new SeqVfs(c, VfsClock.SYSTEM, SharedSystems.borrow(system, c));
    }

    /**
     * Creates a task (a process) with its own descriptor table, the root as its working and root
     * directory, and umask {@code 022}. Blocks for one message to the guardian. With {@code
     * seqvfs.proc.mount = on} (the default) the instance has procfs at {@code /proc}.
     *
     * @param cred the task's identity
     * @return the new task
     */
    public VfsTask newTask(Credentials cred) {
        Objects.requireNonNull(cred, "cred");
        FilesStruct files;
        try {
            files = newFilesStruct(FdTable.empty());
        } catch (VfsException e) {
            throw e.withContext(Syscall.NEW_TASK, null, null);
        }
        return new VfsTask(new TaskContext(this, files, cred));
    }

    /**
     * Spawns a descriptor table's actor over {@code initial}; blocks for one message to the
     * guardian.
     *
     * @throws VfsException {@code EIO} if the instance is closed (or the guardian did not answer)
     */
    FilesStruct newFilesStruct(FdTable initial) {
        if (isClosed()) {
            throw Shutdown.error(Syscall.NEW_TASK);
        }
        FilesStruct files = new FilesStruct(initial, config.rlimitNofile());
        return asker.join(
                asker.ask(
                        guardian,
                        (ReplyTo<FilesStruct> r) -> new EngineGuardian.SpawnFdTable(files, r)),
                Syscall.NEW_TASK,
                null);
    }

    void stopFilesStruct(FilesStruct files) {
        guardian.tell(new EngineGuardian.StopFdTable(files));
    }

    /**
     * Returns how many reply collectors an instance has: two per CPU (at least four), so that
     * threads asking at the same time rarely share one.
     */
    private static int collectorCount() {
        return Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    }

    /**
     * Returns how often a collector sweeps for overdue requests: a quarter of the ask timeout (at
     * least 1 ms).
     */
    private static Duration sweepInterval(Duration askTimeout) {
        // (Duration.dividedBy goes through BigDecimal: microseconds per instance)
        return Duration.ofNanos(Math.max(1_000_000L, askTimeout.toNanos() / 4));
    }

    /**
     * Builds a superblock of {@code type} for a mount ({@link FileSystemType#mount}) and spawns its
     * actor; blocks for one message to the guardian.
     *
     * @param target where it will be mounted, for error messages (external form)
     * @param rootMode the root's mode unless the options set one
     * @throws VfsException what the type refuses the options with ({@code EINVAL})
     */
    Superblock mount(
            FileSystemType type,
            CharSequence source,
            CharSequence target,
            long flags,
            String data,
            int rootMode,
            int rootUid,
            int rootGid) {
        Superblock sb =
                type.mount(
                        new MountContext() {
                            @Override
                            public String source() {
                                return source == null ? null : source.toString();
                            }

                            @Override
                            public String target() {
                                return target == null ? null : target.toString();
                            }

                            @Override
                            public long flags() {
                                return flags;
                            }

                            @Override
                            public String data() {
                                return data;
                            }

                            @Override
                            public SuperblockConfig defaultLimits() {
                                return config.tmpfs();
                            }

                            @Override
                            public int defaultRootMode() {
                                return rootMode;
                            }

                            @Override
                            public int defaultRootUid() {
                                return rootUid;
                            }

                            @Override
                            public int defaultRootGid() {
                                return rootGid;
                            }

                            @Override
                            public FileSystemTypes types() {
                                return types;
                            }

                            @Override
                            public TaskRegistry tasks() {
                                return procTasks;
                            }

                            @Override
                            public ActorSystem<?> system() {
                                return system;
                            }

                            @Override
                            public com.typesafe.config.Config config() {
                                return engineConfig.full();
                            }

                            @Override
                            public Superblock newSuperblock(
                                    FileSystemType t,
                                    SuperOperations ops,
                                    SuperblockConfig limits,
                                    int mode,
                                    int uid,
                                    int gid) {
                                Superblock made =
                                        new Superblock(
                                                devs.incrementAndGet(),
                                                t,
                                                ops,
                                                limits,
                                                clock,
                                                locks,
                                                mode,
                                                uid,
                                                gid);
                                superblocks.removeIf(Superblock::isDeactivated);
                                superblocks.add(made);
                                return made;
                            }
                        });
        return asker.join(
                asker.ask(
                        guardian,
                        (ReplyTo<Superblock> r) -> new EngineGuardian.SpawnSuperblock(sb, r)),
                Syscall.MOUNT,
                null);
    }

    /**
     * Makes an independent file system with this one's contents: a new instance with the same
     * configuration, clock and actor system, whose namespace has the same mounts and, on every
     * superblock whose names are stored (tmpfs), the same directories, files, link counts, inode
     * numbers, attributes, extended attributes, symbolic links and data. Computed superblocks
     * (procfs) are mounted afresh and show the fork's own tasks. Open files, descriptor tables,
     * tasks, locks, inotify watches and FIFO pipes are not forked: the fork starts with none.
     *
     * <p>From the call on, the two are independent: no write on one side, by any call (data,
     * truncate, attributes, links, creates, unlinks, renames, mounts), is ever visible on the
     * other. File data is shared page by page: a 4 KiB page that both hold is copied by the first
     * write to it on either side, and is never written in place (DESIGN.md, "File data"). Each
     * side's limits and byte pool charges count the shared pages once per side.
     *
     * <p><b>Atomicity.</b> The fork is one cut of this instance: every directory change, rename,
     * mount change, attribute change and data write that runs concurrently appears in the fork
     * wholly or not at all, and a write that returned before {@code fork()} was called appears
     * (CONCURRENCY.md, "Fork"). Writers wait while the cut is taken (a few stores); readers never
     * do.
     *
     * <p><b>Cost.</b> The cut reads nothing of the trees: it bumps each copied superblock's fork
     * generation, and from then on this instance's writers keep, for the fork, the version of a
     * directory, an attribute set or a file's data that they replace first (snapshot generations,
     * as btrfs keeps a snapshot's blocks). A fork's directory is a view of this instance's snapshot
     * at the fork's generation, shared whole, that shows each entry as the fork's twin of it, made
     * (in O(1)) the first time the fork sees it; a file's data is read from this instance on its
     * first use, and its pages are shared. What the fork reads stays reachable while it (or a fork
     * of it) is open. See README, "Forks", for the figures measured and how to run them.
     * Thread-safe; closing either instance leaves the other working.
     *
     * @return the fork, open; close it
     * @throws VfsException {@code EIO} if this instance is closed or an actor did not answer within
     *     the ask timeout; {@code ENOSPC} if the copy does not fit the limits of a superblock or
     *     the JVM's tmpfs byte pool; {@code EINVAL} if a durable type is mounted. Nothing of the
     *     fork is left running then, and this instance is unchanged.
     */
    public SeqVfs fork() {
        if (isClosed()) {
            throw new VfsException(Errno.EIO, Syscall.FORK, null);
        }
        SharedSystems.Lease l =
                lease.isShared()
                        ? SharedSystems.acquire(engineConfig)
                        : SharedSystems.borrow(system, engineConfig);
        return new SeqVfs(engineConfig, clock, l, this);
    }

    /**
     * Takes a hold on this instance for a fork of it ({@link #forkHolds}).
     *
     * @return {@code false} if every hold is gone (the instance is closed and has no open fork)
     */
    private boolean retainForFork() {
        while (true) {
            int n = forkHolds.get();
            if (n == 0) {
                return false;
            }
            if (forkHolds.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Drops a hold ({@link #forkHolds}); the last one releases this fork's source. */
    private void releaseForkHold() {
        if (forkHolds.decrementAndGet() == 0) {
            Runnable r = releaseSource;
            if (r != null) {
                r.run();
            }
        }
    }

    /** The fork's side of {@link VfsFork}: superblocks made, started and mounted here. */
    private VfsFork.Target forkTarget() {
        return new VfsFork.Target() {
            @Override
            public Superblock newSuperblockLike(Superblock src) {
                InodeAttrs ra = src.root().attrsAcquire();
                Superblock made =
                        new Superblock(
                                src.dev(),
                                src.type(),
                                src.sop(),
                                src.configAcquire(),
                                clock,
                                locks,
                                ra.permissions(),
                                ra.uid(),
                                ra.gid());
                devs.accumulateAndGet(src.dev(), Math::max);
                superblocks.add(made);
                return made;
            }

            @Override
            public void start(Superblock sb) {
                asker.join(
                        asker.ask(
                                guardian,
                                (ReplyTo<Superblock> r) ->
                                        new EngineGuardian.SpawnSuperblock(sb, r)),
                        Syscall.FORK,
                        null);
            }

            @Override
            public Superblock mountFresh(FileSystemType type, String source) {
                return mount(type, source, null, 0, null, 0555, 0, 0);
            }
        };
    }

    /**
     * {@return the name of the file-system type of the instance's root ({@code seqvfs.root.type})}
     */
    public String rootType() {
        return config.rootType();
    }

    /** {@return the superblocks with a mount, for {@code sync(2)}} */
    List<Superblock> superblocksForSync() {
        List<Superblock> out = new ArrayList<>();
        for (Superblock sb : superblocks) {
            if (!sb.isDeactivated()) {
                out.add(sb);
            }
        }
        return out;
    }

    /**
     * Returns the file-system types this instance can mount ({@code mount(2)}'s {@code fstype}).
     */
    FileSystemTypes fileSystemTypes() {
        return types;
    }

    private String typeNames() {
        StringBuilder sb = new StringBuilder();
        for (FileSystemType t : types.all()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(t.name());
        }
        return sb.toString();
    }

    /** Returns the configuration. */
    VfsConfig config() {
        return config;
    }

    /** Returns the mount namespace. */
    Namespace namespace() {
        return namespace;
    }

    /** Returns the instance's rename and mount sequence locks, with the walk counters. */
    NamespaceLocks locks() {
        return locks;
    }

    /**
     * Returns the pool that runs the async view's calls that can only wait by parking a thread
     * ({@code F_SETLKW}, a blocking {@code flock}, {@code poll} with a timeout): daemon threads,
     * made on demand, gone after a minute idle, shut down with the instance.
     */
    Executor blockingExecutor() {
        return blocking;
    }

    /**
     * Returns the instance's POSIX-lock wait graph (deadlock detection never crosses instances).
     */
    FileLockTable.WaitGraph lockWaitGraph() {
        return lockWaitGraph;
    }

    /** {@return the number of optimistic walks that failed validation and were retried} */
    public long walkRetries() {
        return locks.walkRetries.sum();
    }

    /** {@return the number of walks that fell back to the locked ref-walk} */
    public long refWalks() {
        return locks.refWalks.sum();
    }

    /**
     * {@return the reads of regular-file data that overlapped an in-place write and were retried}
     * Counted for every instance of this JVM together (a striped counter, touched only on the slow
     * path); see CONCURRENCY.md, "File data".
     */
    public long dataReadRetries() {
        return RegularInode.readRetries();
    }

    /**
     * {@return the reads of regular-file data that took the stable path after repeated overlaps},
     * for every instance of this JVM together
     */
    public long dataStableReads() {
        return RegularInode.stableReads();
    }

    /** Returns the anonymous-inode file system (pipes, sockets). */
    AnonFs anonFs() {
        return anonFs;
    }

    /**
     * {@return the number of anonymous inodes (pipes, sockets, eventfds) alive now: a sum of
     * striped counters, exact when no pipe or socket is being created or closed} Lock-free.
     */
    public long anonInodesAlive() {
        return anonFs.liveInodes();
    }

    /** {@return the number of anonymous inodes created since the instance started} Lock-free. */
    public long anonInodesCreated() {
        return anonFs.createdInodes();
    }

    int register(TaskContext t) {
        int pid = pids.incrementAndGet();
        tasks.put(pid, t);
        return pid;
    }

    void unregister(int pid) {
        tasks.remove(pid);
    }

    /** Returns the live tasks (a weakly consistent view of the registry), for {@link Fsck}. */
    java.util.Collection<TaskContext> liveTasks() {
        return tasks.values();
    }

    /** The task registry as procfs sees it. */
    private final class TaskRegistryView implements TaskRegistry {
        @Override
        public List<Integer> pids() {
            List<Integer> l = new ArrayList<>(tasks.keySet());
            Collections.sort(l);
            return l;
        }

        @Override
        public FdTable fdTable(int pid) {
            TaskContext t = tasks.get(pid);
            return t == null ? null : t.files().tableAcquire();
        }

        @Override
        public VfsPath cwd(int pid) {
            TaskContext t = tasks.get(pid);
            return t == null ? null : t.cwd();
        }

        @Override
        public int uid(int pid) {
            TaskContext t = tasks.get(pid);
            return t == null ? -1 : t.cred().uid();
        }

        @Override
        public MountTable mounts() {
            return namespace.mountTableAcquire();
        }

        @Override
        public String describe(OpenFile f) {
            if (f.origin() != null) {
                return f.origin().display(f.inode());
            }
            if (f.dentry() != null) {
                // An anonymous file's disconnected dentry is named as d_dname shows it: pipe:[ino].
                return f.dentry().name();
            }
            return f.path() == null ? "anon_inode:[unknown]" : PathNames.toExternal(f.path());
        }
    }

    PathWalk walker() {
        return walker;
    }

    Asker asker() {
        return asker;
    }

    VfsClock clock() {
        return clock;
    }

    /** {@return whether {@link #close()} has been called} Thread-safe (a volatile read). */
    public boolean isClosed() {
        return shutdown.isShutDown();
    }

    /**
     * Returns the instance's closed state, with which every wait registers so that {@link #close()}
     * can end it.
     */
    Shutdown shutdown() {
        return shutdown;
    }

    /**
     * Returns the actor system the instance's actors run in: shared with other instances (see the
     * class comment) or the embedder's. Never terminate a system SeqVFS started; it terminates
     * itself after its last instance closes.
     */
    ActorSystem<?> system() {
        return system;
    }

    /**
     * Closes the instance. In this order, before this method returns:
     *
     * <ol>
     *   <li><b>Calls made from now on</b> fail at once with {@code EIO}, every call of every task
     *       (lock-free reads included), naming the call and its paths, and so does every async
     *       twin's future (failed, never thrown).
     *   <li><b>Calls parked on their caller's thread</b> (a read or write of a pipe, FIFO, socket
     *       or eventfd, the open of a FIFO, {@code F_SETLKW}, a blocking {@code flock}, {@code
     *       poll}, a wait for an actor's reply) are woken and fail with {@code EIO}: their threads
     *       return from the call promptly, none stays parked. A call that had already passed its
     *       wait may return its result, or {@code EIO}; a call that fails for any reason once the
     *       instance is closed fails with {@code EIO}, whatever the close did to the state it saw
     *       (a pipe whose other end the close released is not end of file, a lock the close
     *       released is not granted, a descriptor it closed is not {@code EBADF}).
     *   <li><b>Async futures not yet complete</b> fail with {@code EIO} naming the call, on this
     *       thread (their dependent stages run here); a pending async {@code open} of a FIFO is
     *       withdrawn, as a cancellation withdraws it. The pool threads that park for async calls
     *       ({@code F_SETLKW}, {@code flock}, {@code poll} with a timeout, {@code readv}/{@code
     *       writev} of a stream) end.
     *   <li>The instance's actors (its guardian and all of its children, no other instance's) stop;
     *       this waits up to 10 seconds for them (an interrupt of the closing thread ends that wait
     *       early, its interrupt status left set).
     *   <li>Every byte its tmpfs superblocks hold in the JVM's pool of tmpfs data (half the heap,
     *       shared by every instance: see {@code seqvfs.tmpfs} in {@code reference.conf}) is given
     *       back, whether or not the actors stopped in time.
     *   <li>The hold on a shared actor system is given back (it terminates {@code
     *       seqvfs.actor-system.linger} after its last instance closes; an embedder's system keeps
     *       running).
     * </ol>
     *
     * <p>A call that fails with {@code EIO} because of the close may still have taken effect (a
     * {@code mkdir} its actor applied before it stopped); nothing can observe that, since every
     * later call fails. A wait inside file operations an embedder supplied ({@link
     * VfsTask#anonInodeGetFd}) is woken only if those operations wait in a way the close can end;
     * SeqVFS's own files all do. Idempotent: a later call waits as the first does. Thread-safe.
     */
    /** The longest {@link #close} waits for the superblocks' {@code kill_sb} work, in seconds. */
    private static final long KILL_WAIT_SECONDS = 120;

    @Override
    public void close() {
        shutdown.shutDown();
        asker.failPending();
        blocking.shutdownNow();
        if (closing.compareAndSet(false, true)) {
            rootActor.tell(EngineRoot.Stop.INSTANCE);
        }
        try {
            Asker.helpUntilDone(stopped); // closed from inside a handler: the stop is queued here
            stopped.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Stopping is best effort; the instance is unusable either way.
        }
        // kill_sb's work (a persistent type's last write-back) ends before close returns, so a
        // program that closes and exits keeps what the unmount writes back
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(KILL_WAIT_SECONDS);
        for (Superblock sb : superblocks) {
            try {
                sb.sop()
                        .killed(sb)
                        .toCompletableFuture()
                        .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                // logged by the type; the instance is unusable either way
            }
        }
        // Whatever its files still hold goes back to the JVM's pool of tmpfs bytes, even if an
        // actor did not stop in time: the instance is unusable either way.
        for (Superblock sb : superblocks) {
            sb.releaseHeapPool();
        }
        if (ownHoldDropped.compareAndSet(false, true)) {
            releaseForkHold();
        }
        lease.release(linger);
    }

    /**
     * {@return a duration of the configured ask timeout, for callers that wait on async results}
     */
    public Duration askTimeout() {
        return config.askTimeout();
    }
}
