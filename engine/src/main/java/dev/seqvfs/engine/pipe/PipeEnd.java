package dev.seqvfs.engine.pipe;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * The file operations of one end of a pipe: the read end reads, the write end writes,
 * and releasing an end drops the pipe's reader or writer count (end of file or
 * {@code EPIPE} for the other side); an end of a named FIFO also drops its hold on the
 * FIFO inode's pipe, so the last close detaches it ({@link SpecialInode#releasePipe()}).
 * A write through a file with {@code O_DIRECT} is in packet mode ({@link Pipe}).
 * Immutable; thread-safe.
 */
public final class PipeEnd implements StreamOps {
    private static final int O_DIRECT = 040000;
    private final Pipe pipe;
    private final boolean reads;
    private final boolean writes;
    private final SpecialInode fifo;

    /**
     * @param pipe the pipe
     * @param readEnd {@code true} for the read end, {@code false} for the write end
     */
    public PipeEnd(Pipe pipe, boolean readEnd) {
        this(pipe, readEnd, !readEnd);
    }

    /**
     * An end that may read, write or both: a FIFO opened {@code O_RDWR} (through
     * {@code /proc/<pid>/fd/N}) counts as a reader and a writer of the pipe.
     */
    public PipeEnd(Pipe pipe, boolean reads, boolean writes) {
        this(pipe, reads, writes, null);
    }

    /**
     * An end of a named FIFO's pipe, opened by {@link Fifo}: it holds one reference to the
     * pipe attached to {@code fifo} ({@link SpecialInode#acquirePipe}), dropped at release.
     */
    public PipeEnd(Pipe pipe, boolean reads, boolean writes, SpecialInode fifo) {
        this.pipe = pipe;
        this.reads = reads;
        this.writes = writes;
        this.fifo = fifo;
    }

    @Override
    public Pipe pipe() {
        return pipe;
    }

    @Override
    public int read(OpenFile f, byte[] dst, int off, int len, boolean nonblock) {
        if (!reads) {
            throw new VfsException(Errno.EBADF, "read", null);
        }
        return pipe.read(dst, off, len, nonblock);
    }

    @Override
    public int write(OpenFile f, byte[] src, int off, int len, boolean nonblock) {
        if (!writes) {
            throw new VfsException(Errno.EBADF, "write", null);
        }
        return pipe.write(src, off, len, nonblock, packetMode(f));
    }

    @Override
    public CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len) {
        if (!reads) {
            return CompletableFuture.failedFuture(new VfsException(Errno.EBADF, "read", null));
        }
        return pipe.readAsync(dst, off, len);
    }

    @Override
    public CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len) {
        if (!writes) {
            return CompletableFuture.failedFuture(new VfsException(Errno.EBADF, "write", null));
        }
        return pipe.writeAsync(src, off, len, packetMode(f));
    }

    /** Whether writes through {@code f} make packets: its status flags hold {@code O_DIRECT} ({@code is_packetized}). */
    private static boolean packetMode(OpenFile f) {
        return f != null && (f.statusFlagsAcquire() & O_DIRECT) != 0;
    }

    @Override
    public void release(OpenFile file) {
        if (reads) {
            pipe.releaseReader();
        }
        if (writes) {
            pipe.releaseWriter();
        }
        if (fifo != null) {
            fifo.releasePipe();
        }
    }
}
