package dev.seqvfs.engine.inode;

import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * One immutable version of an inode's attributes, as {@code stat(2)} reports them.
 *
 * <p>Times are nanoseconds since the Unix epoch. {@code size} is in bytes, {@code blocks} in
 * 512-byte units. A change builds a new version with one of the {@code with...} methods and
 * publishes it with {@link Inode#casAttrs(InodeAttrs, InodeAttrs)}; nothing mutates a version's
 * value in place, so a reader that loaded one sees all its fields from the same version.
 *
 * <p>Besides its value a version carries what a fork of its superblock needs ({@link Versioned}):
 * the fork generation it was published in, and the version it replaced if that one belongs to an
 * older generation. Every {@code with...} copy keeps both (the inode that publishes it retags it
 * when the generation moved on); {@link #equals} compares the value only. A class rather than a
 * record for that reason: the link is not part of the value and is cleared once no fork reads it.
 */
public final class InodeAttrs implements Versioned<InodeAttrs> {
    private static final VarHandle PREV;

    static {
        try {
            PREV = MethodHandles.lookup().findVarHandle(InodeAttrs.class, "prev", InodeAttrs.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int mode;
    private final long nlink;
    private final int uid;
    private final int gid;
    private final long rdev;
    private final long size;
    private final long blocks;
    private final long atime;
    private final long mtime;
    private final long ctime;
    private final Xattrs xattrs;

    /** The fork generation it was published in ({@link Versioned}); not part of the value. */
    private final long gen;

    /**
     * The version it replaced in an older generation, while an open fork may read it ({@link
     * Versioned}); set before publication, cleared at most once after (release). Not part of the
     * value.
     */
    @SuppressWarnings("unused") // accessed through PREV
    private volatile InodeAttrs prev;

    /**
     * Creates attributes not yet published by any inode (generation {@link Versioned#UNTAGGED}).
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
    public InodeAttrs(
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
        this(
                mode, nlink, uid, gid, rdev, size, blocks, atime, mtime, ctime, xattrs, UNTAGGED,
                null);
    }

    private InodeAttrs(
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
            Xattrs xattrs,
            long gen,
            InodeAttrs prev) {
        this.mode = mode;
        this.nlink = nlink;
        this.uid = uid;
        this.gid = gid;
        this.rdev = rdev;
        this.size = size;
        this.blocks = blocks;
        this.atime = atime;
        this.mtime = mtime;
        this.ctime = ctime;
        this.xattrs = Objects.requireNonNull(xattrs, "xattrs");
        this.gen = gen;
        PREV.set(this, prev);
    }

    /** A copy of {@code a}'s value with new fields, keeping {@code a}'s generation and link. */
    private InodeAttrs(
            InodeAttrs a,
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
        this(
                mode,
                nlink,
                uid,
                gid,
                rdev,
                size,
                blocks,
                atime,
                mtime,
                ctime,
                xattrs,
                a.gen,
                a.prevAcquire());
    }

    /** {@return type and permission bits} */
    public int mode() {
        return mode;
    }

    /** {@return the hard-link count} */
    public long nlink() {
        return nlink;
    }

    /** {@return the owner} */
    public int uid() {
        return uid;
    }

    /** {@return the group} */
    public int gid() {
        return gid;
    }

    /** {@return the device number of a device file, else 0} */
    public long rdev() {
        return rdev;
    }

    /** {@return the size in bytes} */
    public long size() {
        return size;
    }

    /** {@return the allocated 512-byte blocks} */
    public long blocks() {
        return blocks;
    }

    /** {@return the last access, nanoseconds since the epoch} */
    public long atime() {
        return atime;
    }

    /** {@return the last content change, nanoseconds since the epoch} */
    public long mtime() {
        return mtime;
    }

    /** {@return the last status change, nanoseconds since the epoch} */
    public long ctime() {
        return ctime;
    }

    /** {@return the extended attributes ({@code xattr(7)}), never {@code null}} */
    public Xattrs xattrs() {
        return xattrs;
    }

    @Override
    public long gen() {
        return gen;
    }

    @Override
    public InodeAttrs prevAcquire() {
        return (InodeAttrs) PREV.getAcquire(this);
    }

    @Override
    public void dropPrev() {
        PREV.setRelease(this, null);
    }

    /**
     * {@return the same value published in generation {@code gen} with {@code prev} as the version
     * it replaced ({@link Versioned}): this version if it already is, else a copy} For the inode
     * that publishes it, and for a fork's copy of an inode (generation 0, no link: the state the
     * fork starts with).
     *
     * @param newGen the generation
     * @param newPrev the older version a fork may read, or {@code null}
     */
    public InodeAttrs withVersion(long newGen, InodeAttrs newPrev) {
        if (newGen == gen && newPrev == prevAcquire()) {
            return this;
        }
        return new InodeAttrs(
                mode, nlink, uid, gid, rdev, size, blocks, atime, mtime, ctime, xattrs, newGen,
                newPrev);
    }

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
                this,
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
                this,
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
                this, mode, newNlink, uid, gid, rdev, size, blocks, atime, mtime, now, xattrs);
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
                this, mode, newNlink, uid, gid, rdev, size, blocks, atime, now, now, xattrs);
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
                this, mode, nlink, uid, gid, rdev, newSize, newBlocks, atime, now, now, xattrs);
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
                this, mode, nlink, uid, gid, rdev, size, blocks, newAtime, newMtime, now, xattrs);
    }

    /**
     * {@return a copy with ctime {@code now} and nothing else changed (a rename touches ctime)}
     *
     * @param now the time, in nanoseconds since the epoch
     */
    public InodeAttrs touchedCtime(long now) {
        return new InodeAttrs(
                this, mode, nlink, uid, gid, rdev, size, blocks, atime, mtime, now, xattrs);
    }

    /**
     * {@return a copy with access time {@code now}}
     *
     * @param now the time, in nanoseconds since the epoch
     */
    public InodeAttrs accessed(long now) {
        return new InodeAttrs(
                this, mode, nlink, uid, gid, rdev, size, blocks, now, mtime, ctime, xattrs);
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
                this, mode, nlink, uid, gid, rdev, size, blocks, atime, mtime, now, newXattrs);
    }

    /** Equal when every field of the value is: the generation and the link are not compared. */
    @Override
    public boolean equals(Object o) {
        return o instanceof InodeAttrs a
                && mode == a.mode
                && nlink == a.nlink
                && uid == a.uid
                && gid == a.gid
                && rdev == a.rdev
                && size == a.size
                && blocks == a.blocks
                && atime == a.atime
                && mtime == a.mtime
                && ctime == a.ctime
                && xattrs.equals(a.xattrs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, nlink, uid, gid, rdev, size, blocks, atime, mtime, ctime, xattrs);
    }

    @Override
    public String toString() {
        return "InodeAttrs[mode="
                + mode
                + ", nlink="
                + nlink
                + ", uid="
                + uid
                + ", gid="
                + gid
                + ", rdev="
                + rdev
                + ", size="
                + size
                + ", blocks="
                + blocks
                + ", atime="
                + atime
                + ", mtime="
                + mtime
                + ", ctime="
                + ctime
                + ", xattrs="
                + xattrs
                + ", gen="
                + gen
                + "]";
    }
}
