package dev.seqvfs.engine;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.anon.AnonFs;
import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.FileSystemTypes;
import dev.seqvfs.engine.fs.MountContext;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.fs.proc.ProcTasks;
import dev.seqvfs.engine.lock.FileLockTable;
import dev.seqvfs.engine.sb.NamespaceLocks;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockConfig;
import dev.seqvfs.engine.sb.VfsClock;
import dev.seqvfs.engine.mount.Namespace;
import dev.seqvfs.engine.walk.PathNames;
import dev.seqvfs.engine.walk.PathWalk;
import dev.seqvfs.protocol.Credentials;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * One embedded SeqVFS instance: an actor system, a mount namespace whose root is a tmpfs
 * superblock, and the path walker. Create tasks with {@link #newTask(Credentials)} and
 * call the file system through them.
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
 * <p>Thread-safe: any number of threads may create tasks and call through them.
 * {@link #close()} stops the actor system; calls after it fail.
 */
public final class SeqVfs implements AutoCloseable {
    static {
        // Bind SLF4J before Pekko's threads log concurrently, so that no early call is
        // queued and replayed (SLF4J then prints three "replay" warnings to stderr).
        org.slf4j.LoggerFactory.getILoggerFactory();
    }

    private final VfsConfig config;
    private final ActorSystem<EngineGuardian.Command> system;
    private final NamespaceLocks locks = new NamespaceLocks();
    private final AtomicLong devs = new AtomicLong();
    private final VfsClock clock;
    private final Namespace namespace;
    private final PathWalk walker;
    private final Asker asker;
    private final AnonFs anonFs;
    private final FileSystemTypes types;
    private final FileLockTable.WaitGraph lockWaitGraph = new FileLockTable.WaitGraph();
    private final java.util.concurrent.ConcurrentHashMap<Integer, VfsTask> tasks =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger pids = new java.util.concurrent.atomic.AtomicInteger();
    private final ProcTasksView procTasks = new ProcTasksView();

    private SeqVfs(Config raw, VfsConfig config, VfsClock clock) {
        this.config = config;
        this.clock = clock;
        this.types = FileSystemTypes.defaults();
        DispatcherSelector dispatcher = DispatcherSelector.fromConfig(config.dispatcher());
        this.system = ActorSystem.create(EngineGuardian.create(dispatcher), "seqvfs", raw);
        this.asker = new Asker(system.scheduler(), config.askTimeout());
        this.asker.attach(spawnCollectors());
        FileSystemType rootType = types.get(config.rootType());
        if (rootType == null) {
            system.terminate();
            throw new IllegalArgumentException("seqvfs.root.type: no file-system type named " + config.rootType()
                    + " (registered: " + typeNames() + ")");
        }
        Superblock root = mount(rootType, null, "/", 0, config.rootOptions(), config.rootMode(), config.rootUid(),
                config.rootGid());
        this.namespace = new Namespace(locks, root);
        this.anonFs = new AnonFs(devs.incrementAndGet(), clock, config.anonSharedRoot());
        this.walker = new PathWalk(namespace, config.optimisticAttempts());
        if (config.mountProc()) {
            // As a booted system's init does: the first task (pid 1) mounts /proc and exits.
            try (VfsTask init = newTask(Credentials.ROOT)) {
                init.mkdir("/proc", 0555);
                init.mount("proc", "/proc", "proc", 0, null);
            }
        }
    }

    /**
     * Creates an instance with the default configuration: {@code application.conf} (or
     * the {@code config.resource}/{@code config.file} properties) over SeqVFS's defaults.
     */
    public static SeqVfs create() {
        return create(ConfigFactory.defaultOverrides().withFallback(ConfigFactory.defaultApplication()));
    }

    /**
     * Creates an instance from a configuration holding a {@code seqvfs} section (see
     * {@code reference.conf}) and any Pekko settings.
     */
    public static SeqVfs create(Config config) {
        return create(config, VfsClock.SYSTEM);
    }

    /**
     * Creates an instance with an explicit clock (tests). The configuration is layered:
     * {@code config} first, then SeqVFS's Pekko settings ({@code seqvfs-pekko.conf}), then
     * every {@code reference.conf} (SeqVFS's and Pekko's defaults).
     */
    public static SeqVfs create(Config config, VfsClock clock) {
        Config full = config
                .withFallback(ConfigFactory.parseResources(SeqVfs.class.getClassLoader(), "seqvfs-pekko.conf"))
                .withFallback(ConfigFactory.defaultReference())
                .resolve();
        return new SeqVfs(full, VfsConfig.from(full), clock);
    }

    /**
     * Creates a task (a process) with its own descriptor table, the root as its working and
     * root directory, and umask {@code 022}. Blocks for one message to the guardian. With
     * {@code seqvfs.proc.mount = on} (the default) the instance has procfs at {@code /proc}.
     *
     * @param cred the task's identity
     */
    public VfsTask newTask(Credentials cred) {
        java.util.Objects.requireNonNull(cred, "cred");
        FilesStruct files = newFilesStruct(FdTable.empty());
        return new VfsTask(this, files, cred);
    }

    FilesStruct newFilesStruct(FdTable initial) {
        FilesStruct files = new FilesStruct(initial, config.rlimitNofile());
        return asker.join(asker.askPekko(system, (org.apache.pekko.actor.typed.ActorRef<FilesStruct> r) ->
                new EngineGuardian.SpawnFdTable(files, r)), "newTask", null);
    }

    void stopFilesStruct(FilesStruct files) {
        system.tell(new EngineGuardian.StopFdTable(files));
    }

    /**
     * Spawns the reply collectors: two per CPU (at least four), so that threads asking at
     * the same time rarely share one. Each sweeps for overdue requests at a quarter of the
     * ask timeout.
     */
    private Asker.Slot[] spawnCollectors() {
        int n = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
        Duration sweep = config.askTimeout().dividedBy(4).isZero() ? Duration.ofMillis(1)
                : config.askTimeout().dividedBy(4);
        Asker.Slot[] slots = new Asker.Slot[n];
        for (int i = 0; i < n; i++) {
            dev.seqvfs.engine.reply.ReplyCollector.Pending pending = new dev.seqvfs.engine.reply.ReplyCollector.Pending();
            org.apache.pekko.actor.typed.ActorRef<dev.seqvfs.engine.reply.ReplyCollector.Command> ref = asker.join(
                    asker.askPekko(system, (org.apache.pekko.actor.typed.ActorRef<
                            org.apache.pekko.actor.typed.ActorRef<dev.seqvfs.engine.reply.ReplyCollector.Command>> r) ->
                            new EngineGuardian.SpawnCollector(pending, sweep, r)), "start", null);
            slots[i] = new Asker.Slot(ref, pending);
        }
        return slots;
    }

    /**
     * Builds a superblock of {@code type} for a mount ({@link FileSystemType#mount}) and spawns
     * its actor; blocks for one message to the guardian.
     *
     * @param target where it will be mounted, for error messages (external form)
     * @param rootMode the root's mode unless the options set one
     * @throws VfsException what the type refuses the options with ({@code EINVAL})
     */
    Superblock mount(FileSystemType type, String source, String target, long flags, String data, int rootMode,
                     int rootUid, int rootGid) {
        Superblock sb = type.mount(new MountContext() {
            @Override
            public String source() {
                return source;
            }

            @Override
            public String target() {
                return target;
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
            public ProcTasks tasks() {
                return procTasks;
            }

            @Override
            public Superblock newSuperblock(FileSystemType t, SuperOperations ops, SuperblockConfig limits, int mode,
                                            int uid, int gid) {
                return new Superblock(devs.incrementAndGet(), t, ops, limits, clock, locks, mode, uid, gid);
            }
        });
        return asker.join(asker.askPekko(system, (org.apache.pekko.actor.typed.ActorRef<Superblock> r) ->
                new EngineGuardian.SpawnSuperblock(sb, r)), "mount", null);
    }

    /** Returns the file-system types this instance can mount ({@code mount(2)}'s {@code fstype}). */
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
    public VfsConfig config() {
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

    /** Returns the instance's POSIX-lock wait graph (deadlock detection never crosses instances). */
    FileLockTable.WaitGraph lockWaitGraph() {
        return lockWaitGraph;
    }

    /** Returns the number of optimistic walks that failed validation and were retried. */
    public long walkRetries() {
        return locks.walkRetries.sum();
    }

    /** Returns the number of walks that fell back to the locked ref-walk. */
    public long refWalks() {
        return locks.refWalks.sum();
    }

    /** Returns the anonymous-inode file system (pipes, sockets). */
    AnonFs anonFs() {
        return anonFs;
    }

    /**
     * Returns the number of anonymous inodes (pipes, sockets, eventfds) alive now: a sum of
     * striped counters, exact when no pipe or socket is being created or closed. Lock-free.
     */
    public long anonInodesAlive() {
        return anonFs.liveInodes();
    }

    /** Returns the number of anonymous inodes created since the instance started. Lock-free. */
    public long anonInodesCreated() {
        return anonFs.createdInodes();
    }

    int register(VfsTask t) {
        int pid = pids.incrementAndGet();
        tasks.put(pid, t);
        return pid;
    }

    void unregister(int pid) {
        tasks.remove(pid);
    }

    /** Returns the live tasks (a weakly consistent view of the registry), for {@link Fsck}. */
    java.util.Collection<VfsTask> liveTasks() {
        return tasks.values();
    }


    /** The task registry as procfs sees it. */
    private final class ProcTasksView implements ProcTasks {
        @Override
        public java.util.List<Integer> pids() {
            java.util.List<Integer> l = new java.util.ArrayList<>(tasks.keySet());
            java.util.Collections.sort(l);
            return l;
        }

        @Override
        public FdTable fdTable(int pid) {
            VfsTask t = tasks.get(pid);
            return t == null ? null : t.files().tableAcquire();
        }

        @Override
        public dev.seqvfs.engine.walk.VfsPath cwd(int pid) {
            VfsTask t = tasks.get(pid);
            return t == null ? null : t.cwd();
        }

        @Override
        public int uid(int pid) {
            VfsTask t = tasks.get(pid);
            return t == null ? -1 : t.cred().uid();
        }

        @Override
        public dev.seqvfs.engine.mount.MountTable mounts() {
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

    /** Returns whether {@link #close()} has been called. Thread-safe (a volatile read). */
    public boolean isClosed() {
        return asker.isClosed();
    }

    /** Returns the actor system the engine's actors run in. */
    ActorSystem<?> system() {
        return system;
    }

    /**
     * Closes the instance: from the moment this is called, every call of every task fails
     * at once with {@code EIO} (lock-free reads included), and so does every async twin's
     * future; requests already sent fail with {@code EIO} or a timeout when the actors stop.
     * Then stops the actor system and waits up to 10 seconds for it to terminate.
     * Idempotent; thread-safe.
     */
    @Override
    public void close() {
        asker.close();
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
            // Termination is best effort; the system is unusable either way.
        }
    }

    /** Returns a duration of the configured ask timeout, for callers that wait on async results. */
    public Duration askTimeout() {
        return config.askTimeout();
    }
}
