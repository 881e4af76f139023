package dev.seqvfs.persist.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a segment log: reads every segment's valid frames, applies the complete groups to the index
 * in log-sequence order (a compaction copy, which keeps its original's number, after the original:
 * the copy is in a newer segment), and prepares the head for the writer.
 *
 * <p>Per segment: frames are read until the first invalid one ({@link Segment#scan}); frames of a
 * group whose last frame is missing are dropped (an append the crash cut in two was never
 * acknowledged). Every segment but the last must end with its seal, else it is corrupt (a frame
 * lost in the middle of the log, not at its end) and the open fails. The last one: after a clean
 * close its last frame is a close record, and the writer goes on appending in place of it;
 * otherwise (a crash) a seal is written at the end of its last complete group, so that whatever the
 * crash left after that is never read, and a new segment becomes the head.
 *
 * <p>Runs on the opening thread, before the writer and the housekeeper start; not thread-safe.
 */
final class LogRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(LogRecovery.class);

    private LogRecovery() {}

    /** A frame of a complete group: its key, its place and its log sequence number. */
    private record Found(LogIndex.Key key, long lsn, long seg, long off, int size) {}

    /** What one segment's scan found. */
    private static final class Scan {
        final List<Found> frames = new ArrayList<>();
        final List<Found> group = new ArrayList<>();
        long groupStart;
        long validEnd;
        byte lastKind;
        long lastOff;
    }

    static void recover(SegmentLog log) throws IOException {
        List<Long> numbers = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(log.dir, "*.seg")) {
            for (Path p : ds) {
                long n = Segment.number(p.getFileName().toString());
                if (n >= 0) {
                    numbers.add(n);
                }
            }
        }
        numbers.sort(Comparator.naturalOrder());
        for (long n : numbers) {
            Path p = log.dir.resolve(Segment.fileName(n));
            FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
            log.segments.put(n, new Segment(n, p, ch));
        }
        List<Found> all = new ArrayList<>();
        Scan last = null;
        Segment lastSeg = null;
        for (int i = 0; i < numbers.size(); i++) {
            Segment s = log.segments.get(numbers.get(i));
            Scan sc = scan(s);
            boolean isLast = i == numbers.size() - 1;
            if (!isLast) {
                if (sc.lastKind != LogRecord.SEAL) {
                    throw new IOException(
                            s
                                    + " of "
                                    + log.dir
                                    + " is corrupt: its frames end at offset "
                                    + sc.validEnd
                                    + " of "
                                    + s.channel.size()
                                    + " bytes without its seal (a frame lost in the middle of the"
                                    + " log)");
                }
                s.end = sc.validEnd;
                s.sealed = true;
            } else {
                last = sc;
                lastSeg = s;
            }
            all.addAll(sc.frames);
        }
        // log-sequence order; a copy (same number, newer segment) after its original
        all.sort(
                Comparator.comparingLong(Found::lsn)
                        .thenComparingLong(Found::seg)
                        .thenComparingLong(Found::off));
        long maxLsn = 0;
        for (Found f : all) {
            maxLsn = Math.max(maxLsn, f.lsn());
            log.index.apply(f.key(), SegmentLog.loc(f.seg(), f.off()), f.size());
        }
        log.lsn = maxLsn;
        if (lastSeg == null) {
            log.head = log.newSegment(1);
            return;
        }
        if (last.lastKind == LogRecord.CLOSE && last.group.isEmpty()) {
            // a clean close: go on in place of the close record
            lastSeg.end = last.lastOff;
            lastSeg.allocated = Math.max(lastSeg.channel.size(), last.lastOff);
            log.head = lastSeg;
            return;
        }
        long size = lastSeg.channel.size();
        if (last.lastKind == LogRecord.SEAL) {
            // sealed, then a crash before the next segment was made
            lastSeg.end = last.validEnd;
            lastSeg.sealed = true;
            log.head = log.newSegment(lastSeg.number + 1);
            return;
        }
        long cut = last.validEnd;
        if (cut < size && !zeros(lastSeg, cut, size)) {
            LOG.info(
                    "segment log {}: {} cut at offset {} of {} bytes (the torn tail of a crash)",
                    log.dir,
                    lastSeg,
                    cut,
                    size);
        }
        lastSeg.allocated = size;
        log.writeMark(lastSeg, cut, LogRecord.SEAL);
        lastSeg.end = cut + SegmentLog.sealLength();
        lastSeg.sealed = true;
        log.head = log.newSegment(lastSeg.number + 1);
    }

    /** Reads {@code s}'s valid frames; the complete groups' go to {@code frames}. */
    private static Scan scan(Segment s) throws IOException {
        Scan sc = new Scan();
        s.scan(
                (off, lsn, kind, flags, body, crc) -> {
                    if (kind == LogRecord.SEAL || kind == LogRecord.CLOSE) {
                        sc.group.clear(); // a group cut by a seal was never whole
                        sc.lastKind = kind;
                        sc.lastOff = off;
                        sc.validEnd = off + LogRecord.HEADER + body.remaining();
                        return kind != LogRecord.SEAL;
                    }
                    if (sc.group.isEmpty()) {
                        sc.groupStart = off;
                    }
                    int size = LogRecord.HEADER + body.remaining();
                    sc.group.add(
                            new Found(
                                    LogIndex.parse(kind, body.duplicate()),
                                    lsn,
                                    s.number,
                                    off,
                                    size));
                    if ((flags & LogRecord.MORE) == 0) {
                        sc.frames.addAll(sc.group);
                        sc.group.clear();
                        sc.validEnd = off + size;
                    }
                    sc.lastKind = kind;
                    sc.lastOff = off;
                    return true;
                });
        if (sc.lastKind == LogRecord.SEAL) {
            // scan stopped at the seal: valid frames end after it
            return sc;
        }
        if (!sc.group.isEmpty()) {
            sc.validEnd = sc.groupStart; // an incomplete group at the end: not whole, cut before it
            sc.lastKind = 0;
        }
        return sc;
    }

    /** {@return whether bytes {@code [from, to)} of {@code s} are all zero} */
    private static boolean zeros(Segment s, long from, long to) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(1 << 16);
        long p = from;
        while (p < to) {
            b.clear();
            int n = s.channel.read(b, p);
            if (n <= 0) {
                return true;
            }
            for (int i = 0; i < n; i++) {
                if (b.get(i) != 0) {
                    return false;
                }
            }
            p += n;
        }
        return true;
    }
}
