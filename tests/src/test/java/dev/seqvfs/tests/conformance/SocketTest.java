package dev.seqvfs.tests.conformance;

import static dev.seqvfs.protocol.SocketFlags.AF_INET;
import static dev.seqvfs.protocol.SocketFlags.AF_INET6;
import static dev.seqvfs.protocol.SocketFlags.AF_UNIX;
import static dev.seqvfs.protocol.SocketFlags.SOCK_CLOEXEC;
import static dev.seqvfs.protocol.SocketFlags.SOCK_DGRAM;
import static dev.seqvfs.protocol.SocketFlags.SOCK_NONBLOCK;
import static dev.seqvfs.protocol.SocketFlags.SOCK_RAW;
import static dev.seqvfs.protocol.SocketFlags.SOCK_SEQPACKET;
import static dev.seqvfs.protocol.SocketFlags.SOCK_STREAM;
import static dev.seqvfs.tests.conformance.Io.read;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Io.writeFile;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code socket(2)}, {@code socketpair(2)} and {@code shutdown(2)} as far as a file
 * system sees sockets: a socket is an inode of type {@code S_IFSOCK} with mode 0777, open
 * read-write, with {@code SOCK_NONBLOCK} and {@code SOCK_CLOEXEC}; an {@code AF_UNIX} stream pair
 * carries data both ways, with end of file and EPIPE when the peer closes; {@code shutdown} stops
 * one or both directions ({@code SHUT_RD} still lets the data already received be read, then reads
 * end of file and the peer's writes fail with EPIPE; {@code SHUT_WR} makes this end's writes fail
 * with EPIPE and the peer read end of file). Datagram and seqpacket pairs are in
 * SocketDatagramTest.
 *
 * <p>Argument errors, in Linux's order: unknown type flags EINVAL; a family outside [0, 46)
 * EAFNOSUPPORT; a type outside [0, 11) EINVAL; an unknown family EAFNOSUPPORT; then {@code
 * AF_UNIX}: a protocol other than 0 or 1 EPROTONOSUPPORT, a type other than stream, datagram,
 * seqpacket or raw (which becomes datagram) ESOCKTNOSUPPORT; {@code AF_INET}/{@code AF_INET6}: a
 * protocol outside [0, 263) EINVAL, a protocol the type does not carry EPROTONOSUPPORT, ping
 * sockets EACCES (default {@code ping_group_range}), other types ESOCKTNOSUPPORT. {@code
 * socketpair} of an Internet family is EOPNOTSUPP once the arguments are valid.
 *
 * <p>Unconnected sockets: a read of 0 bytes returns 0 on every socket; otherwise {@code AF_UNIX}
 * stream reads EINVAL and writes ENOTCONN, seqpacket ENOTCONN both, datagram sockets of every
 * family read EAGAIN (non-blocking) or wait until their own {@code SHUT_RD} (then 0), {@code
 * AF_UNIX} datagram writes are ENOTCONN (EPIPE after {@code SHUT_WR}, EMSGSIZE above 212960 bytes),
 * Internet datagram writes EDESTADDRREQ ({@code AF_INET}: EMSGSIZE above 65535 bytes), Internet
 * stream reads ENOTCONN and writes EPIPE; {@code shutdown} of an unconnected Internet socket is
 * ENOTCONN yet records the shutdown (a stream read then returns 0), of a Unix one succeeds. Every
 * value was measured on Linux 6.18 with a C program.
 *
 * <p>Known differences: raw Internet sockets and {@code AF_INET SOCK_PACKET} (a packet socket) need
 * {@code CAP_NET_RAW}, which SeqVFS grants to no task: EPERM even for root, where Linux creates
 * them; families other than {@code AF_UNIX}, {@code AF_INET} and {@code AF_INET6} (netlink, packet,
 * ...) are EAFNOSUPPORT.
 */
