package dev.seqvfs.engine.inode;

import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.lock.FileLockTable;
import dev.seqvfs.engine.notify.Fsnotify;
import dev.seqvfs.engine.notify.InotifyMark;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * An inode ({@code struct inode}): a fixed identity and a published attribute snapshot.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@code ino}, {@code superblock}, {@code type}, {@code ops}, {@code fileOps}, {@code
 *       iopFlags} are final, set at instantiation.
 *   <li>{@code attrs} is an immutable {@link InodeAttrs}, read with acquire ({@link
 *       #attrsAcquire()}) and replaced whole by compare-and-set ({@link #casAttrs}, {@link
 *       #updateAttrs}, both {@code protected}: only the inode classes reach them). For a directory,
 *       only its directory actor (or the rename coordinator while that actor is prepared) writes
 *       it, through {@code DirectoryInode}'s package-private writer; for other inodes, any
 *       directory actor (link counts, {@link #addLink}, {@link #dropLinks}) or task ({@link
 *       #setattr}, the time stamps) may, and the CAS keeps every change.
 *   <li>{@code openCount} counts open file descriptions; it is changed by atomic get-and-add and is
 *       not read on any read path.
 *   <li>{@code freed} goes from 0 to 1 once, by CAS, in {@link #maybeFree()}.
 * </ul>
 *
 * <h2>Invariants</h2>
 *
 * The inode is freed (its quota returned to the superblock) exactly once, and only when {@code
 * nlink == 0 && openCount == 0}. Both counters are changed by atomic operations and each decrement
 * re-checks the other, so of two racing last decrements at least one sees both at zero (Dekker over
 * sequentially consistent atomics).
 *
 * <h2>States</h2>
 *
 * See {@link InodeState}.
 */
public class Inode {
    private static final long DAY_NANOS = 24L * 3600 * 1_000_000_000L;
    private static final VarHandle ATTRS;
    private static final VarHandle OPEN_COUNT;
    private static final VarHandle FREED;
    private static final VarHandle LOCKS;
    private static final VarHandle MARKS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            ATTRS = l.findVarHandle(Inode.class, "attrs", InodeAttrs.class);
            OPEN_COUNT = l.findVarHandle(Inode.class, "openCount", int.class);
            FREED = l.findVarHandle(Inode.class, "freed", int.class);
            LOCKS = l.findVarHandle(Inode.class, "fileLocks", FileLockTable.class);
            MARKS = l.findVarHandle(Inode.class, "marks", InotifyMark[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long ino;
    private final InodeOwner owner;
    private final FileType type;
    private final InodeOperations ops;
    private final FileOperations fileOps;
    private final int iopFlags;

    @SuppressWarnings("unused") // accessed through ATTRS
    private volatile InodeAttrs attrs;

    @SuppressWarnings("unused") // accessed through OPEN_COUNT
    private volatile int openCount;

    @SuppressWarnings("unused") // accessed through FREED
    private volatile int freed;

    @SuppressWarnings("unused") // accessed through LOCKS
    private volatile FileLockTable fileLocks;

    /**
     * The inotify watches on this inode ({@code i_fsnotify_marks}): {@code null} while none exists,
     * so an event site costs one acquire load and a null check; else an immutable array replaced by
     * CAS ({@link #casMarks}).
     */
    @SuppressWarnings("unused") // accessed through MARKS
    private volatile InotifyMark[] marks;

    /**
     * Instantiates an inode; computes its {@code iopFlags} once from {@code ops}.
     *
     * @param ino inode number, unique within the superblock
     * @param owner the superblock that accounts for it
     * @param ops its file-system type's inode operations
     * @param fileOps the operations of files opened on it ({@code i_fop})
     * @param attrs the initial attributes; their type bits fix the inode's type
     */
    protected Inode(
            long ino,
            InodeOwner owner,
            InodeOperations ops,
            FileOperations fileOps,
            InodeAttrs attrs) {
        this.ino = ino;
        this.owner = owner;
        this.type = attrs.type();
        this.ops = ops;
        this.fileOps = fileOps;
        this.iopFlags = IopFlags.compute(type == FileType.DIRECTORY, type == FileType.SYMLINK, ops);
        ATTRS.setRelease(
                this,
                attrs.gen() == Versioned.UNTAGGED
                        ? attrs.withVersion(owner.forkGen(), null)
                        : attrs);
    }

    /** {@return the inode number} */
    public final long ino() {
        return ino;
    }

    /** {@return the superblock (as its accounting interface) this inode belongs to} */
    public final InodeOwner owner() {
        return owner;
    }

    /** {@return the file type; fixed for the inode's life} */
    public final FileType type() {
        return type;
    }

    /** {@return the file-system type's operations} */
    public final InodeOperations ops() {
        return ops;
    }

    /**
     * {@return the operations of files opened on this inode ({@code i_fop}); fixed at
     * instantiation}
     */
    public final FileOperations fileOps() {
        return fileOps;
    }

    /**
     * {@return whether this is an anonymous inode (a pipe, a socket, an eventfd): one that no
     * directory holds, whose dentry is its own parent} Fixed for the inode's life.
     */
    public boolean isAnonymous() {
        return false;
    }

    /** {@return the {@link IopFlags} bits, computed once at instantiation} */
    public final int iopFlags() {
        return iopFlags;
    }

    /**
     * Loads the current attribute snapshot with acquire semantics. Never blocks.
     *
     * @return the current attribute snapshot with acquire semantics
     */
    public final InodeAttrs attrsAcquire() {
        return (InodeAttrs) ATTRS.getAcquire(this);
    }

    /**
     * Replaces the attribute snapshot if it is still {@code expect}. Reached only by the inode
     * classes: see the class comment for who may write which inode's attributes.
     *
     * @param expect the snapshot the caller read
     * @param update the snapshot to publish
     * @return {@code true} if {@code update} was published
     */
    protected final boolean casAttrs(InodeAttrs expect, InodeAttrs update) {
        return ATTRS.compareAndSet(this, expect, versioned(expect, update));
    }

    /**
     * {@return {@code next}, the replacement of {@code cur}, tagged for the forks of this inode's
     * superblock ({@link Versioned}): published in the superblock's current generation, linked to
     * {@code cur} if {@code cur} belongs to an older one and a fork may read it} A copy only when
     * the tag or the link differs from what {@code next} carries (the first change after a fork, or
     * after the last open fork was closed); {@code next} itself otherwise. The generation is read
     * before the oldest open fork (see {@link Versioned#prevFor}). A writer inside the publication
     * gate (or holding the file's lock inside it) publishes wholly before or after a fork; one
     * outside it (a time stamp, a directory's link count) may straddle a fork, and then its change
     * is seen by the fork too, whole.
     */
    private InodeAttrs versioned(InodeAttrs cur, InodeAttrs next) {
        long g = owner.forkGen();
        long gen = cur.gen() < g ? g : cur.gen();
        return next.withVersion(gen, Versioned.prevFor(cur, g, owner.oldestForkGen()));
    }

    /**
     * {@return the attributes a fork taken when this inode's superblock went to generation {@code
     * k} reads: the newest version published below {@code k}} Lock-free; for the fork's copy of
     * this inode.
     *
     * @param k the fork's generation
     */
    public final InodeAttrs attrsAt(long k) {
        return Versioned.at(attrsAcquire(), k);
    }

    /**
     * Applies {@code change} to the current attributes and publishes the result by CAS, retrying on
     * contention. {@code change} must be a pure function: it may run more than once. It may throw
     * {@link VfsException} to refuse the change (nothing is published).
     *
     * @param change computes the new attributes from the current ones
     * @return the attributes published
     */
    @SuppressWarnings(
            "ReferenceEquality") // next == cur: change returned its argument, nothing to publish
    protected final InodeAttrs updateAttrs(UnaryOperator<InodeAttrs> change) {
        while (true) {
            InodeAttrs cur = attrsAcquire();
            InodeAttrs next = change.apply(cur);
            if (next == cur) {
                return cur;
            }
            // extended attributes take space (ENOSPC before the CAS, nothing published then)
            long grow =
                    next.xattrs() == cur.xattrs()
                            ? 0
                            : next.xattrs().space() - cur.xattrs().space();
            if (grow > 0) {
                owner.chargeXattrSpace(grow, Syscall.SETXATTR);
            }
            InodeAttrs published = versioned(cur, next);
            if (ATTRS.compareAndSet(this, cur, published)) {
                if (grow != 0) {
                    settleXattrSpace(grow);
                }
                return published;
            }
            if (grow > 0) {
                owner.unchargeXattrSpace(grow);
            }
        }
    }

    /**
     * The extended-attribute space this inode holds charged ({@link InodeOwner#chargeXattrSpace}):
     * what its published changes added, never below zero (an inode made with attributes, by a
     * mount's recovery or a fork, holds them uncharged). Given back when the inode is freed. Atomic
     * adds; read once at the free.
     */
    private volatile long xattrCharge;

    private static final java.util.concurrent.atomic.AtomicLongFieldUpdater<Inode> XATTR_CHARGE =
            java.util.concurrent.atomic.AtomicLongFieldUpdater.newUpdater(
                    Inode.class, "xattrCharge");

    /** After a published change of {@code grow} bytes of attribute space: the account. */
    private void settleXattrSpace(long grow) {
        if (grow > 0) {
            XATTR_CHARGE.addAndGet(this, grow);
            return;
        }
        // a removal gives back at most what this inode was charged
        long give;
        while (true) {
            long had = xattrCharge;
            give = Math.min(had, -grow);
            if (XATTR_CHARGE.compareAndSet(this, had, had - give)) {
                break;
            }
        }
        if (give > 0) {
            owner.unchargeXattrSpace(give);
        }
    }

    /** {@return and clears the attribute space this inode holds charged} At its free. */
    public final long takeXattrCharge() {
        return XATTR_CHARGE.getAndSet(this, 0);
    }

    /**
     * {@code notify_change} by CAS: applies {@code change} ({@code chmod}, {@code chown}, {@code
     * utimensat}) to an inode that has no actor as its writer: a non-directory, a removed
     * directory, a directory whose entries are computed. A live directory's attributes change only
     * through its actor ({@code DirectoryActor.SetAttrs}).
     *
     * @param change the change asked for
     * @param cred who asks
     * @param now ctime to set, nanoseconds since the epoch
     * @param writable whether {@code cred} may write the inode (for {@code UTIME_NOW})
     * @return the attributes published
     * @throws VfsException the errno the change refuses with ({@code EPERM}, {@code EACCES});
     *     nothing changed
     * @throws IllegalStateException on an inode whose attributes an actor owns
     */
    public final InodeAttrs setattr(
            AttrChange change, Credentials cred, long now, boolean writable) {
        if (actorOwnsAttrs()) {
            throw new IllegalStateException("setattr of " + this + " outside its actor");
        }
        return updateAttrs(a -> change.apply(a, cred, now, writable));
    }

    /**
     * {@return whether an actor is the only writer of this inode's attributes (a live directory
     * with a directory actor); then {@link #setattr} refuses} False for other inodes.
     */
    public boolean actorOwnsAttrs() {
        return false;
    }

    /**
     * {@code file_accessed} under {@code relatime}: sets atime to {@code now} only when it is not
     * newer than mtime or ctime, or is a day old, so that a read rarely writes shared memory.
     * Thread-safe (CAS); never blocks.
     *
     * @param now nanoseconds since the epoch
     */
    public final void touchAtime(long now) {
        touchAtime(now, true);
    }

    /**
     * {@code touch_atime}: sets atime to {@code now}, under {@code relatime} only as {@link
     * #touchAtime(long)} says, else ({@code strictatime}) whenever it differs. Thread-safe (CAS);
     * never blocks.
     *
     * @param now nanoseconds since the epoch
     * @param relatime whether the mount is {@code relatime}
     */
    public final void touchAtime(long now, boolean relatime) {
        InodeAttrs a = attrsAcquire();
        boolean due =
                relatime
                        ? a.atime() <= a.mtime()
                                || a.atime() <= a.ctime()
                                || now - a.atime() >= DAY_NANOS
                        : a.atime() != now;
        if (due) {
            updateAttrs(x -> x.accessed(now));
        }
    }

    /**
     * {@code file_update_time}: sets mtime and ctime to {@code now} (a write that wrote bytes
     * through a named FIFO). Thread-safe (CAS).
     *
     * @param now the time, in nanoseconds since the epoch
     */
    public final void touchMtimeCtime(long now) {
        updateAttrs(a -> a.withTimes(a.atime(), now, now));
    }

    /**
     * Sets ctime to {@code now} (the inode was renamed). Thread-safe (CAS).
     *
     * @param now the time, in nanoseconds since the epoch
     */
    public final void touchCtime(long now) {
        updateAttrs(a -> a.touchedCtime(now));
    }

    /**
     * Adds one hard link ({@code link(2)}).
     *
     * @param now ctime to set, nanoseconds since the epoch
     * @throws VfsException {@code ENOENT} if the inode has no links left (it was unlinked), {@code
     *     EMLINK} at {@link Limits#LINK_MAX}; nothing changed
     */
    public final void addLink(long now) {
        boolean[] named = new boolean[1];
        updateAttrs(
                a -> {
                    if (a.nlink() == 0 && !linkable) {
                        throw new VfsException(Errno.ENOENT, Syscall.LINK, null);
                    }
                    if (a.nlink() >= Limits.LINK_MAX) {
                        throw new VfsException(Errno.EMLINK, Syscall.LINK, null);
                    }
                    named[0] = a.nlink() == 0;
                    return a.withNlink(a.nlink() + 1, now);
                });
        if (named[0]) {
            // an O_TMPFILE file's first name (I_LINKABLE): it is no longer a removed inode
            // waiting for its free, and it cannot be named from nothing again
            linkable = false;
            owner.removeCountAdd(-1);
        }
    }

    /**
     * Whether this inode, with no link, may still be given one ({@code I_LINKABLE}: a file made by
     * {@code open(O_TMPFILE)} without {@code O_EXCL}, until its first {@code linkat}). Written
     * before the inode is published to another thread (its open file's install) and by the
     * directory actor that links it; read by that actor (volatile).
     */
    private volatile boolean linkable;

    /**
     * Makes this new inode one that {@code open(O_TMPFILE)} made: no link, counted as removed
     * ({@code s_remove_count}) until it is freed or named, out of its superblock's tree, and
     * linkable unless {@code exclusive} ({@code O_EXCL}). Called once, before the inode is
     * reachable by any other thread.
     *
     * @param exclusive whether {@code O_EXCL} was given: then it can never be linked
     */
    public final void madeNameless(boolean exclusive) {
        owner.removeCountAdd(1);
        leftTree();
        linkable = !exclusive;
    }

    /**
     * A nameless file's first name was published (the caller holds the gate of that change): its
     * charges count in its superblock's tree again. Nothing for any other inode.
     */
    public void enteredTree() {}

    /**
     * Drops {@code n} hard links (an unlink, or a directory's two links at rmdir) and frees the
     * inode if that was the last link and it is not open.
     *
     * @param n links to drop (1, or 2 for a directory's name and its ".")
     * @param now ctime to set, nanoseconds since the epoch
     */
    public final void dropLinks(int n, long now) {
        changeLinks(-n, false, now);
    }

    /**
     * Drops {@code n} hard links of a non-directory as part of the publication that removed its
     * name, without freeing it: the caller holds the publication gate (or the rename write lock) in
     * which that publication was made, so that at every instant the gate is closed (a fork's cut) a
     * non-directory's link count equals the names the published snapshots give it, and the tree's
     * byte count ({@code ForkGenerations}) has left out an inode whose last name went. The caller
     * then calls {@link #freeIfUnused()} once it has left the gate (a free reports events and
     * returns charges, which stay out of the gate).
     *
     * @param n links to drop (1)
     * @param now ctime to set, nanoseconds since the epoch
     */
    public final void dropLinksKeptForFree(int n, long now) {
        applyLinks(-n, false, false, now);
    }

    /**
     * {@code iput} after {@link #dropLinksKeptForFree}: frees the inode if it has no link left and
     * is not open (whichever of this and the last close comes second frees it). Thread-safe.
     */
    public final void freeIfUnused() {
        maybeFree();
    }

    /**
     * {@return the bytes this inode stops holding in its superblock's tree (its {@code
     * ForkGenerations} count) now that its last link went, and marks it out of the tree} Called
     * once, by the holder of the gate whose change dropped the link count to zero. 0 by default (a
     * directory, a special file).
     */
    protected long leftTree() {
        return 0;
    }

    /**
     * Changes the link count by {@code delta}, applied by CAS to the count current at that instant
     * (never a count computed from an earlier read, which a concurrent change would make stale),
     * and frees the inode if the count reached zero and it is not open. With {@code entriesChanged}
     * the mtime becomes {@code now} too (a directory whose entries changed). For {@link #dropLinks}
     * and for a directory's writer applying a change of its subdirectories ({@code
     * inc_nlink}/{@code drop_nlink} on the parent in {@code shmem_mkdir}, {@code shmem_rmdir},
     * {@code simple_rename}).
     *
     * @param delta links added (negative: dropped); the count does not go below zero
     * @param entriesChanged whether the mtime is set too
     * @param now ctime (and mtime) to set, nanoseconds since the epoch
     */
    protected final void changeLinks(long delta, boolean entriesChanged, long now) {
        if (applyLinks(delta, entriesChanged, false, now)) {
            maybeFree();
        }
    }

    /**
     * Adds {@code delta} to the link count by CAS, keeping the times, and frees the inode if the
     * count reached zero and it is not open: a fork's build correcting the count its copy of a
     * directory was made with ({@code DirectoryInode}), a delta since the directory's actor may
     * have changed it meanwhile.
     *
     * @param delta links added (negative: dropped)
     */
    protected final void changeLinksKeepingTimes(long delta) {
        if (applyLinks(delta, false, true, 0)) {
            maybeFree();
        }
    }

    /**
     * {@link #changeLinks} but the free: applies the delta by CAS, counts a last link gone ({@code
     * s_remove_count}, the tree's bytes) and returns the slots of extra links dropped.
     *
     * @return whether links were dropped (the caller tries the free)
     */
    @SuppressWarnings("ReferenceEquality") // as updateAttrs: the same record means nothing changed
    private boolean applyLinks(long delta, boolean entriesChanged, boolean keepTimes, long now) {
        InodeAttrs before;
        while (true) {
            InodeAttrs cur = attrsAcquire();
            long nlink = Math.max(0, cur.nlink() + delta);
            InodeAttrs next =
                    entriesChanged
                            ? cur.withNlinkModified(nlink, now)
                            : cur.withNlink(nlink, keepTimes ? cur.ctime() : now);
            // s_remove_count: counted before the store that makes the inode unlinked, so
            // whoever sees it unlinked (and may free it) sees it counted.
            boolean last = cur.nlink() > 0 && nlink == 0;
            if (last) {
                owner.removeCountAdd(1);
            }
            if (next == cur || ATTRS.compareAndSet(this, cur, versioned(cur, next))) {
                before = cur;
                if (last) {
                    owner.treeBytesAdd(-leftTree());
                }
                break;
            }
            if (last) {
                owner.removeCountAdd(-1);
            }
        }
        if (delta >= 0) {
            return false;
        }
        if (type != FileType.DIRECTORY) {
            long extra = Math.max(0, Math.min(-delta, before.nlink() - 1));
            if (extra > 0) {
                owner.extraLinksDropped(extra);
            }
        }
        return true;
    }

    /** Counts one more open file description on this inode. */
    public final void openAcquire() {
        OPEN_COUNT.getAndAdd(this, 1);
    }

    /**
     * Counts one open file description less; frees the inode if it was the last and no link is
     * left.
     */
    public final void openRelease() {
        int before = (int) OPEN_COUNT.getAndAdd(this, -1);
        if (before <= 0) {
            OPEN_COUNT.getAndAdd(this, 1);
            throw new IllegalStateException("openRelease without openAcquire on inode " + ino);
        }
        if (before == 1) {
            maybeFree();
        }
    }

    /**
     * {@return the number of open file descriptions on this inode (for tests and {@code /proc})}
     */
    public final int openCount() {
        return (int) OPEN_COUNT.getVolatile(this);
    }

    /**
     * {@return the inode's file-lock table ({@code i_flctx}), creating it with {@code factory} on
     * first use (CAS, so every caller gets the same table)} Until a lock is taken the field stays
     * {@code null} and costs nothing.
     *
     * @param factory makes the table on first use
     */
    public final FileLockTable fileLocks(Supplier<FileLockTable> factory) {
        FileLockTable cur = (FileLockTable) LOCKS.getAcquire(this);
        if (cur != null) {
            return cur;
        }
        FileLockTable fresh = factory.get();
        FileLockTable witness = (FileLockTable) LOCKS.compareAndExchange(this, null, fresh);
        return witness == null ? fresh : witness;
    }

    /** {@return the file-lock table if one was ever created, else {@code null} (acquire)} */
    public final FileLockTable fileLocksIfAny() {
        return (FileLockTable) LOCKS.getAcquire(this);
    }

    /**
     * {@return the inotify watches on this inode (acquire), or {@code null} if there are none} The
     * array is immutable: never write to it.
     */
    @SuppressWarnings("AvoidObjectArrays") // an immutable snapshot, replaced whole by CAS
    public final InotifyMark[] marksAcquire() {
        return (InotifyMark[]) MARKS.getAcquire(this);
    }

    /**
     * Replaces the watch array by CAS (the inotify group adding or removing a watch).
     *
     * @param expect the array read before ({@code null}: none)
     * @param update the new immutable array ({@code null}: none left)
     * @return {@code true} if replaced
     */
    @SuppressWarnings("AvoidObjectArrays")
    public final boolean casMarks(InotifyMark[] expect, InotifyMark[] update) {
        return MARKS.compareAndSet(this, expect, update);
    }

    /** {@return the lifecycle state, read from the counters and the freed flag} */
    public final InodeState state() {
        if ((int) FREED.getVolatile(this) != 0) {
            return InodeState.FREED;
        }
        return isLinked() ? InodeState.LIVE : InodeState.UNLINKED_OPEN;
    }

    /**
     * {@return whether a name keeps this inode alive: true while its link count is positive}
     * Anonymous inodes (pipes, sockets) override it to {@code false}: they live exactly as long as
     * they are open, whatever link count {@code fstat} shows.
     */
    protected boolean isLinked() {
        // A volatile read, not acquire: maybeFree's Dekker with openCount needs both of its
        // reads in the synchronization order. After openRelease's get-and-add, an acquire
        // load may still return the attributes from before a racing last unlink's CAS
        // (the JMM orders it with nothing before it), and that unlink may read the open
        // count from before the get-and-add: neither frees the inode.
        return ((InodeAttrs) ATTRS.getVolatile(this)).nlink() > 0;
    }

    private void maybeFree() {
        if (!isLinked()
                && (int) OPEN_COUNT.getVolatile(this) == 0
                && FREED.compareAndSet(this, 0, 1)) {
            if (attrsAcquire().nlink() == 0) {
                // Its link count reached zero in dropLinks, which counted it.
                owner.removeCountAdd(-1);
            }
            owner.inodeFreed(this);
            if (marksAcquire() != null) {
                // fsnotify_inoderemove, then the marks' destruction at eviction
                Fsnotify.inodeGone(this);
            }
        }
    }

    /**
     * {@return the bytes this inode holds against its superblock's byte limit (file data, long
     * symlink targets)} Called once, when the inode is freed.
     */
    public long chargedBytes() {
        return 0;
    }

    /**
     * {@return the bytes this inode holds against its superblock's byte limit now} A moment's read
     * of what {@link #chargedBytes} would return, without closing the account: for {@code Fsck}.
     */
    public long chargedBytesNow() {
        return 0;
    }

    @Override
    public String toString() {
        return type + "#" + ino;
    }
}
