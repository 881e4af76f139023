package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeOwner;
import dev.seqvfs.engine.inode.IopFlags;
import dev.seqvfs.engine.inode.Versioned;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A directory inode: the published {@link DirSnapshot} of its entries, the link to its parent, and
 * the reference to its {@link DirectoryActor}.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@code snapshot}: read with acquire ({@link #snapshotAcquire()}); written only by CAS
 *       ({@link #casSnapshot}). Writers: this directory's actor (every change to its entries); the
 *       rename coordinator, while this directory's actor is prepared and stashing, inside the
 *       rename write lock; and whoever removes the directory ({@code rmdir}, rename over it), which
 *       CASes an empty snapshot to its dead version under the mount read lock. Because the actor
 *       publishes by CAS against the version it last published, a kill between its read and its
 *       write makes its CAS fail, and it reports {@code ENOENT} instead of resurrecting the
 *       directory. In a fork, a directory starts with its source's snapshot at the fork's
 *       generation shown through the fork's twins of its entries ({@link #startForked}, before the
 *       directory is reachable; see {@code TreeFork}).
 *   <li>{@code link}: read with acquire ({@link #linkAcquire()}); written with release by the
 *       parent's actor (same-directory rename) or by the rename coordinator inside the rename write
 *       lock (cross-directory rename). At any instant only one of them may write it: a
 *       cross-directory rename holds the old parent's actor prepared.
 *   <li>{@code actor}: null until the superblock actor spawns this directory's actor; written with
 *       release by the superblock actor (spawn) and by the directory actor itself (cleared when it
 *       stops after the directory died).
 *   <li>{@code queue}: the combining queue of this directory's commands ({@link DirQueue}); null
 *       until the first submit, then set once by CAS (acquire to read), never replaced.
 *   <li>{@code renameSeq}: this directory's rename sequence ({@code d_seq}): odd while a
 *       cross-directory rename publishes a change of this directory (its snapshot, its parent link,
 *       or its death as a replaced target), even otherwise. Written only by the rename coordinator
 *       holding the rename write lock ({@link #renameWriteBegin}, {@link #renameWriteEnd}: volatile
 *       stores), read with volatile loads by walks as they validate their trail: a walk that saw
 *       the same even value before and after its check had no half-published rename of this
 *       directory overlap the check (see {@code PathWalk}).
 *   <li>{@code unjournaled}: whether this directory's actor may have published a change of its
 *       entries that has not yet reached its type's journal ({@link DirJournal#append}); only for a
 *       type with one. Written only by the actor: set plainly before it publishes (the publishing
 *       CAS of {@code snapshot} orders the store before the change), cleared with a volatile store
 *       once the append returned. Read with acquire, after an acquire load of {@code snapshot}, by
 *       whoever removes the directory: a reader that saw the snapshot and then {@code false} is
 *       ordered after the append of that snapshot's change, so the journal of the removal comes
 *       after it (what the removed directory's journal knew, its parent's learns: persistfs keeps
 *       the attributes of inodes unlinked there). An {@code rmdir} that reads {@code true} waits
 *       ({@code waiters}: a stack of the removals to re-run, pushed by CAS, taken by {@code
 *       getAndSet} after the flag is cleared); a rename over the directory answers {@code ESTALE}
 *       instead (its caller walks again).
 *   <li>{@code mounts}: the number of mounts on this directory; written only inside the mount write
 *       lock, read plainly by walks (validated by the mount sequence) and by {@code rmdir} under
 *       the mount read lock.
 * </ul>
 *
 * <h2>States</h2>
 *
 * live → dead (its snapshot is {@link DirSnapshot#isDead()}); dead is final.
 */
public final class DirectoryInode extends Inode {
    private static final VarHandle SNAPSHOT;
    private static final VarHandle LINK;
    private static final VarHandle ACTOR;
    private static final VarHandle QUEUE;
    private static final VarHandle RENAME_SEQ;
    private static final VarHandle UNJOURNALED;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SNAPSHOT = l.findVarHandle(DirectoryInode.class, "snapshot", DirSnapshot.class);
            LINK = l.findVarHandle(DirectoryInode.class, "link", DirLink.class);
            ACTOR = l.findVarHandle(DirectoryInode.class, "actor", ActorRef.class);
            QUEUE = l.findVarHandle(DirectoryInode.class, "queue", DirQueue.class);
            RENAME_SEQ = l.findVarHandle(DirectoryInode.class, "renameSeq", int.class);
            UNJOURNALED = l.findVarHandle(DirectoryInode.class, "unjournaled", boolean.class);
            WAITERS = l.findVarHandle(DirectoryInode.class, "waiters", Waiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through SNAPSHOT
    private volatile DirSnapshot snapshot;

    @SuppressWarnings("unused") // accessed through UNJOURNALED
    private boolean unjournaled;

    @SuppressWarnings("unused") // accessed through WAITERS
    private volatile Waiter waiters;

    @SuppressWarnings("unused") // accessed through LINK
    private volatile DirLink link;

    @SuppressWarnings("unused") // accessed through ACTOR
    private volatile ActorRef<DirectoryActor.Command> actor;

    @SuppressWarnings("unused") // accessed through QUEUE
    private volatile DirQueue queue;

    @SuppressWarnings("unused") // accessed through RENAME_SEQ
    private volatile int renameSeq;

    private int mounts;

    /**
     * Creates a directory with an empty snapshot.
     *
     * @param ino the inode number
     * @param owner the superblock, as its accounting interface
     * @param ops the inode operations ({@code i_op})
     * @param fileOps the operations of files opened on it ({@code i_fop})
     * @param attrs the initial attributes
     * @param parent its parent, or {@code null} for a superblock root
     * @param name its name in {@code parent}, or {@code null} for a root
     */
    public DirectoryInode(
            long ino,
            InodeOwner owner,
            InodeOperations ops,
            FileOperations fileOps,
            InodeAttrs attrs,
            DirectoryInode parent,
            String name) {
        super(ino, owner, ops, fileOps, attrs);
        SNAPSHOT.setRelease(this, DirSnapshot.empty().withVersion(owner.forkGen(), null));
        LINK.setRelease(this, parent == null ? null : new DirLink(parent, name));
    }

    /**
     * Loads the current snapshot (acquire). Never blocks.
     *
     * @return the current snapshot (acquire)
     */
    public DirSnapshot snapshotAcquire() {
        return (DirSnapshot) SNAPSHOT.getAcquire(this);
    }

    /**
     * Makes this directory, which no other thread can reach yet (a fork's twin, before its parent's
     * snapshot shows it or its superblock is published), start with {@code forked}: its source's
     * snapshot shown through the fork's twins ({@link DirSnapshot#forked}). Release store.
     *
     * @param forked its first snapshot
     */
    void startForked(DirSnapshot forked) {
        SNAPSHOT.setRelease(this, forked);
    }

    /**
     * Publishes {@code update} if the snapshot is still {@code expect}.
     *
     * @return {@code true} if published
     */
    boolean casSnapshot(DirSnapshot expect, DirSnapshot update) {
        if (!SNAPSHOT.compareAndSet(this, expect, versioned(expect, update))) {
            return false;
        }
        owner().treeNamesAdd(update.size() - expect.size());
        return true;
    }

    /**
     * {@return {@code next}, the replacement of {@code cur}, tagged for the forks of this
     * directory's superblock ({@link Versioned}): published in the current generation and linked to
     * {@code cur} if that one is of an older generation and a fork may read it} A copy (sharing the
     * entries) only when the tag or the link differs from what {@code next} carries. Called by
     * every publisher of a snapshot, inside the publication gate or under the rename write lock, so
     * the generation cannot move between this read and the CAS.
     */
    private DirSnapshot versioned(DirSnapshot cur, DirSnapshot next) {
        long g = owner().forkGen();
        long gen = cur.gen() < g ? g : cur.gen();
        return next.withVersion(gen, Versioned.prevFor(cur, g, owner().oldestForkGen()));
    }

    /**
     * {@return the snapshot a fork taken when this directory's superblock went to generation {@code
     * k} reads: the newest one published below {@code k}} Lock-free.
     *
     * @param k the fork's generation
     */
    public DirSnapshot snapshotAt(long k) {
        return Versioned.at(snapshotAcquire(), k);
    }

    /**
     * Kills the directory if its snapshot is still {@code expect} and empty: the step of {@code
     * rmdir} (and of a rename over an empty directory) that makes every later change to it fail
     * with {@code ENOENT}. The caller holds the mount read lock and has checked {@link
     * #mountCount()} is zero.
     *
     * @return {@code true} if it was killed by this call
     */
    boolean tryKill(DirSnapshot expect) {
        if (!expect.isEmpty() || expect.isDead()) {
            return false;
        }
        return SNAPSHOT.compareAndSet(this, expect, versioned(expect, expect.killed()));
    }

    /**
     * Marks that this directory's actor is about to publish a change its journal has not had yet
     * (plain store, ordered before the change by the publishing CAS). Actor thread only.
     */
    void markUnjournaled() {
        UNJOURNALED.set(this, true);
    }

    /**
     * Marks that every change published so far has reached the journal (a volatile store, if it was
     * set), then runs the removals that waited for it ({@link #runWhenJournaled}). Actor only.
     */
    void markJournaled() {
        if ((boolean) UNJOURNALED.get(this)) {
            UNJOURNALED.setVolatile(this, false);
            runWaiters();
        }
    }

    /**
     * {@return whether a change already published here may not have reached the journal yet
     * (acquire)} A remover reads it after the snapshot it kills: {@code true} means the removal
     * must wait ({@link #runWhenJournaled}), so that its own journal entry follows.
     */
    boolean unjournaledAcquire() {
        return (boolean) UNJOURNALED.getAcquire(this);
    }

    /**
     * Runs {@code r} once this directory's actor has handed what it published to the journal: at
     * once (on this thread) if it already has, else on the actor's thread as it does. {@code r}
     * must not block (a {@code tell}). Thread-safe: a waiter is pushed by CAS before the flag is
     * read again, and the actor clears the flag with a volatile store before it takes the waiters,
     * so one of the two sees the other (no lost wake-up); taking them is one {@code getAndSet}, so
     * each runs once.
     */
    void runWhenJournaled(Runnable r) {
        Waiter w;
        do {
            w = (Waiter) WAITERS.getVolatile(this);
        } while (!WAITERS.compareAndSet(this, w, new Waiter(r, w)));
        if (!(boolean) UNJOURNALED.getVolatile(this)) {
            runWaiters();
        }
    }

    private void runWaiters() {
        if (WAITERS.getVolatile(this) == null) {
            return;
        }
        for (Waiter w = (Waiter) WAITERS.getAndSet(this, null); w != null; w = w.next) {
            w.run.run();
        }
    }

    /** A removal waiting for this directory's journal ({@link #runWhenJournaled}); a stack. */
    private record Waiter(Runnable run, Waiter next) {}

    /**
     * Loads the link to the parent (acquire); {@code null} for a superblock root.
     *
     * @return the link to the parent (acquire); {@code null} for a superblock root
     */
    public DirLink linkAcquire() {
        return (DirLink) LINK.getAcquire(this);
    }

    /** Publishes a new link to the parent (release); see the class comment for who may. */
    void publishLinkRelease(DirLink l) {
        LINK.setRelease(this, l);
    }

    /** {@return this directory's actor (acquire), or {@code null} if none is running} */
    public ActorRef<DirectoryActor.Command> actorAcquire() {
        @SuppressWarnings("unchecked")
        ActorRef<DirectoryActor.Command> a =
                (ActorRef<DirectoryActor.Command>) ACTOR.getAcquire(this);
        return a;
    }

    /**
     * {@return this directory's rename sequence (volatile load)} Odd while a cross-directory rename
     * is publishing a change of this directory; it only grows.
     */
    public int renameSeq() {
        return (int) RENAME_SEQ.getVolatile(this);
    }

    /**
     * Makes the rename sequence odd: a cross-directory rename starts publishing a change of this
     * directory. Only by the rename coordinator, holding the rename write lock, before its first
     * store (volatile store, so it is ordered before the publications that follow).
     */
    public void renameWriteBegin() {
        RENAME_SEQ.setVolatile(this, (int) RENAME_SEQ.getVolatile(this) + 1);
    }

    /**
     * Makes the rename sequence even again, after the rename's last store (volatile store); pairs
     * with {@link #renameWriteBegin}.
     */
    public void renameWriteEnd() {
        RENAME_SEQ.setVolatile(this, (int) RENAME_SEQ.getVolatile(this) + 1);
    }

    /**
     * {@return this directory's combining queue ({@link DirQueue}), created by CAS on first use, so
     * every caller gets the same one} Thread-safe; lock-free.
     */
    public DirQueue commandQueue() {
        DirQueue q = (DirQueue) QUEUE.getAcquire(this);
        if (q != null) {
            return q;
        }
        DirQueue fresh = new DirQueue(this);
        DirQueue witness = (DirQueue) QUEUE.compareAndExchange(this, null, fresh);
        return witness == null ? fresh : witness;
    }

    /** {@return this directory's combining queue, or {@code null} if nothing was ever submitted} */
    public DirQueue commandQueueIfAny() {
        return (DirQueue) QUEUE.getAcquire(this);
    }

    /**
     * Publishes this directory's actor reference, or clears it (release); by {@link DirectoryActor}
     * only.
     */
    void publishActorRelease(ActorRef<DirectoryActor.Command> ref) {
        ACTOR.setRelease(this, ref);
    }

    /** {@return the number of mounts on this directory (plain read; see the class comment)} */
    public int mountCount() {
        return mounts;
    }

    /**
     * Changes the mount count by {@code delta}; only inside the mount write lock.
     *
     * @param delta mounts added (negative: removed)
     */
    public void addMounts(int delta) {
        mounts += delta;
    }

    /**
     * Applies {@code change} to this directory's attributes by CAS: the writer's path, used only by
     * its {@link DirectoryActor} and by the rename coordinator while that actor is prepared ({@link
     * RenamePlan}).
     */
    InodeAttrs updateDirAttrs(UnaryOperator<InodeAttrs> change) {
        return updateAttrs(change);
    }

    /**
     * After its writer published a change of this directory's entries: adds {@code subdirDelta} to
     * the link count (by CAS on the current count; a removal racing this one may already have
     * dropped the directory's own two links, and then the count reaching zero here frees it) and
     * sets mtime and ctime. By the directory's writer of the moment only, as {@link
     * #updateDirAttrs}.
     *
     * @param subdirDelta subdirectories added (negative: removed) by the change
     * @param now the time, nanoseconds since the epoch
     */
    void entriesChanged(int subdirDelta, long now) {
        changeLinks(subdirDelta, true, now);
    }

    /** A live directory with an actor: only that actor writes its attributes. */
    @Override
    public boolean actorOwnsAttrs() {
        return (iopFlags() & IopFlags.IOP_MUTABLE_DIR) != 0 && !isDead();
    }

    /** {@return whether the directory has been removed (acquire)} */
    public boolean isDead() {
        return snapshotAcquire().isDead();
    }

    /**
     * {@return whether this directory is dead while its parent's published snapshot still binds it:
     * a removal ({@code rmdir}, or a rename over it) has killed it and not yet published the
     * parent, which its remover does next, so this is transient} A command whose walk found the
     * directory through that binding must then walk again ({@code ESTALE}) rather than answer
     * {@code ENOENT}: after a rename over the directory the same path names a live one (found by
     * the 240 s linearizability run: a rename into {@code /b/t} failed with ENOENT while {@code
     * /b/s} replaced {@code /b/t}). Thread-safe; reads published snapshots only.
     */
    public boolean removalInProgress() {
        if (!isDead()) {
            return false;
        }
        DirLink l = linkAcquire();
        if (l == null) {
            return false;
        }
        Dentry e = l.parent().snapshotAcquire().lookup(l.name());
        return e != null && e.inode() == this;
    }
}
