package dev.seqvfs.engine.mount;

import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.sb.NamespaceLocks;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.walk.MountSource;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A mount namespace: the owner of the published {@link MountTable}.
 *
 * <h2>Concurrency</h2>
 *
 * {@code table} is read with acquire by every walk ({@link #mountTableAcquire()}) and replaced with
 * release, only inside the mount write lock, together with the mountpoint counts of the directories
 * concerned. Mount changes are rare and short: a writer holds the lock for a few stores and sends
 * no message, so this class takes it directly rather than through an actor (walks are never blocked
 * by it: they read optimistically). {@link #attach}, {@link #detach} and {@link #setMountReadOnly}
 * may spin briefly on the lock; they never park.
 *
 * <h2>Invariants</h2>
 *
 * A directory's mount count equals the number of mounts in the table whose mountpoint it is. A
 * mount is in the table iff it is not doomed, except inside a failing umount.
 */
public final class Namespace implements MountSource {
    private static final VarHandle TABLE;

    static {
        try {
            TABLE =
                    MethodHandles.lookup()
                            .findVarHandle(Namespace.class, "table", MountTable.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final NamespaceLocks locks;
    private final AtomicInteger mountIds = new AtomicInteger();

    @SuppressWarnings("unused") // accessed through TABLE
    private volatile MountTable table;

    /**
     * Creates a namespace whose root is {@code rootSb}'s root directory, mounted {@code relatime}
     * with the type's name as its source ({@code tmpfs / tmpfs rw,relatime 0 0}).
     *
     * @param locks the instance's sequence locks
     * @param rootSb the superblock mounted at "/"
     */
    public Namespace(NamespaceLocks locks, Superblock rootSb) {
        this.locks = locks;
        VfsMount root =
                new VfsMount(
                        mountIds.incrementAndGet(),
                        rootSb,
                        rootSb.root(),
                        null,
                        null,
                        false,
                        VfsMount.MNT_RELATIME,
                        rootSb.typeName());
        if (!rootSb.tryAddMount()) {
            throw new IllegalArgumentException(rootSb + " was deactivated");
        }
        TABLE.setRelease(this, MountTable.of(root));
    }

    @Override
    public MountTable mountTableAcquire() {
        return (MountTable) TABLE.getAcquire(this);
    }

    @Override
    public NamespaceLocks locks() {
        return locks;
    }

    /** {@return the mount at "/"} */
    public VfsMount rootMount() {
        return mountTableAcquire().rootMount();
    }

    /**
     * Closes the directory writers' publication gate (so that no command checked against the old
     * mount table publishes after the new one), then takes the mount write lock, spinning: its
     * holders never wait for anything. Release with {@link #unlock}.
     */
    private long writeLock() {
        locks.publish.close();
        long s;
        while ((s = locks.mount.tryWriteLock()) == 0) {
            Thread.onSpinWait();
        }
        return s;
    }

    private void unlock(long stamp) {
        locks.mount.unlockWrite(stamp);
        locks.publish.open();
    }

    /**
     * Attaches {@code root} of {@code sb} at directory {@code mountpoint} of mount {@code parent}
     * (a new tmpfs instance, or a bind mount of a subtree).
     *
     * @param parent the mount holding the mountpoint
     * @param mountpoint the directory covered
     * @param sb the superblock to mount
     * @param root the directory of {@code sb} that appears there
     * @param readOnly whether the new mount is read-only
     * @return the new mount
     * @throws VfsException {@code ENOENT} if the mountpoint directory was removed, or if {@code sb}
     *     was deactivated meanwhile (a bind mount whose source's last mount went away); {@code
     *     EINVAL} if {@code parent} was detached ({@code do_add_mount}). A new superblock that is
     *     not attached is deactivated.
     */
    public VfsMount attach(
            VfsMount parent,
            DirectoryInode mountpoint,
            Superblock sb,
            DirectoryInode root,
            boolean readOnly) {
        return attach(parent, mountpoint, sb, root, readOnly, VfsMount.MNT_RELATIME, null);
    }

    /**
     * Attaches {@code root} of {@code sb} at directory {@code mountpoint} of mount {@code parent},
     * with its per-mount flags and source name.
     *
     * @param parent the mount holding the mountpoint
     * @param mountpoint the directory covered
     * @param sb the superblock to mount
     * @param root the directory of {@code sb} that appears there
     * @param readOnly whether the new mount is read-only
     * @param flags the new mount's other {@code VfsMount.MNT_*} flags
     * @param source what {@code /proc/mounts} shows as its source, or {@code null} ({@code none})
     * @return the new mount
     * @throws VfsException as {@link #attach(VfsMount, DirectoryInode, Superblock, DirectoryInode,
     *     boolean)}
     */
    public VfsMount attach(
            VfsMount parent,
            DirectoryInode mountpoint,
            Superblock sb,
            DirectoryInode root,
            boolean readOnly,
            int flags,
            String source) {
        long stamp = writeLock();
        boolean attached = false;
        try {
            if (mountpoint.isDead() || parent.isDoomed()) {
                throw new VfsException(Errno.ENOENT, Syscall.MOUNT, null);
            }
            if (parent.isDetached()) {
                throw new VfsException(Errno.EINVAL, Syscall.MOUNT, null);
            }
            if (!sb.tryAddMount()) {
                throw new VfsException(Errno.ENOENT, Syscall.MOUNT, null);
            }
            VfsMount m =
                    new VfsMount(
                            mountIds.incrementAndGet(),
                            sb,
                            root,
                            parent,
                            mountpoint,
                            readOnly,
                            flags,
                            source);
            mountpoint.addMounts(1);
            TABLE.setRelease(this, mountTableAcquire().with(m));
            attached = true;
            return m;
        } finally {
            unlock(stamp);
            if (!attached) {
                sb.deactivateIfUnmounted();
            }
        }
    }

    /**
     * Detaches mount {@code m} ({@code umount2(2)}).
     *
     * @param m the mount
     * @param flags {@link MountFlags#MNT_DETACH} to detach even while busy, with every mount below
     *     it
     * @throws VfsException {@code EINVAL} if it was detached already (reached through a working
     *     directory or descriptor inside it); {@code EBUSY} for the namespace root, or without
     *     {@code MNT_DETACH} if it has child mounts or is pinned (open files, working directories);
     *     nothing changes
     */
    public void detach(VfsMount m, int flags) {
        List<VfsMount> detached = new ArrayList<>();
        long stamp = writeLock();
        try {
            MountTable t = mountTableAcquire();
            if (m.isDetached()) {
                throw new VfsException(Errno.EINVAL, Syscall.UMOUNT, null);
            }
            if (m.parent() == null) {
                throw new VfsException(Errno.EBUSY, Syscall.UMOUNT, null);
            }
            boolean lazy = (flags & MountFlags.MNT_DETACH) != 0;
            if (!lazy && !t.childrenOf(m).isEmpty()) {
                throw new VfsException(Errno.EBUSY, Syscall.UMOUNT, null);
            }
            if (!lazy) {
                // A plain unmount must see every pin: mark first, then count (see VfsMount).
                if (!m.tryDoom()) {
                    throw new VfsException(Errno.EBUSY, Syscall.UMOUNT, null);
                }
            }
            // A lazy unmount only detaches: descriptors and working directories inside keep
            // working, and may open more files there, as in Linux.
            TABLE.setRelease(this, withoutTree(t, m, lazy, detached));
        } finally {
            unlock(stamp);
        }
        // Outside the lock: the last release of a superblock tells its actor to stop.
        for (VfsMount d : detached) {
            d.tryRelease();
        }
    }

    /**
     * Removes {@code m} and, first, every mount below it (a lazy unmount takes the whole tree),
     * adding each to {@code detached}.
     */
    private static MountTable withoutTree(
            MountTable t, VfsMount m, boolean lazy, List<VfsMount> detached) {
        for (VfsMount c : t.childrenOf(m)) {
            if (!lazy) {
                c.setDoomed(true);
            }
            t = withoutTree(t, c, lazy, detached);
        }
        m.mountpoint().addMounts(-1);
        m.markDetached();
        detached.add(m);
        return t.without(m);
    }

    /**
     * Sets a mount's own read-only flag ({@code MS_REMOUNT | MS_BIND [| MS_RDONLY]}).
     *
     * @param m the mount
     * @param ro whether it becomes read-only
     */
    public void setMountReadOnly(VfsMount m, boolean ro) {
        long stamp = writeLock();
        try {
            m.setReadOnly(ro);
        } finally {
            unlock(stamp);
        }
    }

    /**
     * Sets a mount's read-only flag and its other per-mount flags together ({@code MS_REMOUNT},
     * {@code set_mount_attributes}).
     *
     * @param m the mount
     * @param ro whether it becomes read-only
     * @param flags its other {@code VfsMount.MNT_*} flags
     */
    public void setMountFlags(VfsMount m, boolean ro, int flags) {
        long stamp = writeLock();
        try {
            m.setReadOnly(ro);
            m.setFlags(flags);
        } finally {
            unlock(stamp);
        }
    }
}
