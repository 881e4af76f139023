package dev.seqvfs.engine.mount;

import dev.seqvfs.engine.dir.DirectoryInode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One immutable version of a namespace's mounts: for each (parent mount, mountpoint) the mount
 * attached there, and every mount in mount order. Replaced whole by the namespace inside the mount
 * write lock; read by walks with acquire, only when they reach a directory whose mount count is
 * non-zero.
 */
public final class MountTable {
    private record Key(VfsMount parent, DirectoryInode mountpoint) {}

    private final VfsMount rootMount;
    private final Map<Key, VfsMount> children;
    private final List<VfsMount> mounts;

    private MountTable(VfsMount rootMount, Map<Key, VfsMount> children, List<VfsMount> mounts) {
        this.rootMount = rootMount;
        this.children = children;
        this.mounts = mounts;
    }

    /**
     * {@return a table holding only the namespace root mount}
     *
     * @param rootMount the namespace root mount
     */
    public static MountTable of(VfsMount rootMount) {
        return new MountTable(rootMount, Map.of(), List.of(rootMount));
    }

    /** {@return the namespace root mount} */
    public VfsMount rootMount() {
        return rootMount;
    }

    /**
     * {@return the mount attached at {@code mountpoint} of {@code parent}, or {@code null}}
     * Allocates one small key; called only at directories marked as mountpoints.
     *
     * @param parent the parent mount
     * @param mountpoint a directory of {@code parent}
     */
    public VfsMount childAt(VfsMount parent, DirectoryInode mountpoint) {
        return children.get(new Key(parent, mountpoint));
    }

    /** {@return every mount, parents before children (the order of {@code /proc/mounts})} */
    public List<VfsMount> mounts() {
        return mounts;
    }

    /**
     * {@return the mounts whose parent is {@code m}}
     *
     * @param m the parent mount
     */
    public List<VfsMount> childrenOf(VfsMount m) {
        List<VfsMount> out = new ArrayList<>();
        for (VfsMount c : mounts) {
            if (c.parent() == m) {
                out.add(c);
            }
        }
        return out;
    }

    /**
     * {@return a table with {@code m} attached at its mountpoint}
     *
     * @param m the mount to attach
     */
    public MountTable with(VfsMount m) {
        Map<Key, VfsMount> c = new HashMap<>(children);
        c.put(new Key(m.parent(), m.mountpoint()), m);
        List<VfsMount> l = new ArrayList<>(mounts);
        l.add(m);
        return new MountTable(
                rootMount, Collections.unmodifiableMap(c), Collections.unmodifiableList(l));
    }

    /**
     * {@return a table without {@code m} (which must have no children)}
     *
     * @param m the mount to remove
     */
    public MountTable without(VfsMount m) {
        Map<Key, VfsMount> c = new HashMap<>(children);
        c.remove(new Key(m.parent(), m.mountpoint()));
        List<VfsMount> l = new ArrayList<>(mounts);
        l.remove(m);
        return new MountTable(
                rootMount, Collections.unmodifiableMap(c), Collections.unmodifiableList(l));
    }
}
