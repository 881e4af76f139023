package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.file.FileData;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Syscall;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The copy of one superblock's tree for {@code SeqVfs.fork()}: {@link #capture} takes a cut of the
 * source, {@link #buildInto} makes the fork's inodes and directories from it.
 *
 * <h2>Concurrency</h2>
 *
 * <ul>
 *   <li>{@link #capture} runs while the caller holds the source namespace's publication gate closed
 *       and its rename and mount write locks: no directory publishes, no rename moves an entry, no
 *       mount changes. It reads each directory's snapshot (acquire), then takes the write lock of
 *       every regular file it found, all at once, and only then reads each file's data ({@link
 *       RegularInode#shareForFork}, which marks its pages shared) and every inode's attributes
 *       (acquire), and releases the locks. So no write is half done in what it took, and the cut is
 *       one instant: every directory publication, rename, mount change, path-based attribute change
 *       (they run inside the gate) and data write (under the file's lock) is wholly before it or
 *       wholly after. Lock order: gate, rename, mount, the files' write locks (whose other holders,
 *       the files' writers, take nothing while they hold them).
 *   <li>{@link #buildInto} runs after the source is released: everything it reads is immutable
 *       (snapshots, attributes, data versions whose pages the source no longer writes in place,
 *       symlink targets). The inodes it makes are published to other threads only when the fork's
 *       namespace is (a release store), so it stores plainly or with release.
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

    /** Directories in breadth-first order, parents first, with their snapshot at the cut. */
    private final List<DirectoryInode> dirs = new ArrayList<>();

    private final IdentityHashMap<DirectoryInode, DirSnapshot> snapshots = new IdentityHashMap<>();

    /** Names per non-directory in the cut: its link count in the fork. */
    private final IdentityHashMap<Inode, Integer> names = new IdentityHashMap<>();

    private final IdentityHashMap<Inode, InodeAttrs> attrs = new IdentityHashMap<>();
    private final IdentityHashMap<RegularInode, FileData> data = new IdentityHashMap<>();

    /** Source inode to its copy, filled by {@link #buildInto}. */
    private final IdentityHashMap<Inode, Inode> copies = new IdentityHashMap<>();

    private TreeFork(Superblock source) {
        this.source = source;
    }

    /**
     * Takes a cut of every directory and file reachable from {@code source}'s root. The caller
     * holds the source namespace's publication gate closed and its rename and mount write locks
     * (see the class comment); this method takes and releases the write lock of every regular file,
     * never waits for a message, and allocates O(inodes) of bookkeeping.
     *
     * @param source the superblock to copy
     * @return the cut, to {@link #buildInto} a new superblock after the caller released the source
     */
    public static TreeFork capture(Superblock source) {
        TreeFork f = new TreeFork(source);
        // Under the freeze only what a writer could change after it: the snapshots, and each
        // file's data and attributes, into flat lists (a file with n names appears n times); the
        // maps are built after the release, from what was taken.
        List<Inode> others = new ArrayList<>();
        ArrayDeque<DirectoryInode> todo = new ArrayDeque<>();
        todo.add(source.root());
        while (!todo.isEmpty()) {
            DirectoryInode d = todo.poll();
            DirSnapshot snap = d.snapshotAcquire();
            f.dirs.add(d);
            f.snapshots.put(d, snap);
            for (Dentry e : snap.entries()) {
                Inode child = e.inode();
                if (child instanceof DirectoryInode sub) {
                    if (!sub.isDead() && !f.snapshots.containsKey(sub)) {
                        todo.add(sub);
                        f.snapshots.put(sub, DirSnapshot.empty()); // reserved; replaced when taken
                    }
                } else {
                    others.add(child);
                }
            }
        }
        int n = others.size();
        FileData[] datas = new FileData[n];
        InodeAttrs[] taken = new InodeAttrs[n];
        InodeAttrs[] dirAttrs = new InodeAttrs[f.dirs.size()];
        int locked = 0;
        try {
            // Lock and take in one pass, unlock only after the last: each file taken stays locked
            // until then, so when the last lock is taken every file still is as it was taken.
            for (; locked < n; locked++) {
                Inode o = others.get(locked);
                if (o instanceof RegularInode r) {
                    r.writeLock().lock();
                    datas[locked] = r.shareForFork();
                }
                taken[locked] = o.attrsAcquire();
            }
            for (int i = 0; i < dirAttrs.length; i++) {
                dirAttrs[i] = f.dirs.get(i).attrsAcquire();
            }
        } finally {
            for (int i = 0; i < locked; i++) {
                if (others.get(i) instanceof RegularInode r) {
                    r.writeLock().unlock();
                }
            }
        }
        return f.index(others, datas, taken, dirAttrs);
    }

    /** After the release: the maps {@link #buildInto} reads, from the lists the cut took. */
    private TreeFork index(
            List<Inode> others, FileData[] datas, InodeAttrs[] taken, InodeAttrs[] dirAttrs) {
        for (int i = 0; i < dirAttrs.length; i++) {
            attrs.put(dirs.get(i), dirAttrs[i]);
        }
        for (int i = 0; i < datas.length; i++) {
            Inode o = others.get(i);
            Integer names = this.names.get(o);
            this.names.put(o, names == null ? 1 : names + 1);
            if (names == null) {
                attrs.put(o, taken[i]);
                if (datas[i] != null) {
                    data.put((RegularInode) o, datas[i]);
                }
            }
        }
        return this;
    }

    /**
     * Makes in {@code target} (a new superblock of the same type, continuing the source's inode
     * numbers, that nothing has mounted yet) a copy of the cut: every inode gets a twin with the
     * same number and attributes (link counts recomputed), each regular file's twin shares its data
     * version page by page ({@link RegularInode#adoptForkedData}), each directory gets a snapshot
     * of the twins (the same names and readdir cookies, built in the source's shape). Charges
     * {@code target} an inode slot per name and the bytes of the data and symlink targets.
     * O(inodes) time; no page is copied.
     *
     * @param target the fork's superblock
     * @return the twin of each source directory, for the mounts on them
     * @throws dev.seqvfs.protocol.VfsException {@code ENOSPC} if {@code target}'s limits or the
     *     JVM's tmpfs pool cannot hold the copy (what was charged stays with {@code target}, which
     *     the caller discards)
     */
    public Map<DirectoryInode, DirectoryInode> buildInto(Superblock target) {
        IdentityHashMap<DirectoryInode, DirectoryInode> twins = new IdentityHashMap<>();
        DirectoryInode root = target.root();
        twins.put(source.root(), root);
        for (DirectoryInode d : dirs) {
            DirectoryInode twin = twins.get(d);
            DirSnapshot next =
                    snapshots
                            .get(d)
                            .twinned(
                                    e -> {
                                        Inode child = e.inode();
                                        if (child instanceof DirectoryInode sub) {
                                            if (!snapshots.containsKey(sub)
                                                    || twins.containsKey(sub)) {
                                                return null; // dead at the cut, or bound twice
                                            }
                                            target.chargeInode(Syscall.FORK);
                                            DirectoryInode copy =
                                                    (DirectoryInode)
                                                            target.sop()
                                                                    .newInode(
                                                                            target,
                                                                            sub.ino(),
                                                                            withNlink(
                                                                                    attrs.get(sub),
                                                                                    2),
                                                                            twin,
                                                                            e.name(),
                                                                            null);
                                            twins.put(sub, copy);
                                            return copy;
                                        }
                                        target.chargeInode(Syscall.FORK);
                                        Inode copy = copies.get(child);
                                        if (copy == null) {
                                            copy = copyOf(child, target, twin, e.name());
                                            copies.put(child, copy);
                                        }
                                        return copy;
                                    });
            if (!twin.casSnapshot(DirSnapshot.empty(), next)) {
                throw new IllegalStateException("fork of " + d + ": its twin was published");
            }
            InodeAttrs a = attrs.get(d);
            long nlink = 2L + next.subdirs();
            twin.updateDirAttrs(x -> withNlink(a, nlink));
        }
        return twins;
    }

    private Inode copyOf(Inode child, Superblock target, DirectoryInode parent, String name) {
        InodeAttrs a = withNlink(attrs.get(child), names.get(child));
        String linkTarget = child instanceof SymlinkInode s ? s.target() : null;
        if (linkTarget != null) {
            target.chargeBytes(linkTarget.length(), Syscall.FORK);
        }
        Inode copy = target.sop().newInode(target, child.ino(), a, parent, name, linkTarget);
        if (child.type() == FileType.REGULAR
                && child instanceof RegularInode src
                && copy instanceof RegularInode dst) {
            FileData d = data.get(src);
            target.chargeBytes(d.allocatedBytes(), Syscall.FORK);
            dst.adoptForkedData(d);
        }
        return copy;
    }

    private static InodeAttrs withNlink(InodeAttrs a, long nlink) {
        return new InodeAttrs(
                a.mode(),
                nlink,
                a.uid(),
                a.gid(),
                a.rdev(),
                a.size(),
                a.blocks(),
                a.atime(),
                a.mtime(),
                a.ctime(),
                a.xattrs());
    }
}
