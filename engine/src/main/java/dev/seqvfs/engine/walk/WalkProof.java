package dev.seqvfs.engine.walk;

import dev.seqvfs.engine.dir.PathProof;
import dev.seqvfs.engine.sb.NamespaceLocks;

/**
 * A {@link PathProof} made from a validated walk: an immutable copy of its trail of lookups,
 * (directory, snapshot, dentry or missing name) each ({@link Nameidata#ENTRY} slots).
 *
 * <p>{@link #stillHolds()} samples the mount sequence and the rename sequence of every directory on
 * the trail ({@code d_seq}), checks every lookup (the directory's snapshot is the same object, or
 * its entry for the name is the same dentry), then validates the samples: if all hold, the path
 * resolved to the same place at one instant during the check, with no cross-directory rename of a
 * directory on the trail, and no mount change, half published. Proofs of several walks (the two
 * parents of a rename, the two paths of a link) are combined with {@link #and} so that they are
 * checked at one instant too.
 */
public final class WalkProof implements PathProof {
    private final NamespaceLocks locks;
    private final Object[] trail;
    private final WalkProof other;

    WalkProof(NamespaceLocks locks, Object[] trail, WalkProof other) {
        this.locks = locks;
        this.trail = trail;
        this.other = other;
    }

    /**
     * {@return a proof that holds when both this one and {@code o} hold, checked together}
     *
     * @param o the other proof
     */
    public WalkProof and(WalkProof o) {
        if (o == null) {
            return this;
        }
        return new WalkProof(locks, trail, other == null ? o : other.and(o));
    }

    private boolean entriesHold() {
        Object[] tr = trail;
        for (int k = 0; k < tr.length; k += Nameidata.ENTRY) {
            if (!Nameidata.entryHolds(tr, k)) {
                return false;
            }
        }
        return other == null || other.entriesHold();
    }

    /** {@return the sum of every trail directory's rename sequence, or -1 if one is odd} */
    private long renameSeqs() {
        long mine = Nameidata.renameSeqs(trail, trail.length / Nameidata.ENTRY);
        if (mine < 0 || other == null) {
            return mine;
        }
        long theirs = other.renameSeqs();
        return theirs < 0 ? -1 : mine + theirs;
    }

    @Override
    public boolean stillHolds() {
        long ms = locks.mount.tryOptimisticRead();
        if (ms == 0) {
            return false;
        }
        long before = renameSeqs();
        return before >= 0 && entriesHold() && renameSeqs() == before && locks.mount.validate(ms);
    }

    @Override
    public boolean stillHoldsHoldingRenameLock() {
        // No other cross-directory rename can publish while the caller holds the write lock.
        long ms = locks.mount.tryOptimisticRead();
        return ms != 0 && entriesHold() && locks.mount.validate(ms);
    }
}
