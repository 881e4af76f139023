package dev.seqvfs.engine.inode;

/**
 * The lifecycle of an inode.
 *
 * <pre>
 *   LIVE ──(last link dropped, still open)──▶ UNLINKED_OPEN ──(last open reference closed)──▶ FREED
 *   LIVE ──(last link dropped, not open)──────────────────────────────────────────────────▶ FREED
 * </pre>
 *
 * An inode leaves {@code LIVE} when its link count reaches zero; it is {@code FREED} (its inode and
 * bytes returned to the superblock's quota) when both the link count and the open count are zero.
 * {@code FREED} is final.
 */
public enum InodeState {
    /** Has at least one link. */
    LIVE,
    /** No links, but open through at least one open file description. */
    UNLINKED_OPEN,
    /** No links, not open; its quota has been returned. Final. */
    FREED
}
