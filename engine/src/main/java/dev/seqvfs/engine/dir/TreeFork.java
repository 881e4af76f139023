package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.file.FileData;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.Syscall;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The copy of one superblock's tree for {@code SeqVfs.fork()}: {@link #capture} takes a cut of the
 * source, {@link #buildInto} gives the fork's superblock a root that is <em>unbuilt</em>: each of
 * the fork's directories is made, with the twins of its entries, the first time anything reads its
 * snapshot in the fork ({@link DirectoryInode#snapshotAcquire()}), from what the cut took for it.
 *
 * <h2>What the cut keeps</h2>
 *
 * Per directory (a {@link Cut}): its snapshot (the source's own, immutable, shared until the source
 * publishes another), its attributes, and, in the snapshot's cookie order, the attributes of each
 * non-directory entry, the {@link Cut} of each directory entry, and each regular file's data
 * version ({@link RegularInode#dataAtCut}: the source copies a page of it before writing it). That
 * is two references per name: the fork keeps O(names) words of the source's state, not O(1); the
 * inodes, dentries and snapshots of the fork are made only where the fork goes.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@link #capture} runs while the caller holds the source namespace's publication gate closed
 *       and its rename and mount write locks: no directory publishes, no rename moves an entry, no
 *       mount changes, no attribute change or change of a file's data is in flight (they all run
 *       inside the gate, a data change holding its file's write lock too). In one breadth-first
 *       pass it reads each directory's snapshot and attributes (acquire) and each entry's
 *       attributes and, for a regular file, its data version ({@link RegularInode#dataAtCut}), all
 *       as the last writer left them; the caller bumps the superblock's fork generation before it
 *       opens the gate, so each file's next write first marks the version taken shared and copies a
 *       page before changing it. So the cut is one instant: every directory publication, rename,
 *       mount change, attribute change and data write is wholly before it or wholly after.
 *       Everything it writes (the {@link Cut}s and their arrays, {@link #multi}, the totals) is
 *       plain: it reaches other threads only through the fork's publication below.
 *   <li>{@link #buildInto} and every later build of a directory run after the source is released:
 *       what they read is immutable (the cut's arrays and fields, written by the forking thread
 *       before the fork's root was made unbuilt (release of its {@code unbuilt} field) and its
 *       namespace published (release), never after; snapshots, attributes, data versions whose
 *       pages the source no longer writes in place, symlink targets). A directory's build may run
 *       on any thread of the fork, several at once: each makes its own snapshot and twins and
 *       publishes them by one CAS of the directory's snapshot ({@link
 *       DirectoryInode#snapshotAcquire()}); a loser drops what it made. A file with several names
 *       gets one twin whichever name is built first: its twin is made once, by {@link
 *       ConcurrentHashMap#computeIfAbsent} on {@link #linked}, and reaches other threads through
 *       that map (its happens-before) or through the snapshot CAS (release).
 * </ul>
 *
 * <p>Link counts are recomputed from the cut, not copied: a directory's is {@code 2 +} the
 * subdirectories copied into it, a file's the names it has in the cut. A namespace change in flight
 * publishes its entries inside the gate but adjusts link counts and the parent's times just after
 * it, so the counts read at the cut could be a step behind its entries; the times of such a change
 * may be.
 */
public final class TreeFork {
    private final Superblock source;

    /**
     * Every directory's cut, by source directory (for the mounts on them), until {@link
     * #releaseIndex}.
     */
    private final IdentityHashMap<DirectoryInode, Cut> cuts = new IdentityHashMap<>();

    /**
     * Names in the cut of each non-directory that has more than one (usually none), by inode
     * number: its link count in the fork. Every other non-directory has one name.
     */
    private final Map<Long, Integer> multi = new HashMap<>();

    /**
     * The fork's twin of each inode of {@link #multi}, made once by whichever name is built first.
     */
    private final ConcurrentHashMap<Long, Inode> linked = new ConcurrentHashMap<>();

    /** Inode slots the copy takes in the fork: one per name, as the eager copy charged. */
    private long slots;

    /** Bytes of data and symlink targets of the distinct inodes, charged to the fork at once. */
    private long bytes;

    /** The root's cut, set by {@link #capture}, until {@link #releaseIndex}. */
    private Cut rootCut;

    /** The fork's superblock, set once by {@link #buildInto} before anything can build. */
    private Superblock target;

    /**
     * One directory as the cut took it: its snapshot, its attributes, and what each entry needs to
     * be made in the fork, in the snapshot's cookie order. Immutable once {@link #capture} returned
     * (its arrays are filled before the fork's namespace is published, never after).
     */
    static final class Cut {
        final TreeFork fork;
        final DirectoryInode source;
        final DirSnapshot snap;

        /** Its name in the parent whose entry the fork keeps, or {@code null} for the root. */
        final String name;

        /**
         * The cut of its parent, or {@code null} for the root, for {@link #twinOf} while the fork
         * attaches its mounts; cleared by {@link #releaseIndex} (plain, on the forking thread, the
         * only reader), so an unbuilt directory keeps only its own subtree's cuts reachable.
         */
        Cut parent;

        InodeAttrs attrs;

        /** Per entry: a {@link Cut} (a directory), {@link InodeAttrs} (else), or null (dropped). */
        final Object[] taken;

        /** Per entry: a regular file's data version at the cut, or null; null if none has one. */
        FileData[] data;

        /**
         * Directory entries kept (not dead, not bound twice): the twin's link count is 2 + this.
         */
        int subdirs;

        Cut(TreeFork fork, DirectoryInode source, DirSnapshot snap, Cut parent, String name) {
            this.fork = fork;
            this.source = source;
            this.snap = snap;
            this.parent = parent;
            this.name = name;
            this.taken = new Object[snap.size()];
        }

        /**
         * Makes the snapshot of {@code twin} (this directory's twin in the fork, unbuilt) from the
         * cut: a twin of each entry (a new unbuilt directory, or a file, symlink or special inode
         * holding the cut's attributes and data), in a snapshot of the same names, cookies and
         * shape ({@link DirSnapshot#twinnedInOrder}). Called by {@link
         * DirectoryInode#snapshotAcquire()} on whatever thread first reads the twin; may run on
         * several at once (see the class comment). O(entries); copies no page.
         */
        DirSnapshot build(DirectoryInode twin) {
            Dentry[] entries = snap.entryArray();
            Inode[] twins = new Inode[entries.length];
            for (int i = 0; i < entries.length; i++) {
                Object t = taken[i];
                if (t instanceof Cut c) {
                    twins[i] = c.unbuiltTwin(twin);
                } else if (t instanceof InodeAttrs a) {
                    twins[i] = fork.twinOf(entries[i], a, data == null ? null : data[i], twin);
                } // else a directory dead at the cut, or bound twice: left out
            }
            return snap.twinnedInOrder(twins);
        }

        /** A new twin of this directory under {@code parentTwin}, unbuilt. */
        private DirectoryInode unbuiltTwin(DirectoryInode parentTwin) {
            Superblock sb = fork.target;
            DirectoryInode copy =
                    (DirectoryInode)
                            sb.sop()
                                    .newInode(
                                            sb,
                                            source.ino(),
                                            withNlink(attrs, 2L + subdirs),
                                            parentTwin,
                                            name,
                                            null);
            copy.startUnbuilt(this);
            return copy;
        }
    }

    private TreeFork(Superblock source) {
        this.source = source;
    }

    /**
     * Takes a cut of every directory and file reachable from {@code source}'s root. The caller
     * holds the source namespace's publication gate closed and its rename and mount write locks
     * (see the class comment); this method takes and releases the write lock of every regular file,
     * never waits for a message, and allocates O(names) of bookkeeping (two references a name).
     *
     * @param source the superblock to copy
     * @return the cut, to {@link #buildInto} a new superblock after the caller released the source
     */
    public static TreeFork capture(Superblock source) {
        TreeFork f = new TreeFork(source);
        // Under the freeze only what a writer could change after it: the snapshots, and each
        // file's data and attributes, into the cuts' arrays (a file with n names appears n times);
        // the link counts and charges are counted after the release, from what was taken.
        List<Cut> order = new ArrayList<>();
        List<Dentry[]> lists = new ArrayList<>();
        ArrayDeque<Cut> todo = new ArrayDeque<>();
        Cut root = new Cut(f, source.root(), source.root().snapshotAcquire(), null, null);
        f.rootCut = root;
        f.cuts.put(source.root(), root);
        todo.add(root);
        // One pass; no data change is in flight (they run inside the gate, which is closed).
        while (!todo.isEmpty()) {
            Cut c = todo.poll();
            Dentry[] entries = c.snap.entryArray();
            lists.add(entries);
            order.add(c);
            c.attrs = c.source.attrsAcquire();
            for (int i = 0; i < entries.length; i++) {
                Dentry e = entries[i];
                Inode child = e.inode();
                if (child instanceof DirectoryInode sub) {
                    if (!sub.isDead() && !f.cuts.containsKey(sub)) {
                        Cut s = new Cut(f, sub, sub.snapshotAcquire(), c, e.name());
                        f.cuts.put(sub, s);
                        c.taken[i] = s;
                        c.subdirs++;
                        todo.add(s);
                    }
                } else if (child instanceof RegularInode r) {
                    if (c.data == null) {
                        c.data = new FileData[entries.length];
                    }
                    c.data[i] = r.dataAtCut();
                    c.taken[i] = r.attrsAcquire();
                } else {
                    c.taken[i] = child.attrsAcquire();
                }
            }
        }
        f.count(order, lists);
        return f;
    }

    /**
     * After the release: the names of each non-directory that may have several, the inode slots and
     * the bytes the fork is charged. O(names), allocating only for the inodes whose link count at
     * the cut is above one.
     *
     * <p>Only those can have several names in the cut, because a link count is never below the
     * names a published snapshot gives its inode: {@code link} raises the count while it stages the
     * new entry, before its batch publishes it (inside the gate), and every removal ({@code
     * unlink}, a rename over the name, a batch whose publication failed) lowers it only after the
     * snapshot without the name is published. So a file whose count the cut read as 1 has one name
     * in the cut (the count is read after the snapshots that hold its names, and only drops for
     * names already gone from them), and needs no entry in a table of names.
     */
    private void count(List<Cut> order, List<Dentry[]> lists) {
        Map<Long, Integer> names = new HashMap<>();
        for (int k = 0; k < order.size(); k++) {
            Cut c = order.get(k);
            Dentry[] entries = lists.get(k);
            for (int i = 0; i < entries.length; i++) {
                Object t = c.taken[i];
                if (t == null) {
                    continue;
                }
                slots++;
                if (t instanceof InodeAttrs a
                        && (a.nlink() <= 1
                                || names.merge(entries[i].inode().ino(), 1, Integer::sum) == 1)) {
                    Inode child = entries[i].inode();
                    if (child instanceof SymlinkInode s) {
                        bytes += s.target().length();
                    } else if (c.data != null && c.data[i] != null) {
                        bytes += c.data[i].allocatedBytes();
                    }
                }
            }
        }
        names.forEach(
                (ino, count) -> {
                    if (count > 1) {
                        multi.put(ino, count);
                    }
                });
    }

    /**
     * Gives {@code target} (a new superblock of the same type, continuing the source's inode
     * numbers, that nothing has mounted or published yet) the cut as an unbuilt root: its
     * attributes now, its entries when first read. Charges {@code target} an inode slot per name
     * and the bytes of the data and symlink targets, at once. O(1) but for the charge.
     *
     * @param target the fork's superblock
     * @throws dev.seqvfs.protocol.VfsException {@code ENOSPC} if {@code target}'s limits or the
     *     JVM's tmpfs pool cannot hold the copy (nothing charged)
     */
    public void buildInto(Superblock target) {
        this.target = target;
        target.forks().inherit(slots + 1, bytes);
        target.chargeInodes(slots, Syscall.FORK);
        try {
            target.chargeBytes(bytes, Syscall.FORK);
        } catch (RuntimeException e) {
            target.unchargeInodes(slots);
            throw e;
        }
        Cut root = rootCut;
        DirectoryInode twin = target.root();
        InodeAttrs a = root.attrs;
        long nlink = 2L + root.subdirs;
        twin.updateDirAttrs(x -> withNlink(a, nlink));
        twin.startUnbuilt(root);
    }

    /**
     * {@return the fork's twin of {@code dir}, a source directory the cut took (built along its
     * path from the root), or {@code null} if the cut did not take it} For the mounts on it. Call
     * after {@link #buildInto}.
     *
     * @param dir a directory of the source
     */
    public DirectoryInode twinOf(DirectoryInode dir) {
        Cut c = cuts.get(dir);
        return c == null ? null : twinOf(c);
    }

    /**
     * Drops what only {@link #twinOf} needs (the index of every directory's cut and each cut's link
     * to its parent), once the fork's mounts are attached: from then on an unbuilt directory keeps
     * only its own subtree of the cut (and the source's objects it names) reachable, not the whole
     * tree. Call once, on the forking thread, after the last {@link #twinOf}.
     */
    public void releaseIndex() {
        for (Cut c : cuts.values()) {
            c.parent = null;
        }
        cuts.clear();
        rootCut = null;
    }

    private DirectoryInode twinOf(Cut c) {
        if (c == rootCut) {
            return target.root();
        }
        Dentry e = twinOf(c.parent).snapshotAcquire().lookup(c.name);
        return e == null ? null : (DirectoryInode) e.inode();
    }

    /** The twin of a non-directory entry: a new inode, or the one twin of a file with names. */
    private Inode twinOf(Dentry e, InodeAttrs a, FileData d, DirectoryInode parent) {
        Inode child = e.inode();
        Integer names = multi.get(child.ino());
        if (names == null) {
            return copyOf(child, withNlink(a, 1), d, parent, e.name());
        }
        return linked.computeIfAbsent(
                child.ino(), ino -> copyOf(child, withNlink(a, names), d, parent, e.name()));
    }

    private Inode copyOf(
            Inode child, InodeAttrs a, FileData d, DirectoryInode parent, String name) {
        String linkTarget = child instanceof SymlinkInode s ? s.target() : null;
        Inode copy = target.sop().newInode(target, child.ino(), a, parent, name, linkTarget);
        if (d != null && copy instanceof RegularInode dst) {
            dst.adoptForkedData(d);
        }
        return copy;
    }

    /**
     * {@return {@code a} with link count {@code nlink}: {@code a} itself (immutable) if it has it}
     */
    private static InodeAttrs withNlink(InodeAttrs a, long nlink) {
        return a.withNlink(nlink, a.ctime());
    }
}
