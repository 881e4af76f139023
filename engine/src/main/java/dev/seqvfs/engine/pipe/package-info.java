/**
 * Pipes ({@code pipe(7)}): the {@link dev.seqvfs.engine.pipe.Pipe} buffer with POSIX semantics for
 * blocking, non-blocking and asynchronous readers and writers, behind {@code pipe(2)} and behind
 * named FIFOs ({@link dev.seqvfs.engine.pipe.Fifo}, {@code fifo(7)}).
 */
package dev.seqvfs.engine.pipe;
