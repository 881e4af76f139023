package dev.seqvfs.engine.inode;

import dev.seqvfs.engine.file.PagePool;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;

/**
 * The accounting side of a superblock, as an inode sees it: its device, its clock, and where it
 * charges its data and returns its quota when it is freed. Implementations must be thread-safe and
 * must not block.
 */
public interface InodeOwner {
    /** {@return the device id ({@code st_dev}) of the superblock} */
    long dev();

    /** {@return the current time in nanoseconds since the epoch, from the superblock's clock} */
    long now();

    /** {@return {@code st_blksize} of the superblock's inodes, in bytes} */
    int blockSize();

    /**
     * Charges {@code bytes} of file data against the superblock's byte limit.
     *
     * @param bytes the bytes to charge
     * @param op the call, for the error
     * @throws VfsException {@code ENOSPC} when they do not fit; nothing charged
     */
    void chargeBytes(long bytes, Syscall op);

    /**
     * Returns {@code bytes} of charge.
     *
     * @param bytes the bytes charged before
     */
    void unchargeBytes(long bytes);

    /**
     * Charges {@code bytes} of extended-attribute space ({@link Xattrs#space}), as tmpfs charges
     * its {@code ispace} ({@code ENOSPC} when it runs out), so that no caller can fill the heap
     * with attribute values. The default charges nothing.
     *
     * @param bytes the space to take
     * @param op the call, for the error
     * @throws VfsException {@code ENOSPC} when it does not fit; nothing charged
     */
    default void chargeXattrSpace(long bytes, Syscall op) {}

    /**
     * Gives back {@code bytes} of extended-attribute space.
     *
     * @param bytes the space taken before
     */
    default void unchargeXattrSpace(long bytes) {}

    /**
     * {@return how many bytes could be charged now (the limit minus what is charged): what a write
     * may still take before {@code ENOSPC}} A racing charge may take them first.
     */
    long availableBytes();

    /** {@return the writer hooks of the superblock (tests); {@link WriterHooks#NONE} normally} */
    default WriterHooks hooks() {
        return WriterHooks.NONE;
    }

    /**
     * Records that {@code inode} got an inotify watch, so that the superblock's shutdown reports
     * {@code IN_UNMOUNT} to it (Linux's {@code fsnotify_unmount_inodes} walks {@code s_inodes}).
     * The default records nothing (an owner that is never unmounted: the anonymous inodes').
     * Lock-free; thread-safe.
     *
     * @param inode the watched inode
     */
    default void watchAdded(Inode inode) {}

    /**
     * Forgets a watched inode that was freed (its watches are gone).
     *
     * @param inode the freed inode
     */
    default void watchForgotten(Inode inode) {}

    /**
     * Takes back the inode's quota (one inode and its {@link Inode#chargedBytes()}); called exactly
     * once per inode.
     *
     * @param inode the inode
     */
    void inodeFreed(Inode inode);

    /**
     * Takes back the inode slots of {@code n} extra hard links that were removed (tmpfs charges
     * every name of a file beyond its first against {@code nr_inodes}).
     *
     * @param n the number of links removed
     */
    default void extraLinksDropped(long n) {}

    /**
     * Adds {@code delta} to the count of inodes whose last link is gone but which are not freed yet
     * (Linux's {@code s_remove_count}: {@code drop_nlink} to zero counts one, the inode's
     * destruction uncounts it). {@link Inode} adds one just before the store that drops the link
     * count to zero (and takes it back if that store loses its race) and removes it when it frees
     * the inode, so the count never misses a removed inode that is still open. A read-only remount
     * is {@code EBUSY} while it is positive.
     *
     * @param delta +1 or -1
     */
    default void removeCountAdd(long delta) {}

    /**
     * {@return the superblock's cache of free file pages ({@link PagePool}), or {@code null} if it
     * keeps none} Files take new pages from it and give it the pages they drop.
     */
    default PagePool pagePool() {
        return null;
    }

    /**
     * {@return the fork generation of the superblock (volatile read): how many forks were taken of
     * it} Every version a writer publishes is tagged with it ({@link Versioned}). 0 for an owner
     * that is never forked.
     */
    default long forkGen() {
        return 0;
    }

    /**
     * {@return the generation of the oldest fork of the superblock still open, {@code
     * Long.MAX_VALUE} if none (volatile read)} A writer keeps a replaced version reachable only
     * while it is at most the generation it writes in; read after {@link #forkGen()}.
     */
    default long oldestForkGen() {
        return Long.MAX_VALUE;
    }

    /**
     * Enters the superblock's publication gate for one change of a file's data (a write, a
     * truncate, an allocation), which the caller makes holding the file's write lock: a fork's cut
     * closes the gate, so such a change is wholly before or after it. Spins while the gate is
     * closed; never waits for a message. Pair with {@link #exitDataGate}.
     *
     * @return what to pass to {@link #exitDataGate}; -1 for an owner without a gate
     */
    default int enterDataGate() {
        return -1;
    }

    /**
     * Leaves the gate entered by {@link #enterDataGate}.
     *
     * @param stripe what {@link #enterDataGate} returned
     */
    default void exitDataGate(int stripe) {}

    /**
     * Adds {@code delta} to the bytes the superblock's tree holds (its inodes that have a name): a
     * charge to a file with a name, or the bytes of an inode whose last link went. Called inside
     * the publication gate (see {@code ForkGenerations}).
     *
     * @param delta bytes added (negative: removed)
     */
    default void treeBytesAdd(long delta) {}

    /**
     * Adds {@code delta} to the names the superblock's published directory snapshots hold: by the
     * publisher of a snapshot, inside the gate or under the rename write lock.
     *
     * @param delta names added (negative: removed)
     */
    default void treeNamesAdd(long delta) {}
}
