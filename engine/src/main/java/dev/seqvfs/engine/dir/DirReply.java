package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.protocol.Errno;

/**
 * The reply of every namespace command: an errno, or success with the inode concerned.
 *
 * @param error {@code null} on success
 * @param inode the created, linked, found or removed inode; {@code null} on failure
 * @param existed for {@code Create} without {@code exclusive}: the name already existed and {@code
 *     inode} is the existing inode (the {@code O_CREAT} without {@code O_EXCL} case)
 * @param dentry for {@code Create}: the dentry that binds the name (created or found), for {@code
 *     /proc} to follow renames of the opened file; otherwise {@code null}
 */
public record DirReply(Errno error, Inode inode, boolean existed, Dentry dentry) {
    /**
     * Success, naming an inode.
     *
     * @param inode the inode the command found or made
     * @return a reply with no errno
     */
    public static DirReply ok(Inode inode) {
        return new DirReply(null, inode, false, null);
    }

    /**
     * Success of a {@code Create}: {@code d} binds the name to the new inode.
     *
     * @param d the new binding
     * @return a reply with no errno
     */
    public static DirReply created(Dentry d) {
        return new DirReply(null, d.inode(), false, d);
    }

    /**
     * Success: the name existed already and {@code inode} is what it names.
     *
     * @param d the binding that was there
     * @return a reply with no errno
     */
    public static DirReply existing(Dentry d) {
        return new DirReply(null, d.inode(), true, d);
    }

    /**
     * Failure with an errno.
     *
     * @param e the errno
     * @return a failed reply
     */
    public static DirReply error(Errno e) {
        return new DirReply(e, null, false, null);
    }

    /** {@return whether the command succeeded} */
    public boolean isOk() {
        return error == null;
    }
}
