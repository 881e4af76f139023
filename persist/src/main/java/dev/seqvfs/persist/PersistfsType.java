package dev.seqvfs.persist;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.TreeLoad;
import dev.seqvfs.engine.file.FileData;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.MountContext;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockConfig;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The {@code persistfs} file-system type: a tmpfs whose namespace is durable. Every directory keeps
 * an event-sourced journal ({@link DirectoryEntity}, Pekko Persistence on an embedded H2 database
 * in the data directory); a namespace call ({@code creat}, {@code mkdir}, {@code mknod}, {@code
 * symlink}, {@code link}, {@code unlink}, {@code rmdir}, {@code rename} within or between
 * directories ({@link MoveJournal}), and {@code chmod}/{@code chown}/{@code utimensat} by path)
 * returns only once its change is in the journal (what Linux's {@code dirsync} mount option
 * promises; the default), and a drained batch of a directory's commands is one journal write (group
 * commit). On an {@code async} mount a namespace call within a directory returns before its journal
 * write, which starts at once: it is durable at the next {@code fsync} of the directory, {@code
 * syncfs} or {@code sync} (which wait for it), and a crash keeps a prefix of each directory's
 * changes; a rename between directories stays durable at return (its two halves are ordered).
 * Mounting recovers the tree from the journals.
 *
 * <p>File contents and the attributes writes change are kept in memory (a page cache) and written
 * back in blocks ({@link DataStore}) at {@code fsync}, {@code fdatasync}, {@code syncfs}, {@code
 * sync}, every {@code seqvfs.persistfs.writeback-interval} (5 s by default) and at unmount; on a
 * {@code sync} mount, or through a descriptor opened {@code O_SYNC}/{@code O_DSYNC}, before each
 * write returns.
 *
 * <p>Options ({@code mount(2)}'s data, comma-separated): {@code data_dir=PATH} (the data directory;
 * the mount's source is taken when it is an absolute path and the option is absent), {@code
 * store=postgresql} with {@code schema=NAME} (the file system in schema {@code NAME}, made if
 * absent, of the database {@code seqvfs.persistfs.postgresql} names; default {@code seqvfs}; no
 * data directory then), {@code snapshot_every=N} (events between a journal's snapshots, default
 * {@code seqvfs.persistfs.snapshot-every}), and one of {@code sync} (data too: each write is
 * written back before it returns; {@code MS_SYNCHRONOUS} in the flags is {@code sync} too), {@code
 * dirsync} (the default: the namespace durable at return, data at write-back) and {@code async}
 * (the namespace too at write-back, above); the last one given counts. {@code EINVAL} for any other
 * option or a missing data directory; {@code EBUSY} if another mount in this JVM holds the same
 * data directory; {@code EIO} if its database cannot be opened (another process holds it past 30 s)
 * or recovered, or is older than its last mount ({@link StoreMark}: a rollback), the exception as
 * its cause.
 *
 * <p>Immutable and thread-safe. {@link #mount} blocks for the database and the recovery (as a disk
 * file system's {@code fill_super} reads the disk); it runs on the mounting task's thread.
 */
public final class PersistfsType implements FileSystemType {
    /** The type's name, as {@code mount(2)} and {@code seqvfs.root.type} select it. */
    public static final String NAME = "persistfs";

    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(PersistfsType.class);

    /**
     * The data directories mounted in this JVM, each with the future its release completes (after
     * {@code kill_sb} has closed its database). A mount of a directory being released waits for
     * that (a remount right after {@code close()}); of one still mounted, is {@code EBUSY}.
     */
    private static final ConcurrentHashMap<Path, Slot> MOUNTED = new ConcurrentHashMap<>();

    /** One mounted data directory. */
    private static final class Slot {
        volatile boolean releasing;
        volatile PersistfsOps ops;
        final CompletableFuture<Void> released = new CompletableFuture<>();
    }

    /** Takes {@code dir} for a new mount, waiting out a release in progress; EBUSY if mounted. */
    private static Slot take(Path dir, MountContext ctx) {
        Slot mine = new Slot();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Slot prev = MOUNTED.putIfAbsent(dir, mine);
            if (prev == null) {
                return mine;
            }
            if (!prev.releasing || System.nanoTime() > deadline) {
                throw new VfsException(Errno.EBUSY, Syscall.MOUNT, ctx.target());
            }
            try {
                prev.released.get(1, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // look again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new VfsException(Errno.EINTR, Syscall.MOUNT, ctx.target());
            } catch (java.util.concurrent.ExecutionException e) {
                throw eio(ctx.target(), e.getCause());
            }
        }
    }

    /** {@return an {@code EIO} of mount(2) on {@code target} whose cause is {@code cause}} */
    private static VfsException eio(String target, Throwable cause) {
        VfsException e = new VfsException(Errno.EIO, Syscall.MOUNT, target);
        e.initCause(cause);
        return e;
    }

    /**
     * {@return the operations of the persistfs mounted on {@code dataDir} in this JVM, or {@code
     * null}} For the offline check and tests.
     */
    static PersistfsOps mounted(Path dataDir) {
        Slot s = MOUNTED.get(dataDir.toAbsolutePath().normalize());
        return s == null ? null : s.ops;
    }

    private static void release(Path dir, Slot slot) {
        MOUNTED.remove(dir, slot);
        slot.released.complete(null);
    }

    /** The instance {@link java.util.ServiceLoader} makes. */
    public PersistfsType() {}

    /**
     * {@return the configuration of an instance whose root is persistfs on {@code dataDir}}: {@code
     * seqvfs.root.type = persistfs} and {@code seqvfs.root.options = data_dir=...} over {@code
     * ConfigFactory.load()}, for {@code SeqVfs.create(PersistfsType.rootConfig(dir))}.
     *
     * @param dataDir the data directory (made at the first mount if absent)
     */
    public static Config rootConfig(Path dataDir) {
        return ConfigFactory.parseMap(
                        Map.of(
                                "seqvfs.root.type",
                                NAME,
                                "seqvfs.root.options",
                                "data_dir=" + dataDir.toAbsolutePath().normalize()))
                .withFallback(ConfigFactory.load());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int flags() {
        return FS_DURABLE;
    }

    /**
     * The parsed mount options.
     *
     * @param sync {@code sync}: data written back before each write returns, and the namespace
     *     durable at return
     * @param async {@code async}: namespace changes answered before their journal write
     */
    private record Options(
            Path dataDir,
            int snapshotEvery,
            boolean sync,
            boolean async,
            String schema,
            String store) {}

    private static Options parse(MountContext ctx, Config defaults) {
        Path dir = null;
        int every = defaults.getInt("snapshot-every");
        boolean sync = (ctx.flags() & dev.seqvfs.protocol.MountFlags.MS_SYNCHRONOUS) != 0;
        boolean async = false;
        String store = null; // the data directory's kind (PersistStore.embeddedKind)
        String schema = null;
        String data = ctx.data();
        if (data != null) {
            for (String opt : data.split(",")) {
                if (opt.isEmpty()) {
                    continue;
                }
                int eq = opt.indexOf('=');
                String k = eq < 0 ? opt : opt.substring(0, eq);
                String v = eq < 0 ? null : opt.substring(eq + 1);
                if (v == null && (k.equals("sync") || k.equals("async") || k.equals("dirsync"))) {
                    sync = k.equals("sync");
                    async = k.equals("async");
                    continue;
                }
                if (v == null || v.isEmpty()) {
                    throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
                }
                switch (k) {
                    case "data_dir" -> dir = Path.of(v);
                    case "store" -> {
                        if (!v.equals("log") && !v.equals("h2") && !v.equals("postgresql")) {
                            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
                        }
                        store = v;
                    }
                    case "schema" -> {
                        if (!PersistStore.isSchemaName(v)) {
                            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
                        }
                        schema = v.toLowerCase(java.util.Locale.ROOT);
                    }
                    case "snapshot_every" -> {
                        try {
                            every = Integer.parseInt(v);
                        } catch (NumberFormatException e) {
                            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
                        }
                        if (every < 1) {
                            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
                        }
                    }
                    default -> throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
                }
            }
        }
        if ("postgresql".equals(store)) {
            // the file system lives in a schema of the configured database (the data directory,
            // if given, is ignored); its key in this JVM is the schema's name
            if (schema == null) {
                schema = "seqvfs";
            }
            return new Options(
                    Path.of("/postgresql", schema), every, sync, async && !sync, schema, store);
        }
        if (schema != null) {
            // an embedded store has none
            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
        }
        if (dir == null && ctx.source() != null && ctx.source().startsWith("/")) {
            dir = Path.of(ctx.source());
        }
        if (dir == null) {
            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
        }
        Path abs = dir.toAbsolutePath().normalize();
        if (store == null) {
            store = PersistStore.embeddedKind(abs) == PersistStore.Dialect.H2 ? "h2" : "log";
        }
        return new Options(abs, every, sync, async && !sync, null, store);
    }

    @Override
    public Superblock mount(MountContext ctx) {
        ActorSystem<?> system = ctx.system();
        // the instance's own settings (ctx.config()), with this module's defaults beneath them
        Config defaults =
                ctx.config().withFallback(system.settings().config()).getConfig("seqvfs.persistfs");
        Options o = parse(ctx, defaults);
        Slot slot = take(o.dataDir(), ctx);
        boolean done = false;
        PersistfsOps made = null;
        PersistStore store = null;
        try {
            PersistMeta meta;
            try {
                store =
                        switch (o.store()) {
                            case "log" ->
                                    PersistStore.openLog(
                                            o.dataDir(),
                                            dev.seqvfs.persist.log.SegmentLog.Settings.from(
                                                    defaults.getConfig("log")),
                                            o.async(),
                                            system);
                            case "h2" -> PersistStore.openH2(o.dataDir(), system);
                            default ->
                                    PersistStore.openPostgres(
                                            defaults.getString("postgresql.url"),
                                            defaults.getString("postgresql.user"),
                                            defaults.getString("postgresql.password"),
                                            o.schema(),
                                            system);
                        };
                meta = new PersistMeta(store);
            } catch (UncheckedIOException e) {
                throw eio(ctx.target(), e);
            }
            Duration timeout = defaults.getDuration("write-timeout");
            long high;
            try {
                high = meta.inoHigh();
                if (o.schema() == null) {
                    StoreMark.check(o.dataDir(), meta.get("fsid"), high);
                }
            } catch (UncheckedIOException e) {
                throw eio(ctx.target(), e);
            }
            PersistfsOps ops =
                    new PersistfsOps(
                            store,
                            meta,
                            system,
                            o.snapshotEvery(),
                            timeout,
                            high,
                            () -> slot.releasing = true,
                            () -> release(o.dataDir(), slot));
            made = ops;
            slot.ops = ops;
            SuperblockConfig defaultsLimits = ctx.defaultLimits();
            Superblock sb =
                    ctx.newSuperblock(
                            this,
                            ops,
                            defaultsLimits,
                            ctx.defaultRootMode(),
                            ctx.defaultRootUid(),
                            ctx.defaultRootGid());
            long maxIno = recover(sb, ops, defaults.getDuration("recovery-timeout"));
            if (maxIno >= high && high > Superblock.ROOT_INO) {
                ops.problem(
                        maxIno,
                        "inode number above the stored high-water mark "
                                + high
                                + ": numbers may have been given twice");
            }
            long next = Math.max(high, maxIno + 1);
            sb.continueNumbersAbove(next - 1);
            try {
                meta.inoHigh(next + PersistfsOps.INO_CHUNK);
                if (o.schema() == null) {
                    store.force();
                    StoreMark.write(o.dataDir(), meta.fsid(), next + PersistfsOps.INO_CHUNK);
                }
            } catch (UncheckedIOException e) {
                throw eio(ctx.target(), e);
            }
            ops.markHigh(next + PersistfsOps.INO_CHUNK);
            ops.startWriteBack(defaults.getDuration("writeback-interval"));
            ops.syncWrites(o.sync());
            ops.asyncNamespace(o.async());
            done = true;
            return sb;
        } finally {
            if (!done) {
                if (made != null) {
                    made.data.close();
                }
                if (store != null) {
                    store.close();
                }
                release(o.dataDir(), slot);
            }
        }
    }

    /**
     * Rebuilds {@code sb}'s tree from its journals, breadth first, each level's journals recovered
     * at once; rolls forward the moves between directories a crash left half-written ({@link
     * MoveJournal}); returns the highest inode number found.
     */
    private static long recover(Superblock sb, PersistfsOps ops, Duration timeout) {
        Map<Long, DirState> states = new HashMap<>();
        // every journal a name reaches, before any move is rolled forward
        List<Long> level = List.of(Superblock.ROOT_INO);
        while (!level.isEmpty()) {
            fetch(level, states, ops, timeout);
            List<Long> nextLevel = new ArrayList<>();
            for (long ino : level) {
                for (EntryRecord r : states.get(ino).entries().values()) {
                    if (r.type() == FileType.DIRECTORY && !states.containsKey(r.ino())) {
                        nextLevel.add(r.ino());
                    }
                }
            }
            level = nextLevel.stream().distinct().toList();
        }
        ops.renamesAbove(rollForward(states, ops, timeout));
        List<Long> order = new ArrayList<>();
        long maxIno = Superblock.ROOT_INO;
        // every record of each non-directory inode, to count its names and take its newest
        Map<Long, List<EntryRecord>> names = new HashMap<>();
        java.util.Set<Long> dirsSeen = new java.util.HashSet<>();
        dirsSeen.add(Superblock.ROOT_INO);
        // attributes recorded as their inode lost a name it kept others beside
        Map<Long, List<EntryRecord>> unlinkedRecords = new HashMap<>();
        level = List.of(Superblock.ROOT_INO);
        while (!level.isEmpty()) {
            // a roll-forward may have made a directory reachable that was not before
            fetch(
                    level.stream().filter(i -> !states.containsKey(i)).toList(),
                    states,
                    ops,
                    timeout);
            List<Long> nextLevel = new ArrayList<>();
            for (long ino : level) {
                DirState s = states.get(ino);
                order.add(ino);
                for (EntryRecord r : s.unlinkedRecords()) {
                    unlinkedRecords.computeIfAbsent(r.ino(), k -> new ArrayList<>()).add(r);
                    ops.keptUnlinked(ino, r); // handed to the parent if this directory goes
                }
                for (EntryRecord r : s.entries().values()) {
                    maxIno = Math.max(maxIno, r.ino());
                    if (r.type() == FileType.DIRECTORY) {
                        if (dirsSeen.add(r.ino())) {
                            nextLevel.add(r.ino());
                        }
                    } else {
                        names.computeIfAbsent(r.ino(), k -> new ArrayList<>()).add(r);
                    }
                }
            }
            level = nextLevel;
        }
        Map<Long, DataStore.Row> rows = ops.data.loadAll();
        // the stored blocks of every file, as the pages they were written from
        Map<Long, FileData> contents = new HashMap<>();
        ops.data.loadBlocks(
                (ino, idx, bytes) -> contents.put(ino, load(contents.get(ino), idx, bytes)));
        List<Inode> legacy = new ArrayList<>();
        Map<Long, Inode> made = new HashMap<>();
        Map<Long, DirectoryInode> dirs = new HashMap<>();
        DirectoryInode root = sb.root();
        dirs.put(Superblock.ROOT_INO, root);
        EntryRecord rootSelf = states.get(Superblock.ROOT_INO).self();
        if (rootSelf != null) {
            TreeLoad.setDirAttrs(root, a -> attrs(rootSelf, a.nlink(), 0));
        } else {
            // mkfs: the root's mode, owner and times as made now, kept from here on
            await(
                    ops.append(
                                    Superblock.ROOT_INO,
                                    new DirEvent.AttrsChanged(null, EntityJournal.record(root)))
                            .toCompletableFuture(),
                    timeout);
        }
        for (long ino : order) {
            DirectoryInode dir = dirs.get(ino);
            DirState s = states.get(ino);
            List<TreeLoad.Entry> entries = new ArrayList<>();
            for (Map.Entry<String, EntryRecord> e : s.entries().entrySet()) {
                EntryRecord r = e.getValue();
                Inode child;
                if (r.type() == FileType.DIRECTORY) {
                    if (dirs.containsKey(r.ino())) {
                        // a second name of one directory: cannot be, kept out
                        ops.problem(
                                r.ino(),
                                "directory has a second name "
                                        + e.getKey()
                                        + " in directory "
                                        + ino
                                        + ": kept out (a cycle or a half-applied rename)");
                        continue;
                    }
                    DirState own = states.get(r.ino());
                    EntryRecord newest = newest(r, own == null ? null : own.self());
                    child =
                            sb.sop()
                                    .newInode(
                                            sb,
                                            r.ino(),
                                            attrs(newest, 2, 0),
                                            dir,
                                            e.getKey(),
                                            null);
                    dirs.put(r.ino(), (DirectoryInode) child);
                } else {
                    child = made.get(r.ino());
                    if (child == null) {
                        List<EntryRecord> all = names.get(r.ino());
                        EntryRecord newest = r;
                        for (EntryRecord x : all) {
                            newest = newest(newest, x);
                        }
                        for (EntryRecord x : unlinkedRecords.getOrDefault(r.ino(), List.of())) {
                            newest = newest(newest, x);
                        }
                        // a written-back row: a regular file's, or the attributes of another
                        // inode changed through a descriptor (dirtyInode)
                        DataStore.Row row = rows.remove(r.ino());
                        FileData content = contents.remove(r.ino());
                        if (row != null && r.type() == FileType.REGULAR) {
                            FileData d = content == null ? FileData.empty() : content;
                            if (row.legacy().length > 0) {
                                d = d.write(0, row.legacy(), 0, row.legacy().length);
                            }
                            long size = row.attrs().size();
                            content = size < d.size() ? d.truncate(size) : d.withSizeAtLeast(size);
                        } else {
                            content = null; // blocks without a row: a first write-back cut short
                        }
                        InodeAttrs a;
                        if (row != null) {
                            InodeAttrs w = row.attrs();
                            // the newer of the journal's record and the written-back row
                            a =
                                    w.ctime() >= newest.ctime()
                                            ? new InodeAttrs(
                                                    w.mode(),
                                                    all.size(),
                                                    w.uid(),
                                                    w.gid(),
                                                    newest.rdev(),
                                                    w.size(),
                                                    content == null
                                                            ? 0
                                                            : content.allocatedBytes() / 512,
                                                    w.atime(),
                                                    w.mtime(),
                                                    w.ctime(),
                                                    w.xattrs())
                                            : attrs(newest, all.size(), w.size());
                        } else {
                            long size =
                                    newest.linkTarget() == null ? 0 : newest.linkTarget().length();
                            a = attrs(newest, all.size(), size);
                        }
                        child =
                                sb.sop()
                                        .newInode(
                                                sb,
                                                r.ino(),
                                                a,
                                                dir,
                                                e.getKey(),
                                                newest.linkTarget());
                        if (newest.linkTarget() != null) {
                            // once per inode, not per name (TreeLoad charges names)
                            sb.chargeBytes(newest.linkTarget().length(), Syscall.MOUNT);
                        }
                        if (content != null
                                && content.size() > 0
                                && child instanceof RegularInode ri) {
                            sb.chargeBytes(content.allocatedBytes(), Syscall.MOUNT);
                            ri.adoptLoadedData(content);
                            if (row.legacy().length > 0) {
                                legacy.add(child); // moved to blocks at its next write-back
                            }
                        }
                        made.put(r.ino(), child);
                    }
                }
                entries.add(new TreeLoad.Entry(e.getKey(), child));
            }
            TreeLoad.bind(sb, dir, entries);
        }
        // rows and blocks of inodes no name reaches (freed while unmounted, or a crash between a
        // file's last unlink and its rows' delete), and blocks without a row: collected now
        java.util.Set<Long> unreached = new java.util.HashSet<>(rows.keySet());
        unreached.addAll(contents.keySet());
        for (long ino : unreached) {
            ops.data.delete(ino);
            ops.corrected(
                    ino,
                    rows.containsKey(ino)
                            ? "written-back content of an inode no name reaches: deleted"
                            : "content blocks without a row (a first write-back cut short):"
                                    + " deleted");
        }
        for (Inode i : legacy) {
            ops.dirtyAll(i);
        }
        return maxIno;
    }

    /** Recovers the journals of {@code inos} at once into {@code states}. */
    private static void fetch(
            List<Long> inos, Map<Long, DirState> states, PersistfsOps ops, Duration timeout) {
        List<CompletableFuture<DirState>> asks = new ArrayList<>();
        for (long ino : inos) {
            asks.add(
                    AskPattern.<DirectoryEntity.Command, DirState>ask(
                                    ops.entity(ino),
                                    DirectoryEntity.Recover::new,
                                    timeout,
                                    ops.system.scheduler())
                            .toCompletableFuture());
        }
        for (int i = 0; i < inos.size(); i++) {
            states.put(inos.get(i), await(asks.get(i), timeout));
        }
    }

    /**
     * {@return what {@code f} completes with, waited for up to {@code timeout}} {@code EIO} (the
     * failure as its cause) if it fails or times out; {@code EINTR} if interrupted.
     */
    private static <T> T await(CompletableFuture<T> f, Duration timeout) {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException ex) {
            throw eio(null, ex.getCause());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new VfsException(Errno.EINTR, Syscall.MOUNT, null);
        } catch (java.util.concurrent.TimeoutException ex) {
            throw eio(null, ex);
        }
    }

    /**
     * Completes every move between directories whose first half ({@link DirEvent.EntryMovedIn}) is
     * durable and whose second is not, in move order, writing the missing half to the source
     * parent's journal, and settles every pending move; {@code states} is updated to match. Returns
     * the highest move number seen.
     */
    private static long rollForward(
            Map<Long, DirState> states, PersistfsOps ops, Duration timeout) {
        long max = 0;
        List<long[]> pending = new ArrayList<>(); // {move number, target parent}
        for (Map.Entry<Long, DirState> e : states.entrySet()) {
            max = Math.max(max, e.getValue().lastRename());
            for (DirState.PendingMove p : e.getValue().pendingMoves()) {
                max = Math.max(max, p.rename());
                pending.add(new long[] {p.rename(), e.getKey()});
            }
        }
        pending.sort(java.util.Comparator.comparingLong(x -> x[0]));
        for (long[] x : pending) {
            long to = x[1];
            DirState.PendingMove p =
                    states.get(to).pendingMoves().stream()
                            .filter(m -> m.rename() == x[0])
                            .findFirst()
                            .orElseThrow();
            DirState from = states.get(p.fromDir());
            EntryRecord still = from == null ? null : from.entries().get(p.fromName());
            // only while the source name still binds the moved inode: a name bound again since
            // (after a failed second half) is not the move's
            if (from != null
                    && !from.removed()
                    && from.lastRename() < p.rename()
                    && still != null
                    && still.ino() == p.ino()) {
                DirEvent out = new DirEvent.EntryMovedOut(p.fromName(), p.rename(), p.exchanged());
                appendWaiting(ops, p.fromDir(), out, timeout);
                states.put(p.fromDir(), from.apply(out));
                LOG.info(
                        "persistfs {}: move {} rolled forward (directory {} name {})",
                        ops.fsid,
                        p.rename(),
                        p.fromDir(),
                        p.fromName());
                ops.corrected(
                        p.ino(),
                        "a move between directories (number "
                                + p.rename()
                                + ") was half written: rolled forward, the name "
                                + p.fromName()
                                + " in directory "
                                + p.fromDir()
                                + " removed");
            }
            DirEvent settled = new DirEvent.MoveSettled(p.rename());
            appendWaiting(ops, to, settled, timeout);
            states.put(to, states.get(to).apply(settled));
        }
        return max;
    }

    private static void appendWaiting(PersistfsOps ops, long ino, DirEvent e, Duration timeout) {
        await(ops.append(ino, e).toCompletableFuture(), timeout);
    }

    /**
     * {@return {@code d} (or the empty file) with stored block {@code idx} in it} A page of zeros
     * stays a hole, as it was when written back (a block is written with the holes inside it), so a
     * remount charges no more than the file held.
     */
    private static FileData load(FileData d, long idx, byte[] bytes) {
        FileData out = d == null ? FileData.empty() : d;
        long base = idx * DataStore.BLOCK;
        for (int p = 0; p < bytes.length; p += FileData.PAGE) {
            int len = Math.min(FileData.PAGE, bytes.length - p);
            for (int i = p; i < p + len; i++) {
                if (bytes[i] != 0) {
                    out = out.write(base + p, bytes, p, len);
                    break;
                }
            }
        }
        return out.withSizeAtLeast(base + bytes.length);
    }

    private static EntryRecord newest(EntryRecord a, EntryRecord b) {
        return b == null || a.ctime() >= b.ctime() ? a : b;
    }

    private static InodeAttrs attrs(EntryRecord r, long nlink, long size) {
        return new InodeAttrs(
                r.mode(),
                nlink,
                r.uid(),
                r.gid(),
                r.rdev(),
                size,
                (size + 511) / 512,
                r.atime(),
                r.mtime(),
                r.ctime(),
                r.engineXattrs());
    }
}
