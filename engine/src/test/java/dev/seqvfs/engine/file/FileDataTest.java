package dev.seqvfs.engine.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link FileData} against a plain byte-array model: random writes, truncates and reads, including
 * sparse writes far past the end, must read back the model's bytes; old versions must be unchanged
 * by later writes (path copying); SEEK_DATA/SEEK_HOLE must agree with which pages the model ever
 * wrote.
 */
class FileDataTest {
    @Test
    void randomWritesTruncatesReads_matchByteArrayModel_andOldVersionsStayIntact() {
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            FileData f = FileData.empty();
            byte[] model = new byte[0];
            FileData frozen = null;
            byte[] frozenModel = null;
            for (int step = 0; step < 300; step++) {
                int op = rnd.nextInt(10);
                if (op < 6) {
                    long off =
                            rnd.nextInt(4) == 0
                                    ? rnd.nextInt(1 << 20)
                                    : rnd.nextInt(Math.max(1, model.length + 100));
                    byte[] data = new byte[1 + rnd.nextInt(rnd.nextBoolean() ? 10 : 9000)];
                    rnd.nextBytes(data);
                    f = f.write(off, data, 0, data.length);
                    if (off + data.length > model.length) {
                        model = Arrays.copyOf(model, (int) (off + data.length));
                    }
                    System.arraycopy(data, 0, model, (int) off, data.length);
                } else if (op < 8) {
                    int size = rnd.nextInt(Math.max(1, model.length * 2 + 10));
                    f = f.truncate(size);
                    model = Arrays.copyOf(model, size);
                } else if (frozen == null) {
                    frozen = f;
                    frozenModel = model.clone();
                }
                assertEquals(model.length, f.size(), "size, seed " + seed + " step " + step);
                byte[] got = new byte[model.length + 17];
                int n = f.read(0, got, 0, got.length);
                assertEquals(model.length, n);
                assertArrayEquals(
                        model, Arrays.copyOf(got, n), "content, seed " + seed + " step " + step);
                int from = model.length == 0 ? 0 : rnd.nextInt(model.length);
                byte[] part = new byte[rnd.nextInt(5000) + 1];
                int m = f.read(from, part, 0, part.length);
                assertEquals(Math.min(part.length, model.length - from), Math.max(0, m));
                for (int i = 0; i < m; i++) {
                    assertEquals(model[from + i], part[i]);
                }
            }
            if (frozen != null) {
                byte[] got = new byte[frozenModel.length];
                frozen.read(0, got, 0, got.length);
                assertArrayEquals(frozenModel, got, "an old version changed, seed " + seed);
            }
        }
    }

    /**
     * The overflow class: a page index times the page size past the largest file offset. SEEK_HOLE
     * inside the last page of a file of {@code MAX_SIZE} bytes found no hole in the tree and
     * returned the page count's byte offset, which wrapped negative, so it answered its own
     * argument: a data/hole loop over the file never ended.
     */
    @Test
    void seekHole_inTheLastPageOfAFileOfTheLargestSize_isTheSize_notAWrappedOffset() {
        FileData f = FileData.empty().write(FileData.MAX_SIZE - 1, new byte[] {7}, 0, 1);
        assertEquals(FileData.MAX_SIZE, f.size());
        long data = f.nextData(0);
        assertEquals((FileData.MAX_SIZE - 1) / FileData.PAGE * FileData.PAGE, data);
        assertEquals(FileData.MAX_SIZE, f.nextHole(data));
        assertEquals(FileData.MAX_SIZE, f.nextHole(FileData.MAX_SIZE - 1));
        assertEquals(0, f.nextHole(0));
        FileData g = FileData.empty().write(3L << 40, new byte[] {7}, 0, 1);
        assertEquals(g.size(), g.nextHole(g.nextData(0)));
    }

    @Test
    void sparseFile_holesReadAsZeros_andSeekDataSeekHoleFindThem() {
        byte[] one = {1, 2, 3};
        FileData f = FileData.empty().write(10L * FileData.PAGE + 5, one, 0, 3);
        assertEquals(10L * FileData.PAGE + 8, f.size());
        assertEquals(1, f.pages());
        assertEquals(10L * FileData.PAGE, f.nextData(0));
        assertEquals(0, f.nextHole(0));
        assertEquals(f.size(), f.nextHole(10L * FileData.PAGE));
        assertEquals(-1, f.nextData(f.size()));
        byte[] buf = new byte[8];
        f.read(10L * FileData.PAGE, buf, 0, 8);
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 1, 2, 3}, buf);
        FileData huge = f.write(1L << 40, one, 0, 3);
        assertEquals(2, huge.pages());
        assertEquals(1L << 40, huge.nextData(11L * FileData.PAGE));
    }

    @Test
    void truncateShrinkThenExtend_exposesZerosNotOldBytes() {
        byte[] data = new byte[10_000];
        Arrays.fill(data, (byte) 7);
        FileData f =
                FileData.empty().write(0, data, 0, data.length).truncate(5000).truncate(10_000);
        byte[] got = new byte[10_000];
        f.read(0, got, 0, got.length);
        for (int i = 0; i < 10_000; i++) {
            assertEquals(i < 5000 ? 7 : 0, got[i], "byte " + i);
        }
        assertTrue(f.pages() <= 2, "pages past the shrink point were kept: " + f.pages());
    }

    /**
     * shmem_setattr truncates from the new size on whenever the size does not grow (host: Linux
     * 6.18, tmpfs).
     */
    @Test
    void truncate_toTheSameSize_dropsPagesAllocatedPastTheEnd() {
        FileData f =
                FileData.empty()
                        .write(0, new byte[100], 0, 100)
                        .allocate(5 * FileData.PAGE, 2 * FileData.PAGE, true);
        assertEquals(3 * FileData.PAGE, f.allocatedBytes());
        FileData same = f.truncate(100);
        assertEquals(100, same.size());
        assertEquals(FileData.PAGE, same.allocatedBytes());
        FileData empty = FileData.empty().allocate(0, FileData.PAGE, true).truncate(0);
        assertEquals(0, empty.allocatedBytes());
        FileData grown = f.truncate(10 * FileData.PAGE);
        assertEquals(3 * FileData.PAGE, grown.allocatedBytes(), "growing drops nothing");
        FileData plain = FileData.empty().write(0, new byte[100], 0, 100);
        assertTrue(plain.truncate(100) == plain, "nothing past the end: the same version");
    }

    /**
     * shmem_truncate_range punches the range as given, not cut at i_size (host: Linux 6.18, tmpfs).
     */
    @Test
    void punchHole_reachingPastTheEnd_dropsPagesAllocatedThere() {
        long page = FileData.PAGE;
        int head = FileData.PAGE + 10;
        FileData f =
                FileData.empty()
                        .write(0, new byte[head], 0, head)
                        .allocate(3 * page, 2 * page, true);
        assertEquals(4 * page, f.allocatedBytes());
        FileData punched = f.punchHole(page, 10 * page);
        assertEquals(page + 10, punched.size());
        assertEquals(
                page,
                punched.allocatedBytes(),
                "page 1 (holding the end) and the two past it are punched");
        FileData partial = f.punchHole(3 * page + 1, 4 * page);
        assertEquals(
                3 * page, partial.allocatedBytes(), "page 3 partly punched stays, page 4 goes");
    }

    private static byte[] read(FileData d, long off, int len) {
        byte[] b = new byte[len];
        d.read(off, b, 0, len);
        return b;
    }

    private static byte[] filled(int len, int v) {
        byte[] b = new byte[len];
        Arrays.fill(b, (byte) v);
        return b;
    }

    @Test
    void prepareWriteInPlace_keepsExistingPages_soCopyInChangesThePublishedVersionToo() {
        FileData v1 = FileData.empty().write(0, filled(2 * FileData.PAGE, 1), 0, 2 * FileData.PAGE);
        FileData v2 = v1.prepareWrite(100, 10, true);
        assertTrue(v2 == v1, "no hole in the range: nothing to add, the same version");
        v2.copyIn(100, filled(10, 7), 0, 10);
        assertArrayEquals(filled(10, 7), read(v1, 100, 10), "written in place");
        assertEquals(2, v1.pages());
    }

    @Test
    void prepareWriteInCopyMode_leavesThisVersionAsItWas() {
        FileData v1 = FileData.empty().write(0, filled(2 * FileData.PAGE, 1), 0, 2 * FileData.PAGE);
        FileData v2 = v1.prepareWrite(FileData.PAGE - 5, 10, false);
        v2.copyIn(FileData.PAGE - 5, filled(10, 9), 0, 10);
        assertArrayEquals(filled(10, 1), read(v1, FileData.PAGE - 5, 10));
        assertArrayEquals(filled(10, 9), read(v2, FileData.PAGE - 5, 10));
        // the copied pages kept the bytes around the write
        assertArrayEquals(filled(5, 1), read(v2, FileData.PAGE - 10, 5));
        assertArrayEquals(filled(5, 1), read(v2, FileData.PAGE + 5, 5));
        assertEquals(v1.pages(), v2.pages());
    }

    @Test
    void prepareWrite_addsZeroPagesForHoles_countsThem_andLeavesTheSizeToWithSizeAtLeast() {
        FileData v1 = FileData.empty().write(0, filled(10, 1), 0, 10);
        FileData v2 = v1.prepareWrite(5L * FileData.PAGE, 2L * FileData.PAGE, true);
        assertEquals(3, v2.pages());
        assertEquals(10, v2.size(), "prepareWrite never changes the size");
        assertTrue(v2.hasPage(5) && v2.hasPage(6) && !v2.hasPage(4));
        assertTrue(!v1.hasPage(5), "the old version's shape is unchanged");
        FileData v3 = v2.withSizeAtLeast(7L * FileData.PAGE);
        assertEquals(7L * FileData.PAGE, v3.size());
        assertTrue(v3.withSizeAtLeast(1) == v3, "never shrinks");
        assertArrayEquals(new byte[100], read(v3, 5L * FileData.PAGE, 100), "new pages are zeros");
    }

    @Test
    void copyIn_intoAHole_isRefused() {
        FileData v1 = FileData.empty().write(0, filled(10, 1), 0, 10);
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class,
                () -> v1.copyIn(3L * FileData.PAGE, filled(4, 2), 0, 4));
    }

    @Test
    void sequentialWritesOfManyPages_buildTheSameTreeAsPageByPageWrites() {
        int pages = 300;
        byte[] big = new byte[pages * FileData.PAGE];
        new Random(7).nextBytes(big);
        FileData once = FileData.empty().write(0, big, 0, big.length);
        FileData step = FileData.empty();
        for (int p = 0; p < pages; p++) {
            step = step.write((long) p * FileData.PAGE, big, p * FileData.PAGE, FileData.PAGE);
        }
        assertEquals(step.pages(), once.pages());
        assertArrayEquals(read(step, 0, big.length), read(once, 0, big.length));
        assertArrayEquals(big, read(once, 0, big.length));
    }
}
