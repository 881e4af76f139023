package dev.seqvfs.engine.inode;

import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;

/**
 * One immutable version of an inode's attributes, as {@code stat(2)} reports them.
 *
 * <p>Times are nanoseconds since the Unix epoch. {@code size} is in bytes, {@code blocks} in
 * 512-byte units. A change builds a new record with one of the {@code with...} methods and
 * publishes it with {@link Inode#casAttrs(InodeAttrs, InodeAttrs)}; nothing mutates a record in
 * place, so a reader that loaded one sees all its fields from the same version.
 *
 * @param mode type and permission bits
 * @param nlink hard-link count
 * @param uid owner
 * @param gid group
 * @param rdev device number for device files, else 0
 * @param size size in bytes
 * @param blocks allocated 512-byte blocks
 * @param atime last access, nanoseconds since the epoch
 * @param mtime last content change, nanoseconds since the epoch
 * @param ctime last status change, nanoseconds since the epoch
 * @param xattrs the extended attributes ({@code xattr(7)}), never {@code null}
 */
public record InodeAttrs(
        int mode,
        long nlink,
        int uid,
        int gid,
        long rdev,
        long size,
        long blocks,
        long atime,
        long mtime,
        long ctime,
        Xattrs xattrs) {

    /**
     * Creates the attributes of a new inode: all three times are {@code now}.
     *
     * @param mode type and permission bits
     * @param nlink hard-link count
     * @param uid owner
     * @param gid group
     * @param rdev device number for device files, else 0
     * @param size size in bytes
     * @param now atime, mtime and ctime, nanoseconds since the epoch
     * @return the attributes; {@code blocks} is {@code size} in 512-byte units, rounded up
     */
    public static InodeAttrs create(
            int mode, long nlink, int uid, int gid, long rdev, long size, long now) {
        return new InodeAttrs(
                mode, nlink, uid, gid, rdev, size, (size + 511) / 512, now, now, now, Xattrs.EMPTY);
    }

    /** {@return the file type named by the mode's type bits} */
    public FileType type() {
        return FileType.ofMode(mode);
    }

    /** {@return the twelve permission bits} */
    public int permissions() {
        return mode & Mode.PERMISSION_MASK;
    }

    /**
     * {@return a copy with new permission bits (type bits kept) and ctime {@code now}}
     *
     * @param perm the permission bits ({@code 07777})
     * @param now the new ctime, nanoseconds since the epoch
     */
    public InodeAttrs withPermissions(int perm, long now) {
        return new InodeAttrs(
                (mode & Mode.S_IFMT) | (perm & Mode.PERMISSION_MASK),
                nlink,
                uid,
                gid,
                rdev,
                size,
                blocks,
                atime,
                mtime,
                now,
                xattrs);
    }

    /**
     * {@return a copy with a new owner and group, new permission bits and ctime {@code now}}
     *
     * @param newUid the owner
     * @param newGid the group
     * @param perm the permission bits ({@code chown} may clear set-id bits)
     * @param now the new ctime, nanoseconds since the epoch
     */
    public InodeAttrs withOwner(int newUid, int newGid, int perm, long now) {
        return new InodeAttrs(
                (mode & Mode.S_IFMT) | (perm & Mode.PERMISSION_MASK),
                nlink,
                newUid,
                newGid,
                rdev,
                size,
                blocks,
                atime,
                mtime,
                now,
                xattrs);
    }

    /**
     * {@return a copy with a new link count and ctime {@code now}}
     *
     * @param newNlink the link count
     * @param now the new ctime, nanoseconds since the epoch
     */
    public InodeAttrs withNlink(long newNlink, long now) {
        return new InodeAttrs(
                mode, newNlink, uid, gid, rdev, size, blocks, atime, mtime, now, xattrs);
    }

    /**
     * {@return a copy with a new link count and mtime and ctime {@code now} (a directory's entries
     * changed)}
     *
     * @param newNlink the link count
     * @param now the new mtime and ctime, nanoseconds since the epoch
     */
    public InodeAttrs withNlinkModified(long newNlink, long now) {
        return new InodeAttrs(
                mode, newNlink, uid, gid, rdev, size, blocks, atime, now, now, xattrs);
    }

    /**
     * {@return a copy with a new size in bytes and block count, and mtime and ctime {@code now}}
     *
     * @param newSize the size in bytes
     * @param newBlocks the allocated 512-byte blocks
     * @param now the new mtime and ctime, nanoseconds since the epoch
     */
    public InodeAttrs withSize(long newSize, long newBlocks, long now) {
        return new InodeAttrs(
                mode, nlink, uid, gid, rdev, newSize, newBlocks, atime, now, now, xattrs);
    }

    /**
     * {@return a copy with new access and modification times and ctime {@code now}}
     *
     * @param newAtime the access time, nanoseconds since the epoch
     * @param newMtime the modification time, nanoseconds since the epoch
     * @param now the new ctime, nanoseconds since the epoch
     */
    public InodeAttrs withTimes(long newAtime, long newMtime, long now) {
        return new InodeAttrs(
                mode, nlink, uid, gid, rdev, size, blocks, newAtime, newMtime, now, xattrs);
    }

    /**
     * {@return a copy with ctime {@code now} and nothing else changed (a rename touches ctime)}
     *
     * @param now the time, in nanoseconds since the epoch
     */
    public InodeAttrs touchedCtime(long now) {
        return new InodeAttrs(mode, nlink, uid, gid, rdev, size, blocks, atime, mtime, now, xattrs);
    }

    /**
     * {@return a copy with access time {@code now}}
     *
     * @param now the time, in nanoseconds since the epoch
     */
    public InodeAttrs accessed(long now) {
        return new InodeAttrs(mode, nlink, uid, gid, rdev, size, blocks, now, mtime, ctime, xattrs);
    }

    /**
     * {@return a copy with new extended attributes and ctime {@code now} ({@code setxattr(2)} and
     * {@code removexattr(2)} touch ctime, as tmpfs's {@code shmem_xattr_handler_set})}
     *
     * @param newXattrs the extended attributes
     * @param now the new ctime, nanoseconds since the epoch
     */
    public InodeAttrs withXattrs(Xattrs newXattrs, long now) {
        return new InodeAttrs(
                mode, nlink, uid, gid, rdev, size, blocks, atime, mtime, now, newXattrs);
    }
}
