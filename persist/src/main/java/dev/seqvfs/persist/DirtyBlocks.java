package dev.seqvfs.persist;

import dev.seqvfs.engine.inode.Inode;
import java.util.TreeSet;

/**
 * What changed in one inode since its last write-back, in {@link DataStore#BLOCK}-byte blocks of
 * its content: the blocks a write, {@code fallocate} or hole punch touched, the smallest size the
 * file had meanwhile (every block past it may have changed: a truncate drops them, a later extend
 * brings back holes), or everything (a change whose range is not known, and a file recovered from a
 * row of the old whole-content schema). An inode whose attributes only changed has none of these.
 *
 * <p>Thread-safe: every method synchronizes on this object.
 */
final class DirtyBlocks {
    final Inode inode;
    private final TreeSet<Long> blocks = new TreeSet<>();
    private long low = Long.MAX_VALUE;
    private boolean all;
    private boolean taken;

    DirtyBlocks(Inode inode) {
        this.inode = inode;
    }

    /**
     * Marks the bytes {@code [from, to)} changed.
     *
     * @return {@code false} if a write-back has taken this object ({@link #take}): mark a new one
     */
    synchronized boolean range(long from, long to) {
        if (taken) {
            return false;
        }
        if (all || to <= from) {
            return true;
        }
        long first = Math.max(0, from) / DataStore.BLOCK;
        long last = (to - 1) / DataStore.BLOCK;
        if (last - first > 1 << 16) {
            all = true; // a change this wide: write back whatever the file holds
            blocks.clear();
            return true;
        }
        for (long b = first; b <= last; b++) {
            blocks.add(b);
        }
        return true;
    }

    /**
     * Marks that the file was {@code size} bytes long: every block from there on may change.
     *
     * @return {@code false} if a write-back has taken this object
     */
    synchronized boolean size(long size) {
        if (taken) {
            return false;
        }
        low = Math.min(low, Math.max(0, size));
        return true;
    }

    /**
     * Marks every block changed.
     *
     * @return {@code false} if a write-back has taken this object
     */
    synchronized boolean all() {
        if (taken) {
            return false;
        }
        all = true;
        blocks.clear();
        return true;
    }

    /**
     * Marks nothing but the inode's attributes.
     *
     * @return {@code false} if a write-back has taken this object
     */
    synchronized boolean attrs() {
        return !taken;
    }

    /**
     * What one write-back must do, taken from this object (which is then no longer used).
     *
     * @param blocks the blocks to write (or delete, when the file no longer has data there), in
     *     increasing order
     * @param from every block from this index on is to be rewritten from what the file holds and
     *     deleted where it holds nothing ({@code Long.MAX_VALUE}: none)
     */
    record Plan(long[] blocks, long from) {}

    /**
     * {@return what a write-back of this inode must write}, and makes this object refuse further
     * marks (a writer that finds it taken marks a new one, so no mark is lost between the plan and
     * the next write-back)
     */
    synchronized Plan take() {
        taken = true;
        if (all) {
            return new Plan(new long[0], 0);
        }
        long from = low == Long.MAX_VALUE ? Long.MAX_VALUE : low / DataStore.BLOCK;
        long[] b = blocks.stream().mapToLong(Long::longValue).filter(x -> x < from).toArray();
        return new Plan(b, from);
    }
}
