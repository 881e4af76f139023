package dev.seqvfs.persist.log;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the segment log holds that is live, in memory: for each persistence id its events (where
 * each frame is), the sequence number its events were deleted up to and the highest one written;
 * its snapshots; each inode's written-back row and content blocks; the metadata values. Rebuilt at
 * open by applying every valid frame in log-sequence order ({@link LogRecovery}); then kept by the
 * holder of the writer role, which applies each batch after it is forced. A frame is <em>live</em>
 * while this index points at it; its segment counts its bytes as live ({@link Accounting}), which
 * is what compaction reclaims by.
 *
 * <h2>Concurrency</h2>
 *
 * One writer at a time: the holder of the log's writer role (before that, the opening thread).
 * Readers on any thread: the top-level maps are concurrent; each persistence id's {@link Journal},
 * {@link Snapshots} and each inode's {@link FileEntry} is guarded by its own monitor, which readers
 * take to copy out what they need.
 *
 * <h2>Invariants</h2>
 *
 * An event with a number at or below its id's {@code deletedTo} is never live; an inode deleted
 * ({@code INODE_DELETED}) has no entry; every live frame is counted once in its segment's live
 * bytes, a tombstone never.
 */
final class LogIndex {
    /** Receives the changes to what is live, by frame. */
    interface Accounting {
        /**
         * A frame became live.
         *
         * @param loc its location
         * @param size its length in bytes
         */
        void live(long loc, int size);

        /**
         * A live frame became dead.
         *
         * @param loc its location
         * @param size its length in bytes
         */
        void dead(long loc, int size);

        /**
         * A tombstone was applied (never live; dropped when its segment is the oldest compacted).
         *
         * @param loc its location
         */
        void tombstone(long loc);
    }

    /**
     * A frame's body, parsed down to its key (and a metadata value).
     *
     * @param kind the record's kind ({@link LogRecord})
     * @param name the persistence id or metadata key, else {@code null}
     * @param a sequence number (events, snapshots), inode number (content), or the bound of a
     *     deletion
     * @param b timestamp (snapshots), block index or range start (content), min sequence number
     * @param c range end (blocks), min timestamp
     * @param d max timestamp
     * @param value a metadata value, else {@code null}
     */
    record Key(byte kind, String name, long a, long b, long c, long d, String value) {}

    /** {@return the key of a body of {@code kind} ({@code body} at its start; left moved)} */
    static Key parse(byte kind, ByteBuffer body) {
        switch (kind) {
            case LogRecord.EVENT, LogRecord.EVENTS_DELETED -> {
                String pid = LogRecord.getString(body);
                return new Key(kind, pid, body.getLong(), 0, 0, 0, null);
            }
            case LogRecord.SNAPSHOT, LogRecord.SNAPSHOT_DELETED -> {
                String pid = LogRecord.getString(body);
                long seq = body.getLong();
                return new Key(kind, pid, seq, body.getLong(), 0, 0, null);
            }
            case LogRecord.SNAPSHOTS_DELETED -> {
                String pid = LogRecord.getString(body);
                long minSeq = body.getLong();
                long maxSeq = body.getLong();
                long minTs = body.getLong();
                return new Key(kind, pid, maxSeq, minSeq, minTs, body.getLong(), null);
            }
            case LogRecord.META -> {
                String k = LogRecord.getString(body);
                return new Key(kind, k, 0, 0, 0, 0, LogRecord.getString(body));
            }
            case LogRecord.FILE, LogRecord.INODE_DELETED -> {
                return new Key(kind, null, body.getLong(), 0, 0, 0, null);
            }
            case LogRecord.BLOCK -> {
                long ino = body.getLong();
                return new Key(kind, null, ino, body.getLong(), 0, 0, null);
            }
            case LogRecord.BLOCKS_DELETED -> {
                long ino = body.getLong();
                long from = body.getLong();
                return new Key(kind, null, ino, from, body.getLong(), 0, null);
            }
            case LogRecord.SEAL, LogRecord.CLOSE -> {
                return new Key(kind, null, 0, 0, 0, 0, null);
            }
            default -> throw new IllegalArgumentException("record kind " + kind);
        }
    }

    /** A live frame: its location and length in bytes. */
    record Slot(long loc, int size) {}

    /** A live snapshot: its timestamp (ms) and frame. */
    record Snap(long seq, long ts, long loc, int size) {}

    /** One persistence id's events. Guarded by its monitor. */
    static final class Journal {
        final EventIndex events = new EventIndex();
        long deletedTo;
        long highest;
        Slot marker;
    }

    /** One persistence id's snapshots, by sequence number. Guarded by its monitor. */
    static final class Snapshots {
        final TreeMap<Long, Snap> bySeq = new TreeMap<>();
    }

    /** One inode's stored content. Guarded by its monitor. */
    static final class FileEntry {
        Slot row;
        final TreeMap<Long, Slot> blocks = new TreeMap<>();
    }

