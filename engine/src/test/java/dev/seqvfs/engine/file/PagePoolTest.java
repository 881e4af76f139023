package dev.seqvfs.engine.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The free-page cache's bounds and accounting ({@link PagePool}). */
class PagePoolTest {
    @Test
    void offerBeyondCapacity_isRefused_andTakeReturnsTheLastKept() {
        PagePool pool = new PagePool(2L * FileData.PAGE);
        byte[] a = new byte[FileData.PAGE];
        byte[] b = new byte[FileData.PAGE];
        assertTrue(pool.offer(a));
        assertTrue(pool.offer(b));
        assertFalse(pool.offer(new byte[FileData.PAGE]), "a third page past a 2-page capacity");
        assertEquals(2, pool.size());
        assertSame(b, pool.take());
        assertSame(a, pool.take());
        assertNull(pool.take());
        assertEquals(2, pool.keptPages());
        assertEquals(2, pool.reusedPages());
    }

    @Test
    void offerOfAnArrayThatIsNotAPage_isRefused() {
        PagePool pool = new PagePool(1 << 20);
        assertFalse(pool.offer(new byte[100]));
        assertEquals(0, pool.size());
    }

    @Test
    void clear_returnsItsPagesToTheJvmCount_andRefusesLaterOffers() {
        long before = PagePool.jvmPages();
        PagePool pool = new PagePool(1 << 20);
        for (int i = 0; i < 5; i++) {
            assertTrue(pool.offer(new byte[FileData.PAGE]));
        }
        assertEquals(before + 5, PagePool.jvmPages());
        pool.take();
        assertEquals(before + 4, PagePool.jvmPages());
        pool.clear();
        assertEquals(before, PagePool.jvmPages());
        assertFalse(pool.offer(new byte[FileData.PAGE]), "an offer after clear");
        assertEquals(before, PagePool.jvmPages());
    }

    @Test
    void aWriteAfterATruncate_takesTheDroppedPages_zeroedWhereItDoesNotWrite() {
        PagePool pool = new PagePool(1 << 20);
        byte[] ones = new byte[3 * FileData.PAGE];
        java.util.Arrays.fill(ones, (byte) 1);
        FileData d = FileData.empty().write(0, ones, 0, ones.length);
        FileData cut = d.truncate(FileData.PAGE / 2);
        // the two whole pages past the end and the replaced tail page
        assertEquals(3, d.releaseDropped(cut, 0, pool));
        FileData next = cut.prepareWrite(2L * FileData.PAGE + 10, 5, true, null, pool);
        next.copyIn(2L * FileData.PAGE + 10, new byte[] {7, 7, 7, 7, 7}, 0, 5);
        next = next.withSizeAtLeast(2L * FileData.PAGE + 15);
        assertEquals(1, pool.reusedPages());
        byte[] page = new byte[FileData.PAGE];
        // the whole reused page, past the size too: no byte of the old contents may be left
        FileData whole = next.withSizeAtLeast(3L * FileData.PAGE);
        assertEquals(FileData.PAGE, whole.read(2L * FileData.PAGE, page, 0, FileData.PAGE));
        for (int i = 0; i < FileData.PAGE; i++) {
            assertEquals(i >= 10 && i < 15 ? 7 : 0, page[i], "byte " + i + " of the reused page");
        }
    }
}
