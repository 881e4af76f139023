/**
 * How waits end when their instance closes: {@link dev.seqvfs.engine.wait.Shutdown}, one per
 * instance, is the instance's closed state and the registry of what waits (threads parked in a
 * pipe, a socket, an eventfd, a FIFO open, a lock or {@code poll}; async futures not yet complete),
 * so that {@code SeqVfs.close()} can wake them all and each fails with {@code EIO}.
 *
 * <p>Rule for every wait in the engine: register before parking (refused once shut down), re-check
 * {@link dev.seqvfs.engine.wait.Shutdown#isShutDown()} every time it wakes, before it looks at the
 * state it waits on, and unregister when it leaves.
 */
package dev.seqvfs.engine.wait;
