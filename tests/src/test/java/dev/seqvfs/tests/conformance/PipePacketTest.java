package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.read;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies the packet mode of {@code pipe(7)}: {@code pipe2(O_DIRECT)} puts {@code O_DIRECT} on
 * the write end only, and a write through a file with {@code O_DIRECT} (also set or cleared by
 * {@code F_SETFL}) makes packets of at most a page (4096 bytes, {@code PIPE_BUF}), each using a
 * whole page of the pipe's 16, so a larger write becomes several packets and only 16 packets fit
 * whatever their size. A read returns at most one packet, discarding what of it does not fit the
 * buffer, after any stream bytes before it; the reader's own {@code O_DIRECT} changes nothing. A
 * zero-length write makes no packet. The first {@code len % 4096} bytes of a packet-mode write join
 * stream bytes already in the pipe when their page has room (Linux's {@code pipe_write} merge), so
 * they are read as stream bytes. Every value was measured on Linux 6.18 with a C program.
 */
@FileSystemContract
@Timeout(10)
class PipePacketTest {
    private static final int O_DIRECT = 040000;
    private static final int PAGE = 4096;

    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;
    int[] p;

    @BeforeEach
    void open() {
        t = fs.root();
        p = t.pipe2(O_DIRECT | OpenFlags.O_NONBLOCK);
    }

    @AfterEach
    void close() {
        t.closeRange(0, -1, 0);
    }

    private void setWriterFlags(int flags) {
        t.fcntl(p[1], Fcntl.F_SETFL, flags);
    }

    @Test
    void pipe2ODirect_setsODirectOnTheWriteEndOnly() {
        assertEquals(OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK, t.fcntl(p[0], Fcntl.F_GETFL, 0));
        assertEquals(
                OpenFlags.O_WRONLY | OpenFlags.O_NONBLOCK | O_DIRECT,
                t.fcntl(p[1], Fcntl.F_GETFL, 0));
    }

    @Test
    void read_shortBuffer_returnsTheStartOfOnePacketAndDiscardsTheRest() {
        write(t, p[1], "hello");
        write(t, p[1], "world!");
        assertEquals("hel", read(t, p[0], 3));
        assertEquals("world!", read(t, p[0], 100));
        assertErrno(Errno.EAGAIN, () -> read(t, p[0], 100));
    }

    @Test
    void write_zeroLength_makesNoPacket() {
        assertEquals(0, t.write(p[1], new byte[0]));
        assertErrno(Errno.EAGAIN, () -> read(t, p[0], 100));
    }

    @Test
    void write_eachPacketTakesAPage_sixteenOneBytePacketsFill() {
        for (int i = 0; i < 16; i++) {
            assertEquals(1, t.write(p[1], new byte[1]));
        }
        assertErrno(Errno.EAGAIN, () -> t.write(p[1], new byte[1]));
        assertEquals(1, t.read(p[0], new byte[100], 0, 100));
        assertEquals(1, t.write(p[1], new byte[1]));
    }

    @Test
    void write_largerThanAPage_isSplitIntoPagePackets() {
        assertEquals(10000, t.write(p[1], new byte[10000]));
        byte[] b = new byte[8192];
        assertEquals(PAGE, t.read(p[0], b, 0, b.length));
        assertEquals(PAGE, t.read(p[0], b, 0, b.length));
        assertEquals(1808, t.read(p[0], b, 0, b.length));
        assertEquals(4097, t.write(p[1], new byte[4097]));
        assertEquals(PAGE, t.read(p[0], b, 0, b.length));
        assertEquals(1, t.read(p[0], b, 0, b.length));
    }

    @Test
    void write_packetsOfFiveThousandBytes_eightFit() {
        int n = 0;
        while (true) {
            try {
                assertEquals(5000, t.write(p[1], new byte[5000]));
                n++;
            } catch (VfsException e) {
                assertEquals(Errno.EAGAIN, e.errno());
                break;
            }
        }
        assertEquals(8, n);
    }

    @Test
    void write_nonblockingPastTheCapacity_isPartial_sixteenPackets() {
        assertEquals(65536, t.write(p[1], new byte[70000]));
        int reads = 0;
        byte[] b = new byte[8192];
        while (true) {
            try {
                assertEquals(PAGE, t.read(p[0], b, 0, b.length));
                reads++;
            } catch (VfsException e) {
                assertEquals(Errno.EAGAIN, e.errno());
                break;
            }
        }
        assertEquals(16, reads);
    }

    @Test
    void write_packetModeAfterStreamBytes_joinsThemWhileTheirPageHasRoom() {
        setWriterFlags(OpenFlags.O_NONBLOCK);
        write(t, p[1], "abc");
        write(t, p[1], "def");
        setWriterFlags(OpenFlags.O_NONBLOCK | O_DIRECT);
        write(t, p[1], "PKT123");
        write(t, p[1], "Q");
        assertEquals("abcdefPK", read(t, p[0], 8));
        assertEquals("T123Q", read(t, p[0], 8));
    }

    @Test
    void read_streamBytesAfterAPacket_comeInTheNextRead() {
        write(t, p[1], "P1");
        setWriterFlags(OpenFlags.O_NONBLOCK);
        write(t, p[1], "s1");
        write(t, p[1], "s2");
        assertEquals("P1", read(t, p[0], 8));
        assertEquals("s1s2", read(t, p[0], 8));
    }

    @Test
    void read_streamBytesThenAPacket_endsAfterThePacket() {
        setWriterFlags(OpenFlags.O_NONBLOCK);
        write(t, p[1], "s");
        write(t, p[1], "x".repeat(PAGE - 1));
        setWriterFlags(OpenFlags.O_NONBLOCK | O_DIRECT);
        write(t, p[1], "packet");
        write(t, p[1], "next");
        byte[] b = new byte[PAGE + 10];
        assertEquals(PAGE + 6, t.read(p[0], b, 0, b.length));
        assertEquals("next", read(t, p[0], 100));
    }

    @Test
    void read_readersODirect_changesNothingForStreamBytes() {
        int[] q = t.pipe2(OpenFlags.O_NONBLOCK);
        t.fcntl(q[0], Fcntl.F_SETFL, OpenFlags.O_NONBLOCK | O_DIRECT);
        write(t, q[1], "ab");
        write(t, q[1], "cd");
        assertEquals("a", read(t, q[0], 1));
        assertEquals("bcd", read(t, q[0], 8));
    }

    @Test
    void setflODirectOnAPlainPipe_startsPacketMode() {
        int[] q = t.pipe2(OpenFlags.O_NONBLOCK);
        t.fcntl(q[1], Fcntl.F_SETFL, OpenFlags.O_NONBLOCK | O_DIRECT);
        write(t, q[1], "one");
        write(t, q[1], "two");
        assertEquals("o", read(t, q[0], 1));
        assertEquals("two", read(t, q[0], 8));
    }

    @Test
    void readAsync_completesWithOnePacket() throws Exception {
        int[] q = t.pipe2(O_DIRECT);
        byte[] b = new byte[16];
        CompletableFuture<Integer> r = t.async().read(q[0], b, 0, 16);
        assertFalse(r.isDone());
        write(t, q[1], "first");
        write(t, q[1], "second");
        assertEquals(5, r.get(5, TimeUnit.SECONDS));
        assertEquals("second", read(t, q[0], 16));
    }

    @Test
    void read_writerClosed_endOfFile() {
        write(t, p[1], "x");
        t.close(p[1]);
        assertEquals("x", read(t, p[0], 8));
        assertEquals(0, t.read(p[0], new byte[8], 0, 8));
    }
}
