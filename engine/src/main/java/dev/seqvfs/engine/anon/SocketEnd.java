package dev.seqvfs.engine.anon;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.StreamFileOperations;
import dev.seqvfs.engine.pipe.Pipe;
import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Poll;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One end of a socket ({@code socket(7)}, {@code unix(7)}): the file operations of a sockfs file.
 * Each end of an {@code AF_UNIX} {@code SOCK_STREAM} {@link #pair} reads from one {@link Pipe} and
 * writes to another (a byte stream both ways); each end of a {@code SOCK_DGRAM} or {@code
 * SOCK_SEQPACKET} pair reads from one {@link DgramQueue} and writes to another, keeping message
 * boundaries. {@code shutdown(2)} closes one or both directions; closing the last descriptor does
 * the rest.
 *
 * <p>A socket made by {@code socket(2)} is unconnected; its reads and writes fail as Linux 6.18's
 * do (measured): a read of 0 bytes returns 0 on every socket ({@code sock_read_iter}); otherwise
 *
 * <table>
 * <caption>unconnected sockets</caption>
 * <tr><th>socket</th><th>read</th><th>write</th></tr>
 * <tr><td>{@code AF_UNIX SOCK_STREAM}</td><td>{@code EINVAL}</td><td>{@code ENOTCONN}</td></tr>
 * <tr><td>{@code AF_UNIX SOCK_SEQPACKET}</td><td>{@code ENOTCONN}</td><td>{@code ENOTCONN}</td></tr>
 * <tr><td>{@code AF_UNIX SOCK_DGRAM}</td><td>waits for a datagram that never comes
 * ({@code EAGAIN} if non-blocking; 0 after its own {@code SHUT_RD})</td>
 * <td>{@code ENOTCONN}; {@code EPIPE} after {@code SHUT_WR}; {@code EMSGSIZE} above
 * {@code 212960} bytes</td></tr>
 * <tr><td>{@code AF_INET[6] SOCK_STREAM}</td><td>{@code ENOTCONN}; 0 after {@code SHUT_RD}</td>
 * <td>{@code EPIPE}</td></tr>
 * <tr><td>{@code AF_INET[6] SOCK_DGRAM}</td><td>as {@code AF_UNIX SOCK_DGRAM}</td>
 * <td>{@code EDESTADDRREQ}; {@code AF_INET}: {@code EMSGSIZE} above 65535 bytes</td></tr>
 * </table>
 *
 * <h2>Concurrency</h2>
 *
 * {@code shutRead}/{@code shutWrite} go from false to true once, under this object's monitor; the
 * pipes and queues do their own locking; {@code err} ({@code sk_err}) is set by the peer's release
 * (a stream peer: before it releases its write side, so a read that sees that end of file also sees
 * the error) and consumed once by {@code getAndSet(null)}.
 */
public final class SocketEnd implements StreamFileOperations {
    /** {@code shutdown(2)}: no more receptions. */
    public static final int SHUT_RD = 0;

    /** {@code shutdown(2)}: no more transmissions. */
    public static final int SHUT_WR = 1;

    /** {@code shutdown(2)}: both. */
    public static final int SHUT_RDWR = 2;

    /**
     * The largest UDP payload length field: a longer write is {@code EMSGSIZE} ({@code
     * udp_sendmsg}).
     */
    private static final int UDP_MAX = 0xFFFF;

    private final int domain;
    private final int type;
    private final Pipe in;
    private final Pipe out;
    private final DgramQueue din;
    private final DgramQueue dout;
    private final AtomicReference<Errno> err;

    /** The peer's {@code sk_err} (a stream pair; null otherwise): set by this end's release. */
    private final AtomicReference<Errno> peerErr;

    private boolean shutRead;
    private boolean shutWrite;

    /**
     * An unconnected socket.
     *
     * @param domain the address family
     * @param type the socket type
     * @param shutdown the instance's closed state, which ends every wait on the socket
     */
    public SocketEnd(int domain, int type, Shutdown shutdown) {
        this(
                domain,
                type,
                null,
                null,
                type == SocketFlags.SOCK_DGRAM
                        ? new DgramQueue(false, null, new AtomicReference<>(), shutdown)
                        : null,
                null,
                new AtomicReference<>(),
                null);
    }

    private SocketEnd(
            int domain,
            int type,
            Pipe in,
            Pipe out,
            DgramQueue din,
            DgramQueue dout,
            AtomicReference<Errno> err,
            AtomicReference<Errno> peerErr) {
        this.domain = domain;
        this.type = type;
        this.in = in;
        this.out = out;
        this.din = din;
        this.dout = dout;
        this.err = err;
        this.peerErr = peerErr;
    }

    /**
     * Creates the two connected ends of {@code socketpair(2)}: {@code SOCK_STREAM} over two pipes,
     * {@code SOCK_DGRAM} and {@code SOCK_SEQPACKET} over two datagram queues.
     *
     * @param domain the address family ({@code AF_UNIX})
     * @param type the socket type
     * @param shutdown the instance's closed state, which ends every wait on the sockets
     * @return the two ends
     */
    public static SocketEnd[] pair(int domain, int type, Shutdown shutdown) {
        AtomicReference<Errno> errA = new AtomicReference<>();
        AtomicReference<Errno> errB = new AtomicReference<>();
        if (type == SocketFlags.SOCK_STREAM) {
            Pipe aToB = new Pipe(shutdown);
            Pipe bToA = new Pipe(shutdown);
            return new SocketEnd[] {
                new SocketEnd(domain, type, bToA, aToB, null, null, errA, errB),
                new SocketEnd(domain, type, aToB, bToA, null, null, errB, errA)
            };
        }
        boolean seq = type == SocketFlags.SOCK_SEQPACKET;
        DgramQueue aToB = new DgramQueue(seq, errA, errB, shutdown);
        DgramQueue bToA = new DgramQueue(seq, errB, errA, shutdown);
        return new SocketEnd[] {
            new SocketEnd(domain, type, null, null, bToA, aToB, errA, null),
            new SocketEnd(domain, type, null, null, aToB, bToA, errB, null)
        };
    }

    /** {@return the address family ({@code AF_UNIX}, {@code AF_INET}, ...)} */
    public int domain() {
        return domain;
    }

    /**
     * {@return the socket type ({@code SOCK_STREAM}, {@code SOCK_DGRAM}, {@code SOCK_SEQPACKET})}
     */
    public int type() {
        return type;
    }

    /**
     * {@code sock_from_file}: the socket behind {@code f}.
     *
     * @param f the open file
     * @param op the call, for the error
     * @return the socket
     * @throws VfsException {@code ENOTSOCK} if {@code f} is not a socket
     */
    public static SocketEnd of(OpenFile f, Syscall op) {
        if (f.ops() instanceof SocketEnd s) {
            return s;
        }
        throw new VfsException(Errno.ENOTSOCK, op, null);
    }

    /**
     * {@code unix_poll} / {@code unix_dgram_poll}, as Linux 6.18 answers (measured with {@code
     * poll(2)}): an unconnected stream socket is {@code POLLOUT | POLLHUP}; a connected stream end
     * is readable ({@code POLLIN}) with data or after its peer's {@code SHUT_WR} (then also {@code
     * POLLRDHUP}), {@code POLLHUP} once both directions are shut, and writable while its send side
     * has room; a datagram socket is writable, and readable with a datagram queued.
     */
    @Override
    public int poll(OpenFile f) {
        int mask = 0;
        if (din != null) {
            if (din.readable()) {
                mask |= Poll.POLLIN | Poll.POLLRDNORM;
            }
            return mask | Poll.POLLOUT | Poll.POLLWRNORM;
        }
        if (in == null) {
            return type == SocketFlags.SOCK_STREAM || type == SocketFlags.SOCK_SEQPACKET
                    ? Poll.POLLOUT | Poll.POLLWRNORM | Poll.POLLHUP
                    : Poll.POLLOUT | Poll.POLLWRNORM;
        }
        int r = in.poll(true, false);
        boolean rcvShut = (r & Poll.POLLHUP) != 0;
        mask |= r & (Poll.POLLIN | Poll.POLLRDNORM);
        if (rcvShut) {
            mask |= Poll.POLLIN | Poll.POLLRDNORM | Poll.POLLRDHUP;
        }
        int w = out.poll(false, true);
        mask |= w & (Poll.POLLOUT | Poll.POLLWRNORM);
        if (rcvShut && (w & Poll.POLLERR) != 0) {
            mask |= Poll.POLLHUP;
        }
        return mask;
    }

    private boolean connected() {
        return in != null || dout != null;
    }

    private boolean unix() {
        return domain == SocketFlags.AF_UNIX;
    }

    /** The error of a read of an unconnected socket that has no queue to wait on. */
    private Errno unconnectedReadError() {
        if (unix() && type == SocketFlags.SOCK_STREAM) {
            return Errno.EINVAL; // unix_stream_read_generic
        }
        return Errno.ENOTCONN; // unix_seqpacket_recvmsg, tcp_recvmsg
    }

    /** The error of a write of an unconnected socket. */
    private synchronized Errno unconnectedWriteError(int len) {
        if (!unix() && type == SocketFlags.SOCK_STREAM) {
            return Errno.EPIPE; // sk_stream_wait_connect
        }
        if (type == SocketFlags.SOCK_DGRAM) {
            if (unix()
                    ? len > DgramQueue.SNDBUF - 32
                    : domain == SocketFlags.AF_INET && len > UDP_MAX) {
                return Errno.EMSGSIZE; // udpv6_sendmsg looks for the destination first
            }
            if (!unix()) {
                return Errno.EDESTADDRREQ; // udp_sendmsg: no destination
            }
            if (shutWrite) {
                return Errno.EPIPE;
            }
        }
        return Errno.ENOTCONN;
    }

    @Override
    public int read(OpenFile f, byte[] dst, int off, int len, boolean nonblock) {
        if (len == 0) {
            return 0;
        }
        if (din != null) {
            return din.read(dst, off, len, nonblock);
        }
        synchronized (this) {
            if (shutRead && (in != null || !unix())) {
                // tcp_recvmsg returns 0 after RCV_SHUTDOWN even unconnected; Unix sockets keep
                // their error
                return in == null ? 0 : drainAfterShutRead(dst, off, len);
            }
        }
        if (!connected()) {
            throw new VfsException(unconnectedReadError(), Syscall.READ, null);
        }
        return orReset(in.read(dst, off, len, nonblock));
    }

    /**
     * A stream read that found no data and end of file reports the {@code sk_err} the peer's
     * release left ({@code ECONNRESET}: it closed with data unread), once, as {@code
     * unix_stream_read_generic} checks {@code sock_error} when its queue is empty, before it looks
     * at the shutdown.
     */
    private int orReset(int n) {
        if (n == 0) {
            Errno e = err.getAndSet(null);
            if (e != null) {
                throw new VfsException(e, Syscall.READ, null);
            }
        }
        return n;
    }

    @Override
    public int write(OpenFile f, byte[] src, int off, int len, boolean nonblock) {
        if (!connected()) {
            throw new VfsException(unconnectedWriteError(len), Syscall.WRITE, null);
        }
        if (dout != null) {
            return dout.write(src, off, len, nonblock);
        }
        synchronized (this) {
            if (shutWrite) {
                throw new VfsException(Errno.EPIPE, Syscall.WRITE, null);
            }
        }
        return out.write(src, off, len, nonblock);
    }

    /**
     * A stream read after {@code SHUT_RD}: what was received before is still read (as {@code
     * unix_stream_read_generic} takes queued data before it looks at the shutdown), then end of
     * file; never waits.
     */
    private int drainAfterShutRead(byte[] dst, int off, int len) {
        int n;
        try {
            n = in.read(dst, off, len, true);
        } catch (VfsException e) {
            if (e.errno() != Errno.EAGAIN) {
                throw e;
            }
            n = 0;
        }
        return orReset(n);
    }

    @Override
    public CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len) {
        try {
            if (len == 0) {
                return CompletableFuture.completedFuture(0);
            }
            if (din != null) {
                return din.readAsync(dst, off, len);
            }
            synchronized (this) {
                if (shutRead && (in != null || !unix())) {
                    return CompletableFuture.completedFuture(
                            in == null ? 0 : drainAfterShutRead(dst, off, len));
                }
            }
            if (!connected()) {
                throw new VfsException(unconnectedReadError(), Syscall.READ, null);
            }
            return in.readAsync(dst, off, len).thenApply(this::orReset);
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len) {
        try {
            if (!connected()) {
                throw new VfsException(unconnectedWriteError(len), Syscall.WRITE, null);
            }
            if (dout != null) {
                return dout.writeAsync(src, off, len);
            }
            synchronized (this) {
                if (shutWrite) {
                    throw new VfsException(Errno.EPIPE, Syscall.WRITE, null);
                }
            }
            return out.writeAsync(src, off, len);
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * {@code shutdown(2)}: {@link #SHUT_RD} makes reads return end of file once the data already
     * received is read (a {@code SOCK_DGRAM} socket: only reads that would wait), and the peer's
     * writes fail with {@code EPIPE}; {@link #SHUT_WR} makes this end's writes fail with {@code
     * EPIPE} and (stream and seqpacket) the peer read end of file. An unconnected Internet socket
     * records the shutdown and still fails ({@code inet_shutdown}).
     *
     * @param how {@link #SHUT_RD}, {@link #SHUT_WR} or {@link #SHUT_RDWR}
     * @throws VfsException {@code EINVAL} for an unknown {@code how}, {@code ENOTCONN} if an
     *     unconnected Internet socket (an unconnected Unix socket accepts it)
     */
    public void shutdown(int how) {
        if (how < SHUT_RD || how > SHUT_RDWR) {
            throw new VfsException(Errno.EINVAL, Syscall.SHUTDOWN, null);
        }
        boolean dropReader = false;
        boolean dropWriter = false;
        synchronized (this) {
            if (how != SHUT_WR && !shutRead) {
                shutRead = true;
                dropReader = true;
            }
            if (how != SHUT_RD && !shutWrite) {
                shutWrite = true;
                dropWriter = true;
            }
        }
        if (dropReader) {
            if (in != null) {
                in.releaseReader();
            } else if (din != null) {
                din.shutdownReceive();
            }
        }
        if (dropWriter) {
            if (out != null) {
                out.releaseWriter();
            } else if (dout != null) {
                dout.shutdownSend();
            }
        }
        if (!connected() && !unix()) {
            throw new VfsException(Errno.ENOTCONN, Syscall.SHUTDOWN, null);
        }
    }

    @Override
    public void release(OpenFile file) {
        if (in != null) {
            // unix_release_sock: a stream peer whose data we leave unread gets ECONNRESET
            // (sk_err, set before it can see our end of file), then end of file
            if (in.available() > 0) {
                peerErr.set(Errno.ECONNRESET);
            }
            shutdown(SHUT_RDWR);
        } else if (dout != null) {
            // unix_release_sock: drop what we did not read (ECONNRESET for a seqpacket peer
            // whose data was dropped), then the peer sees us gone
            din.releaseReceiver();
            dout.releaseSender();
        }
    }
}
