package dev.seqvfs.persist.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The segment log on its own: what was acknowledged is there after a reopen; a torn tail (a frame
 * cut short, a group cut in two, garbage after the end) is cut at the last complete group and the
 * log goes on from there; a corrupt frame in a sealed segment fails the open; compaction removes
 * dead segments and keeps every live record, and a deleted inode does not come back once the
 * segment with its tombstone is gone.
 */
class SegmentLogTest {
    @TempDir Path dir;

    /** Small segments (64 KiB) and eager compaction, so that a few records cross segments. */
    private static final SegmentLog.Settings SMALL =
            new SegmentLog.Settings(64 << 10, 0.3, 0, 16 << 10, 1000, false);

    /** Small segments, no compaction: the files stay as written. */
    private static final SegmentLog.Settings SMALL_KEPT =
            new SegmentLog.Settings(64 << 10, 1.0, Long.MAX_VALUE, 16 << 10, 1000, false);

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        new java.util.Random(seed).nextBytes(b);
        return b;
    }

    private static SegmentLog open(Path d, SegmentLog.Settings s) {
        try {
            return SegmentLog.open(d, s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@return inode {@code ino}'s stored blocks, by index} */
    private static Map<Long, byte[]> blocks(SegmentLog log, long ino) {
        Map<Long, byte[]> m = new TreeMap<>();
        log.content().blocks(ino, m::put);
        return m;
    }

    /** {@return the segment files in the log's directory, by number} */
    private List<Path> segmentFiles() throws IOException {
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".seg")).sorted().toList();
        }
    }

    @Test
    void acknowledgedRecords_areThereAfterAReopen() throws IOException {
        try (SegmentLog log = open(dir, SMALL)) {
            LogContent c = log.content();
            for (int i = 0; i < 20; i++) {
                c.update(
                        List.of(
                                new LogContent.PutBlock(7, i, bytes(10_000, i)),
                                new LogContent.PutRow(7, new byte[] {(byte) i})));
            }
            c.update(List.of(new LogContent.DeleteBlocks(7, 15, 18)));
            c.update(List.of(new LogContent.PutMeta("fsid", "x")));
        }
        assertTrue(segmentFiles().size() > 1, "the writes crossed segments");
        try (SegmentLog log = open(dir, SMALL)) {
            Map<Long, byte[]> b = blocks(log, 7);
            assertEquals(17, b.size());
            assertArrayEquals(bytes(10_000, 3), b.get(3L));
            assertNull(b.get(16L));
            assertArrayEquals(new byte[] {19}, log.content().row(7));
            assertEquals("x", log.content().meta("fsid"));
        }
    }

    /** A frame of the last group half on disk (a torn write): cut, and appends go on after it. */
    @Test
    void aFrameCutShort_isCut_andTheLogGoesOnFromTheLastCompleteGroup() throws Exception {
        try (SegmentLog log = open(dir, SegmentLog.Settings.DEFAULT)) {
            log.content().update(List.of(new LogContent.PutBlock(1, 0, bytes(1000, 1))));
            log.content().update(List.of(new LogContent.PutBlock(1, 1, bytes(1000, 2))));
        }
        Path seg = segmentFiles().get(segmentFiles().size() - 1);
        long end = endOfFrames(seg);
        // a third frame, half of it on disk: the header says 1,000 bytes, 300 are there
        ByteBuffer frame = ByteBuffer.allocate(LogRecord.HEADER + 1000);
        LogRecord.block(1, 2, bytes(1000 - 16, 3))
                .writeFrame(frame, SegmentLogTestSupport.number(seg), 999, (byte) 0);
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(frame.array(), 0, LogRecord.HEADER + 300), end);
        }
        try (SegmentLog log = open(dir, SegmentLog.Settings.DEFAULT)) {
            assertEquals(2, blocks(log, 1).size(), "the torn frame was cut");
            log.content().update(List.of(new LogContent.PutBlock(1, 5, bytes(100, 5))));
        }
        try (SegmentLog log = open(dir, SegmentLog.Settings.DEFAULT)) {
            assertEquals(List.of(0L, 1L, 5L), new ArrayList<>(blocks(log, 1).keySet()));
        }
    }

    @Test
    void aGroupCutInTwo_isDroppedWhole() throws Exception {
        try (SegmentLog log = open(dir, SegmentLog.Settings.DEFAULT)) {
            log.content().update(List.of(new LogContent.PutBlock(1, 0, bytes(1000, 1))));
            log.content()
                    .update(
                            List.of(
                                    new LogContent.PutBlock(2, 0, bytes(1000, 2)),
                                    new LogContent.PutBlock(2, 1, bytes(1000, 3)),
                                    new LogContent.PutRow(2, new byte[] {1})));
        }
        Path seg = segmentFiles().get(segmentFiles().size() - 1);
        // keep the group's first two frames whole, lose the third (its row): the crash cut it
        List<Long> offs = frameOffsets(seg);
        long rowAt = offs.get(offs.size() - 2); // (the last frame is the close record)
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(64), rowAt);
        }
        try (SegmentLog log = open(dir, SegmentLog.Settings.DEFAULT)) {
            assertEquals(1, blocks(log, 1).size());
            assertEquals(Map.of(), blocks(log, 2), "none of the cut group");
            assertNull(log.content().row(2));
        }
    }

    /**
     * A whole, valid frame written for another segment (what a reused file or a misdirected write
     * would leave) right after the end: the segment's number in the header's CRC rejects it.
     */
    @Test
    void aValidFrameOfAnotherSegment_afterTheEnd_isNeverRead() throws Exception {
        try (SegmentLog log = open(dir, SegmentLog.Settings.DEFAULT)) {
            log.content().update(List.of(new LogContent.PutBlock(1, 0, bytes(1000, 1))));
        }
        Path seg = segmentFiles().get(segmentFiles().size() - 1);
        long end = endOfFrames(seg);
        ByteBuffer frame = ByteBuffer.allocate(LogRecord.HEADER + 1016);
        LogRecord.block(1, 7, bytes(1000, 7))
                .writeFrame(frame, SegmentLogTestSupport.number(seg) + 1, 999, (byte) 0);
        frame.flip();
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
            ch.write(frame, end);
        }
        try (SegmentLog log = open(dir, SegmentLog.Settings.DEFAULT)) {
            assertEquals(List.of(0L), new ArrayList<>(blocks(log, 1).keySet()));
        }
    }

    @Test
    void aCorruptFrameInASealedSegment_failsTheOpen_namingTheSegment() throws Exception {
        try (SegmentLog log = open(dir, SMALL_KEPT)) {
            for (int i = 0; i < 20; i++) {
                log.content().update(List.of(new LogContent.PutBlock(1, i, bytes(10_000, i))));
            }
        }
        List<Path> segs = segmentFiles();
        assertTrue(segs.size() > 2, segs.toString());
        Path first = segs.get(0);
        try (FileChannel ch = FileChannel.open(first, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 100); // inside its first frame's body
        }
        IOException e = assertThrows(IOException.class, () -> SegmentLog.open(dir, SMALL_KEPT));
        assertTrue(
                e.getMessage().contains("corrupt")
                        && e.getMessage().contains(first.getFileName().toString()),
                e.getMessage());
    }

    @Test
    void compaction_removesDeadSegments_keepsLiveRecords_andDeletedInodesStayDeleted()
            throws Exception {
        try (SegmentLog log = open(dir, SMALL)) {
            LogContent c = log.content();
            // inode 1: written once, kept (cold data in the oldest segments)
            c.update(List.of(new LogContent.PutBlock(1, 0, bytes(20_000, 100))));
            c.update(List.of(new LogContent.PutRow(1, new byte[] {1})));
            // inode 2: rewritten many times, then deleted (tombstone)
            for (int i = 0; i < 40; i++) {
                c.update(List.of(new LogContent.PutBlock(2, i % 4, bytes(20_000, i))));
            }
            c.update(List.of(new LogContent.DeleteInode(2)));
            // inode 3: rewritten, kept
            for (int i = 0; i < 40; i++) {
                c.update(List.of(new LogContent.PutBlock(3, i % 2, bytes(20_000, 1000 + i))));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (log.bytes() > 3 * log.liveBytes() + (200 << 10)
                    && System.nanoTime() < deadline) {
                log.housekeeper.signal();
                Thread.sleep(20);
            }
            assertTrue(
                    log.bytes() <= 3 * log.liveBytes() + (200 << 10),
                    "compaction left " + log.bytes() + " bytes for " + log.liveBytes() + " live");
            assertTrue(log.housekeeper.compacted > 0 || log.housekeeper.removed > 0);
            assertArrayEquals(bytes(20_000, 100), blocks(log, 1).get(0L));
        }
        try (SegmentLog log = open(dir, SMALL)) {
            assertArrayEquals(bytes(20_000, 100), blocks(log, 1).get(0L), "cold data kept");
            assertArrayEquals(new byte[] {1}, log.content().row(1));
            assertEquals(Map.of(), blocks(log, 2), "a deleted inode does not come back");
            assertArrayEquals(bytes(20_000, 1038), blocks(log, 3).get(0L));
            assertArrayEquals(bytes(20_000, 1039), blocks(log, 3).get(1L));
        }
    }

    /**
     * A tombstone outlives the data it kills: segment 1 keeps mostly live data and a block of inode
     * 2, whose deletion is in segment 2, among dead blocks; compaction may reclaim segment 2 only
     * after segment 1 (the oldest first), else the block of inode 2 left in segment 1 comes back at
     * the next open.
     *
     * <pre>
     * segment 1: inode 1 block (40 KB, live), inode 2 block (10 KB), inode 4 block (15 KB, live)
     * segment 2: inode 2 deleted, inode 5 block 0 written three times (two dead)
     * segment 3: inode 5 block 0 written three times more (dead but the last)
     * segment 4: the head
     * </pre>
     */
    @Test
    void aTombstone_isDroppedOnlyWithItsSegmentAsTheOldest() throws Exception {
        // the layout is written with compaction off, then compacted after a reopen
        try (SegmentLog log = open(dir, SMALL_KEPT)) {
            LogContent c = log.content();
            c.update(List.of(new LogContent.PutBlock(1, 0, bytes(40_000, 1))));
            c.update(List.of(new LogContent.PutBlock(2, 0, bytes(10_000, 2))));
            // frames of 40,038, 10,038 and 15,428 bytes end segment 1 at 65,504: the deletion's
            // 30 bytes and a seal's 22 do not fit in 64 KiB, so it goes to segment 2
            c.update(List.of(new LogContent.PutBlock(4, 0, bytes(15_390, 4))));
            assertEquals(1, log.segments.size(), "segment 1 holds the three blocks");
            c.update(List.of(new LogContent.DeleteInode(2)));
            assertEquals(2, log.segments.size(), "the deletion went to segment 2");
            for (int i = 0; i < 6; i++) {
                c.update(List.of(new LogContent.PutBlock(5, 0, bytes(20_000, 50 + i))));
            }
            c.update(List.of(new LogContent.PutBlock(6, 0, bytes(60_000, 6))));
        }
        try (SegmentLog log = open(dir, SMALL)) {
            long settled = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long seen = -1;
            while (System.nanoTime() < settled && System.nanoTime() < deadline) {
                log.housekeeper.signal();
                Thread.sleep(20);
                long now = log.housekeeper.compacted + log.housekeeper.removed;
                if (now != seen) {
                    seen = now;
                    settled = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800);
                }
            }
            assertTrue(
                    log.housekeeper.compacted > 0, "nothing was compacted: the test saw nothing");
        }
        try (SegmentLog log = open(dir, SMALL)) {
            assertEquals(Map.of(), blocks(log, 2), "inode 2 was deleted");
            assertArrayEquals(bytes(40_000, 1), blocks(log, 1).get(0L));
            assertArrayEquals(bytes(15_390, 4), blocks(log, 4).get(0L));
            assertArrayEquals(bytes(20_000, 55), blocks(log, 5).get(0L));
        }
    }

    /**
     * A lost wake-up: a caller that finds the writer role free writes its own lazy append ({@link
     * LogContent#updateLazy}, leader/follower) while the writer thread sleeps with nothing to
     * force. With no write after it, only the writer thread's commit deadline can force it, so the
     * leader must hand that deadline over; before, the writer thread slept on until the next write
     * and the append stayed unforced past the commit interval (indefinitely). The bound is checked
     * through the force counter, against a deadline far past the interval (a busy machine may be
     * slow to wake the writer, but not by seconds).
     */
    @Test
    void lostWakeup_aLeadersLazyAppend_withNoWriteAfter_isForcedWithinTheCommitInterval()
            throws Exception {
        SegmentLog.Settings s =
                new SegmentLog.Settings(64L << 20, 0.5, 64L << 20, 4L << 20, 200, false);
        try (SegmentLog log = open(dir, s)) {
            log.content().update(List.of(new LogContent.PutRow(1, new byte[] {1})));
            long forcedBefore = log.forces.get();
            long t0 = System.nanoTime();
            log.content().updateLazy(List.of(new LogContent.PutRow(2, new byte[] {2})));
            assertEquals(forcedBefore, log.forces.get(), "a lazy append is not forced at once");
            long deadline = t0 + TimeUnit.MILLISECONDS.toNanos(s.commitMillis() + 5_000);
            while (log.forces.get() == forcedBefore && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(
                    forcedBefore + 1,
                    log.forces.get(),
                    "the lazy append was not forced within "
                            + waitedMillis
                            + " ms (commit interval "
                            + s.commitMillis()
                            + " ms)");
            assertTrue(
                    waitedMillis >= s.commitMillis() - 1,
                    "forced after " + waitedMillis + " ms, before the commit interval");
        }
    }

    /** {@return the offset after the last valid frame of segment file {@code seg}} */
    private static long endOfFrames(Path seg) throws IOException {
        List<Long> offs = frameOffsets(seg);
        // the last valid frame is the close record: new frames go in its place
        return offs.get(offs.size() - 1);
    }

    /** {@return the offsets of segment file {@code seg}'s valid frames} */
    private static List<Long> frameOffsets(Path seg) throws IOException {
        List<Long> out = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.READ)) {
            Segment s = new Segment(SegmentLogTestSupport.number(seg), seg, ch);
            s.scan(
                    (off, lsn, kind, flags, body, crc) -> {
                        out.add(off);
                        return true;
                    });
        }
        return out;
    }
}
