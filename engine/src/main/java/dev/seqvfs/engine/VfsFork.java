package dev.seqvfs.engine;

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
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link SeqVfs#fork()}'s two halves: {@link #capture} takes a cut of a whole instance (its mount
 * table and a {@link TreeFork} of every superblock whose names are stored), {@link
 * #buildSuperblocks} and {@link #attachMounts} make the fork's superblocks (each with an unbuilt
 * root: its directories are built on their first read in the fork) and mounts from it.
 *
 * <h2>Concurrency</h2>
 *
 * {@link #capture} closes the source's publication gate, then takes its rename write lock, then its
 * mount write lock (the lock order of {@link NamespaceLocks}), cuts every superblock, and releases
 * them in reverse order; holding them it waits for no message (a file's writer, whose lock the cut
 * takes, waits for nothing either). Directory writers, renames and mount changes wait at the gate
 * meanwhile; readers never wait. {@link #buildSuperblocks} and {@link #attachMounts} touch only the
 * cut (immutable once taken) and the fork's own new objects, on the forking thread, before the fork
 * is returned; the fork's directories are built later, on any of its threads ({@link TreeFork}).
 */
final class VfsFork {
    private final MountTable table;
    private final IdentityHashMap<Superblock, TreeFork> cuts;

    private VfsFork(MountTable table, IdentityHashMap<Superblock, TreeFork> cuts) {
        this.table = table;
        this.cuts = cuts;
    }

    /**
     * Whether the fork copies a superblock of {@code type}: one whose names are stored (tmpfs).
     * Computed types (procfs) are mounted afresh in the fork; durable types have no fork.
     */
    static boolean copies(FileSystemType type) {
        return (type.flags() & (FileSystemType.FS_VIRTUAL | FileSystemType.FS_DURABLE)) == 0;
    }

    /**
     * Takes one cut of {@code source}: its mount table and every copied superblock, at one instant
     * (see the class comment). Blocks directory writers for O(inodes) work; never waits for a
     * message.
     *
     * @throws VfsException {@code EINVAL} if a mounted type is durable (no fork of it exists)
     */
    static VfsFork capture(SeqVfs source) {
        NamespaceLocks locks = source.locks();
        IdentityHashMap<Superblock, TreeFork> cuts = new IdentityHashMap<>();
        MountTable table;
        locks.publish.close();
        try {
            long rename;
            while ((rename = locks.rename.tryWriteLock()) == 0) {
                Thread.onSpinWait();
            }
            try {
                long mount;
                while ((mount = locks.mount.tryWriteLock()) == 0) {
                    Thread.onSpinWait();
                }
                try {
                    table = source.namespace().mountTableAcquire();
                    for (VfsMount m : table.mounts()) {
                        Superblock sb = m.superblock();
                        if ((sb.type().flags() & FileSystemType.FS_DURABLE) != 0) {
                            throw new VfsException(Errno.EINVAL, Syscall.FORK, null);
                        }
                        if (copies(sb.type()) && !cuts.containsKey(sb)) {
                            cuts.put(sb, TreeFork.capture(sb));
                            // the files' next writes mark the versions taken shared
                            sb.forks().release(sb.forks().bump());
                        }
                    }
                } finally {
                    locks.mount.unlockWrite(mount);
                }
            } finally {
                locks.rename.unlockWrite(rename);
            }
        } finally {
            locks.publish.open();
        }
        return new VfsFork(table, cuts);
    }

    /** {@return the namespace root's superblock in the source} */
    Superblock rootSource() {
        return table.rootMount().superblock();
    }

    /** {@return whether the namespace root's superblock is copied (else it is mounted afresh)} */
    boolean copiesRoot() {
        return cuts.containsKey(rootSource());
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

    /** The fork's copy of each copied source superblock, with its twin of each directory. */
    private final IdentityHashMap<Superblock, Superblock> twinSbs = new IdentityHashMap<>();

    /**
     * Makes a fork of every copied superblock in {@code target}, with the cut as its unbuilt root
     * ({@link TreeFork#buildInto}), and starts it. Call once, after {@link #capture} released the
     * source. O(superblocks).
     *
     * @return the fork of the namespace root's superblock, or {@code null} if it is not copied
     * @throws VfsException {@code ENOSPC} if a copy does not fit its limits
     */
    Superblock buildSuperblocks(Target target) {
        for (Map.Entry<Superblock, TreeFork> e : cuts.entrySet()) {
            Superblock src = e.getKey();
            Superblock sb = target.newSuperblockLike(src);
            sb.continueNumbersOf(src);
            e.getValue().buildInto(sb);
            twinSbs.put(src, sb);
            target.start(sb);
        }
        return twinSbs.get(rootSource());
    }

    /**
     * Attaches, in {@code ns} (whose root mount is the fork of the source's), a twin of each of the
     * source's other mounts, parents first, with the same flags and source name. A mount whose
     * mountpoint or root has no twin (it is under a computed superblock) is left out, with its
     * children. Builds the fork's directories on the paths to the mountpoints. Then drops the cuts'
     * index ({@link TreeFork#releaseIndex}) and deactivates every copied superblock that no mount
     * holds.
     */
    void attachMounts(Namespace ns, Target target) {
        IdentityHashMap<VfsMount, VfsMount> twins = new IdentityHashMap<>();
        VfsMount root = ns.rootMount();
        VfsMount srcRoot = table.rootMount();
        twins.put(srcRoot, root);
        if (srcRoot.mountReadOnly() != root.mountReadOnly() || srcRoot.flags() != root.flags()) {
            ns.setMountFlags(root, srcRoot.mountReadOnly(), srcRoot.flags());
        }
        List<VfsMount> mounts = table.mounts();
        for (VfsMount m : mounts) {
            if (m == srcRoot) {
                continue;
            }
            VfsMount parent = twins.get(m.parent());
            TreeFork dirs = cuts.get(m.parent().superblock());
            DirectoryInode mountpoint = dirs == null ? null : dirs.twinOf(m.mountpoint());
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
                mroot = cuts.get(src).twinOf(m.root());
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
        for (TreeFork cut : cuts.values()) {
            cut.releaseIndex();
        }
        for (Superblock sb : twinSbs.values()) {
            sb.deactivateIfUnmounted();
        }
    }
}
