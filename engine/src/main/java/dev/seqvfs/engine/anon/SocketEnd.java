package dev.seqvfs.engine.anon;

import dev.seqvfs.actors.fdtable.OpenFile;
import dev.seqvfs.engine.pipe.Pipe;
import dev.seqvfs.engine.pipe.StreamOps;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * One end of a socket ({@code socket(7)}, {@code unix(7)}): the file operations of a
 * sockfs file. A socket made by {@code socket(2)} is unconnected (reads and writes fail
 * as Linux's do: {@code ENOTCONN}, but {@code EINVAL} for reading a Unix stream and
 * {@code EPIPE} for writing a TCP one); each end of a {@code socketpair(2)} reads from one {@link Pipe}
 * and writes to another, so data flows both ways with stream semantics.
 * {@code shutdown(2)} closes one or both directions once; closing the last descriptor
 * does the rest.
 *
 * <h2>Concurrency</h2>
 * {@code shutRead}/{@code shutWrite} go from false to true once, under this object's
 * monitor; the pipes do their own locking.
 */
public final class SocketEnd implements StreamOps {
    /** {@code shutdown(2)}: no more receptions. */
    public static final int SHUT_RD = 0;
    /** {@code shutdown(2)}: no more transmissions. */
    public static final int SHUT_WR = 1;
    /** {@code shutdown(2)}: both. */
    public static final int SHUT_RDWR = 2;

    private final int domain;
    private final int type;
    private final Pipe in;
    private final Pipe out;
    private boolean shutRead;
    private boolean shutWrite;

    /** An unconnected socket. */
    public SocketEnd(int domain, int type) {
        this(domain, type, null, null);
    }

    /** A connected end reading {@code in} and writing {@code out}. */
    public SocketEnd(int domain, int type, Pipe in, Pipe out) {
        this.domain = domain;
        this.type = type;
        this.in = in;
        this.out = out;
    }

    /** Returns the address family ({@code AF_UNIX}, {@code AF_INET}, ...). */
    public int domain() {
        return domain;
    }

    /** Returns the socket type ({@code SOCK_STREAM}, {@code SOCK_DGRAM}). */
    public int type() {
        return type;
    }

    private boolean connected() {
        return in != null;
    }

    private boolean unixStream() {
        return domain == SocketFlags.AF_UNIX && (type == SocketFlags.SOCK_STREAM || type == SocketFlags.SOCK_SEQPACKET);
    }

    /** A read of an unconnected socket: {@code EINVAL} for a Unix stream ({@code unix_stream_read_generic}), else {@code ENOTCONN}. */
    private Errno unconnectedReadError() {
        return unixStream() ? Errno.EINVAL : Errno.ENOTCONN;
    }

    /** A write of an unconnected socket: {@code EPIPE} for a TCP stream ({@code sk_stream_wait_connect}), else {@code ENOTCONN}. */
    private Errno unconnectedWriteError() {
        return domain != SocketFlags.AF_UNIX && type == SocketFlags.SOCK_STREAM ? Errno.EPIPE : Errno.ENOTCONN;
    }

    @Override
    public int read(OpenFile f, byte[] dst, int off, int len, boolean nonblock) {
        if (!connected()) {
            throw new VfsException(unconnectedReadError(), "read", null);
        }
        synchronized (this) {
            if (shutRead) {
                return drainAfterShutRead(dst, off, len);
            }
        }
        return in.read(dst, off, len, nonblock);
    }

    @Override
    public int write(OpenFile f, byte[] src, int off, int len, boolean nonblock) {
        if (!connected()) {
            throw new VfsException(unconnectedWriteError(), "write", null);
        }
        synchronized (this) {
            if (shutWrite) {
                throw new VfsException(Errno.EPIPE, "write", null);
            }
        }
        return out.write(src, off, len, nonblock);
    }

    /**
     * A read after {@code SHUT_RD}: what was received before is still read (as
     * {@code unix_stream_read_generic} takes queued data before it looks at the shutdown),
     * then end of file; never waits.
     */
    private int drainAfterShutRead(byte[] dst, int off, int len) {
        try {
            return in.read(dst, off, len, true);
        } catch (VfsException e) {
            if (e.errno() == Errno.EAGAIN) {
                return 0;
            }
            throw e;
        }
    }

    @Override
    public CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len) {
        try {
            if (!connected()) {
                throw new VfsException(unconnectedReadError(), "read", null);
            }
            synchronized (this) {
                if (shutRead) {
                    return CompletableFuture.completedFuture(drainAfterShutRead(dst, off, len));
                }
            }
            return in.readAsync(dst, off, len);
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len) {
        try {
            if (!connected()) {
                throw new VfsException(unconnectedWriteError(), "write", null);
            }
            synchronized (this) {
                if (shutWrite) {
                    throw new VfsException(Errno.EPIPE, "write", null);
                }
            }
            return out.writeAsync(src, off, len);
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * {@code shutdown(2)}: {@link #SHUT_RD} makes reads return end of file once the data
     * already received is read, and the peer's
     * writes fail with {@code EPIPE}; {@link #SHUT_WR} makes the peer read end of file and
     * this end's writes fail with {@code EPIPE}.
     *
     * @throws VfsException {@code EINVAL} for an unknown {@code how}, {@code ENOTCONN} if an
     *         unconnected Internet socket (an unconnected Unix socket accepts it)
     */
    public void shutdown(int how) {
        if (how < SHUT_RD || how > SHUT_RDWR) {
            throw new VfsException(Errno.EINVAL, "shutdown", null);
        }
        if (!connected()) {
            if (domain == SocketFlags.AF_UNIX) {
                // unix_shutdown only records the shutdown: no peer, nothing else to do
                return;
            }
            throw new VfsException(Errno.ENOTCONN, "shutdown", null);
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
            in.releaseReader();
        }
        if (dropWriter) {
            out.releaseWriter();
        }
    }

    @Override
    public void release(OpenFile file) {
        if (connected()) {
            shutdown(SHUT_RDWR);
        }
    }
}
