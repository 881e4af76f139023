package dev.seqvfs.engine.inode;

import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.pipe.Pipe;
import java.util.function.Supplier;

/**
 * A FIFO, socket or device node made by {@code mknod(2)}: an inode with no content of its own in
 * the file system.
 *
 * <h2>Concurrency: the FIFO's pipe ({@code i_pipe})</h2>
 *
 * A FIFO gets a pipe buffer when it is first opened, shared by every opener and dropped when the
 * last one closes (Linux {@code fifo_open} and {@code put_pipe_info}, which guard {@code
 * inode->i_pipe} with {@code inode->i_lock}). Here {@code pipe} and {@code pipeOpeners} are guarded
 * by this inode's monitor, held only for those two fields: never while waiting, never around
 * another lock.
 *
 * <h2>States (of the pipe)</h2>
 *
 * none ({@code pipe == null}, no opener) → attached (first {@link #acquirePipe}) → none again (last
 * {@link #releasePipe}); data left in a dropped pipe is discarded, as Linux.
 */
public final class SpecialInode extends Inode {
    /** The pipe while the FIFO is open; guarded by this. */
    private Pipe pipe;

    /** Open file descriptions (and opens in progress) holding {@code pipe}; guarded by this. */
    private int pipeOpeners;

    /**
     * Creates a special file; the type comes from the mode bits of {@code attrs}.
     *
     * @param ino the inode number
     * @param owner the superblock, as its accounting interface
     * @param ops the inode operations ({@code i_op})
     * @param fileOps the operations of files opened on it ({@code i_fop})
     * @param attrs the initial attributes
     */
    public SpecialInode(
            long ino,
            InodeOwner owner,
            InodeOperations ops,
            FileOperations fileOps,
            InodeAttrs attrs) {
        super(ino, owner, ops, fileOps, attrs);
    }

    /**
     * {@return the FIFO's pipe, attaching a new one made by {@code factory} if there is none, and
     * counts one more holder} Every call must be paired with one {@link #releasePipe()}.
     * Thread-safe; holds this inode's monitor for the two fields only ({@code factory} must not
     * block).
     *
     * @param factory makes the pipe when none is attached
     */
    public synchronized Pipe acquirePipe(Supplier<Pipe> factory) {
        if (pipe == null) {
            pipe = factory.get();
        }
        pipeOpeners++;
        return pipe;
    }

    /**
     * Drops one holder of the pipe; the last one detaches it (its buffered bytes are lost).
     *
     * @return {@code true} if the pipe was detached
     * @throws IllegalStateException without a matching {@link #acquirePipe}
     */
    public synchronized boolean releasePipe() {
        if (pipeOpeners <= 0) {
            throw new IllegalStateException("releasePipe without acquirePipe on " + this);
        }
        if (--pipeOpeners == 0) {
            pipe = null;
            return true;
        }
        return false;
    }

    /**
     * {@return the attached pipe, or {@code null} when nobody has the FIFO open (for tests and
     * {@code Fsck})}
     */
    public synchronized Pipe pipeIfAny() {
        return pipe;
    }
}
