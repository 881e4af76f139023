package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.inode.AttrChange;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.IopFlags;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.walk.WalkContext;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.VfsException;
import java.util.List;

/**
 * What a file-system type may override for its inodes ({@code struct inode_operations}).
 *
 * <p>Every method has a default that the generic code replaces with its own fast path; a type says
 * which ones it overrides through the {@code has...} methods, which {@link IopFlags#compute} reads
 * once per inode. tmpfs overrides nothing; procfs overrides lookup and getLink. Implementations
 * must be thread-safe and must not block.
 */
public interface InodeOperations {
    /** The operations of a type that overrides nothing (tmpfs). */
    InodeOperations GENERIC = new InodeOperations() {};

    /** {@return whether {@link #lookup} is overridden} */
    default boolean hasLookup() {
        return false;
    }

    /** {@return whether {@link #getLink} is overridden} */
    default boolean hasGetLink() {
        return false;
    }

    /** {@return whether {@link #permission} is overridden} */
    default boolean hasPermission() {
        return false;
    }

    /**
     * Looks a name up in a directory whose entries are computed, not stored.
     *
     * @param dir the directory
     * @param name one path component
     * @param caller the task walking, for entries that depend on who asks ({@code /proc/self})
     * @return the child, or {@code null} when absent (the walk reports {@code ENOENT})
     */
    default Inode lookup(Inode dir, String name, WalkContext caller) {
        return null;
    }

    /**
     * Returns the target of a symbolic link whose target is computed.
     *
     * @param link the link
     * @param caller the task following it
     * @return the target path (internal form)
     * @throws VfsException with the errno the link reports
     */
    default String getLink(Inode link, WalkContext caller) {
        throw new UnsupportedOperationException("getLink is not overridden");
    }

    /**
     * For a magic link: where following it leads, instead of resolving {@link #getLink}'s text. The
     * walk calls it only on inodes whose {@code iopFlags} have {@link IopFlags#IOP_CUSTOM_LINK}.
     *
     * @param link the magic link
     * @param caller the walking task
     * @return the jump, or {@code null} to resolve the text of {@link #getLink}
     * @throws VfsException with the errno the link reports (for example {@code ENOENT} for a closed
     *     descriptor)
     */
    default LinkJump jump(Inode link, WalkContext caller) {
        return null;
    }

    /**
     * Lists a directory whose entries are computed ({@code iterate_shared}), for {@code getdents};
     * called only where {@link #hasLookup()} is true.
     *
     * @param dir the directory
     * @param caller the listing task
     * @return the entries (name, inode), in a stable order
     */
    default List<Dentry> list(Inode dir, WalkContext caller) {
        return List.of();
    }

    /**
     * Checks access to an inode when the generic mode-bit check does not fit.
     *
     * @param inode the inode
     * @param mask {@code R_OK | W_OK | X_OK} bits
     * @param cred who asks
     * @return whether access is granted
     */
    default boolean permission(Inode inode, int mask, Credentials cred) {
        return Permission.generic(inode.attrsAcquire(), mask, cred);
    }

    /**
     * What the type's {@code ->setattr} refuses before the generic attribute change applies ({@code
     * chmod}, {@code chown}, {@code utimensat}, by path or descriptor; after the read-only check).
     * The default refuses nothing. procfs refuses a mode change of a {@code /proc/<pid>} entry with
     * {@code EPERM} ({@code proc_setattr}). Called on the caller's thread; must not block.
     *
     * @param inode the inode to change
     * @param change the change asked for
     * @throws VfsException with the errno the type refuses with; nothing changes then
     */
    default void setattr(Inode inode, AttrChange change) {}

    /**
     * Whether the inode is immutable ({@code S_IMMUTABLE} in {@code i_flags}): nobody may change
     * its attributes, nor get write access to it, nor remove or rename an entry of it, and each
     * fails with {@code EPERM} ({@code notify_change}, {@code inode_permission} with {@code
     * MAY_WRITE}, so before the mode bits count). The default is {@code false}; procfs makes every
     * {@code /proc/<pid>} directory immutable ({@code proc_pid_instantiate}). Thread-safe; must not
     * block.
     *
     * @param inode the inode
     * @return whether it is immutable
     */
    default boolean immutable(Inode inode) {
        return false;
    }
}
