package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.protocol.Errno;
import java.util.List;

/**
 * Where a directory's actor sends the changes it publishes, for a type that keeps them (a
 * persistent type's directory journal; {@link dev.seqvfs.engine.fs.SuperOperations#journal}).
 *
 * <p>The protocol: the actor publishes a batch in memory as it always does (readers see it at once,
 * as Linux's dcache shows a change before the journal commits it), then calls {@link #append} with
 * the batch's changes, in order, and holds back the replies of the commands that changed something
 * until the journal calls back: their callers learn of success only once it is durable (what {@code
 * dirsync} promises on Linux). While one append is in flight the actor drains no more commands, so
 * everything that queues up meanwhile is the next batch: one journal write per batch (group
 * commit). A failed append answers the batch's changing commands {@code EIO}; the change stays
 * published in memory, not durable (as a Linux write whose journal commit failed).
 *
 * <p>Implementations are called on the directory actor's thread, must not block, and call the
 * callback exactly once, on any thread.
 */
public interface DirJournal {
    /** One change to a directory, as its actor published it. */
    sealed interface Change {}

    /**
     * {@code name} now binds {@code inode} (a create, a link, or the result of a rename within the
     * directory).
     *
     * @param name the component (internal form)
     * @param inode the inode it binds; its attributes are read when the change is journaled
     */
    record Bound(String name, Inode inode) implements Change {}

    /**
     * {@code name} binds nothing any more (an unlink, an rmdir, the old name of a rename).
     *
     * @param name the component (internal form)
     * @param inode the inode it bound when that is known: an unlinked file, which may keep other
     *     names (a journal records its attributes, which its other names' records may not have), or
     *     a removed directory ({@code rmdir}, or one a rename replaced: its journal ends, and what
     *     it held for others its parent's must hold); else {@code null}
     */
    record Unbound(String name, Inode inode) implements Change {}

    /**
     * The attributes of {@code inode}, bound as {@code name} (or the directory itself when {@code
     * name} is {@code null}), were changed through the directory ({@code chmod}, {@code chown},
     * {@code utimensat} by path).
     *
     * @param name the component, or {@code null} for the directory itself
     * @param inode the inode; its attributes are read when the change is journaled
     */
    record Attrs(String name, Inode inode) implements Change {}

    /** What {@link #append} calls back with. */
    @FunctionalInterface
    interface Done {
        /**
         * The append's outcome.
         *
         * @param error {@code null} when the changes are durable, else why not ({@code EIO})
         */
        void done(Errno error);
    }

    /**
     * Journals one batch's changes and calls {@code done} once they are durable or have failed.
     *
     * @param changes the changes, in the order the actor published them; never empty
     * @param done called once, on any thread
     */
    void append(List<Change> changes, Done done);
}
