package dev.seqvfs.engine.sb;

import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.file.PagePool;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeOwner;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.engine.notify.Fsnotify;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 *   <li>Identity fields ({@code dev}, {@code type}, {@code sop}, {@code clock}, {@code locks},
 *       {@code root}) are final.
 *   <li>{@code config} (the limits, block size and inode batch) is an immutable {@link
 *       SuperblockConfig} published with release by {@link SuperblockActor}, its one writer, when a
 *       remount changes the limits ({@link #tryReconfigureLimits}), and read with acquire ({@link
 *       #configAcquire}) by {@code statfs}, {@code /proc/mounts} and directory actors (the inode
 *       batch). No charge reads it: each limit is folded into a counter of what is still free.
 *   <li>{@code readOnly} is written by {@link SuperblockActor} on a remount (release) and read by
 *       every write call before it starts (acquire).
 *   <li>{@code writers} and {@code writeHold} are Linux's {@code mnt_writers} and {@code
 *       MNT_WRITE_HOLD}, per superblock: a writer (a regular file open for writing, a directory
 *       actor applying a namespace change, an attribute change, a truncate by path) counts itself,
 *       then waits while the hold is up, then checks {@code readOnly} ({@link #tryBeginWrite}); a
 *       read-only remount raises the hold, then sums the writers, and refuses with {@code EBUSY} if
 *       any is counted ({@link #remount}). The increment and the sum are sequentially consistent
 *       ({@link WriterCount}) and so are the hold's store and load, so one side always sees the
 *       other: either the remount counts the writer, or the writer sees the hold, waits out the few
 *       stores it covers, and then sees {@code readOnly}. Reads never touch the counter; opening a
 *       file for writing and its last close pay one striped add each.
 *   <li>{@code removeCount} ({@code s_remove_count}: removed inodes not yet freed) is an {@link
 *       AtomicLong} changed by {@link Inode} when a last link goes and when it frees the inode; a
 *       read-only remount is {@code EBUSY} while it is positive.
 *   <li>{@code nextIno} is an {@link AtomicLong} changed by atomic add. {@code freeInodes} and
 *       {@code freeBytes} (Linux's {@code free_ispace} and {@code max_blocks - used_blocks}) are
 *       {@link AtomicLong}s holding what the limit still allows: a charge is one CAS that takes
 *       from the counter only if enough is left ({@code ENOSPC} otherwise), a free is an atomic
 *       add. They are touched once per inode-number batch, once per inode creation or free, and
 *       once per byte-charging write: never on a read path. This is a deliberate exception to "the
 *       superblock actor owns its counters": one CAS is cheaper than any message and cannot wedge,
 *       and an exact limit ({@code ENOSPC} at exactly {@code maxInodes}) needs one authority, which
 *       a CAS is. A remount that lowers a limit by {@code d} takes {@code d} from the same counter
 *       by the same CAS ({@code EINVAL} if less than {@code d} is free: the use is above the new
 *       limit), so the check "new limit &gt;= use" and the change are one atomic step against every
 *       charge: no charge can slip in between. Raising a limit adds to the counter. Only then is
 *       the new {@code config} published, so for the few instructions in between a {@code statfs}
 *       may show the old total beside the new free count (clamped at zero).
 *   <li>{@code heap}, for a superblock mounted with a byte limit, is its {@link HeapPool.Account}:
 *       every byte charge takes from {@code freeBytes} first and then from the JVM's pool (one CAS
 *       each, {@code ENOSPC} if either is short, and the first given back if the second fails), and
 *       every return gives to both. The account gives back what it holds when the last mount is
 *       released or the instance closes ({@link #releaseHeapPool}); see {@link HeapPool} for its
 *       protocol.
 *   <li>{@code actor} is published once, with release, right after the actor is spawned.
 *   <li>{@code activeMounts} (Linux's {@code s_active}) counts the mounts of this superblock that
 *       are attached or, detached, still pinned; changed by CAS. When the last one is released it
 *       becomes {@code -1} for good: the superblock is deactivated and its actor is told to stop
 *       its directory actors and itself.
 * </ul>
 *
 * <h2>Invariants</h2>
 *
 * {@code 0 <= freeInodes <= maxInodes} and {@code 0 <= freeBytes <= maxBytes} at every instant (so
 * the use, {@code max - free}, never exceeds the limit in force); an inode's charge is returned
 * exactly once (see {@link Inode}).
 */
public final class Superblock implements InodeOwner {
    private static final VarHandle READ_ONLY;
    private static final VarHandle ACTOR;
    private static final VarHandle WRITE_HOLD;
    private static final VarHandle CONFIG;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            READ_ONLY = l.findVarHandle(Superblock.class, "readOnly", boolean.class);
            ACTOR = l.findVarHandle(Superblock.class, "actor", ActorRef.class);
            WRITE_HOLD = l.findVarHandle(Superblock.class, "writeHold", boolean.class);
            CONFIG = l.findVarHandle(Superblock.class, "config", SuperblockConfig.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Inode number of every superblock's root directory, as on tmpfs (whose root is ino 1). */
    public static final long ROOT_INO = 1;

    private final long dev;
    private final FileSystemType type;
    private final SuperOperations sop;
    private final VfsClock clock;
    private final NamespaceLocks locks;
    private final AtomicLong nextIno = new AtomicLong(ROOT_INO + 1);
    private final AtomicLong freeInodes = new AtomicLong();

    /** The extended-attribute space in use ({@link #chargeXattrSpace}). Atomic adds. */
    private final AtomicLong xattrSpace = new AtomicLong();

    private final AtomicLong freeBytes = new AtomicLong();
    private final AtomicInteger activeMounts = new AtomicInteger();
    private final AtomicLong removeCount = new AtomicLong();

    /** Its fork generation, open forks and tree counts; made before the root, which reads it. */
    private final ForkGenerations forks = new ForkGenerations();

    private final DirectoryInode root;

    /** Its account in the JVM's {@link HeapPool}; {@code null} if mounted without a byte limit. */
    private final HeapPool.Account heap;

    /**
     * Its free file pages ({@link PagePool}): only a superblock with a byte limit has one (its
     * pages are bounded by that limit and an eighth of the heap); cleared with {@link
     * #releaseHeapPool}. Final; the pool is thread-safe.
     */
    private final PagePool pagePool;

    @SuppressWarnings("unused") // accessed through READ_ONLY
    private volatile boolean readOnly;

    @SuppressWarnings("unused") // accessed through CONFIG
    private volatile SuperblockConfig config;

    @SuppressWarnings("unused") // accessed through ACTOR
    private volatile ActorRef<SuperblockActor.Command> actor;

    private final WriterCount writers = new WriterCount();

    @SuppressWarnings("unused") // accessed through WRITE_HOLD
    private volatile boolean writeHold;

    /** Test hooks; {@link WriterHooks#NONE} unless a test installs others (volatile). */
    private volatile WriterHooks hooks = WriterHooks.NONE;

    /**
     * Creates a superblock with an empty root directory owned by {@code rootUid:rootGid}; with a
     * byte limit, it charges its bytes to {@link HeapPool#JVM} too.
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
        this(dev, type, sop, config, clock, locks, rootMode, rootUid, rootGid, HeapPool.JVM);
    }

    /**
     * Creates a superblock with an empty root directory owned by {@code rootUid:rootGid}, whose
     * bytes, if {@code config} limits them, are charged to {@code pool} too (a superblock mounted
     * without a byte limit never joins a pool, and one mounted with one stays in it for its life, a
     * remount to {@code size=0} included).
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
     * @param pool the pool its bytes are charged to as well, or {@code null} for none
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
            int rootGid,
            HeapPool pool) {
        this.dev = dev;
        this.heap = pool == null || config.maxBytes() == Long.MAX_VALUE ? null : pool.open();
        this.pagePool = heap == null ? null : PagePool.forLimit(config.maxBytes());
        this.type = type;
        this.sop = sop;
        CONFIG.setRelease(this, config);
        this.clock = clock;
        this.locks = locks;
        freeInodes.set(config.maxInodes() - 1); // the root
        freeBytes.set(config.maxBytes());
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
        return configAcquire().blockSize();
    }

    /**
     * {@inheritDoc} For a superblock in a {@link HeapPool}: the smaller of its own free bytes and
     * the pool's.
     */
    @Override
    public long availableBytes() {
        long own = freeBytes.get();
        return heap == null ? own : Math.min(own, heap.pool().free());
    }

    /** {@return the pool this superblock charges its bytes to, or {@code null} for none} */
    public HeapPool heapPool() {
        return heap == null ? null : heap.pool();
    }

    /**
     * {@return the bytes this superblock holds in its {@link HeapPool} (0 without one, or once it
     * gave them back): equal to {@link #usedBytes()} while the superblock is in use and no charge
     * is in progress}
     */
    public long heapPoolHeld() {
        return heap == null ? 0 : heap.held();
    }

    /**
     * Gives back every byte this superblock holds in its {@link HeapPool} and leaves the pool for
     * good: called when its last mount is released and when its instance closes, after which no
     * file of it is written (a charge then fails with {@code ENOSPC}). Idempotent; lock-free.
     */
    public void releaseHeapPool() {
        if (heap != null) {
            heap.close();
        }
        if (pagePool != null) {
            pagePool.clear();
        }
    }

    @Override
    public PagePool pagePool() {
        return pagePool;
    }

    /**
     * {@return the limits in force (acquire): those of the mount, or of the last remount that
     * changed them}
     */
    public SuperblockConfig configAcquire() {
        return (SuperblockConfig) CONFIG.getAcquire(this);
    }

    /**
     * Changes the inode and byte limits ({@code shmem_reconfigure}): both, or neither. A lower
     * limit is taken from what is free by the same CAS that charges use (see the class comment), so
     * no concurrent charge can pass it; the new {@link SuperblockConfig} is then published with
     * release. Called only by {@link SuperblockActor}, the one writer of {@code config}, from the
     * remount's {@link dev.seqvfs.engine.fs.SuperOperations.Reconfiguration}. Lock-free; never
     * blocks.
     *
     * <p>If the byte limit cannot be lowered after the inode limit was, the inode limit is put
     * back: for those few instructions a create may have seen the lower inode limit ({@code
     * ENOSPC}), as if the remount had taken effect and been undone.
     *
     * @param maxInodes the new inode limit ({@code Long.MAX_VALUE}: none), or -1 to keep it
     * @param maxBytes the new byte limit, a whole number of pages ({@code Long.MAX_VALUE}: none),
     *     or -1 to keep it
     * @return {@code true} if the limits are the new ones; {@code false} if a limit is below what
     *     is in use now (Linux: {@code EINVAL}, "Too few inodes for current use", "Too small a size
     *     for current use"); nothing changed then
     */
    public boolean tryReconfigureLimits(long maxInodes, long maxBytes) {
        SuperblockConfig cur = configAcquire();
        long ni = maxInodes < 0 ? cur.maxInodes() : maxInodes;
        long nb = maxBytes < 0 ? cur.maxBytes() : maxBytes;
        if (!tryMoveLimit(freeInodes, cur.maxInodes(), ni)) {
            return false;
        }
        if (!tryMoveLimit(freeBytes, cur.maxBytes(), nb)) {
            tryMoveLimit(freeInodes, ni, cur.maxInodes()); // a raise: cannot fail
            return false;
        }
        CONFIG.setRelease(this, new SuperblockConfig(ni, nb, cur.blockSize(), cur.inodeBatch()));
        return true;
    }

    /**
     * Moves a free counter from limit {@code from} to limit {@code to}: adds the difference when
     * the limit grows; when it shrinks, takes the difference by CAS only if that much is free.
     */
    private static boolean tryMoveLimit(AtomicLong free, long from, long to) {
        if (to >= from) {
            free.addAndGet(to - from);
            return true;
        }
        long d = from - to;
        while (true) {
            long cur = free.get();
            if (cur < d) {
                return false;
            }
            if (free.compareAndSet(cur, cur - d)) {
                return true;
            }
        }
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

    /**
     * Makes a new superblock read-only before it is attached ({@code fc->sb_flags |= SB_RDONLY} in
     * a read-only type's {@code fill_super}, as squashfs's): called by a {@link FileSystemType}
     * with {@link FileSystemType#FS_RDONLY} from its {@code mount}, before any task can reach the
     * superblock. A remount keeps it read-only.
     */
    public void bornReadOnly() {
        publishReadOnlyRelease(true);
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
     * Remounts the superblock ({@code reconfigure_super}): with {@code readOnly}, makes it
     * read-only unless it has writers ({@code sb_prepare_remount_readonly}: {@code EBUSY} is
     * checked before the options are applied), then applies the type's {@code reconfiguration} (new
     * limits; {@code EINVAL} if they do not fit), then stores {@code SB_RDONLY}; all inside the
     * write hold, so no writer starts between the check and the flag. Without {@code readOnly},
     * applies the reconfiguration and clears the flag. Called only by {@link SuperblockActor}, its
     * one remounter. Spins only as writers do, never blocks.
     *
     * @param readOnly whether the superblock is to be read-only afterwards
     * @param reconfiguration what the remount's options change ({@link
     *     SuperOperations.Reconfiguration#NONE} for nothing)
     * @throws VfsException {@code EBUSY} if it is to become read-only while a file is open for
     *     writing, a write is in progress or a removed file is still open; {@code EINVAL} (or what
     *     the type says) if the reconfiguration refuses; nothing changed then
     */
    void remount(boolean readOnly, SuperOperations.Reconfiguration reconfiguration) {
        if (!readOnly || isReadOnly()) {
            reconfiguration.apply(this);
            if (!readOnly && (type.flags() & FileSystemType.FS_RDONLY) == 0) {
                // a read-only type stays read-only (squashfs_reconfigure sets SB_RDONLY again)
                publishReadOnlyRelease(false);
            }
            return;
        }
        WRITE_HOLD.setVolatile(this, true);
        try {
            // sb_prepare_remount_readonly: writers, then s_remove_count (a removed file still
            // open: its eviction would write to a read-only file system).
            if (writers.sum() > 0 || removeCount.get() > 0) {
                throw new VfsException(Errno.EBUSY, Syscall.MOUNT, null);
            }
            reconfiguration.apply(this);
            publishReadOnlyRelease(true);
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
     * Makes this new superblock, which nothing has mounted yet, continue {@code src}'s inode
     * numbers and read-only state: the first step of copying {@code src} into it for {@code
     * SeqVfs.fork()}, so a copied inode keeps its number and a new one gets a number neither side
     * has given. Called before this superblock is published to any other thread.
     *
     * @param src the superblock this one is a fork of
     */
    public void continueNumbersOf(Superblock src) {
        nextIno.set(Math.max(nextIno.get(), src.nextIno.get()));
        READ_ONLY.setRelease(this, src.isReadOnly());
    }

    /**
     * Makes this new superblock, which nothing has mounted yet, give only numbers above {@code
     * ino}: a persistent type recovering a tree continues past every number it ever gave (its
     * persisted high-water mark), so no number is reused. Called before this superblock is
     * published to any other thread; never lowers the next number.
     *
     * @param ino the highest inode number that may not be given again
     */
    public void continueNumbersAbove(long ino) {
        nextIno.accumulateAndGet(ino + 1, Math::max);
    }

    /**
     * {@return the next inode number a batch would start at} (a relaxed view for a persistent
     * type's high-water mark: numbers below it may have been given)
     */
    public long nextInoPeek() {
        return nextIno.get();
    }

    /**
     * Reserves {@code n} consecutive inode numbers for one directory actor.
     *
     * @param n how many numbers to reserve
     * @return the first number of the batch
     */
    public long allocInoBatch(int n) {
        long first = nextIno.getAndAdd(n);
        sop.inodeNumbersGiven(this, first + n);
        return first;
    }

    /**
     * Charges one inode against {@code maxInodes}.
     *
     * @param op the call, for the error
     * @throws VfsException {@code ENOSPC} when the limit is reached; nothing charged
     */
    public void chargeInode(Syscall op) {
        while (true) {
            long cur = freeInodes.get();
            if (cur <= 0) {
                throw new VfsException(Errno.ENOSPC, op, null);
            }
            if (freeInodes.compareAndSet(cur, cur - 1)) {
                return;
            }
        }
    }

    /**
     * Charges {@code n} inodes against {@code maxInodes} at once (a fork's copy, {@code TreeFork}).
     *
     * @param n how many, zero or more
     * @param op the call, for the error
     * @throws VfsException {@code ENOSPC} when fewer than {@code n} are free; nothing charged
     */
    public void chargeInodes(long n, Syscall op) {
        while (true) {
            long cur = freeInodes.get();
            if (cur < n) {
                throw new VfsException(Errno.ENOSPC, op, null);
            }
            if (freeInodes.compareAndSet(cur, cur - n)) {
                return;
            }
        }
    }

    /**
     * Returns {@code n} inodes' charge that {@link #chargeInodes} took, freeing no bytes.
     *
     * @param n how many
     */
    public void unchargeInodes(long n) {
        freeInodes.addAndGet(n);
    }

    /** Returns one inode's charge without freeing bytes (a create that failed after charging). */
    public void unchargeInode() {
        freeInodes.incrementAndGet();
    }

    /**
     * Charges {@code bytes} against {@code maxBytes} and, for a superblock with a byte limit,
     * against its {@link HeapPool} too: first its own counter (one CAS), then the pool (one CAS);
     * if the pool has too few free, its own charge is given back. Lock-free; never blocks.
     *
     * @throws VfsException {@code ENOSPC} when they do not fit in either (the superblock or the
     *     pool is full); nothing charged
     */
    @Override
    public void chargeBytes(long bytes, Syscall op) {
        if (bytes == 0) {
            return;
        }
        while (true) {
            long cur = freeBytes.get();
            if (bytes > cur) {
                throw new VfsException(Errno.ENOSPC, op, null);
            }
            if (freeBytes.compareAndSet(cur, cur - bytes)) {
                break;
            }
        }
        if (heap != null && !heap.tryCharge(bytes)) {
            // For these few instructions the superblock counted bytes it will not hold: a
            // racing charge near its own limit may see ENOSPC early, as if this one had won.
            freeBytes.addAndGet(bytes);
            throw new VfsException(Errno.ENOSPC, op, null);
        }
    }

    /** Returns {@code bytes} of charge, to the superblock and to its {@link HeapPool}. */
    @Override
    public void unchargeBytes(long bytes) {
        if (bytes != 0) {
            freeBytes.addAndGet(bytes);
            if (heap != null) {
                heap.uncharge(bytes);
            }
        }
    }

    /**
     * Charges extended-attribute space as tmpfs does ({@code simple_xattr_space} taken from its
     * {@code free_ispace}, which is 1 KiB, {@code BOGO_INODE_SIZE}, per inode not in use): {@code
     * ENOSPC} when the attributes would pass 1 KiB times the free inodes, or an eighth of the heap
     * (a superblock without an inode limit), so that no caller can fill the heap with attribute
     * values (a newcomer's unprivileged loop of 64 KiB values ended a root FUSE mount with an
     * {@code OutOfMemoryError}). Inode creation does not look at the attribute space (tmpfs's
     * does): the two limits are checked apart.
     */
    @Override
    public void chargeXattrSpace(long bytes, Syscall op) {
        long heapCap = Runtime.getRuntime().maxMemory() / 8;
        while (true) {
            long used = xattrSpace.get();
            long free = freeInodes.get();
            long limit = free >= heapCap / 1024 ? heapCap : Math.max(0, free) * 1024;
            if (used + bytes > limit) {
                throw new VfsException(Errno.ENOSPC, op, null);
            }
            if (xattrSpace.compareAndSet(used, used + bytes)) {
                return;
            }
        }
    }

    @Override
    public void unchargeXattrSpace(long bytes) {
        if (bytes > 0) {
            xattrSpace.addAndGet(-bytes);
        }
    }

    @Override
    public void inodeFreed(Inode inode) {
        unchargeBytes(inode.chargedBytes());
        unchargeXattrSpace(inode.takeXattrCharge());
        freeInodes.incrementAndGet();
        sop.evictInode(this, inode);
    }

    /** {@return its fork generation, the forks of it still open, and its tree counts} */
    public ForkGenerations forks() {
        return forks;
    }

    @Override
    public long forkGen() {
        return forks.current();
    }

    @Override
    public long oldestForkGen() {
        return forks.oldestOpen();
    }

    @Override
    public int enterDataGate() {
        return locks.publish.enter();
    }

    @Override
    public void exitDataGate(int stripe) {
        locks.publish.exit(stripe);
    }

    @Override
    public void treeBytesAdd(long delta) {
        if (delta != 0) {
            forks.bytesAdd(delta);
        }
    }

    @Override
    public void treeNamesAdd(long delta) {
        if (delta != 0) {
            forks.namesAdd(delta);
        }
    }

    @Override
    public void extraLinksDropped(long n) {
        freeInodes.addAndGet(n);
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
     * links} The limit in force less what is free: exact while no remount changes the limit.
     */
    public long usedInodes() {
        return configAcquire().maxInodes() - freeInodes.get();
    }

    /**
     * {@return the number of bytes charged} The limit in force less what is free: exact while no
     * remount changes the limit.
     */
    public long usedBytes() {
        return configAcquire().maxBytes() - freeBytes.get();
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
     * Long.MAX_VALUE} inodes. For a superblock in a {@link HeapPool}, {@code f_bfree} and {@code
     * f_bavail} are the smaller of its own free blocks and the pool's: what a write could still
     * take.
     *
     * @param magic the {@code f_type} to report
     * @param mountReadOnly whether the vfsmount it was reached through is read-only
     * @return the file system's statistics
     */
    public StatFs genericStatfs(long magic, boolean mountReadOnly) {
        SuperblockConfig c = configAcquire();
        int bs = c.blockSize();
        long blocks = c.maxBytes() / bs;
        long usedBlocks = (c.maxBytes() - freeBytes.get() + bs - 1) / bs;
        long bfree = Math.max(0, blocks - usedBlocks);
        if (heap != null) {
            bfree = Math.min(bfree, heap.pool().free() / bs);
        }
        long files = c.maxInodes();
        long ffree = Math.max(0, Math.min(files, freeInodes.get()));
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

    /**
     * The inodes of this superblock that got an inotify watch, for the {@code IN_UNMOUNT} of its
     * shutdown; a freed inode leaves it.
     */
    private final Set<Inode> watched = ConcurrentHashMap.newKeySet();

    @Override
    public void watchAdded(Inode inode) {
        watched.add(inode);
    }

    @Override
    public void watchForgotten(Inode inode) {
        watched.remove(inode);
    }

    private void deactivated() {
        // fsnotify_sb_delete: every watch on an inode of this superblock gets IN_UNMOUNT, then
        // IN_IGNORED; s_inodes is walked newest first (inode_sb_list_add adds at the head), which
        // the inode numbers, handed out in increasing order, stand for.
        List<Inode> w = new ArrayList<>(watched);
        watched.clear();
        w.sort(Comparator.comparingLong(Inode::ino).reversed());
        Fsnotify.unmounted(w);
        releaseHeapPool(); // no mount reaches a file of it any more: its bytes go back
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
