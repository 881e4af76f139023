package dev.seqvfs.engine.pipe;

import dev.seqvfs.actors.fdtable.FileOps;
import dev.seqvfs.actors.fdtable.OpenFile;
import java.util.concurrent.CompletableFuture;

/**
 * File operations of a stream (a pipe end, a socket): reads and writes that may wait for
 * the other side, in a blocking form for plain threads and an asynchronous form that
 * never blocks a thread. Seeking is {@code ESPIPE}.
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

    /** Returns the pipe behind this file for {@code F_GETPIPE_SZ}/{@code F_SETPIPE_SZ}, or {@code null}. */
    default Pipe pipe() {
        return null;
    }
}
