package dev.seqvfs.engine.dir;

/**
 * Evidence that the path a command was resolved through still leads where it led: the writer checks
 * it at the instant it applies the command, so the command takes effect at one instant at which its
 * paths hold (linearizability), not at the later instant its message is processed. A failed check
 * answers {@code ESTALE} and the caller walks again (the {@code LOOKUP_REVAL} retry of Linux's
 * {@code do_filp_open}).
 *
 * <p>Implementations are immutable (a copy of the walk's trail of lookups) and their checks are
 * lock-free reads of published snapshots.
 */
public interface PathProof {
    /** A proof that always holds (commands not sent by a path walk). */
    PathProof NONE =
            new PathProof() {
                @Override
                public boolean stillHolds() {
                    return true;
                }
            };

    /**
     * {@return whether every lookup of the walk still holds now and no rename or mount change is
     * mid-publish}
     */
    boolean stillHolds();

    /**
     * Like {@link #stillHolds()} for a caller that holds the rename write lock (the rename
     * coordinator): no cross-directory rename can be mid-publish, so only the lookups and the mount
     * sequence are checked.
     *
     * @return whether the proof still holds
     */
    default boolean stillHoldsHoldingRenameLock() {
        return stillHolds();
    }
}
