package dev.seqvfs.engine.pipe;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.StreamFileOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * The file operations of one end of a pipe: the read end reads, the write end writes, and releasing
 * an end drops the pipe's reader or writer count (end of file or {@code EPIPE} for the other side);
 * an end of a named FIFO also drops its hold on the FIFO inode's pipe, so the last close detaches
 * it ({@link SpecialInode#releasePipe()}). A write through a file with {@code O_DIRECT} is in
 * packet mode ({@link Pipe}). Immutable; thread-safe.
 */
public final class PipeEnd implements StreamFileOperations {
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
     * An end that may read, write or both: a FIFO opened {@code O_RDWR} (through {@code
     * /proc/<pid>/fd/N}) counts as a reader and a writer of the pipe.
     *
     * @param pipe the pipe
     * @param reads whether the end reads
     * @param writes whether the end writes
     */
    public PipeEnd(Pipe pipe, boolean reads, boolean writes) {
        this(pipe, reads, writes, null);
    }

    /**
     * An end of a named FIFO's pipe, opened by {@link Fifo}: it holds one reference to the pipe
     * attached to {@code fifo} ({@link SpecialInode#acquirePipe}), dropped at release.
     *
     * @param pipe the FIFO's pipe
     * @param reads whether the end reads
     * @param writes whether the end writes
     * @param fifo the FIFO's inode
     */
    public PipeEnd(Pipe pipe, boolean reads, boolean writes, SpecialInode fifo) {
        this.pipe = pipe;
        this.reads = reads;
        this.writes = writes;
        this.fifo = fifo;
    }

    /** {@return the pipe behind this end} */
    public Pipe pipe() {
        return pipe;
    }

    /**
     * {@code get_pipe_info}: the pipe behind {@code f} if it is an end of a pipe or FIFO ({@code
     * F_GETPIPE_SZ}, {@code F_SETPIPE_SZ}), else {@code null}.
     *
     * @param f the open file
     * @return the pipe, or {@code null}
     */
    public static Pipe pipeOf(OpenFile f) {
        return f.ops() instanceof PipeEnd e ? e.pipe : null;
    }

    /**
     * The operations of an anonymous pipe's inode ({@code pipefifo_fops}'s open): an open of the
     * pipe through {@code /proc/<pid>/fd/N} makes a new end of the same pipe, reading, writing or
     * both as the access mode says ({@code fifo_open}: {@code O_RDWR} is a reader and a writer, and
     * never waits); access mode 3 is {@code EINVAL}.
     *
     * @param pipe the pipe
     * @return the inode's file operations
     */
    public static FileOperations reopener(Pipe pipe) {
        return new FileOperations() {
            @Override
            public FileOperations open(Inode inode, int flags) {
                int acc = flags & OpenFlags.O_ACCMODE;
                if (acc == OpenFlags.O_ACCMODE) {
                    throw new VfsException(Errno.EINVAL, Syscall.OPEN, null);
                }
                boolean reads = acc != OpenFlags.O_WRONLY;
                boolean writes = acc != OpenFlags.O_RDONLY;
                if (reads) {
                    pipe.addReader();
                }
                if (writes) {
                    pipe.addWriter();
                }
                return new PipeEnd(pipe, reads, writes);
            }
        };
    }

    @Override
    public int poll(OpenFile f) {
        return pipe.poll(reads, writes);
    }

    @Override
    public int read(OpenFile f, byte[] dst, int off, int len, boolean nonblock) {
        if (!reads) {
            throw new VfsException(Errno.EBADF, Syscall.READ, null);
        }
        return accessed(f, pipe.read(dst, off, len, nonblock));
    }

    @Override
    public int write(OpenFile f, byte[] src, int off, int len, boolean nonblock) {
        if (!writes) {
            throw new VfsException(Errno.EBADF, Syscall.WRITE, null);
        }
        return modified(pipe.write(src, off, len, nonblock, packetMode(f)));
    }

    @Override
    public CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len) {
        if (!reads) {
            return CompletableFuture.failedFuture(
                    new VfsException(Errno.EBADF, Syscall.READ, null));
        }
        return fifo == null
                ? pipe.readAsync(dst, off, len)
                : pipe.readAsync(dst, off, len).thenApply(n -> accessed(f, n));
    }

    /**
     * {@code pipe_read}'s {@code file_accessed}: a read that read bytes from a named FIFO sets its
     * atime under {@code relatime} (not through {@code O_NOATIME}); an anonymous pipe keeps its
     * times (host, Linux 6.18: {@code fstat} of both ends of a {@code pipe(2)} after a write and a
     * read shows the creation times). Returns {@code n}.
     */
    private int accessed(OpenFile f, int n) {
        if (n > 0 && fifo != null) {
            f.fileAccessed(fifo);
        }
        return n;
    }

    /**
     * {@code pipe_write}'s {@code file_update_time}: a write that wrote bytes sets a named FIFO's
     * mtime and ctime, and marks it dirty ({@link
     * dev.seqvfs.engine.fs.SuperOperations#dirtyInode}).
     */
    private int modified(int n) {
        if (n > 0 && fifo != null) {
            fifo.touchMtimeCtime(fifo.owner().now());
            // mark_inode_dirty: a durable type writes the FIFO's new times back
            if (fifo.owner() instanceof dev.seqvfs.engine.sb.Superblock sb) {
                sb.sop().dirtyInode(sb, fifo);
            }
        }
        return n;
    }

    @Override
    public CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len) {
        if (!writes) {
            return CompletableFuture.failedFuture(
                    new VfsException(Errno.EBADF, Syscall.WRITE, null));
        }
        CompletableFuture<Integer> w = pipe.writeAsync(src, off, len, packetMode(f));
        return fifo == null ? w : w.thenApply(this::modified);
    }

    /**
     * Whether writes through {@code f} make packets: its status flags hold {@code O_DIRECT} ({@code
     * is_packetized}).
     */
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
