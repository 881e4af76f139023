package dev.seqvfs.engine.pipe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.VfsException;
import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Pipe} against {@code pipe(7)}: end of file, {@code EPIPE}, {@code EAGAIN}, {@code
 * PIPE_BUF} atomicity under many concurrent writers, capacity changes, and the asynchronous
 * read/write paths.
 */
class PipeTest {
    @Test
    void read_afterLastWriterCloses_returnsBufferedBytesThenEof() {
        Pipe p = new Pipe(new Shutdown());
        p.write(new byte[] {1, 2, 3}, 0, 3, false);
        p.releaseWriter();
        byte[] b = new byte[10];
        assertEquals(3, p.read(b, 0, 10, false));
        assertEquals(0, p.read(b, 0, 10, false));
    }

    @Test
    void write_afterLastReaderCloses_failsWithEPIPE() {
        Pipe p = new Pipe(new Shutdown());
        p.releaseReader();
        assertEquals(
                Errno.EPIPE,
                assertThrows(VfsException.class, () -> p.write(new byte[1], 0, 1, false)).errno());
    }

    @Test
    void nonblockingEnds_emptyOrFull_failWithEAGAIN() {
        Pipe p = new Pipe(new Shutdown());
        assertEquals(
                Errno.EAGAIN,
                assertThrows(VfsException.class, () -> p.read(new byte[1], 0, 1, true)).errno());
        byte[] big = new byte[Pipe.DEFAULT_CAPACITY];
        assertEquals(Pipe.DEFAULT_CAPACITY, p.write(big, 0, big.length, true));
        assertEquals(
                Errno.EAGAIN,
                assertThrows(VfsException.class, () -> p.write(new byte[1], 0, 1, true)).errno());
    }

    @Test
    void nonblockingWriteLargerThanPipeBuf_writesWhatFits() {
        Pipe p = new Pipe(new Shutdown());
        p.write(new byte[Pipe.DEFAULT_CAPACITY - 100], 0, Pipe.DEFAULT_CAPACITY - 100, true);
        assertEquals(100, p.write(new byte[8192], 0, 8192, true));
        assertEquals(
                Errno.EAGAIN,
                assertThrows(VfsException.class, () -> p.write(new byte[10], 0, 10, true)).errno());
    }

    @Test
    void manyWritersOfPipeBufRecords_everyRecordArrivesUnsplit() throws Exception {
        Pipe p = new Pipe(new Shutdown());
        int writers = 6;
        int records = 400;
        for (int i = 1; i < writers; i++) {
            p.addWriter();
        }
        Thread[] ts = new Thread[writers];
        for (int w = 0; w < writers; w++) {
            final byte id = (byte) (w + 1);
            ts[w] =
                    new Thread(
                            () -> {
                                byte[] rec = new byte[Limits.PIPE_BUF];
                                java.util.Arrays.fill(rec, id);
                                for (int i = 0; i < records; i++) {
                                    assertEquals(rec.length, p.write(rec, 0, rec.length, false));
                                }
                                p.releaseWriter();
                            });
            ts[w].start();
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] b = new byte[3000];
        int n;
        while ((n = p.read(b, 0, b.length, false)) > 0) {
            all.write(b, 0, n);
        }
        for (Thread t : ts) {
            t.join();
        }
        byte[] got = all.toByteArray();
        assertEquals(writers * records * Limits.PIPE_BUF, got.length);
        Map<Byte, Integer> perWriter = new HashMap<>();
        for (int off = 0; off < got.length; off += Limits.PIPE_BUF) {
            byte id = got[off];
            for (int k = 1; k < Limits.PIPE_BUF; k++) {
                assertEquals(id, got[off + k], "record at " + off + " was split");
            }
            perWriter.merge(id, 1, Integer::sum);
        }
        for (int w = 1; w <= writers; w++) {
            assertEquals(records, perWriter.get((byte) w));
        }
    }

