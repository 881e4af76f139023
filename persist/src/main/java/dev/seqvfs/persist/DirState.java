package dev.seqvfs.persist;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.pcollections.HashTreePMap;
import org.pcollections.PMap;

/**
 * The state a directory's journal recovers to: its names, each with the inode it binds ({@link
 * EntryRecord}), its own attributes once changed ({@code self}), and whether it was removed.
 *
 * <p>Immutable: a persistent (structure-sharing) map, so applying an event costs O(log n) and a
 * snapshot can be serialized on the snapshot store's thread while the entity goes on. Serialized
 * (Jackson CBOR, schema version 2) as a list of named entries; version 1 had no {@code lastRename}
 * and {@code moves}, read as 0 and none.
 */
public final class DirState implements CborSerializable {
    /** The state of a directory whose journal is empty. */
    public static final DirState EMPTY =
            new DirState(
                    HashTreePMap.empty(),
                    null,
                    false,
                    HashTreePMap.empty(),
                    0,
                    HashTreePMap.empty());

    private final PMap<String, EntryRecord> entries;
    private final EntryRecord self;
    private final boolean removed;

    /**
     * The last attributes of inodes unlinked here that kept other names, or recorded so by a
     * removed subdirectory ({@link DirEvent.UnlinkedInherited}), by inode number.
     */
    private final PMap<Long, EntryRecord> unlinked;

    /** The highest move number of either half of a move seen here ({@link DirEvent}), or 0. */
    private final long lastRename;

    /** The moves into this directory not yet settled, by move number. */
    private final PMap<Long, PendingMove> moves;

    private DirState(
            PMap<String, EntryRecord> entries,
            EntryRecord self,
            boolean removed,
            PMap<Long, EntryRecord> unlinked,
            long lastRename,
            PMap<Long, PendingMove> moves) {
        this.entries = entries;
        this.self = self;
        this.removed = removed;
        this.unlinked = unlinked;
        this.lastRename = lastRename;
        this.moves = moves;
    }

    private DirState with(PMap<String, EntryRecord> e, PMap<Long, EntryRecord> u) {
        return new DirState(e, self, removed, u, lastRename, moves);
    }

    /**
     * A move into this directory whose source half may not be durable ({@link
     * DirEvent.EntryMovedIn}).
     *
     * @param rename the move's number
     * @param fromDir the source parent's inode number
     * @param fromName the component there
     * @param ino the moved inode's number
     * @param exchanged for {@code RENAME_EXCHANGE}, what {@code fromName} binds after it; else
     *     {@code null}
     */
    public record PendingMove(
            long rename, long fromDir, String fromName, long ino, EntryRecord exchanged) {}

    /** One name and its inode, the serialized form of an entry. */
    public record Named(String name, EntryRecord entry) {}

    /**
     * Jackson's creator, from the serialized form.
     *
     * @param named the entries
     * @param self the directory's own attributes, or {@code null}
     * @param removed whether it was removed
     * @param unlinked the last attributes of inodes unlinked here that kept other names
     * @param lastRename the highest move number seen here (0 when absent: schema version 1)
     * @param moves the moves into this directory not yet settled (absent in version 1)
     * @return the state
     */
    @JsonCreator
    public static DirState of(
            @JsonProperty("entries") List<Named> named,
            @JsonProperty("self") EntryRecord self,
            @JsonProperty("removed") boolean removed,
            @JsonProperty("unlinked") List<EntryRecord> unlinked,
            @JsonProperty("lastRename") long lastRename,
            @JsonProperty("moves") List<PendingMove> moves) {
        PMap<String, EntryRecord> m = HashTreePMap.empty();
        if (named != null) {
            for (Named n : named) {
                m = m.plus(n.name(), n.entry());
            }
        }
        PMap<Long, EntryRecord> u = HashTreePMap.empty();
        if (unlinked != null) {
            for (EntryRecord r : unlinked) {
                u = u.plus(r.ino(), r);
            }
        }
        PMap<Long, PendingMove> p = HashTreePMap.empty();
        if (moves != null) {
            for (PendingMove x : moves) {
                p = p.plus(x.rename(), x);
            }
        }
        return new DirState(m, self, removed, u, lastRename, p);
    }

    /** {@return the highest move number of either half of a move seen here, or 0} */
    @JsonProperty("lastRename")
    public long lastRename() {
        return lastRename;
    }

    /** {@return the moves into this directory not yet settled, in no particular order} */
    @JsonProperty("moves")
    public List<PendingMove> pendingMoves() {
        return new ArrayList<>(moves.values());
    }

