package dev.seqvfs.engine.pipe;

import dev.seqvfs.engine.fdtable.FileOps;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * File operations of a stream (a pipe end, a socket): reads and writes that may wait for
 * the other side, in a blocking form for plain threads and an asynchronous form that
 * never blocks a thread. Seeking is {@code ESPIPE} unless {@link #llseek} says otherwise.
 */
public interface StreamOps extends FileOps {
    /** Reads up to {@code len} bytes; 0 at end of stream. */
    int read(OpenFile f, byte[] dst, int off, int len, boolean nonblock);

    /** Writes; see {@link Pipe#write}. */
    int write(OpenFile f, byte[] src, int off, int len, boolean nonblock);

    /** Reads without blocking a thread. */
    CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len);

    /** Writes without blocking a thread. */
    CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len);

    /**
     * {@code ->llseek}: called by {@code lseek(2)} once {@code whence} is known valid
     * ({@code 0..SEEK_HOLE}). The default is {@code no_llseek}, as pipes and sockets have.
     *
     * @return the new file position
     * @throws VfsException {@code ESPIPE} by default
     */
    default long llseek(OpenFile f, long offset, int whence) {
        throw new VfsException(Errno.ESPIPE, "lseek", null);
    }

    /** Returns the pipe behind this file for {@code F_GETPIPE_SZ}/{@code F_SETPIPE_SZ}, or {@code null}. */
    default Pipe pipe() {
        return null;
    }
}
