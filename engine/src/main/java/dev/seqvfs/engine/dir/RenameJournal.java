package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;

/**
 * Where a superblock's rename coordinator sends a cross-directory rename it has published, for a
 * type whose directories journal apart ({@link DirJournal}; {@link
 * dev.seqvfs.engine.fs.SuperOperations#renameJournal}).
 *
 * <p>The protocol, beside {@link DirJournal}'s: the coordinator publishes the rename in memory as
 * it always does, then calls {@link #append} on its own thread, with both parents still prepared
 * (their actors stash every other command), and answers the caller and releases the parents only
 * when the journal calls back. So no later change of either parent reaches its journal before the
 * rename's, and the caller learns of success only once the rename is durable in both. The journal
 * must make the pair atomic across a crash: recovery shows the rename whole or not at all (a
 * persistent type writes the target parent's record first, naming the source, and rolls the source
 * parent forward at recovery when its half is missing). A failed append answers {@code EIO}; the
 * rename stays published in memory, not durable.
 *
 * <p>Implementations are called on the superblock actor's thread, must not block, and call the
 * callback exactly once, on any thread.
 */
public interface RenameJournal {
    /**
     * One published cross-directory rename.
     *
     * @param oldDir the source parent
     * @param oldName the source component (internal form)
     * @param newDir the target parent (not {@code oldDir})
     * @param newName the target component (internal form)
     * @param exchange whether it was {@code RENAME_EXCHANGE}: {@code oldName} now binds {@code
     *     target}
     * @param source the inode moved, now bound as {@code newName}; its attributes are read when the
     *     move is journaled
     * @param target the inode {@code newName} bound before, or {@code null}: replaced (unless
     *     {@code exchange})
     * @param whiteout for {@code RENAME_WHITEOUT}, the whiteout {@code oldName} now binds; else
     *     {@code null}
     */
    record Move(
            DirectoryInode oldDir,
            String oldName,
            DirectoryInode newDir,
            String newName,
            boolean exchange,
            Inode source,
            Inode target,
            Inode whiteout) {}

    /**
     * Journals {@code move} in both parents' journals and calls {@code done} once it is durable in
     * both or has failed.
     *
     * @param move the rename, as published
     * @param done called once, on any thread: {@code null} when durable, else {@code EIO}
     */
    void append(Move move, DirJournal.Done done);
}
