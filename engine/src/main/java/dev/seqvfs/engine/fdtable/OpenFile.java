package dev.seqvfs.engine.fdtable;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.lock.FileLockTable;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.walk.FileOrigin;
import dev.seqvfs.protocol.OpenFlags;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An open file description ({@code struct file}): the inode and mount it was opened through, its
 * access mode and status flags, its offset, and a reference count shared by every descriptor that
 * points at it ({@code dup}, {@code fork}).
 *
 * <h2>Concurrency</h2>
 *
 * {@code inode}, {@code mount}, {@code accessMode} are final. {@code statusFlags} is written with
 * release ({@code F_SETFL}) and read with acquire. {@code refs} changes by atomic add; when it
 * drops to zero the description releases its inode's open count, its write access to the superblock
 * if it took one ({@link #tryGetWriteAccess}), and its mount pin, exactly once. {@code writeAccess}
 * is written once, before the description is installed (volatile).
 *
 * <h2>States</h2>
 *
 * open (refs &gt; 0) → released (refs == 0), final; {@link #retain()} on a released file throws
 * {@link IllegalStateException}.
 */
public final class OpenFile {
    private static final VarHandle REFS;
    private static final VarHandle STATUS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            REFS = l.findVarHandle(OpenFile.class, "refs", int.class);
            STATUS = l.findVarHandle(OpenFile.class, "statusFlags", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Inode inode;
    private final VfsMount mount;
    private final String path;
    private final FileOperations ops;
    private final Dentry dentry;
    private final int accessMode;

    @SuppressWarnings("unused") // accessed through STATUS
    private volatile int statusFlags;

    @SuppressWarnings("unused") // accessed through REFS
    private volatile int refs = 1;

    /**
     * The superblock this description counts as a writer of ({@code FMODE_WRITER}), or {@code
     * null}.
     */
    private volatile Superblock writeAccess;

    /**
     * Where the file was opened from, for {@code /proc}; written once, before publication in a
     * table.
     */
    private volatile FileOrigin origin;

    /** The file offset in bytes; guarded by this object's monitor (the {@code f_pos} lock). */
    private long offset;

    /**
     * Opens a description with one reference and the inode's file operations ({@link
     * Inode#fileOps()}); counts one open on the inode and takes over one pin of the mount, which
     * the caller obtained with {@link VfsMount#tryPin()}.
     *
     * @param inode the file
     * @param mount the mount it was reached through (pinned), or {@code null} for anonymous inodes
     * @param path the path it was opened by, for {@code /proc/self/fd} (internal form), or {@code
     *     null}
     * @param flags the {@code open(2)} flags; access mode and status flags are kept, creation flags
     *     dropped
     */
    public OpenFile(Inode inode, VfsMount mount, String path, int flags) {
        this(inode, mount, path, flags, inode.fileOps(), null);
    }

    /**
     * Opens a description with its own file operations and dentry (anonymous inodes: pipe ends,
     * sockets). Counts one open on the inode.
     *
     * @param inode the inode
     * @param mount the mount it was opened through, or {@code null}
     * @param path the path it was opened by (internal form), or {@code null}
     * @param flags the {@code open(2)} flags
     * @param ops what reads, writes and the last release do ({@code struct file_operations})
     * @param dentry the file's dentry, for an anonymous inode a disconnected one, or {@code null}
     */
    public OpenFile(
            Inode inode,
            VfsMount mount,
            String path,
            int flags,
            FileOperations ops,
            Dentry dentry) {
        this.inode = inode;
        this.mount = mount;
        this.path = path;
        this.ops = ops;
        this.dentry = dentry;
        this.accessMode = flags & (OpenFlags.O_ACCMODE | OpenFlags.O_PATH);
        STATUS.setRelease(
                this,
                flags
                        & ~(OpenFlags.O_ACCMODE
                                | OpenFlags.O_PATH
                                | OpenFlags.O_CREAT
                                | OpenFlags.O_EXCL
                                | OpenFlags.O_NOCTTY
                                | OpenFlags.O_TRUNC
                                | OpenFlags.O_CLOEXEC));
        inode.openAcquire();
    }

    /**
     * Takes write access to the mount's superblock for as long as this description is open ({@code
     * do_dentry_open}'s {@code mnt_get_write_access} for a regular file opened for writing, dropped
     * by the last {@link #release}, as {@code __fput}): meanwhile a read-only remount of the
     * superblock fails with {@code EBUSY}. Call once, before the description is installed.
     *
     * @return {@code false} if the superblock is read-only (the open fails with {@code EROFS});
     *     nothing is taken then
     * @throws IllegalStateException if called twice, or on a description without a mount
     */
    public boolean tryGetWriteAccess() {
        if (writeAccess != null || mount == null) {
            throw new IllegalStateException("write access twice, or without a mount, on " + inode);
        }
        Superblock sb = mount.superblock();
        if (!sb.tryBeginWrite()) {
            return false;
        }
        writeAccess = sb;
        return true;
    }

    /** {@return the inode} */
    public Inode inode() {
        return inode;
    }

    /**
     * {@return where the file was opened from, or {@code null} (anonymous files, unknown origin)}
     */
    public FileOrigin origin() {
        return origin;
    }

    /**
     * Records where the file was opened from; called once, before the file is installed.
     *
     * @param o where it was opened from
     */
    public void setOrigin(FileOrigin o) {
        origin = o;
    }

    /** {@return the file operations ({@code f_op}); fixed for the description's life} */
    public FileOperations ops() {
        return ops;
    }

    /**
     * {@return the dentry the file was opened through, or {@code null} for named files (see {@link
     * #path()})}
     */
    public Dentry dentry() {
        return dentry;
    }

    /** {@return the mount, or {@code null}} */
    public VfsMount mount() {
        return mount;
    }

    /** {@return the path it was opened by (internal form), or {@code null}} */
    public String path() {
        return path;
    }

    /**
     * {@return the access mode bits ({@code O_RDONLY}, {@code O_WRONLY}, {@code O_RDWR}, or {@code
     * O_PATH})}
     */
    public int accessMode() {
        return accessMode;
    }

    /** {@return whether the description is readable} */
    public boolean readable() {
        return OpenFlags.readable(accessMode);
    }

    /** {@return whether the description is writable} */
    public boolean writable() {
        return OpenFlags.writable(accessMode);
    }

    /** {@return whether this is an {@code O_PATH} description} */
    public boolean isPath() {
        return (accessMode & OpenFlags.O_PATH) != 0;
    }

    /** {@return the status flags ({@code O_APPEND}, {@code O_NONBLOCK}, ...) with acquire} */
    public int statusFlagsAcquire() {
        return (int) STATUS.getAcquire(this);
    }

    /**
     * Sets the status flags with release ({@code F_SETFL}).
     *
     * @param flags the new status flags
     */
    public void publishStatusFlagsRelease(int flags) {
        STATUS.setRelease(this, flags);
    }

    /** {@return the {@code open(2)} flags as {@code F_GETFL} reports them} */
    public int getFl() {
        return accessMode | statusFlagsAcquire();
    }

    /** {@return the offset in bytes} */
    public synchronized long offset() {
        return offset;
    }

    /**
     * Sets the offset in bytes.
     *
     * @param off the index in the buffer of the first byte
     */
    public synchronized void setOffset(long off) {
        offset = off;
    }

    /** {@return the reference count} */
    public int refs() {
        return (int) REFS.getVolatile(this);
    }

    /**
     * Adds a reference (a new descriptor pointing here).
     *
     * @throws IllegalStateException if the description was already released
     */
    public void retain() {
        int before = (int) REFS.getAndAdd(this, 1);
        if (before <= 0) {
            REFS.getAndAdd(this, -1);
            throw new IllegalStateException("retain of a released open file on " + inode);
        }
    }

    /**
     * Adds a reference unless the description was already released ({@code get_file_rcu}): how a
     * call takes the file it found in a descriptor table, which a concurrent {@code close} may be
     * dropping. Lock-free (a CAS loop on the count).
     *
     * @return {@code false} if the count was already zero (the caller looks the descriptor up
     *     again: it is gone, or holds another file)
     */
    public boolean tryRetain() {
        while (true) {
            int n = (int) REFS.getVolatile(this);
            if (n <= 0) {
                return false;
            }
            if (REFS.compareAndSet(this, n, n + 1)) {
                return true;
            }
        }
    }

    /**
     * Drops a reference; on the last one releases the inode's open count and the mount pin.
     *
     * @return {@code true} if this was the last reference
     */
    public boolean release() {
        int before = (int) REFS.getAndAdd(this, -1);
        if (before <= 0) {
            REFS.getAndAdd(this, 1);
            throw new IllegalStateException("release of a released open file on " + inode);
        }
        if (before == 1) {
            ops.release(this);
            FileLockTable locks = inode.fileLocksIfAny();
            if (locks != null) {
                locks.releaseFlock(this);
            }
            Superblock w = writeAccess;
            if (w != null) {
                w.endWrite();
            }
            inode.openRelease();
            if (mount != null) {
                mount.unpin();
            }
            return true;
        }
        return false;
    }

    /**
     * {@code file_accessed}: a read through this file updates {@code inode}'s access time unless
     * the file was opened {@code O_NOATIME} or its mount is {@code noatime}; under {@code relatime}
     * (the default) only as {@link Inode#touchAtime(long)} says, under {@code strictatime} every
     * time. Thread-safe (volatile reads, then at most one CAS on the attributes).
     *
     * @param inode the inode read (the file's, or a FIFO's)
     */
    public void fileAccessed(Inode inode) {
        if ((statusFlagsAcquire() & OpenFlags.O_NOATIME) != 0) {
            return;
        }
        int mf = mount == null ? VfsMount.MNT_RELATIME : mount.flags();
        if ((mf & VfsMount.MNT_NOATIME) == 0) {
            inode.touchAtime(inode.owner().now(), (mf & VfsMount.MNT_RELATIME) != 0);
        }
    }
}
