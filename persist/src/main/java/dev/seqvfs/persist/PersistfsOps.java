package dev.seqvfs.persist;

import dev.seqvfs.engine.dir.DirJournal;
import dev.seqvfs.engine.dir.DirLink;
import dev.seqvfs.engine.dir.DirectoryFileOperations;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.RenameJournal;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.file.FileData;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.walk.WalkContext;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The superblock operations of one persistfs superblock: tmpfs's inodes and file operations (the
 * data lives in memory, as a page cache), plus a journal per directory ({@link #journal}: a {@link
 * DirectoryEntity}, spawned on the first need), the durable inode-number high-water mark, and the
 * journals' shutdown at {@code kill_sb}.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@code entities}: a {@link ConcurrentHashMap} from directory inode number to its entity;
 *       directory actors (any thread) get or spawn through {@code computeIfAbsent}.
 *   <li>{@code inoHigh}: volatile; written only by the meta writer thread after the mark is stored,
 *       read by directory actors taking a batch of numbers. {@code extending} (CAS) lets one
 *       extension run at a time.
 * </ul>
 */
final class PersistfsOps implements SuperOperations {
    private static final Logger LOG = LoggerFactory.getLogger(PersistfsOps.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    /**
     * How far ahead of the numbers given the stored high-water mark is kept: a new mark is stored
     * when fewer than half of this remain.
     */
    static final long INO_CHUNK = 1L << 20;

    /** {@code f_type} of {@code statfs(2)}: "PERS" in ASCII. */
    static final long MAGIC = 0x50455253L;

    final PersistStore store;
    final PersistMeta meta;
    final String fsid;
    final ActorSystem<?> system;
    final int snapshotEvery;
    final Duration writeTimeout;
    private final int instance = INSTANCES.incrementAndGet();
    private final ConcurrentHashMap<Long, ActorRef<DirectoryEntity.Command>> entities =
            new ConcurrentHashMap<>();
    private final java.util.concurrent.ScheduledExecutorService metaWriter;
    private final AtomicBoolean extending = new AtomicBoolean();

    /** The last cross-directory move number given ({@link MoveJournal}). */
    private final java.util.concurrent.atomic.AtomicLong renames =
            new java.util.concurrent.atomic.AtomicLong();

    private final Runnable onKill;

    /** Marks the data directory as being released (a remount waits for {@link #onKill}). */
    private final Runnable onRelease;

    private volatile long inoHigh;
    final DataStore data;
    private final PersistFileOperations regularOps = new PersistFileOperations(this);

    /**
     * No {@code O_TMPFILE} ({@code EOPNOTSUPP}): the journal records files by the names that give
     * them, so a nameless file's data would have no record to come back with.
     */
    @Override
    public boolean tmpfile() {
        return false;
    }

    /** A directory's: tmpfs's, but {@code fsync} waits for the directory's journal. */
    private final FileOperations directoryOps =
            new FileOperations() {
                private final FileOperations d = DirectoryFileOperations.INSTANCE;

                @Override
                public int fmode() {
                    return d.fmode();
                }

                @Override
                public long llseek(OpenFile f, long offset, int whence) {
                    return d.llseek(f, offset, whence);
                }

                @Override
                public List<DirEntry> iterate(
                        OpenFile f, WalkContext caller, long cookie, int max) {
                    return d.iterate(f, caller, cookie, max);
                }

                @Override
                public void fsync(OpenFile f, boolean datasync) {
                    d.fsync(f, datasync);
                    Syscall op = datasync ? Syscall.FDATASYNC : Syscall.FSYNC;
                    DirLink l = ((DirectoryInode) f.inode()).linkAcquire();
                    pathWritten(f.inode(), l == null ? null : l.parent(), op);
                    flushJournals(f.inode().ino(), op); // forces what pathWritten waited for
                }

                @Override
                public void release(OpenFile f) {
                    d.release(f);
                }
            };

    /**
     * Whether every write is written back before it returns (a {@code sync} mount). Set once by the
     * mount before the superblock serves; read by any thread (volatile).
     */
    private volatile boolean syncWrites;

    /** {@return whether the mount is {@code sync}} */
    boolean syncWrites() {
        return syncWrites;
    }

    /** Makes the mount {@code sync} or not. */
    void syncWrites(boolean sync) {
        syncWrites = sync;
    }

    /**
     * Write-backs of one inode run one at a time (striped by inode number), so that one taking what
     * changed after another cannot reach the database first.
     */
    private final Object[] writeBackLocks = new Object[64];

    {
        for (int i = 0; i < writeBackLocks.length; i++) {
            writeBackLocks[i] = new Object();
        }
    }

    /**
     * One thing recovery found wrong in the stored tree.
     *
     * @param ino the inode it concerns
     * @param what what was wrong, and what recovery did
     */
    record Finding(long ino, String what) {}

    /**
     * What recovery found and corrected at this mount ({@code seqvfs fsck} reports it). Written by
     * the mount's thread before the superblock serves; read after.
     */
    final List<Finding> corrected = java.util.Collections.synchronizedList(new ArrayList<>());

    /** What recovery found and could not correct (kept out; {@code seqvfs fsck} reports it). */
    final List<Finding> problems = java.util.Collections.synchronizedList(new ArrayList<>());

    /** Records a finding that recovery corrected. */
    void corrected(long ino, String what) {
        corrected.add(new Finding(ino, what));
    }

    /** Records a finding that recovery could not correct. */
    void problem(long ino, String what) {
        problems.add(new Finding(ino, what));
        LOG.warn("persistfs {}: inode {}: {}", fsid, ino, what);
    }

    /** Blocks written to the database since the mount (tests: what write-backs cost). */
    final java.util.concurrent.atomic.AtomicLong blocksWritten =
            new java.util.concurrent.atomic.AtomicLong();

    /**
     * Inodes changed since their last write-back, by inode number: regular files written or
     * truncated, and inodes of any type but directories whose attributes changed through a
     * descriptor ({@link #dirtyInode}).
     */
    private final ConcurrentHashMap<Long, DirtyBlocks> dirty = new ConcurrentHashMap<>();

    PersistfsOps(
            PersistStore store,
            PersistMeta meta,
            ActorSystem<?> system,
            int snapshotEvery,
            Duration writeTimeout,
            long inoHigh,
            Runnable onRelease,
            Runnable onKill) {
        this.entityProps = dispatcherProps(system, store.pluginDispatcher());
        this.store = store;
        this.meta = meta;
        this.fsid = meta.fsid();
        this.system = system;
        this.snapshotEvery = snapshotEvery;
        this.writeTimeout = writeTimeout;
        this.inoHigh = inoHigh;
        this.onKill = onKill;
        this.onRelease = onRelease;
        this.data = store.newDataStore();
        this.metaWriter =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "persistfs-" + instance + "-meta");
                            t.setDaemon(true);
                            return t;
                        });
    }

    /** {@return the props that select dispatcher {@code id}, or none if the system has no such} */
    static Props dispatcherProps(ActorSystem<?> system, String id) {
        return id != null && system.settings().config().hasPath(id)
                ? org.apache.pekko.actor.typed.DispatcherSelector.fromConfig(id)
                : Props.empty();
    }

    /** {@return the entity of directory {@code ino}, spawned if it has none} */
    ActorRef<DirectoryEntity.Command> entity(long ino) {
        return entities.computeIfAbsent(
                ino,
                i ->
                        system.systemActorOf(
                                DirectoryEntity.create(store, fsid, i, snapshotEvery),
                                "persistfs-" + instance + "-d" + i,
                                entityProps));
    }

    /**
     * The entities' dispatcher ({@code seqvfs.persistfs.dispatcher}): by default the engine's
     * calling-thread dispatcher, so that a directory actor's append runs its entity, and the
     * entity's write its journal plugin, on the same thread (no hand-off per journal write).
     */
    private final Props entityProps;

    /**
     * {@return when directory {@code ino}'s journal has the one event {@code e}} Through its {@link
     * JournalQueue}; fails if the append fails or outlasts {@code write-timeout}.
     */
    CompletionStage<Void> append(long ino, DirEvent e) {
        return append(ino, List.of(e));
    }

    /**
     * {@return when directory {@code ino}'s journal has {@code events}, written together with
     * whatever else its queue holds} Fails if the append fails or outlasts {@code write-timeout}.
     */
    CompletionStage<Void> append(long ino, List<DirEvent> events) {
        return queue(ino).submit(events);
    }

    private final ConcurrentHashMap<Long, JournalQueue> queues = new ConcurrentHashMap<>();

    /**
     * On an {@code async} mount, the journal write of the newest name given to each inode whose
     * name is not written yet ({@link #namePending}), removed when it completes: what an {@code
     * fsync} of that inode, or of anything below it, waits for ({@link #pathWritten}).
     */
    private final ConcurrentHashMap<Long, CompletableFuture<Void>> pendingNames =
            new ConcurrentHashMap<>();

    /**
     * Records that inode {@code ino} was given a name whose journal write is {@code written} (an
     * {@code async} mount's create, link or rename within a directory).
     *
     * @param ino the inode named
     * @param written completes once the name is written to the store
     */
    void namePending(long ino, CompletableFuture<Void> written) {
        pendingNames.put(ino, written);
        written.whenComplete((ok, failure) -> pendingNames.remove(ino, written));
    }

    /**
     * {@return directory {@code ino}'s journal queue: every append to its entity goes through it}
     */
    JournalQueue queue(long ino) {
        return queues.computeIfAbsent(
                ino, i -> new JournalQueue(entity(i), system.scheduler(), writeTimeout));
    }

    /** {@return whether a name of inode {@code ino} waits for its journal write} For tests. */
    boolean namePendingNow(long ino) {
        return pendingNames.containsKey(ino);
    }

    /**
     * On an {@code async} mount, waits until the newest name given to inode {@code ino} is written
     * to the store (on the segment log: written, not yet forced), so that an {@code fsync} of a new
     * file makes its name durable with its data, as ext4's does (its journal commit takes the
     * directory entry along); the caller forces after. Nothing when no name of it waits (every name
     * on a {@code dirsync} mount, which was durable when its call returned). Blocks the caller's
     * thread.
     *
     * @param ino the inode being synced
     * @param op the call, for the error
     * @return whether it waited for a write (a force must follow)
     * @throws VfsException {@code EIO} if that write failed, {@code EINTR}
     */
    boolean nameWritten(long ino, Syscall op) {
        CompletableFuture<Void> w = pendingNames.get(ino);
        if (w == null) {
            return false;
        }
        await(w, op);
        return true;
    }

    /**
     * On an {@code async} mount, waits until the newest name of {@code inode} and the newest name
     * of every directory from {@code parent} up to the superblock's root are written to the store,
     * so that an {@code fsync} makes the whole path of a file made in new directories durable with
     * it: ext4's journal commit takes the directory entries of new parents along too (POSIX asks
     * only for the file's data; programs that fsync a new file in a new directory count on ext4's
     * behaviour). The caller forces after. Blocks the caller's thread.
     *
     * @param inode the inode being synced
     * @param parent the directory it was opened from (a file), or its parent (a directory), or
     *     {@code null}
     * @param op the call, for the error
     * @return whether it waited for a write (a force must follow)
     * @throws VfsException {@code EIO} if a write failed, {@code EINTR}
     */
    boolean pathWritten(Inode inode, DirectoryInode parent, Syscall op) {
        boolean waited = nameWritten(inode.ino(), op);
        for (DirectoryInode d = parent; d != null; ) {
            waited |= nameWritten(d.ino(), op);
            DirLink l = d.linkAcquire(); // null at the superblock's root
            d = l == null ? null : l.parent();
        }
        return waited;
    }

    /**
     * Forces what the store wrote and did not force yet (a lazy journal's appends), before
     * returning: nothing for a store that is durable at each write.
     *
     * @param op the call, for the error
     * @throws VfsException {@code EIO}, {@code EINTR}
     */
    void forceStore(Syscall op) {
        await(store.forceAsync(), op);
    }

    /**
     * Waits for {@code f}, up to twice the write timeout: {@code EIO} if it fails or times out,
     * {@code EINTR} if the thread is interrupted.
     */
    private void await(CompletableFuture<?> f, Syscall op) {
        try {
            f.get(writeTimeout.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VfsException(Errno.EINTR, op, null);
        } catch (java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
            throw new VfsException(Errno.EIO, op, null);
        }
    }

    /**
     * Whether namespace changes are answered before their journal write ({@code async} mount): set
     * once by the mount before the superblock serves; read by any thread (volatile).
     */
    private volatile boolean asyncNamespace;

    /** {@return whether the mount is {@code async}} */
    boolean asyncNamespace() {
        return asyncNamespace;
    }

    /** Makes the mount's namespace changes {@code async} or not. */
    void asyncNamespace(boolean async) {
        asyncNamespace = async;
    }

    /**
     * The first journal write that failed since the last {@code syncfs}/{@code fsync} reported one
     * on an {@code async} mount (where no caller waited for it), or {@code null}: the next one
     * fails with {@code EIO}, as Linux reports a failed write-back at the next {@code fsync}.
     */
    private final java.util.concurrent.atomic.AtomicReference<Throwable> journalError =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** Records that an unwaited journal write failed. */
    void journalFailed(Throwable t) {
        journalError.compareAndSet(null, t);
    }

    /**
     * Waits until every namespace change submitted to directory {@code ino}'s journal (all
     * directories' when {@code ino} is 0) is durable: {@code fsync} of a directory, {@code syncfs}.
     * On the segment log with a lazy journal ({@code async}), the appends are then forced (one
     * force of the log covers every directory's). Blocks the caller's thread.
     *
     * @throws VfsException {@code EIO} if one of them, or an earlier unwaited one, failed
     */
    void flushJournals(long ino, Syscall op) {
        List<CompletableFuture<Void>> barriers = new ArrayList<>();
        if (ino == 0) {
            for (JournalQueue q : queues.values()) {
                barriers.add(q.submit(List.of()));
            }
        } else {
            JournalQueue q = queues.get(ino);
            if (q != null) {
                barriers.add(q.submit(List.of()));
            }
        }
        for (CompletableFuture<Void> b : barriers) {
            await(b, op);
        }
        forceStore(op); // a lazy journal (async on the segment log): written, now forced
        if (journalError.getAndSet(null) != null) {
            throw new VfsException(Errno.EIO, op, null);
        }
    }

    /** Records that the stored high-water mark is now {@code mark} (the mount stored it). */
    void markHigh(long mark) {
        inoHigh = mark;
    }

    @Override
    public long magic() {
        return MAGIC;
    }

    @Override
    public FileOperations fileOps(FileType type) {
        switch (type) {
            case REGULAR:
                return regularOps;
            case DIRECTORY:
                return directoryOps;
            default:
                return FileOperations.NONE;
        }
    }

    /**
     * Applies {@code mark} to what {@code inode} changed since its last write-back ({@link
     * DirtyBlocks}), in a new record if a write-back has just taken the current one. Called after
     * the change is made (a write-back that runs between the change and the mark has read the
     * change; the mark makes the next one write it).
     */
    void mark(Inode inode, java.util.function.Predicate<DirtyBlocks> mark) {
        while (true) {
            DirtyBlocks x = dirty.computeIfAbsent(inode.ino(), k -> new DirtyBlocks(inode));
            if (mark.test(x)) {
                return;
            }
            dirty.remove(inode.ino(), x);
        }
    }

    /** Marks bytes {@code [from, to)} of {@code inode} changed. */
    void dirtyRange(Inode inode, long from, long to) {
        mark(inode, x -> x.range(from, to));
    }

    /** Marks every block of {@code inode} changed (a change whose range is not known). */
    void dirtyAll(Inode inode) {
        mark(inode, DirtyBlocks::all);
    }

    /** Marks that {@code inode} was {@code size} bytes long: every block past it may change. */
    void dirtySize(Inode inode, long size) {
        mark(inode, x -> x.size(size));
    }

    /** Write-back steps per batch: one transaction, and at most this many blocks in memory. */
    private static final int BATCH = 64;

    /**
     * Writes back one inode before returning ({@code fsync}): for a regular file the blocks of
     * content that changed since its last write-back ({@link DirtyBlocks}), in batches of {@link
     * #BATCH} (each one transaction, copied under the file's write lock), then its attributes and
     * size with the last; for another non-directory its attributes. Nothing if nothing changed.
     * Blocks for the database; runs on the calling task's thread or the writer thread; write-backs
     * of one inode run one at a time.
     *
     * @param inode the inode
     * @param op the call, for the error
     * @return whether anything was written (and so, on the segment log, forced)
     * @throws VfsException {@code EIO} if the database refused a write (the inode stays dirty:
     *     every block is written at the next write-back)
     */
    boolean writeBack(Inode inode, Syscall op) {
        if (inode.type() == FileType.DIRECTORY) {
            return false; // a directory's attributes are in its journal
        }
        synchronized (writeBackLocks[(int) (inode.ino() & (writeBackLocks.length - 1))]) {
            try {
                if (inode instanceof RegularInode r) {
                    return writeBackFile(r);
                } else {
                    DirtyBlocks x = dirty.remove(inode.ino());
                    if (x == null) {
                        return false;
                    }
                    x.take();
                    InodeAttrs a = inode.attrsAcquire();
                    if (a.nlink() > 0 || inode.openCount() > 0) {
                        data.write(inode.ino(), List.of(), a);
                        return true;
                    }
                    return false;
                }
            } catch (UncheckedIOException e) {
                dirtyAll(inode);
                LOG.error(
                        "persistfs {}: write-back of inode {} failed: {}",
                        fsid,
                        inode.ino(),
                        e.toString());
                throw new VfsException(Errno.EIO, op, null);
            }
        }
    }

    private boolean writeBackFile(RegularInode r) {
        List<DataStore.Step> steps = new ArrayList<>();
        r.writeLock().lock();
        try {
            DirtyBlocks x = dirty.remove(r.ino());
            if (x == null) {
                return false;
            }
            DirtyBlocks.Plan plan = x.take();
            FileData d = r.dataAcquire();
            long nblocks = DataStore.blocks(d.size());
            for (long b : plan.blocks()) {
                if (b >= nblocks) {
                    break; // past the end: the last batch deletes them
                }
                steps.add(hasData(d, b) ? put(b) : new DataStore.Step(b, b + 1, null));
            }
            if (plan.from() < nblocks) {
                long next = plan.from();
                long off = d.nextData(next * DataStore.BLOCK);
                while (off >= 0) {
                    long b = off / DataStore.BLOCK;
                    if (b > next) {
                        steps.add(new DataStore.Step(next, b, null));
                    }
                    steps.add(put(b));
                    next = b + 1;
                    if (next >= nblocks) {
                        break;
                    }
                    off = d.nextData(next * DataStore.BLOCK);
                }
                if (next < nblocks) {
                    steps.add(new DataStore.Step(next, nblocks, null));
                }
            }
        } finally {
            r.writeLock().unlock();
        }
        for (int i = 0; i == 0 || i < steps.size(); i += BATCH) {
            List<DataStore.Step> batch = new ArrayList<>();
            InodeAttrs a = null;
            boolean last = i + BATCH >= steps.size();
            r.writeLock().lock();
            try {
                FileData d = r.dataAcquire();
                for (DataStore.Step s : steps.subList(i, Math.min(steps.size(), i + BATCH))) {
                    if (s.end() >= 0) {
                        batch.add(s);
                        continue;
                    }
                    long at = s.idx() * DataStore.BLOCK;
                    long len = Math.min(DataStore.BLOCK, d.size() - at);
                    if (len <= 0) {
                        continue; // truncated meanwhile: the last batch deletes it
                    }
                    byte[] b = new byte[(int) len];
                    d.read(at, b, 0, b.length);
                    batch.add(new DataStore.Step(s.idx(), -1, b));
                }
                if (last) {
                    a = r.attrsAcquire();
                }
            } finally {
                r.writeLock().unlock();
            }
            if (r.attrsAcquire().nlink() == 0 && r.openCount() == 0) {
                return i > 0; // freed meanwhile: evictInode deletes its rows
            }
            data.write(r.ino(), batch, a);
            blocksWritten.addAndGet(batch.stream().filter(s -> s.data() != null).count());
        }
        return true;
    }

    /** A write step of block {@code b}, its bytes read when its batch is copied. */
    private static DataStore.Step put(long b) {
        return new DataStore.Step(b, -1, null);
    }

    /** {@return whether any page of block {@code b} of {@code d} is allocated} */
    private static boolean hasData(FileData d, long b) {
        long off = d.nextData(b * DataStore.BLOCK);
        return off >= 0 && off / DataStore.BLOCK == b;
    }

    /**
     * {@code ->dirty_inode}: an attribute change through a descriptor is written back with the
     * inode (its row), at the next write-back, or before the call returns on a {@code sync} mount.
     */
    @Override
    public void dirtyInode(Superblock sb, Inode inode) {
        if (inode.type() == FileType.DIRECTORY) {
            return;
        }
        markAttrs(inode, syncWrites);
    }

    /**
     * Marks {@code inode}'s attributes for write-back ({@code ->dirty_inode}), and writes it back
     * now if {@code now} (a {@code sync} mount; an explicit change on a {@code dirsync} one).
     */
    private void markAttrs(Inode inode, boolean now) {
        mark(inode, DirtyBlocks::attrs);
        if (now) {
            writeBack(inode, Syscall.FSYNC);
        }
    }

    /**
     * An attribute change through a descriptor: on a {@code dirsync} mount (the default) written
     * back before the call returns, so that a {@code chmod}, {@code chown}, {@code touch} or {@code
     * setfattr} through the FUSE mount (whose server makes them by descriptor) is as durable as the
     * same call by path, which the directory's journal has when it returns (a newcomer's crash test
     * lost all four); on an {@code async} mount at the next write-back, as {@link #dirtyInode}. A
     * regular file's dirty blocks go with it.
     */
    @Override
    public void attrsChanged(Superblock sb, Inode inode) {
        if (inode.type() == FileType.DIRECTORY) {
            return;
        }
        markAttrs(inode, syncWrites || !asyncNamespace);
    }

    /** {@return whether inode {@code ino} waits for a write-back} For tests. */
    boolean dirtyNow(long ino) {
        return dirty.containsKey(ino);
    }

    /** {@code syncfs}: writes back every file written since its last write-back. */
    @Override
    public void sync(Superblock sb) {
        for (DirtyBlocks x : dirty.values()) {
            writeBack(x.inode, Syscall.FSYNC);
        }
        flushJournals(0, Syscall.FSYNC);
    }

    /**
     * Writes back every dirty file, each failure logged and the file left dirty: the periodic
     * write-back ({@code seqvfs.persistfs.writeback-interval}) and the last one at unmount. Runs on
     * the writer thread.
     */
    private void writeBackAll() {
        for (DirtyBlocks x : dirty.values()) {
            try {
                writeBack(x.inode, Syscall.SYNC);
            } catch (VfsException e) {
                // logged by writeBack (EIO); the inode stays dirty
            }
        }
    }

    /**
     * Starts the periodic write-back, every {@code interval} (none when zero), as Linux's flusher
     * threads write back dirty pages ({@code dirty_writeback_centisecs}).
     */
    void startWriteBack(Duration interval) {
        if (interval.isZero() || interval.isNegative()) {
            return;
        }
        long ms = interval.toMillis();
        metaWriter.scheduleWithFixedDelay(this::writeBackAll, ms, ms, TimeUnit.MILLISECONDS);
    }

    /**
     * Freed regular files whose last unlink may not be durable yet, and the reverse: files whose
     * last unlink is durable but which were still open. A file's row is deleted only when both have
     * happened (else a crash could recover a name whose content is gone). Guarded by {@code this}.
     */
    private final java.util.Set<Long> freedNotDurable = new java.util.HashSet<>();

    private final java.util.Set<Long> durableNotFreed = new java.util.HashSet<>();

    @Override
    public void evictInode(Superblock sb, Inode inode) {
        if (inode.type() == FileType.DIRECTORY) {
            return;
        }
        dirty.remove(inode.ino());
        boolean delete;
        synchronized (this) {
            delete = durableNotFreed.remove(inode.ino());
            if (!delete) {
                freedNotDurable.add(inode.ino());
            }
        }
        if (delete) {
            deleteRow(inode.ino());
        }
    }

    /**
     * The attributes each directory's journal holds of inodes unlinked there that kept other names
     * ({@link DirState#unlinkedRecords}), by directory then inode number: what a removal of the
     * directory hands to its parent's journal ({@link DirEvent.UnlinkedInherited}). Filled at
     * recovery and by the journals as they append, on the actor thread of the directory that
     * publishes (a concurrent map: a directory's entry is written by its own actor and taken by its
     * remover's, which {@code DirectoryInode}'s {@code unjournaled} flag orders after).
     */
    private final ConcurrentHashMap<Long, ConcurrentHashMap<Long, EntryRecord>> keptUnlinked =
            new ConcurrentHashMap<>();

    /**
     * Records that directory {@code dir}'s journal now holds {@code r}, the attributes of an inode
     * unlinked there that kept other names (newest ctime wins). Any thread.
     */
    void keptUnlinked(long dir, EntryRecord r) {
        keptUnlinked
                .computeIfAbsent(dir, k -> new ConcurrentHashMap<>())
                .merge(r.ino(), r, (a, b) -> b.ctime() >= a.ctime() ? b : a);
    }

    /**
     * {@return the attributes directory {@code dir}'s journal held of inodes unlinked there, now
     * that it is being removed (empty if none); forgotten here}
     */
    private List<EntryRecord> takeKeptUnlinked(long dir) {
        ConcurrentHashMap<Long, EntryRecord> m = keptUnlinked.remove(dir);
        return m == null ? List.of() : new ArrayList<>(m.values());
    }

    /**
     * {@return the event that hands what removed directory {@code removed}'s journal held of
     * unlinked inodes to directory {@code into}'s journal, or {@code null} if it held nothing}
     * Recorded here as {@code into}'s from now on; the caller appends the event to {@code into}'s
     * journal in the batch that removes {@code removed}, before that removal.
     */
    DirEvent.UnlinkedInherited inheritKeptUnlinked(long removed, long into) {
        List<EntryRecord> held = takeKeptUnlinked(removed);
        if (held.isEmpty()) {
            return null;
        }
        for (EntryRecord r : held) {
            keptUnlinked(into, r);
        }
        return new DirEvent.UnlinkedInherited(removed, held);
    }

    /**
     * A journal has durably removed the last name of non-directory {@code ino}: its row goes once
     * the file is freed too ({@link #evictInode}). Called on any thread.
     */
    void lastNameDurablyRemoved(long ino) {
        boolean delete;
        synchronized (this) {
            delete = freedNotDurable.remove(ino);
            if (!delete) {
                durableNotFreed.add(ino);
            }
        }
        if (delete) {
            deleteRow(ino);
        }
    }

    private void deleteRow(long ino) {
        try {
            metaWriter.execute(
                    () -> {
                        try {
                            data.delete(ino);
                        } catch (RuntimeException e) {
                            LOG.error(
                                    "persistfs {}: row of freed inode {} kept: {}",
                                    fsid,
                                    ino,
                                    e.toString());
                        }
                    });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // unmounted: the row is collected at the next mount (rows of unreachable inodes)
        }
    }

    @Override
    public DirJournal journal(DirectoryInode dir, Superblock sb) {
        return new EntityJournal(dir, this);
    }

    @Override
    public RenameJournal renameJournal(Superblock sb) {
        return new MoveJournal(this);
    }

    /** {@return the number of the next cross-directory move} */
    long nextRename() {
        return renames.incrementAndGet();
    }

    /** Continues move numbers above {@code n} (the highest recovery found). */
    void renamesAbove(long n) {
        renames.accumulateAndGet(n, Math::max);
    }

    @Override
    public void inodeNumbersGiven(Superblock sb, long end) {
        if (end + INO_CHUNK / 2 <= inoHigh || !extending.compareAndSet(false, true)) {
            return;
        }
        metaWriter.execute(
                () -> {
                    try {
                        long mark = Math.max(end, sb.nextInoPeek()) + INO_CHUNK;
                        meta.inoHigh(mark);
                        inoHigh = mark;
                    } catch (RuntimeException e) {
                        LOG.error(
                                "persistfs {}: inode high-water mark not stored: {}",
                                fsid,
                                e.toString());
                    } finally {
                        extending.set(false);
                    }
                });
    }

    /**
     * {@code kill_sb}: stops every journal after its last write (asks, never waits here), then on
     * the writer thread closes the mount's own database connection, the last one, which releases
     * the data directory for another mount or process.
     */
    /** Completes when {@link #kill}'s write-back and close are done ({@link #killed}). */
    private final CompletableFuture<Void> killDone = new CompletableFuture<>();

    private volatile boolean killing;

    @Override
    public java.util.concurrent.CompletionStage<Void> killed(Superblock sb) {
        return killing ? killDone : CompletableFuture.completedFuture(null);
    }

    @Override
    public void kill(Superblock sb) {
        killing = true;
        onRelease.run();
        // what the journal queues still hold (an async mount's unwaited appends) goes first:
        // a Passivate must not overtake an append not yet sent
        List<CompletableFuture<Void>> flushes = new ArrayList<>();
        for (JournalQueue q : queues.values()) {
            flushes.add(q.submit(List.of()));
        }
        CompletableFuture.allOf(flushes.toArray(new CompletableFuture<?>[0]))
                .handle((ok, failure) -> null)
                .thenRun(this::passivateAndClose);
    }

    /** {@link #kill}'s second step: stops the entities, writes back, closes the store. */
    private void passivateAndClose() {
        List<CompletableFuture<org.apache.pekko.Done>> stops = new ArrayList<>();
        for (ActorRef<DirectoryEntity.Command> e : entities.values()) {
            stops.add(
                    AskPattern.<DirectoryEntity.Command, org.apache.pekko.Done>ask(
                                    e,
                                    DirectoryEntity.Passivate::new,
                                    writeTimeout,
                                    system.scheduler())
                            .toCompletableFuture());
        }
        entities.clear();
        CompletableFuture.allOf(stops.toArray(new CompletableFuture<?>[0]))
                .handle((ok, failure) -> null)
                .thenRun(
                        () -> {
                            try {
                                metaWriter.execute(
                                        () -> {
                                            try {
                                                // umount writes back what is dirty
                                                writeBackAll();
                                                data.close();
                                            } catch (RuntimeException e) {
                                                LOG.error(
                                                        "persistfs {}: close: {}",
                                                        fsid,
                                                        e.toString());
                                            } finally {
                                                closeStore();
                                                onKill.run();
                                                killDone.complete(null);
                                            }
                                        });
                            } catch (java.util.concurrent.RejectedExecutionException e) {
                                closeStore();
                                onKill.run();
                                killDone.complete(null);
                            } finally {
                                metaWriter.shutdown();
                            }
                        });
    }

    /** Closes the store (the segment log: what is queued is written first), a failure logged. */
    private void closeStore() {
        try {
            store.close();
        } catch (RuntimeException e) {
            LOG.error("persistfs {}: close of the store: {}", fsid, e.toString());
        }
    }

    @Override
    public String showOptions(Superblock sb) {
        return (syncWrites ? ",sync" : asyncNamespace ? ",async" : "")
                + (store.dialect() != PersistStore.Dialect.POSTGRESQL
                        ? (store.dialect() == PersistStore.Dialect.H2 ? ",store=h2" : "")
                                + ",data_dir="
                                + store.dataDir()
                        : ",store=postgresql,schema=" + store.dataDir().getFileName());
    }
}
