package dev.seqvfs.engine.anon;

import dev.seqvfs.engine.dir.Dentry;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The old layout of seed 000, kept to measure against: every anonymous dentry is a child of one
 * shared pseudo-root whose reference count and child list every create and every close update under
 * one lock (the {@code dcache_lock} / {@code d_alloc(root)} / {@code atomic_dec_and_lock} path of
 * 2008). Used only when {@code seqvfs.anon.shared-root = on}.
 *
 * <p>Thread-safe: guarded by its own monitor, on purpose.
 */
final class PseudoRoot {
    private final Set<Dentry> children = new LinkedHashSet<>();
    private long refcount = 1;

    /** Attaches a child: one more reference on the root, one more entry in its list. */
    synchronized void attach(Dentry d) {
        refcount++;
        children.add(d);
    }

    /** Detaches a child when its inode dies. */
    synchronized void detach(Dentry d) {
        if (children.remove(d)) {
            refcount--;
        }
    }

    /** Returns the number of children. */
    synchronized int size() {
        return children.size();
    }

    /** Returns the root's reference count (1 + children). */
    synchronized long refcount() {
        return refcount;
    }
}
