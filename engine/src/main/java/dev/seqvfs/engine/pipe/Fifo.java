package dev.seqvfs.engine.pipe;

import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * Opening a named FIFO ({@code fifo(7)}, {@code open(2)}, {@code fifo_open} in {@code fs/pipe.c}):
 * the FIFO inode gets a {@link Pipe} on its first open (Linux {@code inode->i_pipe}), shared by
 * every opener and detached by the last close, which discards what is left in it. A read-only open
 * waits for a writer unless {@code O_NONBLOCK}; a write-only open waits for a reader, or fails with
 * {@code ENXIO} under {@code O_NONBLOCK}; {@code O_RDWR} never waits; access mode 3 is {@code
 * EINVAL}. Reads see end of file while no writer is open, writes fail with {@code EPIPE} while no
 * reader is; seeking and positional I/O are {@code ESPIPE} (a {@link
 * dev.seqvfs.engine.fs.StreamFileOperations}).
 *
 * <p>Thread-safe; stateless. The blocking form parks the calling thread (never call it on an actor
 * thread); the asynchronous form never blocks one.
 */
public final class Fifo {
    private Fifo() {}

    /**
     * Opens {@code fifo}, waiting on the calling thread for the other side when {@code open(2)}
     * says so.
     *
     * @param fifo the FIFO's inode
     * @param flags the {@code open(2)} flags (access mode, {@code O_NONBLOCK})
     * @param shutdown the instance's closed state (a pipe made here waits under it)
     * @return the file operations of the new open file description
     * @throws VfsException {@code EINVAL} (access mode 3), {@code ENXIO} ({@code
     *     O_WRONLY|O_NONBLOCK} without a reader), {@code EINTR} (interrupted while waiting), {@code
     *     EIO} (the instance closed while it waited); nothing is held afterwards
     */
    public static PipeEnd open(SpecialInode fifo, int flags, Shutdown shutdown) {
        int acc = accessMode(flags);
        boolean reads = acc != OpenFlags.O_WRONLY;
        boolean writes = acc != OpenFlags.O_RDONLY;
        Pipe pipe = fifo.acquirePipe(() -> Pipe.forFifo(shutdown));
        try {
            pipe.openFifo(reads, writes, (flags & OpenFlags.O_NONBLOCK) != 0);
        } catch (RuntimeException e) {
            fifo.releasePipe();
            throw e;
        }
        return new PipeEnd(pipe, reads, writes, fifo);
    }

    /**
     * The asynchronous twin of {@link #open}: the future completes when the other side opens (at
     * once if it need not wait). Completing the returned future exceptionally (cancelling it)
     * withdraws a waiting open.
     *
     * @param fifo the FIFO's inode
     * @param flags the {@code open(2)} flags (access mode, {@code O_NONBLOCK})
     * @param shutdown the instance's closed state (a pipe made here waits under it)
     * @return the file operations, or a future failed as {@link #open} says
     */
    @SuppressWarnings(
            "FutureReturnValueIgnored") // whenComplete registers callbacks; their stages are not
    // needed
    public static CompletableFuture<PipeEnd> openAsync(
            SpecialInode fifo, int flags, Shutdown shutdown) {
        int acc;
        try {
            acc = accessMode(flags);
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
        boolean reads = acc != OpenFlags.O_WRONLY;
        boolean writes = acc != OpenFlags.O_RDONLY;
        Pipe pipe = fifo.acquirePipe(() -> Pipe.forFifo(shutdown));
        CompletableFuture<Void> wait =
                pipe.openFifoAsync(reads, writes, (flags & OpenFlags.O_NONBLOCK) != 0);
        CompletableFuture<PipeEnd> out = new CompletableFuture<>();
        wait.whenComplete(
                (v, e) -> {
                    if (e != null) {
                        fifo.releasePipe();
                        out.completeExceptionally(e);
                    } else {
                        PipeEnd end = new PipeEnd(pipe, reads, writes, fifo);
                        if (!out.complete(end)) {
                            end.release(
                                    null); // cancelled just as the partner came: give the end back
                        }
                    }
                });
        out.whenComplete(
                (v, e) -> {
                    if (e != null) {
                        wait.cancel(false);
                    }
                });
        return out;
    }

    private static int accessMode(int flags) {
        int acc = flags & OpenFlags.O_ACCMODE;
        if (acc == OpenFlags.O_ACCMODE) {
            throw new VfsException(Errno.EINVAL, Syscall.OPEN, null);
        }
        return acc;
    }
}
