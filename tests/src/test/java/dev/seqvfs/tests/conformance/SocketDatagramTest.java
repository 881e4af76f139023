package dev.seqvfs.tests.conformance;

import static dev.seqvfs.protocol.SocketFlags.AF_UNIX;
import static dev.seqvfs.protocol.SocketFlags.SOCK_DGRAM;
import static dev.seqvfs.protocol.SocketFlags.SOCK_NONBLOCK;
import static dev.seqvfs.protocol.SocketFlags.SOCK_SEQPACKET;
import static dev.seqvfs.tests.conformance.Io.read;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Specifies {@code socketpair(AF_UNIX, SOCK_DGRAM | SOCK_SEQPACKET)} as {@code unix(7)} and {@code
 * recv(2)} describe them: every write is one datagram (a zero-length write too, which a read
 * returns as 0 without meaning end of file), a read takes exactly one datagram and discards what
 * does not fit its buffer, and a read of 0 bytes takes nothing. Capacity: a datagram above {@code
 * SO_SNDBUF - 32} = 212960 bytes is EMSGSIZE; queued datagrams charge the sender's 212992-byte send
 * buffer their {@code skb} truesize (278 small ones, 93 of 1000 bytes, 3 of 100000 fit before a
 * non-blocking write is EAGAIN). End of data differs by type: {@code SOCK_SEQPACKET} reads 0 once
 * the peer shut down writing or closed, or after its own {@code SHUT_RD}, and writes fail with
 * EPIPE when the peer is gone; {@code SOCK_DGRAM} never reads end of file while non-blocking
 * (EAGAIN), a blocking read returns 0 only after its own {@code SHUT_RD}, and the first write to a
 * closed peer is ECONNREFUSED, later ones ENOTCONN. A {@code SOCK_SEQPACKET} peer closed with
 * datagrams unread leaves ECONNRESET, reported once by the next read or write. Every value was
 * measured on Linux 6.18 with a C program.
 */
