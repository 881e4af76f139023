package dev.seqvfs.engine.sb;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.TreeMap;

/**
 * A superblock's side of {@code SeqVfs.fork()} (issue 15): its fork generation, the generations of
 * the forks of it still open, and what its tree holds (the charge a fork of it takes).
 *
 * <p>The generation counts the forks taken of the superblock. Every published version of its
 * directories' entries, its inodes' attributes and its files' data is tagged with the generation it
 * was published in ({@link dev.seqvfs.engine.inode.Versioned}); a fork bumps the generation from
 * {@code k - 1} to {@code k} and reads, of every object, the newest version tagged below {@code k}.
 * The writer that replaces a version of an older generation keeps it reachable from its replacement
 * while an open fork may still read it: while {@link #oldestOpen()} is at most the generation it
 * writes in.
 *
 * <p>The tree counts are what the published snapshots hold: {@code names} is one slot for the root
 * and one per name in a published directory snapshot (tmpfs charges an inode slot per directory and
 * per name of a file), {@code bytes} the bytes charged for the inodes that have a name (their data
 * and symbolic link targets, each inode once). A fork of the superblock is charged both, at once.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@code current}: bumped only by {@link #bump}, whose caller holds the instance's
 *       publication gate closed and its rename and mount write locks (so no directory publication,
 *       rename, mount change, path- or descriptor-based attribute change or data write is in
 *       flight: they all run inside the gate or under those locks). Volatile: writers read it
 *       inside the gate (the gate's handshake orders the bump before them) or, for the few
 *       attribute stores made outside it, with no order to the fork (CONCURRENCY.md, "Fork").
 *   <li>{@code oldest} and {@code open}: {@code open} is guarded by this object's monitor, taken
 *       for the few map operations of a registration ({@link #bump}) and a release ({@link
 *       #release}); {@code oldest} is republished (volatile) by the holder before it leaves. A
 *       fork's generation is registered before the bump is published, so a writer that reads the
 *       bumped generation and then {@code oldest} sees the registration.
 *   <li>{@code names}, {@code bytes}: striped counters ({@link WriterCount}) changed only inside
 *       the gate or under the rename write lock (with every change they count: a snapshot
 *       publication, a charge of a file that has a name, a last link gone), so a sum read by {@link
 *       #bump}'s caller, inside the gate closed, is exact: every add happened before its adder left
 *       the gate (or released the rename lock), which the closer observed.
 * </ul>
 */
public final class ForkGenerations {
    private static final VarHandle CURRENT;
    private static final VarHandle OLDEST;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            CURRENT = l.findVarHandle(ForkGenerations.class, "current", long.class);
            OLDEST = l.findVarHandle(ForkGenerations.class, "oldest", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through CURRENT
    private volatile long current;

    @SuppressWarnings("unused") // accessed through OLDEST
    private volatile long oldest = Long.MAX_VALUE;

    /** Open forks by generation: how many of each (a fork of several superblocks counts once). */
    private final TreeMap<Long, Integer> open = new TreeMap<>();

    private final WriterCount names = new WriterCount();
    private final WriterCount bytes = new WriterCount();

    ForkGenerations() {
        names.add(1); // the root
    }

    /** {@return the current generation (volatile read)} */
    public long current() {
        return (long) CURRENT.getVolatile(this);
    }

    /**
     * {@return the generation of the oldest fork still open, {@code Long.MAX_VALUE} if none
     * (volatile read)}
     */
    public long oldestOpen() {
        return (long) OLDEST.getVolatile(this);
    }

    /**
     * Takes a fork: registers generation {@code current + 1} as open, then publishes it as the
     * current generation. The caller holds the instance's publication gate closed and its rename
     * and mount write locks; release the fork with {@link #release} when it is closed.
     *
     * @return the fork's generation {@code k}: it reads the versions published below {@code k}
     */
    public long bump() {
        long k = current() + 1;
        synchronized (this) {
            open.merge(k, 1, Integer::sum);
            OLDEST.setVolatile(this, open.firstKey());
        }
        CURRENT.setVolatile(this, k);
        return k;
    }

    /**
     * Releases a fork of generation {@code k} ({@link #bump}): once no open fork reads a version,
     * writers stop keeping it. Thread-safe.
     *
     * @param k the fork's generation
     * @throws IllegalStateException if no fork of generation {@code k} is open
     */
    public void release(long k) {
        synchronized (this) {
            Integer n = open.get(k);
            if (n == null) {
                throw new IllegalStateException("release of fork generation " + k + " not open");
            }
            if (n == 1) {
                open.remove(k);
            } else {
                open.put(k, n - 1);
            }
            OLDEST.setVolatile(this, open.isEmpty() ? Long.MAX_VALUE : open.firstKey());
        }
    }

    /**
     * Starts this new superblock's tree counts at a fork's: the slots and bytes of the source's
     * tree at the cut, which the fork's superblock holds (charged at once) before any of it is
     * built. Called once, before the superblock is published.
     *
     * @param slots the source's {@link #treeSlots()} at the cut, the root included
     * @param treeBytes the source's {@link #treeBytes()} at the cut
     */
    public void inherit(long slots, long treeBytes) {
        names.add(slots - 1);
        bytes.add(treeBytes);
    }

    /**
     * Adds {@code delta} names to the tree count: by the publisher of a directory snapshot, inside
     * the gate or under the rename write lock.
     */
    void namesAdd(long delta) {
        names.add(delta);
    }

    /**
     * Adds {@code delta} bytes to the tree count: by a charge to a file that has a name, or its
     * last link going, inside the gate.
     */
    void bytesAdd(long delta) {
        bytes.add(delta);
    }

    /**
     * {@return the inode slots the tree holds: the root, and one per name in a published snapshot}
     * Exact while the gate is closed (see the class comment); a moment's view otherwise.
     */
    public long treeSlots() {
        return names.sum();
    }

    /**
     * {@return the bytes the inodes with a name hold (each inode once)} Exact while the gate is
     * closed; a moment's view otherwise.
     */
    public long treeBytes() {
        return bytes.sum();
    }
}
