package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_APPEND;
import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static dev.seqvfs.protocol.OpenFlags.O_TRUNC;
import static dev.seqvfs.protocol.OpenFlags.O_WRONLY;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regular-file I/O ({@code read(2)}, {@code write(2)}, {@code pread(2)}, {@code lseek(2)}, {@code
 * truncate(2)}): results, errno, byte accounting, and the two concurrency claims of DESIGN.md "File
 * data": {@code O_APPEND} writes never interleave, and a reader sees a write whole or not at all.
 */
class IoCallsTest {
    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.tmpfs.max-bytes = 1m"));
        t = vfs.newTask(Credentials.ROOT);
    }

    @AfterEach
    void down() {
        vfs.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void writeThenRead_roundTripsAndAdvancesOffset() {
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        assertEquals(5, t.write(fd, bytes("hello")));
        assertEquals(5, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        assertEquals(5, t.stat("/f").size());
        t.lseek(fd, 0, VfsTask.SEEK_SET);
        byte[] buf = new byte[10];
        assertEquals(5, t.read(fd, buf, 0, 10));
        assertEquals("hello", new String(buf, 0, 5, StandardCharsets.UTF_8));
        assertEquals(0, t.read(fd, buf, 0, 10));
        t.close(fd);
    }

    @Test
    void pwriteAndPread_doNotMoveOffset_andHolesReadAsZeros() {
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        t.pwrite(fd, bytes("xy"), 0, 2, 10_000);
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_CUR));
        byte[] buf = new byte[4];
        assertEquals(4, t.pread(fd, buf, 0, 4, 9_998));
        assertArrayEquals(new byte[] {0, 0, 'x', 'y'}, buf);
        assertEquals(8192, t.lseek(fd, 0, VfsTask.SEEK_DATA));
        assertEquals(0, t.lseek(fd, 0, VfsTask.SEEK_HOLE));
        assertEquals(
                Errno.ENXIO,
                assertThrows(VfsException.class, () -> t.lseek(fd, 10_002, VfsTask.SEEK_DATA))
                        .errno());
        t.close(fd);
    }

    @Test
    void readOnWriteOnlyFd_failsWithEBADF_andWriteOnReadOnlyFd_failsWithEBADF() {
        t.close(t.open("/f", O_CREAT | O_WRONLY, 0644));
        int w = t.open("/f", O_WRONLY);
        int r = t.open("/f", O_RDONLY);
        assertEquals(
                Errno.EBADF,
                assertThrows(VfsException.class, () -> t.read(w, new byte[1], 0, 1)).errno());
        assertEquals(
                Errno.EBADF,
                assertThrows(VfsException.class, () -> t.write(r, new byte[1])).errno());
        assertEquals(
                Errno.EINVAL, assertThrows(VfsException.class, () -> t.ftruncate(r, 0)).errno());
        t.close(w);
        t.close(r);
    }

    @Test
    void readOnDirectoryFd_failsWithEISDIR() {
        t.mkdir("/d", 0755);
        int fd = t.open("/d", O_RDONLY);
        assertEquals(
                Errno.EISDIR,
                assertThrows(VfsException.class, () -> t.read(fd, new byte[1], 0, 1)).errno());
        t.close(fd);
    }

    @Test
    void truncateShrinkAndOpenOTrunc_returnBytesToTheSuperblock() {
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        t.write(fd, new byte[100_000]);
        long used = vfs.namespace().rootMount().superblock().usedBytes();
        assertTrue(used >= 100_000, "charged " + used);
        t.ftruncate(fd, 10);
        assertEquals(10, t.stat("/f").size());
        t.close(fd);
        t.close(t.open("/f", O_WRONLY | O_TRUNC));
        assertEquals(0, vfs.namespace().rootMount().superblock().usedBytes());
    }

    @Test
    void writePastMaxBytes_writesWhatFits_thenFailsWithENOSPC() {
        // tmpfs with size=: generic_perform_write stops at the first page shmem cannot
        // allocate and returns what it copied; the next write gets ENOSPC (checked against
        // the host in the differential ShortWriteDifferentialTest).
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        t.write(fd, new byte[1 << 19]);
        assertEquals(1 << 19, t.write(fd, new byte[1 << 20]));
        assertEquals(1 << 20, t.stat("/f").size());
        VfsException e = assertThrows(VfsException.class, () -> t.write(fd, new byte[1]));
        assertEquals(Errno.ENOSPC, e.errno());
        assertEquals(1 << 20, t.stat("/f").size());
        t.close(fd);
    }

    @Test
    void unlinkedOpenFile_staysReadable_andIsFreedAtLastClose() {
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        t.write(fd, bytes("still here"));
        t.unlink("/f");
        byte[] buf = new byte[10];
        assertEquals(10, t.pread(fd, buf, 0, 10, 0));
        assertEquals("still here", new String(buf, StandardCharsets.UTF_8));
        long inodes = vfs.namespace().rootMount().superblock().usedInodes();
        t.close(fd);
        assertEquals(inodes - 1, vfs.namespace().rootMount().superblock().usedInodes());
        assertEquals(0, vfs.namespace().rootMount().superblock().usedBytes());
    }

    @Test
    void appendWritersOnManyThreads_neverInterleave() throws Exception {
        t.close(t.open("/log", O_CREAT | O_WRONLY, 0644));
        int threads = 4;
        int records = 500;
        Thread[] ws = new Thread[threads];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int w = 0; w < threads; w++) {
            final int id = w;
            ws[w] =
                    new Thread(
                            () -> {
                                try {
                                    VfsTask mine = vfs.newTask(Credentials.ROOT);
                                    int fd = mine.open("/log", O_WRONLY | O_APPEND);
                                    for (int i = 0; i < records; i++) {
                                        byte[] rec = new byte[300];
                                        Arrays.fill(rec, (byte) ('a' + id));
                                        byte[] tag = bytes(String.format("%d:%05d|", id, i));
                                        System.arraycopy(tag, 0, rec, 0, tag.length);
                                        rec[rec.length - 1] = '\n';
                                        mine.write(fd, rec);
                                    }
                                    mine.close(fd);
                                    mine.close();
                                } catch (Throwable e) {
                                    failure.set(e);
                                }
                            });
            ws[w].start();
        }
        for (Thread w : ws) {
            w.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        long size = t.stat("/log").size();
        assertEquals((long) threads * records * 300, size);
        int fd = t.open("/log", O_RDONLY);
        byte[] all = new byte[(int) size];
        assertEquals(size, t.read(fd, all, 0, all.length));
        t.close(fd);
        Set<String> seen = new HashSet<>();
        for (int off = 0; off < all.length; off += 300) {
            String head = new String(all, off, 8, StandardCharsets.UTF_8);
            int id = head.charAt(0) - '0';
            for (int k = 9; k < 299; k++) {
                assertEquals('a' + id, all[off + k], "record at " + off + " is interleaved");
            }
            assertTrue(seen.add(head), "record written twice: " + head);
        }
        assertEquals(threads * records, seen.size());
    }

    @Test
    void readerRacingWriter_seesEachMultiPageWriteWholeOrNotAtAll() throws Exception {
        int size = 3 * 4096 + 100;
        int fd = t.open("/w", O_CREAT | O_RDWR, 0644);
        t.write(fd, new byte[size]);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> torn = new AtomicReference<>();
        Thread reader =
                new Thread(
                        () -> {
                            VfsTask r = vfs.newTask(Credentials.ROOT);
                            int rfd = r.open("/w", O_RDONLY);
                            byte[] buf = new byte[size];
                            while (!stop.get() && torn.get() == null) {
                                r.pread(rfd, buf, 0, size, 0);
                                for (int i = 1; i < size; i++) {
                                    if (buf[i] != buf[0]) {
                                        torn.set(
                                                "byte 0 is "
                                                        + buf[0]
                                                        + " but byte "
                                                        + i
                                                        + " is "
                                                        + buf[i]);
                                        break;
                                    }
                                }
                            }
                            r.close(rfd);
                            r.close();
                        });
        reader.start();
        byte[] fill = new byte[size];
        for (int round = 0; round < 20_000 && torn.get() == null; round++) {
            Arrays.fill(fill, (byte) (round & 0x7f));
            t.pwrite(fd, fill, 0, size, 0);
        }
        stop.set(true);
        reader.join();
        t.close(fd);
        assertEquals(null, torn.get());
    }
}
