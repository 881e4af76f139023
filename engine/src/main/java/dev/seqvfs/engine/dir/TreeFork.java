package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.Syscall;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fork of one superblock's tree for {@code SeqVfs.fork()}: each of the fork's directories
 * starts as its source directory's snapshot at the fork's generation, shared, not copied, whose
 * entries the fork shows as its own twins of them, each made the first time anything in the fork
 * sees it ({@link DirSnapshot#forked}, {@link Twins}).
 *
 * <h2>What a fork keeps: nothing of the source's tree</h2>
 *
 * The fork took no cut of the tree: it bumped the source superblock's fork generation from {@code k
 * - 1} to {@code k} ({@code ForkGenerations.bump}, O(1)), and the source's writers keep, from then
 * on, the version of each directory snapshot, attribute set and file's data that they replace first
 * in generation {@code k} or later, for as long as the fork is open ({@link
 * dev.seqvfs.engine.inode.Versioned}). A twin is made from the source's versions at {@code k}: a
 * directory's snapshot ({@link DirectoryInode#snapshotAt}), an inode's attributes ({@link
 * Inode#attrsAt}); a file's data is read only at the first use of its twin ({@link
 * RegularInode#forkedFrom}, {@link RegularInode#dataAt}). So {@code fork()} makes the fork's root
 * and its view, the first look at a directory makes the directory's twin and view (O(1)), and the
 * first sight of an entry (a lookup that finds it, a listing that shows it) makes its twin: the
 * fork pays per entry it touches, never per entry of a directory it touches.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>A twin may be made by any thread of the fork, several at once for one entry (two walks
 *       through the same fresh directory): each makes its own from what it reads of the source
 *       (immutable versions: snapshots, attributes, symlink targets), and one {@link
 *       ConcurrentHashMap#putIfAbsent} on the directory's view decides which is the twin; the
 *       others are dropped (they have done nothing anyone can see). The map's insert orders the
 *       twin's making before every reader that finds it. It takes no lock of the source and changes
 *       nothing of it (a file's data is read later, under the source file's lock).
 *   <li>A file with several names at {@code k} gets one twin whichever name is seen first: made
 *       once by {@link ConcurrentHashMap#computeIfAbsent} on {@link #linked}.
 *   <li>A directory's view lives as long as its snapshots: every version the fork's writers make of
 *       it carries the view, so an entry it still shares is shown as the same twin whatever changed
 *       around it. A fork of the fork shows an entry through both views (its source's first, then
 *       its own).
 *   <li>{@link #target} and {@link #k} are final; a view's fields are final. Both reach other
 *       threads through the publication of the fork's namespace or of a snapshot.
 * </ul>
 *
 * <p>Link counts: a non-directory's is its count at {@code k}, which equals its names at {@code k}
 * (every change of a file's link count is made in the gate section of the publication that changed
 * its names, CONCURRENCY.md "Fork"). A directory's is {@code 2 +} the subdirectories of its
 * snapshot at {@code k} (a directory's own count is updated after its publication, outside the
 * gate, so the one read at {@code k} may be a step behind).
 */
public final class TreeFork {
    /** The fork's superblock. */
    private final Superblock target;

    /** The fork's generation in the source's superblock: it reads the versions below it. */
    private final long k;

    /** The twin of each source inode with several names at {@code k}, made at its first sight. */
    private final ConcurrentHashMap<Inode, Inode> linked = new ConcurrentHashMap<>();

    private TreeFork(Superblock target, long k) {
        this.target = target;
        this.k = k;
    }

    /**
     * A fork's view of the entries one of its directories shares with the source's: the twin of
     * each raw entry, made on first sight and kept here, so the fork sees one twin per entry.
     */
    static final class Twins implements DirSnapshot.Twins {
        private final TreeFork fork;

        /** The fork's directory: the parent of the twins. */
        private final DirectoryInode dir;

        /**
         * How the source's snapshot showed its entries (a fork of a fork: the source's own view),
         * or {@code null}.
         */
        private final DirSnapshot.Twins base;

        /** The twin shown for each raw entry seen so far. */
        private final ConcurrentHashMap<Dentry, Dentry> seen = new ConcurrentHashMap<>();

        Twins(TreeFork fork, DirectoryInode dir, DirSnapshot.Twins base) {
            this.fork = fork;
            this.dir = dir;
            this.base = base;
        }

        @Override
        public Dentry twinOf(Dentry d) {
            Dentry t = seen.get(d);
            if (t != null) {
                return t;
            }
            if (d.inode().owner() == fork.target) {
                return d; // the fork's own entry
            }
            Dentry src = base == null ? d : base.twinOf(d);
            Dentry made =
                    new Dentry(
                            src.name(),
                            fork.twinOf(src.inode(), dir, src.name()),
                            src.cookie(),
                            src.flags());
            Dentry won = seen.putIfAbsent(d, made);
            return won == null ? made : won;
        }
    }

    /**
     * Gives {@code target} (a new superblock of {@code source}'s type, continuing its inode
     * numbers, that nothing has mounted or published yet) a root that is the fork of {@code
     * source}'s root at generation {@code k}. Charges {@code target} the tree's inode slots and
     * bytes at the cut ({@code ForkGenerations}), at once, and starts its tree counts there. O(1).
     *
     * @param source the source superblock
     * @param k the fork's generation in it
     * @param slots the source's tree slots at the cut, the root included
     * @param bytes the source's tree bytes at the cut
     * @param target the fork's superblock
     * @return the fork of the tree
     * @throws dev.seqvfs.protocol.VfsException {@code ENOSPC} if {@code target}'s limits or the
     *     JVM's tmpfs pool cannot hold the copy (nothing charged)
     */
    public static TreeFork start(
            Superblock source, long k, long slots, long bytes, Superblock target) {
        // the root's slot is charged by the superblock itself
        target.chargeInodes(slots - 1, Syscall.FORK);
        try {
            target.chargeBytes(bytes, Syscall.FORK);
        } catch (RuntimeException e) {
            target.unchargeInodes(slots - 1);
            throw e;
        }
        target.forks().inherit(slots, bytes);
        TreeFork f = new TreeFork(target, k);
        DirectoryInode root = target.root();
        DirSnapshot s = source.root().snapshotAt(k);
        InodeAttrs a = withDirLinks(source.root().attrsAt(k), s);
        root.updateDirAttrs(x -> a);
        root.startForked(DirSnapshot.forked(s, new Twins(f, root, s.twins())));
        return f;
    }

    /**
     * {@return the fork's twin of the directory at {@code path} (names from the root, as they were
     * at the fork's generation), or {@code null} if a name is missing or not a directory} For the
     * mounts of the source on its directories.
     *
     * @param path the names from the superblock's root
     */
    public DirectoryInode twinAt(List<String> path) {
        DirectoryInode d = target.root();
        for (String name : path) {
            Dentry e = d.snapshotAcquire().lookup(name);
            if (e == null || !(e.inode() instanceof DirectoryInode sub)) {
                return null;
            }
            d = sub;
        }
        return d;
    }

    /**
     * The twin of source inode {@code child}, named {@code name} in the fork's directory {@code
     * parent}: a directory shown through a view of its own, a file whose data is read on first use,
     * a symlink, a special file; the one twin of a file with several names.
     */
    private Inode twinOf(Inode child, DirectoryInode parent, String name) {
        InodeAttrs a = child.attrsAt(k).withVersion(0, null);
        if (child instanceof DirectoryInode dir) {
            DirSnapshot s = dir.snapshotAt(k);
            DirectoryInode copy =
                    (DirectoryInode)
                            target.sop()
                                    .newInode(
                                            target,
                                            dir.ino(),
                                            withDirLinks(a, s),
                                            parent,
                                            name,
                                            null);
            copy.startForked(DirSnapshot.forked(s, new Twins(this, copy, s.twins())));
            return copy;
        }
        if (a.nlink() <= 1) {
            return copyOf(child, a, parent, name);
        }
        return linked.computeIfAbsent(child, c -> copyOf(c, a, parent, name));
    }

    private Inode copyOf(Inode child, InodeAttrs a, DirectoryInode parent, String name) {
        String linkTarget = child instanceof SymlinkInode s ? s.target() : null;
        Inode copy = target.sop().newInode(target, child.ino(), a, parent, name, linkTarget);
        if (copy instanceof RegularInode dst && child instanceof RegularInode src) {
            dst.forkedFrom(src, k, a.blocks() * 512);
        }
        return copy;
    }

    /**
     * {@return {@code a} (a directory's attributes at the fork's generation) with the link count of
     * {@code s}, its snapshot then: {@code 2 +} its subdirectories}
     */
    private static InodeAttrs withDirLinks(InodeAttrs a, DirSnapshot s) {
        long nlink = 2L + s.subdirs();
        return a.nlink() == nlink ? a : a.withNlink(nlink, a.ctime());
    }
}
