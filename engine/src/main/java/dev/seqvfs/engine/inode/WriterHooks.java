package dev.seqvfs.engine.inode;

/**
 * Points in a writer's sequence where a test can step in: park the writer there to force an
 * interleaving, or make it fail. A superblock's hooks are {@link #NONE} unless a test installs
 * others ({@code Superblock.installHooks}); each point costs one plain volatile read of the
 * superblock's hooks field and a call to an empty method. The owner of an inode hands them out
 * ({@link InodeOwner#hooks}).
 *
 * <p>Thread-safety: a hook runs on the writer's thread (a directory actor's, the rename
 * coordinator's, or a caller's) and must be thread-safe. A hook that blocks blocks that writer,
 * which is what a test that parks it wants and what nothing else may do.
 */
public interface WriterHooks {
    /** No hooks: every point returns at once. */
    WriterHooks NONE = new WriterHooks() {};

    /**
     * A directory's writer has published a change of {@code dir}'s entries (an unlink, an rmdir, a
     * rename out of or within it) and is about to apply the change's link counts and times: the
     * window in which a concurrent {@code rmdir} of an emptied {@code dir} can kill it.
     *
     * @param dir the directory whose entries changed
     */
    default void entriesPublished(Inode dir) {}

    /**
     * A directory's actor has applied a batch of {@code commands} creates, links and unlinks to its
     * working snapshot and is about to publish it, inside the publication gate: none of the batch's
     * callers is answered yet. A hook that blocks here holds the batch unpublished (and the gate
     * entered: a cross-directory rename or a mount change waits meanwhile), while later commands
     * queue up behind it.
     *
     * @param dir the directory
     * @param commands the commands in the batch, at least 1
     */
    default void batchStaged(Inode dir, int commands) {}

    /**
     * A directory's actor is about to release the superblock's writer count it took for a message
     * (a batch, an rmdir, a rename within the directory, an attribute change), whether the change
     * succeeded or failed. No caller of that message has its answer yet: the answers go out after
     * the release, so a caller that has one finds the write over.
     *
     * @param dir the directory
     */
    default void writeEnding(Inode dir) {}

    /**
     * A cross-directory rename has published its target parent's snapshot and not yet its source
     * parent's: the moved name is bound in both. The rename coordinator holds the rename write lock
     * here; a hook that blocks holds the rename half published.
     *
     * @param oldDir the source parent, still binding the old name
     * @param newDir the target parent, already binding the new name
     */
    default void renameHalfPublished(Inode oldDir, Inode newDir) {}

    /**
     * A write or {@code fallocate} is about to allocate {@code bytes} bytes of file data for {@code
     * inode}. A hook may throw {@link OutOfMemoryError} to stand for the heap running out there.
     *
     * @param inode the file
     * @param bytes the bytes about to be allocated
     */
    default void allocatingData(Inode inode, long bytes) {}
}