    /**
     * {@return the last attributes of inodes unlinked here while they kept other names (for
     * recovery: the newest attributes of an inode may have been recorded under a name it no longer
     * has)}
     */
    @JsonProperty("unlinked")
    public List<EntryRecord> unlinkedRecords() {
        return new ArrayList<>(unlinked.values());
    }

    /** {@return the entries, for serialization (in no particular order)} */
    @JsonProperty("entries")
    public List<Named> named() {
        List<Named> out = new ArrayList<>(entries.size());
        for (Map.Entry<String, EntryRecord> e : entries.entrySet()) {
            out.add(new Named(e.getKey(), e.getValue()));
        }
        return out;
    }

    /** {@return the names and the inodes they bind; immutable} */
    @JsonIgnore
    public Map<String, EntryRecord> entries() {
        return entries;
    }

    /** {@return the directory's own attributes as last changed through it, or {@code null}} */
    @JsonProperty("self")
    public EntryRecord self() {
        return self;
    }

    /** {@return whether the directory was removed ({@link DirEvent.DirectoryRemoved})} */
    @JsonProperty("removed")
    public boolean removed() {
        return removed;
    }

    /**
     * {@return the state after {@code e}} Never fails: an event names only what the directory's
     * actor published, so a removal of an absent name (possible only after a journal was edited by
     * hand) changes nothing.
     *
     * @param e the event
     */
    public DirState apply(DirEvent e) {
        if (e instanceof DirEvent.EntryAdded a) {
            return with(entries.plus(a.name(), a.entry()), unlinked);
        } else if (e instanceof DirEvent.EntryRemoved r) {
            return with(
                    entries.minus(r.name()),
                    r.entry() == null ? unlinked : unlinked.plus(r.entry().ino(), r.entry()));
        } else if (e instanceof DirEvent.EntryRenamed r) {
            EntryRecord moved = entries.get(r.from());
            if (moved == null) {
                return this;
            }
            return with(entries.minus(r.from()).plus(r.to(), moved), unlinked);
        } else if (e instanceof DirEvent.AttrsChanged c) {
            if (c.name() == null) {
                return new DirState(entries, c.entry(), removed, unlinked, lastRename, moves);
            }
            return entries.containsKey(c.name())
                    ? with(entries.plus(c.name(), c.entry()), unlinked)
                    : this;
        } else if (e instanceof DirEvent.EntryMovedIn m) {
            return new DirState(
                    entries.plus(m.name(), m.entry()),
                    self,
                    removed,
                    m.replaced() == null
                            ? unlinked
                            : unlinked.plus(m.replaced().ino(), m.replaced()),
                    Math.max(lastRename, m.rename()),
                    moves.plus(
                            m.rename(),
                            new PendingMove(
                                    m.rename(),
                                    m.fromDir(),
                                    m.fromName(),
                                    m.entry().ino(),
                                    m.exchanged())));
        } else if (e instanceof DirEvent.EntryMovedOut m) {
            return new DirState(
                    m.exchanged() == null
                            ? entries.minus(m.name())
                            : entries.plus(m.name(), m.exchanged()),
                    self,
                    removed,
                    unlinked,
                    Math.max(lastRename, m.rename()),
                    moves);
        } else if (e instanceof DirEvent.UnlinkedInherited h) {
            PMap<Long, EntryRecord> u = unlinked;
            for (EntryRecord r : h.entries()) {
                EntryRecord had = u.get(r.ino());
                if (had == null || r.ctime() >= had.ctime()) {
                    u = u.plus(r.ino(), r);
                }
            }
            return with(entries, u);
        } else if (e instanceof DirEvent.MoveSettled m) {
            return new DirState(
                    entries, self, removed, unlinked, lastRename, moves.minus(m.rename()));
        } else {
            return new DirState(
                    HashTreePMap.empty(),
                    self,
                    true,
                    HashTreePMap.empty(),
                    lastRename,
                    HashTreePMap.empty());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DirState s
                && s.entries.equals(entries)
                && java.util.Objects.equals(s.self, self)
                && s.removed == removed
                && s.unlinked.equals(unlinked)
                && s.lastRename == lastRename
                && s.moves.equals(moves);
    }

    @Override
    public int hashCode() {
        return entries.hashCode() * 31 + Boolean.hashCode(removed);
    }

    @Override
    public String toString() {
        return "DirState" + entries + (removed ? " removed" : "");
    }
}