    @Test
    void asyncRead_onEmptyPipe_completesWhenAWriterWrites() throws Exception {
        Pipe p = new Pipe(new Shutdown());
        byte[] b = new byte[4];
        CompletableFuture<Integer> r = p.readAsync(b, 0, 4);
        assertFalse(r.isDone());
        p.write(new byte[] {9, 8}, 0, 2, false);
        assertEquals(2, r.get(5, TimeUnit.SECONDS));
        assertEquals(9, b[0]);
    }

    @Test
    void asyncWrite_onFullPipe_completesWhenAReaderMakesRoom_andFailsWithEPIPEWhenReadersLeave()
            throws Exception {
        Pipe p = new Pipe(new Shutdown());
        p.write(new byte[Pipe.DEFAULT_CAPACITY], 0, Pipe.DEFAULT_CAPACITY, false);
        CompletableFuture<Integer> w = p.writeAsync(new byte[100], 0, 100);
        assertFalse(w.isDone());
        p.read(new byte[200], 0, 200, false);
        assertEquals(100, w.get(5, TimeUnit.SECONDS));
        CompletableFuture<Integer> w2 = p.writeAsync(new byte[4000], 0, 4000);
        assertFalse(w2.isDone());
        p.releaseReader();
        CompletionException e = assertThrows(CompletionException.class, w2::join);
        assertEquals(Errno.EPIPE, ((VfsException) e.getCause()).errno());
    }

    @Test
    void setCapacity_roundsUpToAPowerOfTwo_andRefusesToDropBufferedBytes() {
        Pipe p = new Pipe(new Shutdown());
        assertEquals(4096, p.setCapacity(1));
        assertEquals(131072, p.setCapacity(65537));
        p.write(new byte[10_000], 0, 10_000, false);
        assertEquals(
                Errno.EBUSY, assertThrows(VfsException.class, () -> p.setCapacity(4096)).errno());
        assertEquals(
                Errno.EINVAL,
                assertThrows(VfsException.class, () -> p.setCapacity((1L << 31) + 1)).errno());
        assertEquals(10_000, p.available());
        assertTrue(p.capacity() >= 10_000);
    }

    @Test
    void setCapacity_withBufferedBytes_keepsThemReadableInOrder() {
        // F_SETPIPE_SZ on a pipe holding data (pipe(7): the new size must hold it)
        Pipe p = new Pipe(new Shutdown());
        p.write(new byte[] {1, 2, 3, 4, 5}, 0, 5, false);
        byte[] two = new byte[2];
        assertEquals(2, p.read(two, 0, 2, false));
        p.write(new byte[] {6, 7}, 0, 2, false);
        assertEquals(8192, p.setCapacity(5000));
        assertEquals(5, p.available());
        byte[] b = new byte[10];
        assertEquals(5, p.read(b, 0, 10, true));
        org.junit.jupiter.api.Assertions.assertArrayEquals(
                new byte[] {3, 4, 5, 6, 7}, java.util.Arrays.copyOf(b, 5));
    }

    @Test
    void pipe_createdAndClosedWithoutAWrite_allocatesNoBuffer() {
        // close(pipe()) in a loop (seed 002): Linux allocates a pipe's pages on write; a
        // 64 KiB buffer per pipe made pipe() + 2 close() allocate 64 KiB each
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean)
                        java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        new Pipe(new Shutdown()).releaseReader();
        long before = mx.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 64; i++) {
            Pipe p = new Pipe(new Shutdown());
            p.releaseReader();
            p.releaseWriter();
        }
        long perPipe = (mx.getThreadAllocatedBytes(tid) - before) / 64;
        assertTrue(perPipe < 4096, perPipe + " bytes allocated per pipe");
        Pipe p = new Pipe(new Shutdown());
        assertEquals(Pipe.DEFAULT_CAPACITY, p.capacity());
        p.write(new byte[] {9}, 0, 1, false);
        byte[] b = new byte[1];
        assertEquals(1, p.read(b, 0, 1, false));
        assertEquals(9, b[0]);
    }
}
