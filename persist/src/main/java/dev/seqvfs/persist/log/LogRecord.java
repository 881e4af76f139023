package dev.seqvfs.persist.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * One record of the segment log, as the caller hands it in: its kind, its key part ({@code head})
 * and its payload ({@code tail}, may be {@code null}), with the CRC32C of both computed on the
 * caller's thread. The writer adds the frame's header when it writes it.
 *
 * <h2>Frame</h2>
 *
 * <pre>
 *  0  int   length     body bytes (head + tail)
 *  4  int   bodyCrc    CRC32C of the body
 *  8  long  lsn        log sequence number: unique and increasing in append order, kept by a copy
 * 16  byte  kind       one of the constants below
 * 17  byte  flags      {@link #MORE}: the next record belongs to the same atomic group
 * 18  int   headerCrc  CRC32C of the segment's number (8 bytes) and bytes 0..17
 * 22  body
 * </pre>
 *
 * A frame is valid when both CRCs match. The segment number in the header's CRC makes a frame left
 * in a file from elsewhere (another segment's bytes) invalid here; a frame of zeros (preallocated
 * space) is invalid too (its CRC is not zero). A reader stops at the first invalid frame: the end
 * of what was written, or a torn tail after a crash.
 *
 * <p>Immutable; the arrays are not copied (the caller hands them over).
 */
final class LogRecord {
    /** Bytes of a frame's header. */
    static final int HEADER = 22;

    /** Flag: the next record is part of the same atomic group (all or none at recovery). */
    static final byte MORE = 1;

    /** The end of a segment the writer moved on from: nothing after it is read. */
    static final byte SEAL = 1;

    /** A clean close: the next open may go on appending at this record's offset. */
    static final byte CLOSE = 2;

    /** A journal event: persistence id, sequence number, serialized {@code PersistentRepr}. */
    static final byte EVENT = 3;

    /** Events of a persistence id deleted up to a sequence number (the id's one live marker). */
    static final byte EVENTS_DELETED = 4;

    /** A snapshot: persistence id, sequence number, timestamp, serialized snapshot. */
    static final byte SNAPSHOT = 5;

    /** A snapshot deleted by sequence number (and timestamp, unless 0). A tombstone. */
    static final byte SNAPSHOT_DELETED = 6;

    /** Snapshots deleted by selection criteria. A tombstone. */
    static final byte SNAPSHOTS_DELETED = 7;

    /** A value of the store's metadata (key to value). */
    static final byte META = 8;

    /**
     * A written-back inode's row: its number, then its attributes as the content store encodes
     * them.
     */
    static final byte FILE = 9;

    /** A block of file content: inode number, block index, bytes. */
    static final byte BLOCK = 10;

    /** The blocks of an inode in {@code [from, to)} deleted. A tombstone. */
    static final byte BLOCKS_DELETED = 11;

    /** An inode's row and blocks deleted. A tombstone. */
    static final byte INODE_DELETED = 12;

    final byte kind;
    final byte[] head;
    final byte[] tail;
    final int bodyCrc;

    private LogRecord(byte kind, byte[] head, byte[] tail, int bodyCrc) {
        this.kind = kind;
        this.head = head;
        this.tail = tail;
        this.bodyCrc = bodyCrc;
    }

    /** {@return a record of {@code kind} whose body is {@code head} then {@code tail}} */
    static LogRecord of(byte kind, byte[] head, byte[] tail) {
        CRC32C c = new CRC32C();
        c.update(head, 0, head.length);
        if (tail != null) {
            c.update(tail, 0, tail.length);
        }
        return new LogRecord(kind, head, tail, (int) c.getValue());
    }

    /** {@return a record read back from a segment (its body whole in {@code body})} */
    static LogRecord read(byte kind, byte[] body, int bodyCrc) {
        return new LogRecord(kind, body, null, bodyCrc);
    }

    /** {@return the body's length in bytes} */
    int bodyLength() {
        return head.length + (tail == null ? 0 : tail.length);
    }

    /** {@return the frame's length in bytes, header included} */
    int frameLength() {
        return HEADER + bodyLength();
    }

    /** {@return whether this is a tombstone: it kills older records and is itself never live} */
    boolean tombstone() {
        return kind == SNAPSHOT_DELETED
                || kind == SNAPSHOTS_DELETED
                || kind == BLOCKS_DELETED
                || kind == INODE_DELETED;
    }

    /** {@return the body as one buffer (head and tail joined; no copy when there is no tail)} */
    ByteBuffer body() {
        if (tail == null) {
            return ByteBuffer.wrap(head);
        }
        ByteBuffer b = ByteBuffer.allocate(bodyLength());
        b.put(head).put(tail).flip();
        return b;
    }

    /**
     * Writes this record's frame into {@code out} at its position.
     *
     * @param out the buffer (room for {@link #frameLength()} bytes)
     * @param segment the number of the segment it goes to
     * @param lsn its log sequence number
     * @param flags its flags ({@link #MORE} or 0)
     */
    void writeFrame(ByteBuffer out, long segment, long lsn, byte flags) {
        int start = out.position();
        out.putInt(bodyLength()).putInt(bodyCrc).putLong(lsn).put(kind).put(flags);
        out.putInt(headerCrc(segment, out, start));
        out.put(head);
        if (tail != null) {
            out.put(tail);
        }
    }

    /**
     * {@return the header CRC of the 18 header bytes at {@code start} of {@code b}, in segment
     * {@code segment}}
     */
    static int headerCrc(long segment, ByteBuffer b, int start) {
        CRC32C c = new CRC32C();
        ByteBuffer seg = ByteBuffer.allocate(8).putLong(segment).flip();
        c.update(seg);
        ByteBuffer h = b.duplicate();
        h.limit(start + 18).position(start);
        c.update(h);
        return (int) c.getValue();
    }

    /** {@return the CRC32C of {@code len} bytes of {@code b} at {@code off}} */
    static int crc(byte[] b, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(b, off, len);
        return (int) c.getValue();
    }

    // ---- bodies ----------------------------------------------------------------------------

    /** {@return {@code s} as a length (int) and its UTF-8 bytes} */
    private static void putString(ByteBuffer b, byte[] s) {
        b.putInt(s.length).put(s);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@return a string written by {@link #putString}, read from {@code b}} */
    static String getString(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            throw new IllegalArgumentException("string of " + n + " bytes in a record");
        }
        String s = new String(b.array(), b.arrayOffset() + b.position(), n, StandardCharsets.UTF_8);
        b.position(b.position() + n);
        return s;
    }

    /** {@return an {@link #EVENT}: persistence id {@code pid}, {@code seq}, {@code payload}} */
    static LogRecord event(String pid, long seq, byte[] payload) {
        byte[] p = utf8(pid);
        ByteBuffer h = ByteBuffer.allocate(4 + p.length + 8);
        putString(h, p);
        h.putLong(seq);
        return of(EVENT, h.array(), payload);
    }

    /** {@return an {@link #EVENTS_DELETED} marker: events of {@code pid} up to {@code to} gone} */
    static LogRecord eventsDeleted(String pid, long to) {
        byte[] p = utf8(pid);
        ByteBuffer h = ByteBuffer.allocate(4 + p.length + 8);
        putString(h, p);
        h.putLong(to);
        return of(EVENTS_DELETED, h.array(), null);
    }

    /** {@return a {@link #SNAPSHOT} of {@code pid} at {@code seq}, taken at {@code ts} ms} */
    static LogRecord snapshot(String pid, long seq, long ts, byte[] payload) {
        byte[] p = utf8(pid);
        ByteBuffer h = ByteBuffer.allocate(4 + p.length + 16);
        putString(h, p);
        h.putLong(seq).putLong(ts);
        return of(SNAPSHOT, h.array(), payload);
    }

    /** {@return a {@link #SNAPSHOT_DELETED} of {@code pid} at {@code seq} (timestamp 0: any)} */
    static LogRecord snapshotDeleted(String pid, long seq, long ts) {
        byte[] p = utf8(pid);
        ByteBuffer h = ByteBuffer.allocate(4 + p.length + 16);
        putString(h, p);
        h.putLong(seq).putLong(ts);
        return of(SNAPSHOT_DELETED, h.array(), null);
    }

    /** {@return a {@link #SNAPSHOTS_DELETED} of {@code pid} within the bounds (inclusive)} */
    static LogRecord snapshotsDeleted(
            String pid, long minSeq, long maxSeq, long minTs, long maxTs) {
        byte[] p = utf8(pid);
        ByteBuffer h = ByteBuffer.allocate(4 + p.length + 32);
        putString(h, p);
        h.putLong(minSeq).putLong(maxSeq).putLong(minTs).putLong(maxTs);
        return of(SNAPSHOTS_DELETED, h.array(), null);
    }

    /** {@return a {@link #META} value} */
    static LogRecord meta(String key, String value) {
        byte[] k = utf8(key);
        byte[] v = utf8(value);
        ByteBuffer h = ByteBuffer.allocate(8 + k.length + v.length);
        putString(h, k);
        putString(h, v);
        return of(META, h.array(), null);
    }

    /** {@return a {@link #FILE} row of inode {@code ino}: its encoded attributes} */
    static LogRecord file(long ino, byte[] row) {
        return of(FILE, ByteBuffer.allocate(8).putLong(ino).array(), row);
    }

    /** {@return a {@link #BLOCK}: block {@code idx} of inode {@code ino}} */
    static LogRecord block(long ino, long idx, byte[] data) {
        return of(BLOCK, ByteBuffer.allocate(16).putLong(ino).putLong(idx).array(), data);
    }

    /** {@return a {@link #BLOCKS_DELETED}: blocks {@code [from, to)} of inode {@code ino}} */
    static LogRecord blocksDeleted(long ino, long from, long to) {
        return of(
                BLOCKS_DELETED,
                ByteBuffer.allocate(24).putLong(ino).putLong(from).putLong(to).array(),
                null);
    }

    /** {@return an {@link #INODE_DELETED}: inode {@code ino}'s row and blocks} */
    static LogRecord inodeDeleted(long ino) {
        return of(INODE_DELETED, ByteBuffer.allocate(8).putLong(ino).array(), null);
    }

    /** {@return the body of a record of a seal or a clean close} */
    static LogRecord mark(byte kind) {
        return of(kind, new byte[0], null);
    }
}
