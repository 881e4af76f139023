package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * The file operations of a stream ({@link #FMODE_STREAM}: a pipe end, a socket, an eventfd): no
 * position, reads and writes that may wait for the other side, in a blocking form for plain threads
 * and an asynchronous form that never blocks a thread. A stream implements the four position-free
 * methods; this interface maps the positional ones of {@link FileOperations} onto them. Seeking is
 * {@code ESPIPE} and {@code fsync} is {@code EINVAL} unless an implementation says otherwise
 * (Linux's {@code no_llseek} and a missing {@code ->fsync}).
 *
 * <p>Implementations must be thread-safe (see {@link FileOperations}).
 */
public interface StreamFileOperations extends FileOperations {
    /**
     * Reads up to {@code len} bytes, waiting for data unless {@code nonblock}.
     *
     * @param f the open file
     * @param dst the buffer the bytes are read into
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @param nonblock {@code O_NONBLOCK}: fail with {@code EAGAIN} instead of waiting
     * @return the bytes read; 0 at end of stream
     * @throws VfsException {@code EAGAIN} (nothing to read, {@code nonblock}), {@code EINTR}
     */
    int read(OpenFile f, byte[] dst, int off, int len, boolean nonblock);

    /**
     * Writes {@code len} bytes, waiting for room unless {@code nonblock}.
     *
     * @param f the open file
     * @param src the buffer holding the bytes
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @param nonblock {@code O_NONBLOCK}: fail with {@code EAGAIN} instead of waiting
     * @return the bytes written
     * @throws VfsException {@code EPIPE} (no reader), {@code EAGAIN}, {@code EINTR}
     */
    int write(OpenFile f, byte[] src, int off, int len, boolean nonblock);

    /** Reads without blocking a thread: the future completes when data or end of stream arrives. */
    @Override
    CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len);

    /** Writes without blocking a thread: the future completes when the bytes were taken. */
    @Override
    CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len);

    @Override
    default int fmode() {
        return FMODE_STREAM | FMODE_CAN_READ | FMODE_CAN_WRITE;
    }

    @Override
    default int read(OpenFile f, byte[] dst, int off, int len, long pos, boolean nonblock) {
        return read(f, dst, off, len, nonblock);
    }

    /** One read into a buffer the size of them all, scattered over the buffers in order. */
    @Override
    default long readv(OpenFile f, byte[][] iov, long pos, boolean nonblock) {
        long total = 0;
        for (byte[] b : iov) {
            total += b.length;
        }
        if (total > Integer.MAX_VALUE) {
            throw new VfsException(Errno.EINVAL, Syscall.READV, null);
        }
        byte[] all = new byte[(int) total];
        int n = read(f, all, 0, all.length, nonblock);
        int done = 0;
        for (int i = 0; i < iov.length && done < n; i++) {
            int k = Math.min(iov[i].length, n - done);
            System.arraycopy(all, done, iov[i], 0, k);
            done += k;
        }
        return n;
    }

    @Override
    default int write(OpenFile f, byte[] src, int off, int len, Kiocb k) {
        return write(f, src, off, len, k.nowait());
    }

    /**
     * The buffers gathered into one write (atomic up to {@code PIPE_BUF}, as {@code writev} on a
     * pipe).
     */
    @Override
    default long writev(OpenFile f, byte[][] bufs, int[] offs, int[] lens, Kiocb k) {
        long total = 0;
        for (int l : lens) {
            total += l;
        }
        if (total > Integer.MAX_VALUE) {
            throw new VfsException(Errno.EINVAL, Syscall.WRITEV, null);
        }
        byte[] all = new byte[(int) total];
        int at = 0;
        for (int i = 0; i < bufs.length; i++) {
            System.arraycopy(bufs[i], offs[i], all, at, lens[i]);
            at += lens[i];
        }
        return write(f, all, 0, all.length, k.nowait());
    }

    /** {@code no_llseek}: streams have no position. */
    @Override
    default long llseek(OpenFile f, long offset, int whence) {
        throw new VfsException(Errno.ESPIPE, Syscall.LSEEK, null);
    }

    /** A stream has nothing to sync ({@code EINVAL}, as for a file without {@code ->fsync}). */
    @Override
    default void fsync(OpenFile f, boolean datasync) {
        throw new VfsException(Errno.EINVAL, datasync ? Syscall.FDATASYNC : Syscall.FSYNC, null);
    }
}
