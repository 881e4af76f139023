package dev.seqvfs.persist;

import dev.seqvfs.engine.dir.DirJournal;
import dev.seqvfs.engine.dir.DirectoryFileOperations;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.RenameJournal;
import dev.seqvfs.engine.file.FileData;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.sb.Superblock;
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

    /** Counts the copies write-back takes, so that an older copy never overwrites a newer one. */
    private final java.util.concurrent.atomic.AtomicLong versions =
            new java.util.concurrent.atomic.AtomicLong();

    /** Regular files written since their last write-back, by inode number. */
    private final ConcurrentHashMap<Long, Inode> dirty = new ConcurrentHashMap<>();

    PersistfsOps(
            PersistStore store,
            PersistMeta meta,
            ActorSystem<?> system,
            int snapshotEvery,
            Duration writeTimeout,
            long inoHigh,
            Runnable onRelease,
            Runnable onKill) {
        this.store = store;
        this.meta = meta;
        this.fsid = meta.fsid();
        this.system = system;
        this.snapshotEvery = snapshotEvery;
        this.writeTimeout = writeTimeout;
        this.inoHigh = inoHigh;
        this.onKill = onKill;
        this.onRelease = onRelease;
        this.data = new DataStore(store.url());
        this.metaWriter =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "persistfs-" + instance + "-meta");
                            t.setDaemon(true);
                            return t;
                        });
    }

    /** {@return the entity of directory {@code ino}, spawned if it has none} */
    ActorRef<DirectoryEntity.Command> entity(long ino) {
        return entities.computeIfAbsent(
                ino,
                i ->
                        system.systemActorOf(
                                DirectoryEntity.create(store, fsid, i, snapshotEvery),
                                "persistfs-" + instance + "-d" + i,
                                Props.empty()));
    }

    /**
     * {@return the answer of directory {@code ino}'s entity to appending the one event {@code e}},
     * failing after {@code timeout}
     */
    CompletionStage<DirectoryEntity.Appended> append(long ino, DirEvent e, Duration timeout) {
        return AskPattern.ask(
                entity(ino),
                r -> new DirectoryEntity.Append(List.of(e), r),
                timeout,
                system.scheduler());
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
                return DirectoryFileOperations.INSTANCE;
            default:
                return FileOperations.NONE;
        }
    }

    /** Marks a regular file's content changed since its last write-back. */
    void dirty(Inode inode) {
        dirty.put(inode.ino(), inode);
    }

    /**
     * Writes back one regular file (content and attributes) before returning: {@code fsync}. Blocks
     * for the database; runs on the calling task's thread.
     *
     * @param inode the file
     * @param op the call, for the error
     * @throws VfsException {@code EIO} if the database refused the write; {@code EFBIG} for a file
     *     of 2 GiB or more (written back whole, as one value)
     */
    void writeBack(Inode inode, Syscall op) {
        if (!(inode instanceof RegularInode r)) {
            return;
        }
        byte[] content;
        InodeAttrs a;
        long version;
        r.writeLock().lock();
        try {
            dirty.remove(r.ino());
            FileData d = r.dataAcquire();
            if (d.size() > Integer.MAX_VALUE - 16) {
                dirty.put(r.ino(), r);
                throw new VfsException(Errno.EFBIG, op, null);
            }
            content = new byte[(int) d.size()];
            d.read(0, content, 0, content.length);
            a = r.attrsAcquire();
            version = versions.incrementAndGet();
        } finally {
            r.writeLock().unlock();
        }
        if (a.nlink() == 0 && r.openCount() == 0) {
            return; // freed meanwhile: evictInode deletes its row
        }
        try {
            data.write(r.ino(), a, content, version);
        } catch (UncheckedIOException e) {
            dirty.put(r.ino(), r);
            LOG.error(
                    "persistfs {}: write-back of inode {} failed: {}", fsid, r.ino(), e.toString());
            throw new VfsException(Errno.EIO, op, null);
        }
    }

    /** {@code syncfs}: writes back every file written since its last write-back. */
    @Override
    public void sync(Superblock sb) {
        for (Inode i : dirty.values()) {
            writeBack(i, Syscall.FSYNC);
        }
    }

    /**
     * Writes back every dirty file, each failure logged and the file left dirty: the periodic
     * write-back ({@code seqvfs.persistfs.writeback-interval}) and the last one at unmount. Runs on
     * the writer thread.
     */
    private void writeBackAll() {
        for (Inode i : dirty.values()) {
            try {
                writeBack(i, Syscall.SYNC);
            } catch (VfsException e) {
                // logged by writeBack (EIO) or a file too large to write back whole (EFBIG)
                if (e.errno() == Errno.EFBIG) {
                    LOG.warn("persistfs {}: inode {} is too large to write back", fsid, i.ino());
                }
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
        if (inode.type() != FileType.REGULAR) {
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
     * A journal has durably removed the last name of regular file {@code ino}: its row goes once
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
        return new EntityJournal(entity(dir.ino()), system.scheduler(), writeTimeout, this);
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
    @Override
    public void kill(Superblock sb) {
        onRelease.run();
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
                                                onKill.run();
                                            }
                                        });
                            } finally {
                                metaWriter.shutdown();
                            }
                        });
    }

    @Override
    public String showOptions(Superblock sb) {
        return (syncWrites ? ",sync" : "") + ",data_dir=" + store.dataDir();
    }
}