    private final Accounting acct;
    private final ConcurrentHashMap<String, Journal> journals = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Snapshots> snapshots = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, FileEntry> files = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Map.Entry<String, Slot>> meta =
            new ConcurrentHashMap<>();

    LogIndex(Accounting acct) {
        this.acct = acct;
    }

    private void dead(Slot s) {
        if (s != null) {
            acct.dead(s.loc(), s.size());
        }
    }

    /**
     * Applies a frame of key {@code k} at {@code loc}, {@code size} bytes long: what it adds
     * becomes live (what it replaces or deletes dead). Writer thread (or the opening thread).
     */
    void apply(Key k, long loc, int size) {
        switch (k.kind()) {
            case LogRecord.EVENT -> {
                Journal j = journals.computeIfAbsent(k.name(), x -> new Journal());
                synchronized (j) {
                    j.highest = Math.max(j.highest, k.a());
                    if (k.a() > j.deletedTo) {
                        j.events.put(k.a(), loc, size, acct::dead);
                        acct.live(loc, size);
                    }
                }
            }
            case LogRecord.EVENTS_DELETED -> {
                Journal j = journals.computeIfAbsent(k.name(), x -> new Journal());
                synchronized (j) {
                    if (k.a() >= j.deletedTo) {
                        dead(j.marker);
                        j.marker = new Slot(loc, size);
                        acct.live(loc, size);
                        j.deletedTo = k.a();
                        j.highest = Math.max(j.highest, k.a());
                        j.events.deleteTo(k.a(), acct::dead);
                    }
                }
            }
            case LogRecord.SNAPSHOT -> {
                Snapshots s = snapshots.computeIfAbsent(k.name(), x -> new Snapshots());
                synchronized (s) {
                    dead(slot(s.bySeq.put(k.a(), new Snap(k.a(), k.b(), loc, size))));
                    acct.live(loc, size);
                }
            }
            case LogRecord.SNAPSHOT_DELETED -> {
                acct.tombstone(loc);
                Snapshots s = snapshots.get(k.name());
                if (s != null) {
                    synchronized (s) {
                        Snap e = s.bySeq.get(k.a());
                        if (e != null && (k.b() == 0 || e.ts() == k.b())) {
                            s.bySeq.remove(k.a());
                            dead(slot(e));
                        }
                    }
                }
            }
            case LogRecord.SNAPSHOTS_DELETED -> {
                acct.tombstone(loc);
                Snapshots s = snapshots.get(k.name());
                if (s != null) {
                    synchronized (s) {
                        Iterator<Snap> it = s.bySeq.values().iterator();
                        while (it.hasNext()) {
                            Snap e = it.next();
                            if (e.seq() >= k.b()
                                    && e.seq() <= k.a()
                                    && e.ts() >= k.c()
                                    && e.ts() <= k.d()) {
                                it.remove();
                                dead(slot(e));
                            }
                        }
                    }
                }
            }
            case LogRecord.META -> {
                Map.Entry<String, Slot> old =
                        meta.put(k.name(), Map.entry(k.value(), new Slot(loc, size)));
                if (old != null) {
                    dead(old.getValue());
                }
                acct.live(loc, size);
            }
            case LogRecord.FILE -> {
                FileEntry f = files.computeIfAbsent(k.a(), x -> new FileEntry());
                synchronized (f) {
                    dead(f.row);
                    f.row = new Slot(loc, size);
                    acct.live(loc, size);
                }
            }
            case LogRecord.BLOCK -> {
                FileEntry f = files.computeIfAbsent(k.a(), x -> new FileEntry());
                synchronized (f) {
                    dead(f.blocks.put(k.b(), new Slot(loc, size)));
                    acct.live(loc, size);
                }
            }
            case LogRecord.BLOCKS_DELETED -> {
                acct.tombstone(loc);
                FileEntry f = files.get(k.a());
                if (f != null && k.b() < k.c()) {
                    synchronized (f) {
                        NavigableMap<Long, Slot> gone = f.blocks.subMap(k.b(), true, k.c(), false);
                        for (Slot s : gone.values()) {
                            dead(s);
                        }
                        gone.clear();
                    }
                }
            }
            case LogRecord.INODE_DELETED -> {
                acct.tombstone(loc);
                FileEntry f = files.remove(k.a());
                if (f != null) {
                    synchronized (f) {
                        dead(f.row);
                        f.row = null;
                        for (Slot s : f.blocks.values()) {
                            dead(s);
                        }
                        f.blocks.clear();
                    }
                }
            }
            default -> {
                // SEAL, CLOSE: frame boundaries, nothing to index
            }
        }
    }

    private static Slot slot(Snap s) {
        return s == null ? null : new Slot(s.loc(), s.size());
    }

