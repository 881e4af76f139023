package dev.seqvfs.tests.conformance;

import static dev.seqvfs.protocol.SocketFlags.AF_INET;
import static dev.seqvfs.protocol.SocketFlags.AF_INET6;
import static dev.seqvfs.protocol.SocketFlags.AF_UNIX;
import static dev.seqvfs.protocol.SocketFlags.SOCK_CLOEXEC;
import static dev.seqvfs.protocol.SocketFlags.SOCK_DGRAM;
import static dev.seqvfs.protocol.SocketFlags.SOCK_NONBLOCK;
import static dev.seqvfs.protocol.SocketFlags.SOCK_SEQPACKET;
import static dev.seqvfs.protocol.SocketFlags.SOCK_STREAM;
import static dev.seqvfs.tests.conformance.Io.read;
import static dev.seqvfs.tests.conformance.Io.write;
import static dev.seqvfs.tests.conformance.Io.writeFile;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.tests.support.VfsFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies {@code socket(2)}, {@code socketpair(2)} and {@code shutdown(2)} as far as a
 * file system sees sockets: a socket is an inode of type {@code S_IFSOCK} with mode 0777,
 * open read-write, with {@code SOCK_NONBLOCK} and {@code SOCK_CLOEXEC}; an
 * {@code AF_UNIX} stream pair carries data both ways, with end of file and EPIPE when
 * the peer closes; {@code shutdown} stops one or both directions ({@code SHUT_RD} still
 * lets the data already received be read, then reads end of file and the peer's writes
 * fail with EPIPE; {@code SHUT_WR} makes this end's writes fail with EPIPE and the peer
 * read end of file). Errnos: EAFNOSUPPORT (unknown family), EINVAL (type out of range,
 * unknown type flags; {@code shutdown} how), EOPNOTSUPP ({@code socketpair} of
 * {@code AF_INET}), ENOTSOCK, EBADF, ENOTCONN ({@code shutdown} and reads of an
 * unconnected {@code AF_INET} stream socket), and for an unconnected {@code AF_UNIX}
 * stream socket EINVAL on read, ENOTCONN on write, success of {@code shutdown}, as
 * {@code unix_stream_read_generic} and {@code unix_shutdown} do. Measured on Linux 6.18.
 * Types a family does not support (ESOCKTNOSUPPORT) and protocols (EPROTONOSUPPORT) are
 * not modelled.
 */
@Timeout(10)
class SocketTest {
    @RegisterExtension
    final VfsFixture fs = new VfsFixture();
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
}
