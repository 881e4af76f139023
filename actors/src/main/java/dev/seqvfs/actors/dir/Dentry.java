package dev.seqvfs.actors.dir;

import dev.seqvfs.actors.inode.Inode;

/**
 * A directory entry ({@code struct dentry}): a name bound to an inode inside one
 * {@link DirSnapshot}, with the readdir cookie it was given when it was inserted.
 *
 * <p>Immutable. A new {@code Dentry} object is made for every insertion and never
 * re-inserted after its removal, so "the same {@code Dentry} object is still in the
 * directory" means "this binding has held continuously" — the property the optimistic
 * walk's per-entry validation relies on.
 *
 * @param name the component, in internal form (one char per byte)
 * @param inode the inode it names
 * @param cookie its position in readdir order, unique within the directory, never reused
 * @param flags {@code DCACHE_*} bits
 */
public record Dentry(String name, Inode inode, long cookie, int flags) {
    /** The dentry is its own parent and in no directory (pipes, sockets, anon inodes; seeds 000, 003). */
    public static final int DCACHE_DISCONNECTED = 1;
    /** The dentry is in no hash table: no lookup can find it. */
    public static final int DCACHE_UNHASHED = 1 << 1;

    /** Returns whether this dentry is disconnected (its own parent). */
    public boolean isDisconnected() {
        return (flags & DCACHE_DISCONNECTED) != 0;
    }
}
