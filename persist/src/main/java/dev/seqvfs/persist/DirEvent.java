package dev.seqvfs.persist;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * An event of a directory's journal (past tense): one change to the names of one directory, or to
 * the attributes of an inode changed through it. A drained batch of the directory's commands is one
 * list of these, persisted at once ({@code persist(List)}: group commit); recovery applies them in
 * order ({@link DirState#apply}).
 *
 * <p>Schema version 3 (2 added the halves of a move, 3 {@link UnlinkedInherited}), serialized as
 * Jackson CBOR with the type's name ({@code "added"}, ...) in the payload: a name or a field once
 * written is never renamed or removed, so an event written by an older version still recovers
 * ({@code DirEventSchemaTest} reads a stored fixture).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "t")
@JsonSubTypes({
    @JsonSubTypes.Type(value = DirEvent.EntryAdded.class, name = "added"),
    @JsonSubTypes.Type(value = DirEvent.EntryRemoved.class, name = "removed"),
    @JsonSubTypes.Type(value = DirEvent.EntryRenamed.class, name = "renamed"),
    @JsonSubTypes.Type(value = DirEvent.AttrsChanged.class, name = "attrs"),
    @JsonSubTypes.Type(value = DirEvent.DirectoryRemoved.class, name = "rmdir"),
    @JsonSubTypes.Type(value = DirEvent.EntryMovedIn.class, name = "moved-in"),
    @JsonSubTypes.Type(value = DirEvent.EntryMovedOut.class, name = "moved-out"),
    @JsonSubTypes.Type(value = DirEvent.MoveSettled.class, name = "move-settled"),
    @JsonSubTypes.Type(value = DirEvent.UnlinkedInherited.class, name = "inherited")
})
public sealed interface DirEvent extends CborSerializable {
    /**
     * A name was bound to an inode: {@code creat}, {@code mkdir}, {@code mknod}, {@code symlink} (a
     * new inode) or {@code link} (an existing one). Replaces whatever the name bound before.
     *
     * @param name the component (internal form)
     * @param entry the inode it binds, with its attributes then
     */
    record EntryAdded(String name, EntryRecord entry) implements DirEvent {}

    /**
     * A name was removed: {@code unlink}, {@code rmdir}.
     *
     * @param name the component (internal form)
     * @param entry the unlinked inode's attributes after the unlink when it keeps other names (so
     *     that recovery knows its newest attributes even if they were changed through this name),
     *     else {@code null}
     */
    record EntryRemoved(String name, EntryRecord entry) implements DirEvent {}

    /**
     * A name was moved within the directory ({@code rename} with both names here), replacing
     * whatever {@code to} bound.
     *
     * @param from the old component
     * @param to the new component
     */
    record EntryRenamed(String from, String to) implements DirEvent {}

    /**
     * The attributes of an inode bound here were changed through this directory ({@code chmod},
     * {@code chown}, {@code utimensat} by path), or of the directory itself when {@code name} is
     * {@code null}.
     *
     * @param name the component whose inode changed, or {@code null} for the directory itself
     * @param entry the inode's attributes after the change
     */
    record AttrsChanged(String name, EntryRecord entry) implements DirEvent {}

    /**
     * This directory was removed from its parent ({@code rmdir}): its journal ends here; recovery
     * never reaches it again.
     */
    record DirectoryRemoved() implements DirEvent {}

    /**
     * A name came here from another directory ({@code rename} across directories): the first half
     * of the move, written to the target parent before the source parent's {@link EntryMovedOut},
     * so that it is also the move's intent. Recovery finds it pending (not yet {@link MoveSettled})
     * and, when the source parent has no half of move {@code rename} ({@link DirState#lastRename}
     * below it), rolls the source forward; a crash never shows a half-applied move. Replaces
     * whatever {@code name} bound before.
     *
     * @param name the component here (internal form)
     * @param entry the moved inode, with its attributes after the move
     * @param rename the move's number: unique in the file system and increasing
     * @param fromDir the source parent's inode number
     * @param fromName the component there
     * @param replaced the attributes of the inode {@code name} bound before, when the move unlinked
     *     it and it keeps other names; else {@code null}
     * @param exchanged what {@code fromName} binds there after the move: for {@code
     *     RENAME_EXCHANGE}, the inode {@code name} bound before; for {@code RENAME_WHITEOUT}, the
     *     whiteout left there; else {@code null}
     */
    record EntryMovedIn(
            String name,
            EntryRecord entry,
            long rename,
            long fromDir,
            String fromName,
            EntryRecord replaced,
            EntryRecord exchanged)
            implements DirEvent {}

    /**
     * A name left for another directory: the second half of move {@code rename} ({@link
     * EntryMovedIn}).
     *
     * @param name the component here
     * @param rename the move's number
     * @param exchanged what {@code name} now binds: for {@code RENAME_EXCHANGE} the exchanged
     *     inode, for {@code RENAME_WHITEOUT} the whiteout; else {@code null}: the name is gone
     */
    record EntryMovedOut(String name, long rename, EntryRecord exchanged) implements DirEvent {}

    /**
     * Both halves of move {@code rename}, whose {@link EntryMovedIn} this directory holds, are
     * durable: recovery need not look at it again.
     *
     * @param rename the move's number
     */
    record MoveSettled(long rename) implements DirEvent {}

    /**
     * A directory bound here is being removed ({@code rmdir}, or a rename over it), and with its
     * journal, which recovery never reaches again, would go the attributes it held of inodes
     * unlinked there while they kept other names ({@link EntryRemoved#entry}): this directory holds
     * them from now on. Written in the same batch as, and before, the event that removes the
     * directory's name, so that no crash shows the removal without them (found by the crash test:
     * chmod through a hard link's name, unlink it, rmdir its directory, and the other name came
     * back with its old mode).
     *
     * @param from the removed directory's inode number
     * @param entries the last attributes it recorded of each such inode
     */
    record UnlinkedInherited(long from, List<EntryRecord> entries) implements DirEvent {}
}