    /** {@return whether the index points at the frame of key {@code k} at {@code loc}} */
    boolean isCurrent(Key k, long loc) {
        switch (k.kind()) {
            case LogRecord.EVENT -> {
                Journal j = journals.get(k.name());
                if (j == null) {
                    return false;
                }
                synchronized (j) {
                    return j.events.locOf(k.a()) == loc;
                }
            }
            case LogRecord.EVENTS_DELETED -> {
                Journal j = journals.get(k.name());
                if (j == null) {
                    return false;
                }
                synchronized (j) {
                    return j.marker != null && j.marker.loc() == loc;
                }
            }
            case LogRecord.SNAPSHOT -> {
                Snapshots s = snapshots.get(k.name());
                if (s == null) {
                    return false;
                }
                synchronized (s) {
                    Snap e = s.bySeq.get(k.a());
                    return e != null && e.loc() == loc;
                }
            }
            case LogRecord.META -> {
                Map.Entry<String, Slot> e = meta.get(k.name());
                return e != null && e.getValue().loc() == loc;
            }
            case LogRecord.FILE -> {
                FileEntry f = files.get(k.a());
                if (f == null) {
                    return false;
                }
                synchronized (f) {
                    return f.row != null && f.row.loc() == loc;
                }
            }
            case LogRecord.BLOCK -> {
                FileEntry f = files.get(k.a());
                if (f == null) {
                    return false;
                }
                synchronized (f) {
                    Slot s = f.blocks.get(k.b());
                    return s != null && s.loc() == loc;
                }
            }
            default -> {
                return false; // tombstones and frame boundaries are never copied
            }
        }
    }

    /**
     * Points the index at a copy of the live frame of key {@code k}: from {@code from} to {@code
     * to} (same length). Writer thread; the caller checked {@link #isCurrent} since the last apply.
     */
    void move(Key k, long from, long to, int size) {
        Slot moved = new Slot(to, size);
        switch (k.kind()) {
            case LogRecord.EVENT -> {
                Journal j = journals.get(k.name());
                synchronized (j) {
                    j.events.move(k.a(), from, to);
                }
            }
            case LogRecord.EVENTS_DELETED -> {
                Journal j = journals.get(k.name());
                synchronized (j) {
                    j.marker = moved;
                }
            }
            case LogRecord.SNAPSHOT -> {
                Snapshots s = snapshots.get(k.name());
                synchronized (s) {
                    Snap e = s.bySeq.get(k.a());
                    s.bySeq.put(k.a(), new Snap(e.seq(), e.ts(), to, size));
                }
            }
            case LogRecord.META -> meta.put(k.name(), Map.entry(k.value(), moved));
            case LogRecord.FILE -> {
                FileEntry f = files.get(k.a());
                synchronized (f) {
                    f.row = moved;
                }
            }
            case LogRecord.BLOCK -> {
                FileEntry f = files.get(k.a());
                synchronized (f) {
                    f.blocks.put(k.b(), moved);
                }
            }
            default -> throw new IllegalStateException("not a copyable record: " + k.kind());
        }
        acct.dead(from, size);
        acct.live(to, size);
    }

    // ---- readers ----------------------------------------------------------------------------

    /**
     * {@return the highest sequence number ever written for {@code pid}, deleted or not; 0 if none}
     */
    long highestSequenceNr(String pid) {
        Journal j = journals.get(pid);
        if (j == null) {
            return 0;
        }
        synchronized (j) {
            return j.highest;
        }
    }

    /**
     * {@return up to {@code max} live events of {@code pid} numbered in {@code [from, to]}, in
     * order, as triples {sequence number, location, length}}
     */
    long[][] events(String pid, long from, long to, long max) {
        Journal j = journals.get(pid);
        if (j == null) {
            return new long[0][];
        }
        synchronized (j) {
            return j.events.range(Math.max(from, j.deletedTo + 1), to, max);
        }
    }

    /** {@return the live snapshots of {@code pid}, newest sequence number first} */
    List<Snap> snapshots(String pid) {
        Snapshots s = snapshots.get(pid);
        if (s == null) {
            return List.of();
        }
        synchronized (s) {
            return new ArrayList<>(s.bySeq.descendingMap().values());
        }
    }

    /** {@return the value of metadata key {@code key}, or {@code null}} */
    String meta(String key) {
        Map.Entry<String, Slot> e = meta.get(key);
        return e == null ? null : e.getKey();
    }

    /** {@return the inode numbers that have a row or a block, in increasing order} */
    long[] inodes() {
        return files.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
    }

    /** {@return inode {@code ino}'s row frame, or {@code null}} */
    Slot row(long ino) {
        FileEntry f = files.get(ino);
        if (f == null) {
            return null;
        }
        synchronized (f) {
            return f.row;
        }
    }

    /** {@return inode {@code ino}'s block frames by block index, in increasing order} */
    NavigableMap<Long, Slot> blocks(long ino) {
        FileEntry f = files.get(ino);
        if (f == null) {
            return new TreeMap<>();
        }
        synchronized (f) {
            return new TreeMap<>(f.blocks);
        }
    }
}
