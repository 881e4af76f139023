/**
 * Pipes ({@code pipe(7)}): the {@link dev.seqvfs.engine.pipe.Pipe} buffer with POSIX
 * semantics for blocking, non-blocking and asynchronous readers and writers.
 */
package dev.seqvfs.engine.pipe;