@FileSystemContract
@Timeout(10)
class SocketDatagramTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void task() {
        t = fs.root();
    }

    private int[] pair(int type) {
        return t.socketpair(AF_UNIX, type | SOCK_NONBLOCK, 0);
    }

    @ParameterizedTest
    @ValueSource(ints = {SOCK_DGRAM, SOCK_SEQPACKET})
    void read_shortBuffer_returnsTheStartOfOneDatagramAndDiscardsTheRest(int type) {
        int[] sp = pair(type);
        write(t, sp[0], "hello");
        write(t, sp[0], "world!");
        assertEquals("hel", read(t, sp[1], 3));
        assertEquals("world!", read(t, sp[1], 16));
        assertErrno(Errno.EAGAIN, () -> read(t, sp[1], 16));
        t.closeRange(0, -1, 0);
    }

    @ParameterizedTest
    @ValueSource(ints = {SOCK_DGRAM, SOCK_SEQPACKET})
    void write_zeroLength_isADatagramThatReadsAsZero_notEndOfFile(int type) {
        int[] sp = pair(type);
        assertEquals(0, t.write(sp[0], new byte[0]));
        write(t, sp[0], "xyz");
        assertEquals(0, t.read(sp[1], new byte[16], 0, 16));
        assertEquals("xyz", read(t, sp[1], 16));
        assertErrno(Errno.EAGAIN, () -> read(t, sp[1], 16));
        t.closeRange(0, -1, 0);
    }

    @ParameterizedTest
    @ValueSource(ints = {SOCK_DGRAM, SOCK_SEQPACKET})
    void read_zeroLengthBuffer_returnsZeroAndTakesNothing(int type) {
        int[] sp = pair(type);
        write(t, sp[0], "kept");
        assertEquals(0, t.read(sp[1], new byte[0], 0, 0));
        assertEquals("kept", read(t, sp[1], 16));
        t.closeRange(0, -1, 0);
    }

    @Test
    void readv_scattersOneDatagram() {
        int[] sp = pair(SOCK_DGRAM);
        write(t, sp[0], "abcdef");
        write(t, sp[0], "next");
        byte[] a = new byte[2];
        byte[] b = new byte[2];
        assertEquals(4, t.readv(sp[1], new byte[][] {a, b}));
        assertEquals(
                "abcd",
                new String(a, StandardCharsets.UTF_8) + new String(b, StandardCharsets.UTF_8));
        assertEquals("next", read(t, sp[1], 16));
        t.closeRange(0, -1, 0);
    }

    @ParameterizedTest
    @ValueSource(ints = {SOCK_DGRAM, SOCK_SEQPACKET})
    void write_largerThanSendBufferLess32_failsWithEMSGSIZE(int type) {
        int[] sp = pair(type);
        assertErrno(Errno.EMSGSIZE, () -> t.write(sp[0], new byte[212961]));
        assertEquals(212960, t.write(sp[0], new byte[212960]));
        assertEquals(212960, t.read(sp[1], new byte[300000], 0, 300000));
        t.closeRange(0, -1, 0);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 100, 1000, 4000, 10000, 50000, 100000})
    void write_nonblockUntilFull_queuesAsManyDatagramsAsLinux(int size) {
        // measured: datagrams of each size that fit before EAGAIN, SOCK_DGRAM and SOCK_SEQPACKET
        // alike
        int expected =
                switch (size) {
                    case 0, 1, 100 -> 278;
                    case 1000 -> 93;
                    case 4000 -> 26;
                    case 10000 -> 13;
                    case 50000 -> 4;
                    default -> 3;
                };
        for (int type : new int[] {SOCK_DGRAM, SOCK_SEQPACKET}) {
            int[] sp = pair(type);
            byte[] d = new byte[size];
            int n = 0;
            while (true) {
                try {
                    assertEquals(size, t.write(sp[0], d));
                    n++;
                } catch (VfsException e) {
                    assertEquals(Errno.EAGAIN, e.errno());
                    break;
                }
            }
            assertEquals(expected, n, "type " + type);
            assertEquals(size, t.read(sp[1], new byte[size + 1], 0, size + 1));
            assertEquals(size, t.write(sp[0], d));
            t.closeRange(0, -1, 0);
        }
    }

    @Test
    void write_blockedOnAFullQueue_resumesWhenThePeerReads() throws Exception {
        int[] sp = t.socketpair(AF_UNIX, SOCK_DGRAM, 0);
        int n = 0;
        t.fcntl(sp[0], Fcntl.F_SETFL, OpenFlags.O_NONBLOCK);
        while (true) {
            try {
                t.write(sp[0], new byte[1]);
                n++;
            } catch (VfsException e) {
                break;
            }
        }
        t.fcntl(sp[0], Fcntl.F_SETFL, 0);
        CompletableFuture<Integer> w = CompletableFuture.supplyAsync(() -> write(t, sp[0], "late"));
        assertEquals(278, n);
        assertFalse(w.isDone());
        assertEquals(1, t.read(sp[1], new byte[8], 0, 8));
        assertEquals(4, w.get(5, TimeUnit.SECONDS));
        t.closeRange(0, -1, 0);
    }

    @Test
    void seqpacket_peerShutWr_readsDataThenEndOfFile_ownWritesFailWithEPIPE() {
        int[] sp = pair(SOCK_SEQPACKET);
        write(t, sp[0], "last");
        t.shutdown(sp[0], 1);
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "x"));
        assertEquals("last", read(t, sp[1], 16));
        assertEquals(0, t.read(sp[1], new byte[4], 0, 4));
        write(t, sp[1], "back");
        assertEquals("back", read(t, sp[0], 16));
        t.closeRange(0, -1, 0);
    }

    @Test
    void dgram_peerShutWr_ownWritesFailWithEPIPE_peerReadsNoEndOfFile() {
        int[] sp = pair(SOCK_DGRAM);
        t.shutdown(sp[0], 1);
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "x"));
        assertErrno(Errno.EAGAIN, () -> read(t, sp[1], 16));
        write(t, sp[1], "b");
        assertEquals("b", read(t, sp[0], 16));
        t.closeRange(0, -1, 0);
    }

    @ParameterizedTest
    @ValueSource(ints = {SOCK_DGRAM, SOCK_SEQPACKET})
    void shutRd_queuedDatagramStillRead_peerWritesFailWithEPIPE(int type) {
        int[] sp = pair(type);
        write(t, sp[0], "q");
        t.shutdown(sp[1], 0);
        assertEquals("q", read(t, sp[1], 16));
        if (type == SOCK_SEQPACKET) {
            assertEquals(0, t.read(sp[1], new byte[4], 0, 4));
        } else {
            assertErrno(Errno.EAGAIN, () -> read(t, sp[1], 16));
        }
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "a"));
        t.closeRange(0, -1, 0);
    }

    @Test
    void dgram_blockingReadAfterOwnShutRd_returnsZero() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_DGRAM, 0);
        t.shutdown(sp[1], 0);
        assertEquals(0, t.read(sp[1], new byte[4], 0, 4));
        t.closeRange(0, -1, 0);
    }

    @Test
    void dgram_blockedRead_isWokenWithZeroByOwnShutRd() throws Exception {
        int[] sp = t.socketpair(AF_UNIX, SOCK_DGRAM, 0);
        CompletableFuture<Integer> r = t.async().read(sp[1], new byte[4], 0, 4);
        assertFalse(r.isDone());
        t.shutdown(sp[1], 0);
        assertEquals(0, r.get(5, TimeUnit.SECONDS));
        t.closeRange(0, -1, 0);
    }

    @Test
    void dgram_peerClosed_queuedDataStillRead_firstWriteECONNREFUSED_thenENOTCONN() {
        int[] sp = pair(SOCK_DGRAM);
        write(t, sp[1], "z");
        t.close(sp[1]);
        assertErrno(Errno.ECONNREFUSED, () -> write(t, sp[0], "a"));
        assertErrno(Errno.ENOTCONN, () -> write(t, sp[0], "a"));
        assertEquals("z", read(t, sp[0], 16));
        assertErrno(Errno.EAGAIN, () -> read(t, sp[0], 16));
        t.close(sp[0]);
    }

    @Test
    void dgram_peerClosedAndOwnShutWr_writeFailsWithEPIPE() {
        int[] sp = pair(SOCK_DGRAM);
        t.close(sp[1]);
        t.shutdown(sp[0], 1);
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "a"));
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "a"));
        t.close(sp[0]);
    }

    @Test
    void dgram_writerBlockedOnFullQueue_peerCloses_failsWithECONNREFUSED() throws Exception {
        int[] sp = t.socketpair(AF_UNIX, SOCK_DGRAM, 0);
        for (int i = 0; i < 278; i++) {
            t.write(sp[0], new byte[1]);
        }
        CompletableFuture<Integer> w = t.async().write(sp[0], new byte[1], 0, 1);
        assertFalse(w.isDone());
        t.close(sp[1]);
        CompletionException ex = assertThrows(CompletionException.class, w::join);
        assertEquals(Errno.ECONNREFUSED, ((VfsException) ex.getCause()).errno());
        t.close(sp[0]);
    }

    @Test
    void seqpacket_peerClosed_readsDataThenEndOfFile_writesFailWithEPIPE() {
        int[] sp = pair(SOCK_SEQPACKET);
        write(t, sp[1], "z");
        t.close(sp[1]);
        assertEquals("z", read(t, sp[0], 16));
        assertEquals(0, t.read(sp[0], new byte[4], 0, 4));
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "a"));
        t.close(sp[0]);
    }

    @Test
    void seqpacket_peerClosedWithDataUnread_nextReadFailsOnceWithECONNRESET() {
        int[] sp = pair(SOCK_SEQPACKET);
        write(t, sp[0], "unread");
        write(t, sp[1], "z");
        t.close(sp[1]);
        assertErrno(Errno.ECONNRESET, () -> read(t, sp[0], 16));
        assertEquals("z", read(t, sp[0], 16));
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "a"));
        assertEquals(0, t.read(sp[0], new byte[4], 0, 4));
        t.close(sp[0]);
    }

    @Test
    void seqpacket_peerClosedWithDataUnread_nextWriteFailsOnceWithECONNRESET() {
        int[] sp = pair(SOCK_SEQPACKET);
        write(t, sp[0], "unread");
        t.close(sp[1]);
        assertErrno(Errno.ECONNRESET, () -> write(t, sp[0], "a"));
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "a"));
        assertEquals(0, t.read(sp[0], new byte[4], 0, 4));
        t.close(sp[0]);
    }

    @Test
    void readAsync_completesWithOneDatagramWhenItArrives() throws Exception {
        int[] sp = t.socketpair(AF_UNIX, SOCK_SEQPACKET, 0);
        byte[] buf = new byte[3];
        CompletableFuture<Integer> r = t.async().read(sp[1], buf, 0, 3);
        assertFalse(r.isDone());
        write(t, sp[0], "abcdef");
        write(t, sp[0], "gh");
        assertEquals(3, r.get(5, TimeUnit.SECONDS));
        assertEquals("abc", new String(buf, StandardCharsets.UTF_8));
        assertEquals("gh", read(t, sp[1], 16));
        t.closeRange(0, -1, 0);
    }
}
