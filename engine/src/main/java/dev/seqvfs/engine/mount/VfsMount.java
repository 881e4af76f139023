package dev.seqvfs.engine.mount;

import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.sb.Superblock;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * One mount ({@code struct vfsmount}): a superblock's subtree (its root, or a directory of it for a
 * bind mount) attached at a directory of a parent mount.
 *
 * <h2>Concurrency</h2>
 *
 * Identity fields (the source name included) are final. {@code readOnly} and {@code flags} (the
 * other per-mount flags: {@code nosuid}, {@code nodev}, {@code noexec}, the atime mode) are written
 * only inside the mount write lock (a mount's creation, {@code MS_REMOUNT}) and read as volatiles:
 * {@code readOnly} by write calls, {@code flags} by reads (the atime mode) and {@code
 * /proc/mounts}. The pins count what keeps the mount busy (open files, working and root directories
 * of tasks) in two striped counters that only grow, {@code pinsTaken} and {@code pinsDropped}:
 * {@link #pinCount()} sums the dropped ones first, so it never counts fewer pins than were held at
 * the instant between its two sums. (One counter incremented and decremented could: its sum is not
 * a snapshot, and a failed pin's decrement landing in a cell read later than the cell of its
 * increment cancels a pin that is held.) {@code doomed} is Linux's {@code MNT_DOOMED}/{@code
 * MNT_SYNC_UMOUNT} handshake: {@code umount} sets it, then counts the pins; {@link #tryPin()} takes
 * a pin, then reads it, with a full fence in between (a {@code LongAdder} update is a release CAS,
 * which a later volatile read may pass; Linux has the same {@code smp_mb()} in {@code
 * __legitimize_mnt}). So at least one side sees the other: either the unmount sees the pin ({@code
 * EBUSY}, and clears {@code doomed}) or the pinner sees {@code doomed}, drops its pin and retries
 * its walk.
 *
 * <h2>States</h2>
 *
 * attached → detached ({@code umount}: doomed, no pins; or {@code MNT_DETACH}: maybe pinned) →
 * released, once, when a detached mount has no pin ({@link #tryRelease}); the release counts one
 * mount less on the superblock ({@link Superblock#mountReleased}), whose last one stops its actors.
 * Every pin dropped on a detached mount tries the release: it adds to {@code pinsDropped}, fences,
 * then reads {@code detached}, while the detacher sets {@code detached}, then tries; so one of them
 * sees the last pin gone. The release itself is the handshake again under this mount's monitor
 * (doom, count, undo unless zero), so a pinner racing the last unpin either is seen (no release) or
 * sees {@code doomed} and walks again: a released mount is never pinned.
 */
public final class VfsMount {
    /** {@code MNT_NOSUID}: set-user-ID and set-group-ID bits are ignored. */
    public static final int MNT_NOSUID = 0x01;

    /** {@code MNT_NODEV}: device files cannot be opened. */
    public static final int MNT_NODEV = 0x02;

    /** {@code MNT_NOEXEC}: files cannot be executed. */
    public static final int MNT_NOEXEC = 0x04;

    /** {@code MNT_NOATIME}: reads do not update access times. */
    public static final int MNT_NOATIME = 0x08;

    /** {@code MNT_NODIRATIME}: directories' access times are not updated. */
    public static final int MNT_NODIRATIME = 0x10;

    /** {@code MNT_RELATIME}: access times are updated as {@code relatime} says. */
    public static final int MNT_RELATIME = 0x20;

    /** {@code MNT_ATIME_MASK}: the atime mode, which a remount without atime flags keeps. */
    public static final int MNT_ATIME_MASK = MNT_NOATIME | MNT_NODIRATIME | MNT_RELATIME;

    private final int id;
    private final Superblock superblock;
    private final DirectoryInode root;
    private final VfsMount parent;
    private final DirectoryInode mountpoint;
    private final LongAdder pinsTaken = new LongAdder();
    private final LongAdder pinsDropped = new LongAdder();
    private final String source;
    private volatile boolean readOnly;
    private volatile int flags;
    private volatile boolean doomed;
    private volatile boolean detached;
    private boolean released; // guarded by this

    /**
     * Creates a mount.
     *
     * @param id unique id in the namespace
     * @param superblock the mounted superblock
     * @param root the directory of {@code superblock} that appears at the mountpoint
     * @param parent the mount it is attached to, or {@code null} for the namespace root
     * @param mountpoint the directory of {@code parent} it covers, or {@code null}
     * @param readOnly whether this mount is read-only (independently of the superblock)
     */
    public VfsMount(
            int id,
            Superblock superblock,
            DirectoryInode root,
            VfsMount parent,
            DirectoryInode mountpoint,
            boolean readOnly) {
        this(id, superblock, root, parent, mountpoint, readOnly, MNT_RELATIME, null);
    }

    /**
     * Creates a mount with its flags and the source name {@code mount(2)} was given.
     *
     * @param id unique id in the namespace
     * @param superblock the mounted superblock
     * @param root the directory of {@code superblock} that appears at the mountpoint
     * @param parent the mount it is attached to, or {@code null} for the namespace root
     * @param mountpoint the directory of {@code parent} it covers, or {@code null}
     * @param readOnly whether this mount is read-only (independently of the superblock)
     * @param flags the other {@code MNT_*} flags of this class
     * @param source {@code mount(2)}'s source ({@code mnt_devname}), or {@code null}: shown as
     *     {@code "none"}
     */
    public VfsMount(
            int id,
            Superblock superblock,
            DirectoryInode root,
            VfsMount parent,
            DirectoryInode mountpoint,
            boolean readOnly,
            int flags,
            String source) {
        this.id = id;
        this.superblock = superblock;
        this.root = root;
        this.parent = parent;
        this.mountpoint = mountpoint;
        this.readOnly = readOnly;
        this.flags = flags;
        this.source = source;
    }

    /**
     * {@return what {@code /proc/mounts} shows as the source ({@code mnt_devname}): the name given
     * to {@code mount(2)}, the source mount's for a bind mount, {@code "none"} when there was none}
     */
    public String source() {
        return source == null ? "none" : source;
    }

    /** {@return the per-mount {@code MNT_*} flags of this class (a volatile read)} */
    public int flags() {
        return flags;
    }

    /**
     * Sets the per-mount flags (a remount); only inside the mount write lock.
     *
     * @param f the {@code MNT_*} flags of this class
     */
    void setFlags(int f) {
        flags = f;
    }

    /** {@return the mount id} */
    public int id() {
        return id;
    }

    /** {@return the mounted superblock} */
    public Superblock superblock() {
        return superblock;
    }

    /** {@return the directory that appears at the mountpoint} */
    public DirectoryInode root() {
        return root;
    }

    /** {@return the parent mount, or {@code null} for the namespace root} */
    public VfsMount parent() {
        return parent;
    }

    /** {@return the covered directory in the parent mount, or {@code null}} */
    public DirectoryInode mountpoint() {
        return mountpoint;
    }

    /**
     * {@return whether writes through this mount fail with {@code EROFS}: the mount's or the
     * superblock's flag}
     */
    public boolean isReadOnly() {
        return readOnly || superblock.isReadOnly();
    }

    /** {@return this mount's own read-only flag} */
    public boolean mountReadOnly() {
        return readOnly;
    }

    /**
     * Sets this mount's read-only flag; only inside the mount write lock.
     *
     * @param ro whether the mount becomes read-only
     */
    public void setReadOnly(boolean ro) {
        readOnly = ro;
    }

    /**
     * Pins the mount (an open file, a working directory) unless an unmount is under way or done.
     *
     * @return {@code true} if pinned; {@code false} if the caller must walk again
     */
    public boolean tryPin() {
        pinsTaken.increment();
        VarHandle.fullFence();
        if (doomed) {
            unpin(); // may be the drop a racing release was waiting for
            return false;
        }
        return true;
    }

    /** Adds a pin to a mount the caller already holds pinned ({@code dup}, {@code fork}). */
    public void pinAgain() {
        pinsTaken.increment();
    }

    /**
     * Marks the mount as being unmounted; the namespace calls this inside the mount write lock
     * before it sums the pins.
     *
     * @param d whether the mount is being unmounted
     */
    public void setDoomed(boolean d) {
        doomed = d;
    }

    /**
     * The unmount's side of the handshake ({@code umount} without {@code MNT_DETACH}): marks the
     * mount doomed, then counts the pins, and clears the mark again if one is held. Called inside
     * the mount write lock.
     *
     * @return {@code true} if the mount is doomed: no pin was held, and every later {@link
     *     #tryPin()} fails; {@code false} if it is pinned ({@code EBUSY})
     */
    public boolean tryDoom() {
        doomed = true;
        if (pinCount() > 0) {
            doomed = false;
            return false;
        }
        return true;
    }

    /** {@return whether the mount has been (or is being) unmounted} */
    public boolean isDoomed() {
        return doomed;
    }

    /**
     * Records that the mount left its namespace's table ({@code umount}, lazy or not); inside the
     * mount write lock.
     */
    void markDetached() {
        detached = true;
    }

    /**
     * {@return whether the mount is out of its namespace's table (Linux: not {@code check_mnt}):
     * still reachable through what pins it, but no mount operation applies to it any more}
     */
    public boolean isDetached() {
        return detached;
    }

    /** Releases one pin; the last one of a detached mount releases the mount. */
    public void unpin() {
        pinsDropped.increment();
        VarHandle.fullFence();
        if (detached) {
            tryRelease();
        }
    }

    /**
     * Releases this detached mount if nothing pins it, once: dooms it (a later pin fails), counts
     * the pins, and either undoes the doom (a pin is held: the last unpin tries again) or counts
     * the mount off its superblock. Called by the detacher after it unlocked and by every unpin of
     * a detached mount; holds no lock when it calls the superblock.
     *
     * @return {@code true} if this call released the mount
     */
    boolean tryRelease() {
        if (pinCount() > 0) {
            return false; // held: no need to doom it for an instant
        }
        synchronized (this) {
            if (released) {
                return false;
            }
            boolean wasDoomed = doomed; // a plain umount's doom stays
            doomed = true;
            if (pinCount() > 0) {
                doomed = wasDoomed;
                return false;
            }
            released = true;
        }
        superblock.mountReleased();
        return true;
    }

    /** Returns whether the mount was released (detached, then unpinned); for tests. */
    synchronized boolean isReleased() {
        return released;
    }

    /**
     * {@return the number of pins: at least the number held at one instant during the call (pins
     * taken meanwhile may be counted too), so zero means none was held then}
     */
    public long pinCount() {
        long dropped = pinsDropped.sum();
        return pinsTaken.sum() - dropped;
    }

    @Override
    public String toString() {
        return "VfsMount[" + id + ", " + superblock + "]";
    }
}
