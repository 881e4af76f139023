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
 * The fork of one superblock's tree for {@code SeqVfs.fork()}: the fork's superblock starts with an
 * <em>unbuilt</em> root, and each of its directories is made, with the copies ("twins") of its
 * entries, the first time anything reads it in the fork ({@link DirectoryInode#snapshotAcquire()}),
 * from the source's state at the fork's generation.
 *
 * <h2>What a fork keeps: nothing of the source's tree</h2>
 *
 * The fork took no cut of the tree: it bumped the source superblock's fork generation from {@code k
 * - 1} to {@code k} ({@code ForkGenerations.bump}, O(1)), and the source's writers keep, from then
 * on, the version of each directory snapshot, attribute set and file's data that they replace first
 * in generation {@code k} or later, for as long as the fork is open ({@link
 * dev.seqvfs.engine.inode.Versioned}). So the fork holds this object, its root's {@link Cut} and
 * the source's objects it names; a directory's build reads the source's snapshot at {@code k}
 * ({@link DirectoryInode#snapshotAt}) and, per entry, the attributes at {@code k} ({@link
 * Inode#attrsAt}); a file's data is read only at the first use of its twin ({@link
 * RegularInode#forkedFrom}, {@link RegularInode#dataAt}).
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>A build may run on any thread of the fork, several at once on one directory: each makes its
 *       own snapshot and twins from what it reads of the source (immutable versions: snapshots,
 *       attributes, symlink targets) and publishes by one CAS of the directory's snapshot ({@link
 *       DirectoryInode#snapshotAcquire()}); a loser drops what it made. It takes no lock and
 *       changes nothing of the source (a file's data is read later, under the source file's lock).
 *   <li>A file with several names at {@code k} gets one twin whichever name is built first: made
 *       once by {@link ConcurrentHashMap#computeIfAbsent} on {@link #linked}, which orders it
 *       before every other builder that finds it there; the winning snapshot CAS (release)
 *       publishes the twins it holds.
 *   <li>{@link #target} and {@link #k} are final; a {@link Cut} is immutable. Both reach other
 *       threads through the publication of the fork's namespace or of a built snapshot.
 * </ul>
 *
 * <p>Link counts: a non-directory's is its count at {@code k}, which equals its names at {@code k}
 * (every change of a file's link count is made in the gate section of the publication that changed
 * its names, CONCURRENCY.md "Fork"). A directory's starts as its count at {@code k}, and its build
 * adds the difference to {@code 2 +} its subdirectories (a directory's own count is updated after
 * its publication, outside the gate, so the one read at {@code k} may be a step behind), as a
 * delta, since its actor may change it by then.
 */
public final class TreeFork {
    /** The fork's superblock. */
    private final Superblock target;

    /** The fork's generation in the source's superblock: it reads the versions below it. */
    private final long k;

    /** The twin of each source inode with several names at {@code k}, made by its first build. */
    private final ConcurrentHashMap<Inode, Inode> linked = new ConcurrentHashMap<>();

    private TreeFork(Superblock target, long k) {
        this.target = target;
        this.k = k;
    }

    /**
     * What an unbuilt directory of a fork is built from: the source directory, read at the fork's
     * generation. Immutable.
     */
    static final class Cut {
        final TreeFork fork;
        final DirectoryInode source;

        /**
         * The link count the twin was made with (the source's at the fork's generation): its build
         * adds the difference to {@code 2 +} its subdirectories ({@link DirectoryInode}).
         */
        final long nlink;

        Cut(TreeFork fork, DirectoryInode source, long nlink) {
            this.fork = fork;
            this.source = source;
            this.nlink = nlink;
        }

        /**
         * Makes the snapshot of {@code twin} (this directory's twin in the fork, unbuilt): the
         * source's snapshot at the fork's generation with each entry bound to its twin (a new
         * unbuilt directory, or a file, symlink or special inode holding the entry's attributes at
         * that generation and, for a file, reading its data from the source on first use), in a
         * snapshot of the same names, cookies and shape ({@link DirSnapshot#twinnedInOrder}).
         * Called by {@link DirectoryInode#snapshotAcquire()} on whatever thread first reads the
         * twin; may run on several at once (see the class comment). O(entries); copies no page and
         * takes no lock.
         */
        DirSnapshot build(DirectoryInode twin) {
            long k = fork.k;
            DirSnapshot snap = source.snapshotAt(k);
            Dentry[] entries = snap.entryArray();
            Inode[] twins = new Inode[entries.length];
            for (int i = 0; i < entries.length; i++) {
                Dentry e = entries[i];
                Inode child = e.inode();
                InodeAttrs a = child.attrsAt(k).withVersion(0, null);
                twins[i] =
                        child instanceof DirectoryInode sub
                                ? fork.unbuiltTwin(sub, a, twin, e.name())
                                : fork.twinOf(child, a, twin, e.name());
            }
            return snap.twinnedInOrder(twins);
        }
    }

    /**
     * Gives {@code target} (a new superblock of {@code source}'s type, continuing its inode
     * numbers, that nothing has mounted or published yet) an unbuilt root: the fork of {@code
     * source}'s tree at generation {@code k}. Charges {@code target} the tree's inode slots and
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
        InodeAttrs a = source.root().attrsAt(k).withVersion(0, null);
        root.updateDirAttrs(x -> a);
        root.startUnbuilt(new Cut(f, source.root(), a.nlink()));
        return f;
    }

    /**
     * {@return the fork's twin of the directory at {@code path} (names from the root, as they were
     * at the fork's generation), built along the way, or {@code null} if a name is missing or not a
     * directory} For the mounts of the source on its directories.
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

    /** A new twin of source directory {@code dir}, unbuilt, under {@code parentTwin}. */
    private DirectoryInode unbuiltTwin(
            DirectoryInode dir, InodeAttrs a, DirectoryInode parentTwin, String name) {
        DirectoryInode copy =
                (DirectoryInode)
                        target.sop().newInode(target, dir.ino(), a, parentTwin, name, null);
        copy.startUnbuilt(new Cut(this, dir, a.nlink()));
        return copy;
    }

    /** The twin of a non-directory entry: a new inode, or the one twin of a file with names. */
    private Inode twinOf(Inode child, InodeAttrs a, DirectoryInode parent, String name) {
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
}
