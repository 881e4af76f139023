package dev.seqvfs.persist.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One segment file of the log ({@code NNNNNNNNNNNNNNNN.seg} in the log's directory, the number in
 * hexadecimal): frames ({@link LogRecord}) one after another from offset 0, then zeros (space
 * preallocated so that a forced append changes no file metadata) or the end of the file. The writer
 * appends to one segment, the head; the others are sealed (a {@link LogRecord#SEAL} frame ends
 * them) and only read, until compaction removes them.
 *
 * <h2>Concurrency</h2>
 *
 * {@code end} is written by the writer role's holder (the opening thread before it) and read by any
 * (volatile); {@code live} and {@code tombstones} are changed by the writer role only and read by
 * the housekeeper (atomics). The channel is read by any thread (positional reads), written by the
 * writer and, beyond {@code allocated}, by the housekeeper's preallocation; it is closed by the
 * housekeeper under the log's segment write lock, so a reader holding the read lock never sees it
 * closed.
 */
final class Segment {
    final long number;
    final Path path;
    final FileChannel channel;

    /** Bytes of valid frames from offset 0: where the next frame goes (the head's). */
    volatile long end;

    /** Bytes of zeros written and forced from offset 0 (the head's preallocation). */
    volatile long allocated;

    /** Bytes of this segment's live frames ({@link LogIndex}). */
    final AtomicLong live = new AtomicLong();

    /** Tombstones in this segment: it can go only as the oldest segment, compacted. */
    final AtomicInteger tombstones = new AtomicInteger();

    /** Whether the writer has moved on (the segment ends with a seal). */
    volatile boolean sealed;

    Segment(long number, Path path, FileChannel channel) {
        this.number = number;
        this.path = path;
        this.channel = channel;
    }

    /** {@return the file name of segment {@code n}} */
    static String fileName(long n) {
        return String.format("%016x.seg", n);
    }

    /** {@return the number in segment file name {@code name}, or -1 if it is not one} */
    static long number(String name) {
        if (!name.endsWith(".seg") || name.length() != 20) {
            return -1;
        }
        try {
            return Long.parseUnsignedLong(name.substring(0, 16), 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Reads exactly {@code b.remaining()} bytes at {@code pos}; false at the end of the file. */
    boolean readFully(ByteBuffer b, long pos) throws IOException {
        long p = pos;
        while (b.hasRemaining()) {
            int n = channel.read(b, p);
            if (n < 0) {
                return false;
            }
            p += n;
        }
        return true;
    }

    /** Writes all of {@code b} at {@code pos}. */
    void writeFully(ByteBuffer b, long pos) throws IOException {
        long p = pos;
        while (b.hasRemaining()) {
            p += channel.write(b, p);
        }
    }

    /** One valid frame read by {@link #scan}. */
    interface FrameSink {
        /**
         * A frame.
         *
         * @param off its offset in the segment
         * @param lsn its log sequence number
         * @param kind its kind
         * @param flags its flags
         * @param body its body (position 0; valid only during the call)
         * @param bodyCrc the body's CRC32C as stored
         * @return whether to go on reading
         */
        boolean frame(long off, long lsn, byte kind, byte flags, ByteBuffer body, int bodyCrc)
                throws IOException;
    }

    /**
     * Reads the valid frames from offset 0 in order, until the first invalid one (or the end of the
     * file), and returns that offset: the end of what was written whole.
     *
     * @param sink receives each frame
     * @return the offset of the first invalid frame (or of the end of the file)
     */
    long scan(FrameSink sink) throws IOException {
        long size = channel.size();
        ByteBuffer buf = ByteBuffer.allocate(1 << 20);
        long bufPos = 0; // file offset of buf's byte 0
        buf.limit(0);
        long off = 0;
        while (off + LogRecord.HEADER <= size) {
            int at = (int) (off - bufPos);
            if (at + LogRecord.HEADER > buf.limit()) {
                buf = refill(buf, off, LogRecord.HEADER);
                bufPos = off;
                at = 0;
                if (buf.limit() < LogRecord.HEADER) {
                    break;
                }
            }
            int length = buf.getInt(at);
            int bodyCrc = buf.getInt(at + 4);
            long lsn = buf.getLong(at + 8);
            byte kind = buf.get(at + 16);
            byte flags = buf.get(at + 17);
            int headerCrc = buf.getInt(at + 18);
            if (length < 0
                    || headerCrc != LogRecord.headerCrc(number, buf, at)
                    || off + LogRecord.HEADER + length > size) {
                break;
            }
            int need = LogRecord.HEADER + length;
            if (at + need > buf.limit()) {
                if (need > buf.capacity()) {
                    buf = ByteBuffer.allocate(need);
                }
                buf = refill(buf, off, need);
                bufPos = off;
                at = 0;
                if (buf.limit() < need) {
                    break;
                }
            }
            if (LogRecord.crc(buf.array(), at + LogRecord.HEADER, length) != bodyCrc) {
                break;
            }
            ByteBuffer body = ByteBuffer.wrap(buf.array(), at + LogRecord.HEADER, length).slice();
            if (!sink.frame(off, lsn, kind, flags, body, bodyCrc)) {
                return off;
            }
            off += need;
        }
        return off;
    }

    /**
     * {@return {@code buf} filled from file offset {@code off} (at least {@code need} if there)}
     */
    private ByteBuffer refill(ByteBuffer buf, long off, int need) throws IOException {
        buf.clear();
        long p = off;
        while (buf.position() < need) {
            int n = channel.read(buf, p);
            if (n < 0) {
                break;
            }
            p += n;
        }
        // fill the rest of the buffer if more is there (fewer reads)
        if (buf.hasRemaining()) {
            int n = channel.read(buf, p);
            if (n < 0) {
                n = 0;
            }
        }
        buf.flip();
        return buf;
    }

    @Override
    public String toString() {
        return "segment " + fileName(number);
    }
}
