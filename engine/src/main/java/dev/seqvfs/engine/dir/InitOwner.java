package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;

/**
 * The owner and set-group-ID rules for a new inode ({@code inode_init_owner} in {@code
 * fs/inode.c}): in a set-group-ID directory a new inode takes the directory's group, and a new
 * directory the bit itself; a new non-directory that asks for set-group-ID and group execute loses
 * the bit when its maker is neither root nor in that group. For every create ({@link
 * DirectoryActor}) and for {@code open(O_TMPFILE)}'s nameless file ({@link NamelessFile}).
 * Stateless.
 */
final class InitOwner {
    private InitOwner() {}

    /**
     * {@return the group of a new inode made by {@code cred} in a directory with attributes {@code
     * parent}}
     */
    static int gid(InodeAttrs parent, Credentials cred) {
        return (parent.mode() & Mode.S_ISGID) != 0 ? parent.gid() : cred.gid();
    }

    /**
     * {@return the permission bits of a new inode of {@code type}}
     *
     * @param perm the bits asked for ({@code 07777} at most, umask applied)
     * @param type what is made
     * @param parent the directory's attributes
     * @param cred who makes it
     * @param gid its group, {@link #gid}
     */
    static int perm(int perm, FileType type, InodeAttrs parent, Credentials cred, int gid) {
        if (type == FileType.DIRECTORY) {
            return (parent.mode() & Mode.S_ISGID) != 0 ? perm | Mode.S_ISGID : perm;
        }
        if ((perm & Mode.S_ISGID) != 0
                && (perm & 010) != 0
                && !cred.isRoot()
                && !cred.inGroup(gid)) {
            return perm & ~Mode.S_ISGID;
        }
        return perm;
    }
}