@FileSystemContract
@Timeout(10)
class SocketTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void task() {
        t = fs.root();
    }

    // ---------------------------------------------------------------- socket

    @Test
    void socket_isASocketInodeOpenForReadingAndWriting() {
        int s = t.socket(AF_UNIX, SOCK_STREAM, 0);
        int u = t.socket(AF_INET6, SOCK_DGRAM, 0);
        Stat st = t.fstat(s);
        assertEquals(Mode.S_IFSOCK | 0777, st.mode());
        assertEquals(0, st.size());
        assertNotEquals(st.ino(), t.fstat(u).ino());
        assertEquals(OpenFlags.O_RDWR, t.fcntl(s, Fcntl.F_GETFL, 0));
        assertEquals(0, t.fcntl(s, Fcntl.F_GETFD, 0));
        t.close(s);
        t.close(u);
    }

    @Test
    void socket_typeFlags_setNonblockAndCloseOnExec() {
        int s = t.socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        assertEquals(OpenFlags.O_RDWR | OpenFlags.O_NONBLOCK, t.fcntl(s, Fcntl.F_GETFL, 0));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(s, Fcntl.F_GETFD, 0));
        t.exec();
        assertErrno(Errno.EBADF, () -> t.fstat(s));
    }

    @Test
    void socket_unknownFamily_failsWithEAFNOSUPPORT() {
        assertErrno(Errno.EAFNOSUPPORT, () -> t.socket(1234, SOCK_STREAM, 0));
        assertErrno(Errno.EAFNOSUPPORT, () -> t.socket(-1, SOCK_STREAM, 0));
        assertErrno(Errno.EAFNOSUPPORT, () -> t.socketpair(1234, SOCK_STREAM, 0));
    }

    @Test
    void socket_typeOutOfRangeOrUnknownFlag_failsWithEINVAL() {
        assertErrno(Errno.EINVAL, () -> t.socket(AF_UNIX, 11, 0));
        assertErrno(Errno.EINVAL, () -> t.socket(AF_UNIX, SOCK_STREAM | 0x100, 0));
        assertErrno(Errno.EINVAL, () -> t.socketpair(AF_UNIX, SOCK_STREAM | 0x100, 0));
        assertEquals(0, t.socket(AF_UNIX, SOCK_STREAM, 0));
        t.close(0);
    }

    @Test
    void socket_unixTypeNotStreamDgramSeqpacketOrRaw_failsWithESOCKTNOSUPPORT() {
        for (int type : new int[] {0, 4, 6, 10}) {
            assertErrno(Errno.ESOCKTNOSUPPORT, () -> t.socket(AF_UNIX, type, 0));
            assertErrno(Errno.ESOCKTNOSUPPORT, () -> t.socketpair(AF_UNIX, type, 1));
        }
    }

    @Test
    void socket_unixProtocolNotZeroOrOne_failsWithEPROTONOSUPPORT_beforeTheType() {
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socket(AF_UNIX, SOCK_STREAM, 2));
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socket(AF_UNIX, SOCK_DGRAM, -1));
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socket(AF_UNIX, 4, 1000));
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socketpair(AF_UNIX, SOCK_STREAM, 7));
        t.close(t.socket(AF_UNIX, SOCK_SEQPACKET, 1));
    }

    @Test
    void socket_unixRaw_isADatagramSocket() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_RAW, 0);
        write(t, sp[0], "one");
        write(t, sp[0], "two");
        assertEquals("o", read(t, sp[1], 1));
        assertEquals("two", read(t, sp[1], 10));
        t.close(t.socket(AF_UNIX, SOCK_RAW | SOCK_NONBLOCK, 0));
        t.closeRange(0, -1, 0);
    }

    @Test
    void socket_inetTypeNotStreamDgramOrRaw_failsWithESOCKTNOSUPPORT() {
        for (int type : new int[] {0, 4, SOCK_SEQPACKET, 6}) {
            assertErrno(Errno.ESOCKTNOSUPPORT, () -> t.socket(AF_INET, type, 0));
            assertErrno(Errno.ESOCKTNOSUPPORT, () -> t.socket(AF_INET6, type, 6));
        }
        assertErrno(Errno.ESOCKTNOSUPPORT, () -> t.socket(AF_INET6, 10, 0));
    }

    @Test
    void socket_inetProtocolOutOfRange_failsWithEINVAL_beforeTheType() {
        assertErrno(Errno.EINVAL, () -> t.socket(AF_INET, SOCK_STREAM, -1));
        assertErrno(Errno.EINVAL, () -> t.socket(AF_INET, SOCK_DGRAM, 263));
        assertErrno(Errno.EINVAL, () -> t.socket(AF_INET6, SOCK_SEQPACKET, 1000));
        assertErrno(Errno.EINVAL, () -> t.socket(AF_INET6, 0, -1));
    }

    @Test
    void socket_inetProtocolTheTypeDoesNotCarry_failsWithEPROTONOSUPPORT() {
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socket(AF_INET, SOCK_STREAM, 17));
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socket(AF_INET, SOCK_STREAM, 256));
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socket(AF_INET, SOCK_DGRAM, 6));
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socket(AF_INET6, SOCK_DGRAM, 1));
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socket(AF_INET6, SOCK_STREAM, 132));
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socket(AF_INET, SOCK_RAW, 0));
        assertErrno(Errno.EPROTONOSUPPORT, () -> t.socketpair(AF_INET, SOCK_STREAM, 7));
    }

    @Test
    void socket_inetTcpUdpMptcpUdplite_areCreated() {
        int[][] args = {
            {AF_INET, SOCK_STREAM, 6},
            {AF_INET, SOCK_STREAM, 262},
            {AF_INET, SOCK_DGRAM, 17},
            {AF_INET, SOCK_DGRAM, 136},
            {AF_INET6, SOCK_STREAM, 6},
            {AF_INET6, SOCK_DGRAM, 136}
        };
        for (int[] a : args) {
            int s = t.socket(a[0], a[1], a[2]);
            assertEquals(Mode.S_IFSOCK | 0777, t.fstat(s).mode());
            t.close(s);
        }
    }

    @Test
    void socket_pingSocket_failsWithEACCES() {
        assertErrno(Errno.EACCES, () -> t.socket(AF_INET, SOCK_DGRAM, 1));
        assertErrno(Errno.EACCES, () -> t.socket(AF_INET6, SOCK_DGRAM, 58));
    }

    @Test
    void socket_rawOrPacketInet_failsWithEPERM() {
        // Linux: EPERM without CAP_NET_RAW; SeqVFS grants it to no task (class Javadoc)
        assertErrno(Errno.EPERM, () -> fs.task(1000, 1000).socket(AF_INET, SOCK_RAW, 255));
        assertErrno(Errno.EPERM, () -> fs.task(1000, 1000).socket(AF_INET, 10, 0));
        assertErrno(Errno.EPERM, () -> t.socket(AF_INET6, SOCK_RAW, 58));
    }

    @Test
    void socket_familyUnknownOrOutOfRange_failsWithEAFNOSUPPORT_typeRangeComesBetween() {
        for (int family : new int[] {0, 4, 16, 45}) {
            assertErrno(Errno.EAFNOSUPPORT, () -> t.socket(family, SOCK_STREAM, 0));
            assertErrno(Errno.EINVAL, () -> t.socket(family, 11, 0));
        }
        assertErrno(Errno.EAFNOSUPPORT, () -> t.socket(46, 11, 0));
        assertErrno(Errno.EAFNOSUPPORT, () -> t.socket(1000, 15, 0));
        assertErrno(Errno.EINVAL, () -> t.socket(1000, 16, 0));
    }

    // ---------------------------------------------------------------- socketpair

    @Test
    void socketpair_unixStream_carriesDataBothWays() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        write(t, sp[0], "ping");
        write(t, sp[1], "pong!");
        assertEquals("ping", read(t, sp[1], 10));
        assertEquals("pong!", read(t, sp[0], 10));
        assertNotEquals(t.fstat(sp[0]).ino(), t.fstat(sp[1]).ino());
        assertEquals(Mode.S_IFSOCK | 0777, t.fstat(sp[1]).mode());
        t.close(sp[0]);
        t.close(sp[1]);
    }

    @Test
    void socketpair_seqpacketAndDgram_areAccepted() {
        int[] a = t.socketpair(AF_UNIX, SOCK_SEQPACKET, 0);
        int[] b = t.socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        write(t, a[1], "x");
        assertEquals("x", read(t, a[0], 1));
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(b[1], Fcntl.F_GETFD, 0));
        t.closeRange(a[0], b[1], 0);
    }

    @Test
    void socketpair_peerClosed_readsEndOfFileAfterTheData_writesFailWithEPIPE() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        write(t, sp[0], "abc");
        t.close(sp[0]);
        assertEquals("abc", read(t, sp[1], 10));
        assertEquals(0, t.read(sp[1], new byte[4], 0, 4));
        assertErrno(Errno.EPIPE, () -> write(t, sp[1], "x"));
        t.close(sp[1]);
    }

    /**
     * Host: the queued data, then ECONNRESET once, then 0; writes EPIPE without taking the error.
     */
    @Test
    void socketpair_streamPeerClosedWithDataUnread_readsTheDataThenECONNRESETOnceThenEndOfFile() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        write(t, sp[0], "hello"); // left unread by sp[1]
        write(t, sp[1], "back");
        t.close(sp[1]);
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "zz"));
        assertEquals(0, t.read(sp[0], new byte[4], 0, 0)); // a zero-length read takes no error
        assertEquals("back", read(t, sp[0], 100));
        assertErrno(Errno.ECONNRESET, () -> read(t, sp[0], 100));
        assertEquals(0, t.read(sp[0], new byte[4], 0, 4));
        t.close(sp[0]);
    }

    @Test
    void socketpair_streamPeerClosedWithDataUnread_nonblockingAndAsyncReadsGetECONNRESET()
            throws Exception {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        write(t, sp[0], "hello");
        t.close(sp[1]);
        assertErrno(Errno.ECONNRESET, () -> read(t, sp[0], 100));
        assertEquals(0, t.read(sp[0], new byte[4], 0, 4));
        t.close(sp[0]);

        int[] sq = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        write(t, sq[0], "hello");
        var pending = t.async().read(sq[0], new byte[8], 0, 8); // waits: nothing for sq[0] yet
        t.close(sq[1]);
        var e = assertThrows(ExecutionException.class, () -> pending.get(5, TimeUnit.SECONDS));
        assertEquals(Errno.ECONNRESET, ((VfsException) e.getCause()).errno());
        t.close(sq[0]);
    }

    /** Host: a peer that read everything, or only shut down, leaves no error: end of file. */
    @Test
    void socketpair_streamPeerClosedAfterReadingAllOrShutDown_readsEndOfFileWithoutError() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        t.close(sp[1]);
        assertEquals(0, t.read(sp[0], new byte[4], 0, 4));
        t.close(sp[0]);
        int[] sq = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        write(t, sq[0], "hello");
        t.shutdown(sq[1], dev.seqvfs.engine.anon.SocketEnd.SHUT_RDWR);
        assertEquals(0, t.read(sq[0], new byte[4], 0, 4));
        assertErrno(Errno.EPIPE, () -> write(t, sq[0], "zz"));
        t.close(sq[0]);
        t.close(sq[1]);
    }

    @Test
    void socketpair_nonblock_emptyReadFailsWithEAGAIN() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        assertEquals(OpenFlags.O_RDWR | OpenFlags.O_NONBLOCK, t.fcntl(sp[0], Fcntl.F_GETFL, 0));
        assertErrno(Errno.EAGAIN, () -> read(t, sp[0], 1));
        t.close(sp[0]);
        t.close(sp[1]);
    }

    @Test
    void socketpair_inet_failsWithEOPNOTSUPP() {
        assertErrno(Errno.EOPNOTSUPP, () -> t.socketpair(AF_INET, SOCK_STREAM, 0));
        assertErrno(Errno.EOPNOTSUPP, () -> t.socketpair(AF_INET6, SOCK_DGRAM, 0));
    }

    // ---------------------------------------------------------------- shutdown

    @Test
    void shutdownWr_peerReadsEndOfFile_ownWritesFailWithEPIPE_ownReadsGoOn() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        write(t, sp[0], "last");
        t.shutdown(sp[0], 1);
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "x"));
        assertEquals("last", read(t, sp[1], 10));
        assertEquals(0, t.read(sp[1], new byte[4], 0, 4));
        write(t, sp[1], "reply");
        assertEquals("reply", read(t, sp[0], 10));
        t.close(sp[0]);
        t.close(sp[1]);
    }

    @Test
    void shutdownRd_dataAlreadyReceivedIsStillRead_thenEndOfFile() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        write(t, sp[1], "hello");
        t.shutdown(sp[0], 0);
        assertEquals("hello", read(t, sp[0], 10));
        assertEquals(0, t.read(sp[0], new byte[4], 0, 4));
        t.close(sp[0]);
        t.close(sp[1]);
    }

    @Test
    void shutdownRd_peerWritesFailWithEPIPE_ownWritesGoOn() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        t.shutdown(sp[0], 0);
        assertErrno(Errno.EPIPE, () -> write(t, sp[1], "x"));
        write(t, sp[0], "y");
        assertEquals("y", read(t, sp[1], 10));
        t.close(sp[0]);
        t.close(sp[1]);
    }

    @Test
    void shutdownRdwr_stopsBothDirections_andMayBeRepeated() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        t.shutdown(sp[0], 2);
        t.shutdown(sp[0], 2);
        t.shutdown(sp[0], 0);
        assertEquals(0, t.read(sp[0], new byte[4], 0, 4));
        assertEquals(0, t.read(sp[1], new byte[4], 0, 4));
        assertErrno(Errno.EPIPE, () -> write(t, sp[0], "x"));
        assertErrno(Errno.EPIPE, () -> write(t, sp[1], "x"));
        t.close(sp[0]);
        t.close(sp[1]);
    }

    @Test
    void shutdown_badHow_failsWithEINVAL() {
        int[] sp = t.socketpair(AF_UNIX, SOCK_STREAM, 0);
        int u = t.socket(AF_UNIX, SOCK_STREAM, 0);
        assertErrno(Errno.EINVAL, () -> t.shutdown(sp[0], 3));
        assertErrno(Errno.EINVAL, () -> t.shutdown(sp[0], -1));
        assertErrno(Errno.EINVAL, () -> t.shutdown(u, 3));
        write(t, sp[0], "still");
        assertEquals("still", read(t, sp[1], 10));
        t.close(sp[0]);
        t.close(sp[1]);
        t.close(u);
    }

    @Test
    void shutdown_notASocket_failsWithENOTSOCK() {
        writeFile(t, "/f", "x");
        int f = t.open("/f", OpenFlags.O_RDONLY);
        int[] p = t.pipe();
        int e = t.eventfd(0, 0);
        for (int fd : new int[] {f, p[0], p[1], e}) {
            assertErrno(Errno.ENOTSOCK, () -> t.shutdown(fd, 2));
        }
        t.closeRange(0, -1, 0);
    }

    @Test
    void shutdown_closedDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> t.shutdown(9, 2));
        assertErrno(Errno.EBADF, () -> t.shutdown(9, 7));
    }

    @Test
    void shutdown_unconnectedInetStream_failsWithENOTCONN() {
        int s = t.socket(AF_INET, SOCK_STREAM, 0);
        assertErrno(Errno.ENOTCONN, () -> t.shutdown(s, 0));
        assertErrno(Errno.ENOTCONN, () -> t.shutdown(s, 2));
        t.close(s);
    }

    @Test
    void shutdown_unconnectedUnixSocket_succeeds() {
        int s = t.socket(AF_UNIX, SOCK_STREAM, 0);
        int d = t.socket(AF_UNIX, SOCK_DGRAM, 0);
        t.shutdown(s, 0);
        t.shutdown(d, 1);
        t.close(s);
        t.close(d);
    }

    // ---------------------------------------------------------------- unconnected I/O

    @Test
    void read_unconnectedInetStream_failsWithENOTCONN() {
        int s = t.socket(AF_INET, SOCK_STREAM, 0);
        assertErrno(Errno.ENOTCONN, () -> read(t, s, 1));
        t.close(s);
    }

    @Test
    void write_unconnectedInetStream_failsWithEPIPE() {
        int s = t.socket(AF_INET, SOCK_STREAM, 0);
        assertErrno(Errno.EPIPE, () -> write(t, s, "x"));
        t.close(s);
    }

    @Test
    void readWrite_unconnectedUnixStream_failWithEINVALAndENOTCONN() {
        int s = t.socket(AF_UNIX, SOCK_STREAM, 0);
        assertErrno(Errno.EINVAL, () -> read(t, s, 1));
        assertErrno(Errno.ENOTCONN, () -> write(t, s, "x"));
        t.close(s);
    }

    @Test
    void readWrite_unconnectedUnixSeqpacket_failWithENOTCONN_evenAfterShutdown() {
        int s = t.socket(AF_UNIX, SOCK_SEQPACKET, 0);
        assertErrno(Errno.ENOTCONN, () -> read(t, s, 1));
        assertErrno(Errno.ENOTCONN, () -> write(t, s, "x"));
        t.shutdown(s, 2);
        assertErrno(Errno.ENOTCONN, () -> read(t, s, 1));
        assertErrno(Errno.ENOTCONN, () -> write(t, s, "x"));
        t.close(s);
    }

    @Test
    void readWrite_unconnectedUnixStreamAfterShutdown_keepTheirErrors() {
        int s = t.socket(AF_UNIX, SOCK_STREAM, 0);
        t.shutdown(s, 2);
        assertErrno(Errno.EINVAL, () -> read(t, s, 1));
        assertErrno(Errno.ENOTCONN, () -> write(t, s, "x"));
        t.close(s);
    }

    @Test
    void read_zeroBytes_unconnectedSocket_returnsZero() {
        int[][] args = {
            {AF_UNIX, SOCK_STREAM},
            {AF_UNIX, SOCK_DGRAM},
            {AF_UNIX, SOCK_SEQPACKET},
            {AF_INET, SOCK_STREAM},
            {AF_INET, SOCK_DGRAM},
            {AF_INET6, SOCK_STREAM},
            {AF_INET6, SOCK_DGRAM}
        };
        for (int[] a : args) {
            int s = t.socket(a[0], a[1], 0);
            assertEquals(0, t.read(s, new byte[0], 0, 0));
            t.close(s);
        }
    }

    @Test
    void read_unconnectedDgramNonblocking_failsWithEAGAIN() {
        for (int family : new int[] {AF_UNIX, AF_INET, AF_INET6}) {
            int s = t.socket(family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
            assertErrno(Errno.EAGAIN, () -> read(t, s, 1));
            t.close(s);
        }
    }

    @Test
    void read_unconnectedDgramBlocking_waitsUntilOwnShutRd_thenZero() throws Exception {
        int u = t.socket(AF_UNIX, SOCK_DGRAM, 0);
        int i = t.socket(AF_INET, SOCK_DGRAM, 0);
        CompletableFuture<Integer> ru = t.async().read(u, new byte[4], 0, 4);
        CompletableFuture<Integer> ri = t.async().read(i, new byte[4], 0, 4);
        assertFalse(ru.isDone());
        assertFalse(ri.isDone());
        t.shutdown(u, 0);
        assertErrno(Errno.ENOTCONN, () -> t.shutdown(i, 0));
        assertEquals(0, ru.get(5, TimeUnit.SECONDS));
        assertEquals(0, ri.get(5, TimeUnit.SECONDS));
        assertEquals(0, t.read(u, new byte[4], 0, 4));
        t.close(u);
        t.close(i);
    }

    @Test
    void write_unconnectedUnixDgram_failsWithENOTCONN_EPIPEAfterShutWr_EMSGSIZEWhenTooLong() {
        int s = t.socket(AF_UNIX, SOCK_DGRAM, 0);
        assertErrno(Errno.ENOTCONN, () -> write(t, s, "x"));
        assertErrno(Errno.ENOTCONN, () -> t.write(s, new byte[0]));
        t.shutdown(s, 0);
        assertErrno(Errno.ENOTCONN, () -> write(t, s, "x"));
        t.shutdown(s, 1);
        assertErrno(Errno.EPIPE, () -> t.write(s, new byte[0]));
        assertErrno(Errno.EMSGSIZE, () -> t.write(s, new byte[212961]));
        t.close(s);
    }

    @Test
    void write_unconnectedInetDgram_failsWithEDESTADDRREQ_ipv4EMSGSIZEAbove65535() {
        int s4 = t.socket(AF_INET, SOCK_DGRAM, 0);
        int s6 = t.socket(AF_INET6, SOCK_DGRAM, 0);
        assertErrno(Errno.EDESTADDRREQ, () -> write(t, s4, "x"));
        assertErrno(Errno.EDESTADDRREQ, () -> t.write(s4, new byte[65535]));
        assertErrno(Errno.EMSGSIZE, () -> t.write(s4, new byte[65536]));
        assertErrno(Errno.EDESTADDRREQ, () -> t.write(s6, new byte[200000]));
        assertErrno(Errno.ENOTCONN, () -> t.shutdown(s4, 1));
        assertErrno(Errno.EDESTADDRREQ, () -> write(t, s4, "x"));
        t.close(s4);
        t.close(s6);
    }

    @Test
    void read_unconnectedInetStreamAfterFailedShutRd_returnsZero() {
        int s = t.socket(AF_INET6, SOCK_STREAM, 0);
        assertErrno(Errno.ENOTCONN, () -> t.shutdown(s, 1));
        assertErrno(Errno.ENOTCONN, () -> read(t, s, 1));
        assertErrno(Errno.ENOTCONN, () -> t.shutdown(s, 0));
        assertEquals(0, t.read(s, new byte[4], 0, 4));
        assertErrno(Errno.EPIPE, () -> write(t, s, "x"));
        t.close(s);
    }
}
