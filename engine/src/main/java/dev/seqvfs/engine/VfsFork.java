package dev.seqvfs.engine;

import dev.seqvfs.engine.dir.DirLink;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.TreeFork;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.mount.MountTable;
import dev.seqvfs.engine.mount.Namespace;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.sb.NamespaceLocks;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link SeqVfs#fork()}'s two halves: {@link #capture} takes the cut of a whole instance (its mount
 * table, and one bump of the fork generation of every superblock whose names are stored: O(1) per
 * superblock, nothing of the trees is read), {@link #buildSuperblocks} and {@link #attachMounts}
 * make the fork's superblocks (each with a root that is a view of the source's at the fork's
 * generation: each entry shows as the fork's twin made on its first sight, {@link TreeFork}) and
 * mounts from it.
 *
 * <h2>Concurrency</h2>
 *
 * {@link #capture} closes the source's publication gate (it waits for the writers inside: directory
 * batches, attribute changes, data writes, each a bounded number of stores), then takes its rename
 * write lock, then its mount write lock (the lock order of {@link NamespaceLocks}); holding them it
 * bumps each copied superblock's generation, reads its tree counts and inode-number mark, and the
 * path of every mountpoint, then releases them in reverse order. Nothing is read of the trees and
 * nothing waits for a message, so writers wait for O(superblocks + mounts × depth) stores, not for
 * the trees. {@link #buildSuperblocks} and {@link #attachMounts} touch only what the capture took
 * and the fork's own new objects, on the forking thread, before the fork is returned. The
 * generations the capture registered are released by {@link #release} when the fork (and every fork
 * of it) is closed.
 */
final class VfsFork {
    private final MountTable table;

    /** The copied superblocks at the cut, in the mount table's order. */
    private final IdentityHashMap<Superblock, Source> sources;

    /** Per mount (but the root mount): its mountpoint's and its root's path at the cut. */
    private final IdentityHashMap<VfsMount, Paths> paths;

    /** One copied superblock at the cut. */
    private record Source(long k, long slots, long bytes) {}

    /** Names from its superblock's root of a mount's mountpoint and of the mount's root. */
    private record Paths(List<String> mountpoint, List<String> root) {}

    private VfsFork(
            MountTable table,
            IdentityHashMap<Superblock, Source> sources,
            IdentityHashMap<VfsMount, Paths> paths) {
        this.table = table;
        this.sources = sources;
        this.paths = paths;
    }

    /**
     * Whether the fork copies a superblock of {@code type}: one whose names are stored (tmpfs).
     * Computed types (procfs) are mounted afresh in the fork; durable types have no fork.
     */
    static boolean copies(FileSystemType type) {
        return (type.flags() & (FileSystemType.FS_VIRTUAL | FileSystemType.FS_DURABLE)) == 0;
    }

    /**
     * Takes the cut of {@code source}: its mount table, and a bump of every copied superblock's
     * fork generation, at one instant (see the class comment). Writers wait for O(superblocks +
     * mounts × depth) work; it never waits for a message. Release what it registered with {@link
     * #release} once the fork is closed (or failed to start).
     *
     * @throws VfsException {@code EINVAL} if a mounted type is durable (no fork of it exists);
     *     nothing registered then
     */
    static VfsFork capture(SeqVfs source) {
        NamespaceLocks locks = source.locks();
        IdentityHashMap<Superblock, Source> sources = new IdentityHashMap<>();
        IdentityHashMap<VfsMount, Paths> paths = new IdentityHashMap<>();
        MountTable table;
        long rename = locks.closeForRename();
        try {
            long mount;
            while ((mount = locks.mount.tryWriteLock()) == 0) {
                Thread.onSpinWait();
            }
            try {
                table = source.namespace().mountTableAcquire();
                for (VfsMount m : table.mounts()) {
                    if ((m.superblock().type().flags() & FileSystemType.FS_DURABLE) != 0) {
                        throw new VfsException(Errno.EINVAL, Syscall.FORK, null);
                    }
                }
                for (VfsMount m : table.mounts()) {
                    Superblock sb = m.superblock();
                    if (copies(sb.type()) && !sources.containsKey(sb)) {
                        long k = sb.forks().bump();
                        sources.put(
                                sb, new Source(k, sb.forks().treeSlots(), sb.forks().treeBytes()));
                    }
                    if (m != table.rootMount()) {
                        paths.put(m, new Paths(pathOf(m.mountpoint()), pathOf(m.root())));
                    }
                }
            } finally {
                locks.mount.unlockWrite(mount);
            }
        } finally {
            locks.reopenAfterRename(rename);
        }
        return new VfsFork(table, sources, paths);
    }

    /**
     * {@return the names from its superblock's root to {@code dir}} The caller holds the rename
     * write lock, so no link moves meanwhile. O(depth).
     */
    private static List<String> pathOf(DirectoryInode dir) {
        List<String> names = new ArrayList<>();
        for (DirLink l = dir.linkAcquire(); l != null; l = l.parent().linkAcquire()) {
            names.add(l.name());
        }
        Collections.reverse(names);
        return names;
    }

    /**
     * Releases the fork generations {@link #capture} registered: the source's writers stop keeping
     * the versions this fork would read. Call once, when the fork and every fork of it is closed,
     * or when the fork failed to start.
     */
    void release() {
        for (Map.Entry<Superblock, Source> e : sources.entrySet()) {
            e.getKey().forks().release(e.getValue().k());
        }
    }

    /** {@return the namespace root's superblock in the source} */
    Superblock rootSource() {
        return table.rootMount().superblock();
    }

    /** {@return whether the namespace root's superblock is copied (else it is mounted afresh)} */
    boolean copiesRoot() {
        return sources.containsKey(rootSource());
    }

    /** The fork's side, as {@link SeqVfs} makes it: new superblocks, started, and mounts. */
    interface Target {
        /**
         * Makes a superblock like {@code src} (same device number, type, operations and limits),
         * registered with the instance, not yet started or mounted.
         */
        Superblock newSuperblockLike(Superblock src);

        /** Starts {@code sb}'s actor (a message to the guardian; waits for it). */
        void start(Superblock sb);

        /** Mounts a new superblock of {@code type}, made by the type with no options, started. */
        Superblock mountFresh(FileSystemType type, String source);
    }

    /** The fork's copy of each copied source superblock, and of its tree. */
    private final IdentityHashMap<Superblock, Superblock> twinSbs = new IdentityHashMap<>();

    private final IdentityHashMap<Superblock, TreeFork> trees = new IdentityHashMap<>();

    /**
     * Makes a fork of every copied superblock in {@code target}, with its root a view of the
     * source's ({@link TreeFork#start}), and starts it. Call once, after {@link #capture} released
     * the source. O(superblocks).
     *
     * @return the fork of the namespace root's superblock, or {@code null} if it is not copied
     * @throws VfsException {@code ENOSPC} if a copy does not fit its limits
     */
    Superblock buildSuperblocks(Target target) {
        for (Map.Entry<Superblock, Source> e : sources.entrySet()) {
            Superblock src = e.getKey();
            Source s = e.getValue();
            Superblock sb = target.newSuperblockLike(src);
            sb.continueNumbersOf(src);
            trees.put(src, TreeFork.start(src, s.k(), s.slots(), s.bytes(), sb));
            twinSbs.put(src, sb);
            target.start(sb);
        }
        return twinSbs.get(rootSource());
    }

    /**
     * Attaches, in {@code ns} (whose root mount is the fork of the source's), a twin of each of the
     * source's other mounts, parents first, with the same flags and source name. A mount whose
     * mountpoint or root has no twin (it is under a computed superblock) is left out, with its
     * children. Builds the fork's directories on the paths to the mountpoints. Then deactivates
     * every copied superblock that no mount holds.
     */
    void attachMounts(Namespace ns, Target target) {
        IdentityHashMap<VfsMount, VfsMount> twins = new IdentityHashMap<>();
        VfsMount root = ns.rootMount();
        VfsMount srcRoot = table.rootMount();
        twins.put(srcRoot, root);
        if (srcRoot.mountReadOnly() != root.mountReadOnly() || srcRoot.flags() != root.flags()) {
            ns.setMountFlags(root, srcRoot.mountReadOnly(), srcRoot.flags());
        }
        for (VfsMount m : table.mounts()) {
            if (m == srcRoot) {
                continue;
            }
            VfsMount parent = twins.get(m.parent());
            TreeFork dirs = trees.get(m.parent().superblock());
            Paths p = paths.get(m);
            DirectoryInode mountpoint = dirs == null ? null : dirs.twinAt(p.mountpoint());
            if (parent == null || mountpoint == null) {
                continue;
            }
            Superblock src = m.superblock();
            Superblock sb = twinSbs.get(src);
            DirectoryInode mroot;
            if (sb == null) {
                sb = target.mountFresh(src.type(), m.source());
                mroot = sb.root();
            } else {
                mroot = trees.get(src).twinAt(p.root());
                if (mroot == null) {
                    continue;
                }
            }
            twins.put(
                    m,
                    ns.attach(
                            parent,
                            mountpoint,
                            sb,
                            mroot,
                            m.mountReadOnly(),
                            m.flags(),
                            m.source().equals("none") ? null : m.source()));
        }
        for (Superblock sb : twinSbs.values()) {
            sb.deactivateIfUnmounted();
        }
    }
}
