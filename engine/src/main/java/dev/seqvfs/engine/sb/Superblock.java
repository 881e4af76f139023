package dev.seqvfs.engine.sb;

import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeOwner;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsClock;
import dev.seqvfs.protocol.VfsException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A mounted file-system instance ({@code struct super_block}): its root directory, its type and the
 * type's operations ({@link SuperOperations}), its limits and the counters that enforce them.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>Identity fields ({@code dev}, {@code type}, {@code sop}, {@code config}, {@code clock},
 *       {@code locks}, {@code root}) are final.
 *   <li>{@code readOnly} is written by {@link SuperblockActor} on a remount (release) and read by
 *       every write call before it starts (acquire).
 *   <li>{@code writers} and {@code writeHold} are Linux's {@code mnt_writers} and {@code
 *       MNT_WRITE_HOLD}, per superblock: a writer (a regular file open for writing, a directory
 *       actor applying a namespace change, an attribute change, a truncate by path) counts itself,
 *       then waits while the hold is up, then checks {@code readOnly} ({@link #tryBeginWrite}); a
 *       read-only remount raises the hold, then sums the writers, and refuses with {@code EBUSY} if
 *       any is counted ({@link #tryRemountReadOnly}). The increment and the sum are sequentially
 *       consistent ({@link WriterCount}) and so are the hold's store and load, so one side always
 *       sees the other: either the remount counts the writer, or the writer sees the hold, waits
 *       out the few stores it covers, and then sees {@code readOnly}. Reads never touch the
 *       counter; opening a file for writing and its last close pay one striped add each.
 *   <li>{@code removeCount} ({@code s_remove_count}: removed inodes not yet freed) is an {@link
 *       AtomicLong} changed by {@link Inode} when a last link goes and when it frees the inode; a
 *       read-only remount is {@code EBUSY} while it is positive.
 *   <li>{@code nextIno}, {@code usedInodes}, {@code usedBytes} are {@link AtomicLong}s changed by
 *       atomic add or by CAS against the limit. They are touched once per inode-number batch, once
 *       per inode creation or free, and once per byte-charging write: never on a read path. This is
 *       a deliberate exception to "the superblock actor owns its counters": one CAS is cheaper than
 *       any message and cannot wedge, and an exact limit ({@code ENOSPC} at exactly {@code
 *       maxInodes}) needs one authority, which a CAS is.
 *   <li>{@code actor} is published once, with release, right after the actor is spawned.
 *   <li>{@code activeMounts} (Linux's {@code s_active}) counts the mounts of this superblock that
 *       are attached or, detached, still pinned; changed by CAS. When the last one is released it
 *       becomes {@code -1} for good: the superblock is deactivated and its actor is told to stop
 *       its directory actors and itself.
 * </ul>
 *
 * <h2>Invariants</h2>
 *
 * {@code 0 <= usedInodes <= maxInodes} and {@code 0 <= usedBytes <= maxBytes} at every instant; an
 * inode's charge is returned exactly once (see {@link Inode}).
 */
public final class Superblock implements InodeOwner {
    private static final VarHandle READ_ONLY;
    private static final VarHandle ACTOR;
    private static final VarHandle WRITE_HOLD;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            READ_ONLY = l.findVarHandle(Superblock.class, "readOnly", boolean.class);
            ACTOR = l.findVarHandle(Superblock.class, "actor", ActorRef.class);
            WRITE_HOLD = l.findVarHandle(Superblock.class, "writeHold", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Inode number of every superblock's root directory, as on tmpfs (whose root is ino 1). */
    public static final long ROOT_INO = 1;

    private final long dev;
    private final FileSystemType type;
    private final SuperOperations sop;
    private final SuperblockConfig config;
    private final VfsClock clock;
    private final NamespaceLocks locks;
    private final AtomicLong nextIno = new AtomicLong(ROOT_INO + 1);
    private final AtomicLong usedInodes = new AtomicLong();
    private final AtomicLong usedBytes = new AtomicLong();
    private final AtomicInteger activeMounts = new AtomicInteger();
    private final AtomicLong removeCount = new AtomicLong();
    private final DirectoryInode root;

    @SuppressWarnings("unused") // accessed through READ_ONLY
    private volatile boolean readOnly;

    @SuppressWarnings("unused") // accessed through ACTOR
    private volatile ActorRef<SuperblockActor.Command> actor;

    private final WriterCount writers = new WriterCount();

    @SuppressWarnings("unused") // accessed through WRITE_HOLD
    private volatile boolean writeHold;

    /** Test hooks; {@link WriterHooks#NONE} unless a test installs others (volatile). */
    private volatile WriterHooks hooks = WriterHooks.NONE;

    /**
     * Creates a superblock with an empty root directory owned by {@code rootUid:rootGid}.
     *
     * @param dev device id, unique in the instance
     * @param type the file-system type
     * @param sop the type's superblock operations (they make the root directory)
     * @param config limits
     * @param clock time source
     * @param locks the instance's rename and mount locks
     * @param rootMode permission bits of the root directory
     * @param rootUid owner of the root directory
     * @param rootGid group of the root directory
     */
    public Superblock(
            long dev,
            FileSystemType type,
            SuperOperations sop,
            SuperblockConfig config,
            VfsClock clock,
            NamespaceLocks locks,
            int rootMode,
            int rootUid,
            int rootGid) {
        this.dev = dev;
        this.type = type;
        this.sop = sop;
        this.config = config;
        this.clock = clock;
        this.locks = locks;
        usedInodes.set(1);
        long now = clock.nowNanos();
        this.root =
                (DirectoryInode)
                        sop.newInode(
                                this,
                                ROOT_INO,
                                InodeAttrs.create(
                                        Mode.S_IFDIR | (rootMode & 07777),
                                        2,
                                        rootUid,
                                        rootGid,
                                        0,
                                        0,
                                        now),
                                null,
                                null,
                                null);
    }

    @Override
    public long dev() {
        return dev;
    }

    @Override
    public long now() {
        return clock.nowNanos();
    }

    /** {@return the file-system type's name ({@code "tmpfs"})} */
    public String typeName() {
        return type.name();
    }

    /** {@return the file-system type} */
    public FileSystemType type() {
        return type;
    }

    /** {@return the type's superblock operations} */
    public SuperOperations sop() {
        return sop;
    }

    /** {@return the type's inode operations} */
    public InodeOperations ops() {
        return sop.inodeOps();
    }

    @Override
    public int blockSize() {
        return config.blockSize();
    }

    @Override
    public long availableBytes() {
        return Math.max(0, config.maxBytes() - usedBytes.get());
    }

    /** {@return the limits} */
    public SuperblockConfig config() {
        return config;
    }

    /** {@return the instance-wide rename and mount locks} */
    public NamespaceLocks locks() {
        return locks;
    }

    /** {@return the root directory} */
    public DirectoryInode root() {
        return root;
    }

    /** {@return whether the superblock is mounted read-only (acquire)} */
    public boolean isReadOnly() {
        return (boolean) READ_ONLY.getAcquire(this);
    }

    /** Sets the read-only flag (release). Called only by {@link SuperblockActor}. */
    void publishReadOnlyRelease(boolean ro) {
        READ_ONLY.setRelease(this, ro);
    }

    /**
     * Counts the caller as a writer of this superblock unless it is read-only ({@code
     * mnt_want_write}): until the matching {@link #endWrite}, a read-only remount fails with {@code
     * EBUSY}. Lock-free; spins (then yields) only while a remount holds writers off, across the few
     * stores of its check.
     *
     * @return {@code true} if counted; {@code false} if the superblock is read-only (the caller
     *     answers {@code EROFS}); nothing is counted then
     */
    @SuppressWarnings(
            "ThreadPriorityCheck") // a bounded spin, then yield, across a remount's few stores
    public boolean tryBeginWrite() {
        writers.add(1);
        for (int spins = 0; (boolean) WRITE_HOLD.getVolatile(this); spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        if (isReadOnly()) {
            writers.add(-1);
            return false;
        }
        return true;
    }

    /** Ends a write counted by {@link #tryBeginWrite} ({@code mnt_drop_write}). */
    public void endWrite() {
        writers.add(-1);
    }

    /**
     * Installs {@code h} as this superblock's writer hooks (for tests; volatile store, seen by the
     * next writer that reaches a hook point).
     *
     * @param h the hooks, {@link WriterHooks#NONE} (or {@code null}) to remove them
     */
    public void installHooks(WriterHooks h) {
        hooks = h == null ? WriterHooks.NONE : h;
    }

    /**
     * {@return this superblock's writer hooks (volatile load); {@link WriterHooks#NONE} normally}
     */
    @Override
    public WriterHooks hooks() {
        return hooks;
    }

    /**
     * {@return the writers counted now (a moment's sum; exact only with none starting or ending)}
     */
    public long writers() {
        return writers.sum();
    }

    /**
     * Makes the superblock read-only unless it has writers ({@code sb_prepare_remount_readonly} and
     * the {@code SB_RDONLY} store of {@code reconfigure_super}). Called only by {@link
     * SuperblockActor}, its one remounter.
     *
     * @return {@code true} if the superblock is read-only now (or was already); {@code false} if a
     *     file is open for writing, a write is in progress, or a removed file is still open ({@code
     *     EBUSY}): nothing changed
     */
    boolean tryRemountReadOnly() {
        if (isReadOnly()) {
            return true;
        }
        WRITE_HOLD.setVolatile(this, true);
        try {
            // sb_prepare_remount_readonly: writers, then s_remove_count (a removed file still
            // open: its eviction would write to a read-only file system).
            if (writers.sum() > 0 || removeCount.get() > 0) {
                return false;
            }
            publishReadOnlyRelease(true);
            return true;
        } finally {
            WRITE_HOLD.setVolatile(this, false);
        }
    }

    /** {@return the superblock's actor (acquire); {@code null} before it is spawned} */
    public ActorRef<SuperblockActor.Command> actorAcquire() {
        @SuppressWarnings("unchecked")
        ActorRef<SuperblockActor.Command> a =
                (ActorRef<SuperblockActor.Command>) ACTOR.getAcquire(this);
        return a;
    }

    /**
     * Publishes the superblock's actor once (release).
     *
     * @param ref the superblock's actor
     */
    public void publishActorRelease(ActorRef<SuperblockActor.Command> ref) {
        if (!ACTOR.compareAndSet(this, null, ref)) {
            throw new IllegalStateException("superblock " + dev + " already has an actor");
        }
    }

    /**
     * Reserves {@code n} consecutive inode numbers for one directory actor.
     *
     * @param n how many numbers to reserve
     * @return the first number of the batch
     */
    public long allocInoBatch(int n) {
        return nextIno.getAndAdd(n);
    }

    /**
     * Charges one inode against {@code maxInodes}.
     *
     * @param op the call, for the error
     * @throws VfsException {@code ENOSPC} when the limit is reached; nothing charged
     */
    public void chargeInode(Syscall op) {
        long max = config.maxInodes();
        while (true) {
            long cur = usedInodes.get();
            if (cur >= max) {
                throw new VfsException(Errno.ENOSPC, op, null);
            }
            if (usedInodes.compareAndSet(cur, cur + 1)) {
                return;
            }
        }
    }

    /** Returns one inode's charge without freeing bytes (a create that failed after charging). */
    public void unchargeInode() {
        usedInodes.decrementAndGet();
    }

    /**
     * Charges {@code bytes} against {@code maxBytes}.
     *
     * @throws VfsException {@code ENOSPC} when they do not fit; nothing charged
     */
    @Override
    public void chargeBytes(long bytes, Syscall op) {
        if (bytes == 0) {
            return;
        }
        long max = config.maxBytes();
        while (true) {
            long cur = usedBytes.get();
            if (bytes > max - cur) {
                throw new VfsException(Errno.ENOSPC, op, null);
            }
            if (usedBytes.compareAndSet(cur, cur + bytes)) {
                return;
            }
        }
    }

    /** Returns {@code bytes} of charge. */
    @Override
    public void unchargeBytes(long bytes) {
        if (bytes != 0) {
            usedBytes.addAndGet(-bytes);
        }
    }

    @Override
    public void inodeFreed(Inode inode) {
        unchargeBytes(inode.chargedBytes());
        usedInodes.decrementAndGet();
    }

    @Override
    public void extraLinksDropped(long n) {
        usedInodes.addAndGet(-n);
    }

    @Override
    public void removeCountAdd(long delta) {
        removeCount.addAndGet(delta);
    }

    /** {@return how many removed inodes are still open ({@code s_remove_count})} */
    public long removeCount() {
        return removeCount.get();
    }

    /**
     * {@return the number of inode slots in use: inodes alive (the root included) plus extra hard
     * links}
     */
    public long usedInodes() {
        return usedInodes.get();
    }

    /** {@return the number of bytes charged} */
    public long usedBytes() {
        return usedBytes.get();
    }

    /**
     * Answers {@code statfs(2)} through the type's {@link SuperOperations#statfs}. Lock-free.
     *
     * @param mountReadOnly whether the vfsmount it was reached through is read-only
     * @return the file system's statistics
     */
    public StatFs statfs(boolean mountReadOnly) {
        return sop.statfs(this, mountReadOnly);
    }

    /**
     * The generic {@code statfs(2)} answer from the counters, lock-free, with {@code magic} as
     * {@code f_type}. Unlimited values read as {@code Long.MAX_VALUE / blockSize} blocks and {@code
     * Long.MAX_VALUE} inodes.
     *
     * @param magic the {@code f_type} to report
     * @param mountReadOnly whether the vfsmount it was reached through is read-only
     * @return the file system's statistics
     */
    public StatFs genericStatfs(long magic, boolean mountReadOnly) {
        int bs = config.blockSize();
        long blocks = config.maxBytes() / bs;
        long usedBlocks = (usedBytes.get() + bs - 1) / bs;
        long bfree = Math.max(0, blocks - usedBlocks);
        long files = config.maxInodes();
        long ffree = Math.max(0, files - usedInodes.get());
        long flags = (isReadOnly() || mountReadOnly) ? MountFlags.ST_RDONLY : 0;
        return new StatFs(
                magic, bs, blocks, bfree, bfree, files, ffree, dev, Limits.NAME_MAX, flags);
    }

    /**
     * Sends a command to a directory's actor, asking this superblock's actor to spawn it first if
     * the directory has none yet. Never blocks.
     *
     * @param dir a directory of this superblock
     * @param cmd the command
     */
    public void tellDirectory(DirectoryInode dir, DirectoryActor.Command cmd) {
        ActorRef<DirectoryActor.Command> ref = dir.actorAcquire();
        if (ref != null) {
            ref.tell(cmd);
        } else {
            actorAcquire().tell(new SuperblockActor.SpawnAndForward(dir, cmd));
        }
    }

    /**
     * Counts one more mount of this superblock (a mount or a bind mount of it); called by the
     * namespace inside the mount write lock.
     *
     * @return {@code false} if the superblock was deactivated (its last mount was released while
     *     the caller walked to it): nothing counted
     */
    public boolean tryAddMount() {
        while (true) {
            int c = activeMounts.get();
            if (c < 0) {
                return false;
            }
            if (activeMounts.compareAndSet(c, c + 1)) {
                return true;
            }
        }
    }

    /**
     * Counts one mount less: a mount of this superblock was released (unmounted, and no longer
     * pinned). The last one deactivates the superblock. Never blocks; call it holding no lock (it
     * may tell the superblock's actor).
     *
     * @throws IllegalStateException if no mount was counted
     */
    public void mountReleased() {
        while (true) {
            int c = activeMounts.get();
            if (c <= 0) {
                throw new IllegalStateException(
                        "mount released on " + this + " with " + c + " active mounts");
            }
            int next = c == 1 ? -1 : c - 1;
            if (activeMounts.compareAndSet(c, next)) {
                if (next < 0) {
                    deactivated();
                }
                return;
            }
        }
    }

    /**
     * Deactivates the superblock if it was never mounted (a new instance whose {@code attach}
     * failed); a no-op once it has a mount. Call it holding no lock.
     */
    public void deactivateIfUnmounted() {
        if (activeMounts.compareAndSet(0, -1)) {
            deactivated();
        }
    }

    /**
     * {@return whether the superblock has no mount left and its actors stop (or stopped)} Volatile
     * read.
     */
    public boolean isDeactivated() {
        return activeMounts.get() < 0;
    }

    private void deactivated() {
        ActorRef<SuperblockActor.Command> a = actorAcquire();
        if (a != null) {
            a.tell(new SuperblockActor.Deactivate());
        }
    }

    @Override
    public String toString() {
        return type.name() + "@" + dev;
    }
}
