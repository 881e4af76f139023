package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.walk.WalkContext;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Poll;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What an open file does ({@code struct file_operations}): every read, write, seek, truncate, sync,
 * allocation and readiness question the call layer asks about a file goes through the operations of
 * its open file description ({@link OpenFile#ops()}), which come from its inode ({@link
 * Inode#fileOps()}, Linux's {@code i_fop}) or, for pipes, sockets and other anonymous files, from
 * whoever made the file. The call layer never tests an inode's class to decide what a call does.
 *
 * <h2>Shape of a call</h2>
 *
 * The call layer checks what is generic before it calls in: the descriptor, its access mode ({@code
 * EBADF}), the caller's buffer ({@code EFAULT}), {@code rw_verify_area}'s offset overflow ({@code
 * EINVAL}), and, for {@code pread}/{@code pwrite}, that the file is positional ({@link
 * #FMODE_PREAD}, else {@code ESPIPE}). For a positional file it holds the file-position lock (the
 * {@link OpenFile}'s monitor, {@code f_pos_lock}) around a {@code read} or {@code write} that uses
 * the file position, and moves the position by what the call returns. A read takes its position by
 * value (it moves the position by exactly its count); a write reports where it ended in its {@link
 * Kiocb}, because with {@code O_APPEND} it starts at the end of the file, which only the writer
 * knows ({@code ->write_iter} and {@code ki_pos}).
 *
 * <h2>Thread-safety</h2>
 *
 * Implementations are called by any number of threads at once and must be thread-safe. Only the
 * blocking forms ({@link #read}, {@link #write} and {@link #writev} without {@code nonblock}) may
 * wait, and only for the other side of a stream; the asynchronous forms never block a thread.
 * {@link #release} and {@link #poll} never block.
 *
 * <p>Every method has a default that is what Linux does for a file whose operations leave that
 * method out, so a type overrides what it supports. Source: {@code struct file_operations} in
 * {@code include/linux/fs.h}, {@code read(2)}, {@code write(2)}, {@code lseek(2)}, {@code
 * fsync(2)}, {@code fallocate(2)}, {@code poll(2)}.
 */
public interface FileOperations {
    /** {@code lseek} is meaningful: the file has a position ({@code FMODE_LSEEK}). */
    int FMODE_LSEEK = 1;

    /** {@code pread} is allowed ({@code FMODE_PREAD}); without it {@code ESPIPE}. */
    int FMODE_PREAD = 1 << 1;

    /** {@code pwrite} is allowed ({@code FMODE_PWRITE}); without it {@code ESPIPE}. */
    int FMODE_PWRITE = 1 << 2;

    /**
     * The file is a stream ({@code FMODE_STREAM}): it has no position, reads and writes ignore
     * {@code pos}, may wait for the other side, and have asynchronous forms.
     */
    int FMODE_STREAM = 1 << 3;

    /**
     * The file's operations can read ({@code FMODE_CAN_READ}): the call layer checks the caller's
     * buffer ({@code EFAULT}) before it calls {@link #read}. Without it {@link #read} is called at
     * once and refuses ({@code EINVAL}, or {@code EISDIR} for a directory) without touching the
     * buffer, as Linux's {@code vfs_read} and {@code generic_read_dir} do.
     */
    int FMODE_CAN_READ = 1 << 4;

    /** The file's operations can write ({@code FMODE_CAN_WRITE}); see {@link #FMODE_CAN_READ}. */
    int FMODE_CAN_WRITE = 1 << 5;

    /** The mode bits of a file with a position. */
    int FMODE_POSITIONAL = FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE;

    /**
     * The operations of a file that supports none of its own: reads and writes are {@code EINVAL},
     * {@code fsync} is {@code EINVAL} (no {@code ->fsync}), the position moves as {@code
     * generic_file_llseek} moves it. Symbolic links (opened with {@code O_PATH}) and device nodes
     * use them.
     */
    FileOperations NONE =
            new FileOperations() {
                @Override
                public void fsync(OpenFile f, boolean datasync) {
                    throw new VfsException(
                            Errno.EINVAL, datasync ? Syscall.FDATASYNC : Syscall.FSYNC, null);
                }
            };

    /**
     * {@return the {@code FMODE_*} bits: how the call layer treats this file's position and
     * buffers} Fixed for the life of the operations object. The default is a positional file that
     * can neither read nor write.
     */
    default int fmode() {
        return FMODE_POSITIONAL;
    }

    /**
     * {@code ->open}: called when an open by path reaches an inode with these operations, after
     * {@code may_open}'s checks passed. Returns the operations the new open file description uses:
     * {@code this} by default. An anonymous pipe reopened through {@code /proc/<pid>/fd/N} returns
     * a new end of the same pipe.
     *
     * @param inode the inode being opened
     * @param flags the {@code open(2)} flags
     * @return the operations of the new open file
     * @throws VfsException with the errno the open fails with ({@code ENXIO} for a socket); nothing
     *     is held then
     */
    default FileOperations open(Inode inode, int flags) {
        return this;
    }

    /**
     * Reads up to {@code len} bytes at byte offset {@code pos} into {@code dst[off..off+len)}. The
     * caller checked the buffer and the access mode.
     *
     * @param f the open file
     * @param dst the buffer the bytes are read into
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @param pos the byte offset to read at; ignored by streams
     * @param nonblock {@code O_NONBLOCK}: a stream with nothing to read fails with {@code EAGAIN}
     *     instead of waiting
     * @return the bytes read, 0 at end of file
     * @throws VfsException {@code EINVAL} by default (the file cannot be read), {@code EISDIR} for
     *     a directory, {@code EAGAIN}, {@code EINTR}
     */
    default int read(OpenFile f, byte[] dst, int off, int len, long pos, boolean nonblock) {
        throw new VfsException(
                f.inode().type() == FileType.DIRECTORY ? Errno.EISDIR : Errno.EINVAL,
                Syscall.READ,
                null);
    }

    /**
     * {@link #read(OpenFile, byte[], int, int, long, boolean)} into a {@link java.nio.ByteBuffer}
     * at absolute index {@code index} (its position and limit unused and unchanged). The default
     * reads into an array and copies it in; a type whose data can go straight into the buffer
     * overrides it (regular files: no array between their pages and a direct buffer).
     *
     * @param f the open file
     * @param dst the buffer the bytes are read into
     * @param index the index in the buffer of the first byte
     * @param len the number of bytes, at most {@code dst.capacity() - index}
     * @param pos the byte offset to read at; ignored by streams
     * @param nonblock as for the array form
     * @return the bytes read, 0 at end of file
     * @throws VfsException as the array form
     */
    default int read(
            OpenFile f, java.nio.ByteBuffer dst, int index, int len, long pos, boolean nonblock) {
        byte[] b = new byte[len];
        int n = read(f, b, 0, len, pos, nonblock);
        if (n > 0) {
            dst.put(index, b, 0, n);
        }
        return n;
    }

    /**
     * {@code readv(2)}: reads into the buffers in order as one read, at {@code pos}. The default
     * reads each buffer in turn and stops at the first short read; a type whose reads must see one
     * version of the file across buffers overrides it.
     *
     * @param f the open file
     * @param iov the buffers, in order
     * @param pos the byte offset to read at; ignored by streams
     * @param nonblock {@code O_NONBLOCK}: fail with {@code EAGAIN} instead of waiting
     * @return the bytes read in all
     */
    default long readv(OpenFile f, byte[][] iov, long pos, boolean nonblock) {
        long total = 0;
        for (byte[] b : iov) {
            int n = read(f, b, 0, b.length, pos + total, nonblock);
            total += n;
            if (n < b.length) {
                break;
            }
        }
        return total;
    }

    /**
     * Writes {@code src[off..off+len)} at {@code k.pos()} (at the end of the file with {@link
     * Kiocb#IOCB_APPEND}) and leaves {@code k.pos()} just after what it wrote. The default makes
     * the buffer a one-element vector for {@link #writev}.
     *
     * @param f the open file
     * @param src the buffer holding the bytes
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @param k the write's position, flags and writer
     * @return the bytes written (fewer than {@code len} when the file system filled, or at the
     *     largest file size)
     * @throws VfsException {@code EINVAL} by default, {@code EFBIG}, {@code ENOSPC} (nothing
     *     written), {@code EPIPE}, {@code EAGAIN}
     */
    default int write(OpenFile f, byte[] src, int off, int len, Kiocb k) {
        return (int) writev(f, new byte[][] {src}, new int[] {off}, new int[] {len}, k);
    }

    /**
     * {@code writev(2)}: writes the buffers {@code bufs[i][offs[i]..offs[i]+lens[i])} as one write
     * at {@code k.pos()} and leaves {@code k.pos()} after it. The caller checked the ranges.
     *
     * @param f the open file
     * @param bufs the buffers, in order
     * @param offs the index of the first byte in each buffer
     * @param lens the number of bytes of each buffer
     * @param k the write's position, flags and writer
     * @return the bytes written in all
     * @throws VfsException {@code EINVAL} by default (the file cannot be written), {@code EISDIR}
     *     for a directory
     */
    default long writev(OpenFile f, byte[][] bufs, int[] offs, int[] lens, Kiocb k) {
        throw new VfsException(
                f.inode().type() == FileType.DIRECTORY ? Errno.EISDIR : Errno.EINVAL,
                Syscall.WRITE,
                null);
    }

    /**
     * Reads without blocking a thread: a stream's future completes when data (or end of file)
     * arrives. Only streams ({@link #FMODE_STREAM}) have an asynchronous form: the call layer
     * completes a positional file's read at once on the calling thread, so the default fails with
     * {@code EINVAL}.
     *
     * @param f the open file
     * @param dst the buffer the bytes are read into
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @return a future of the bytes read, 0 at end of file
     */
    default CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len) {
        return CompletableFuture.failedFuture(new VfsException(Errno.EINVAL, Syscall.READ, null));
    }

    /**
     * Writes without blocking a thread; see {@link #readAsync}.
     *
     * @param f the open file
     * @param src the buffer holding the bytes
     * @param off the index in the buffer of the first byte
     * @param len the number of bytes
     * @return a future of the bytes written
     */
    default CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len) {
        return CompletableFuture.failedFuture(new VfsException(Errno.EINVAL, Syscall.WRITE, null));
    }

    /**
     * {@code ->llseek}: moves the file position of {@code f} and returns it. Called with {@code
     * whence} already known to be {@code SEEK_SET..SEEK_HOLE} (0..4), holding {@code f}'s monitor
     * (the position lock). The default is {@code generic_file_llseek} over the inode's size: {@code
     * SEEK_DATA} returns {@code offset}, {@code SEEK_HOLE} the size, both {@code ENXIO} at or past
     * the end.
     *
     * @param f the open file
     * @param offset the offset in bytes, relative to {@code whence}
     * @param whence {@code SEEK_SET}, {@code SEEK_CUR}, {@code SEEK_END}, {@code SEEK_DATA} or
     *     {@code SEEK_HOLE}
     * @return the new position in bytes
     * @throws VfsException {@code EINVAL} for a negative result, {@code ENXIO}, {@code ESPIPE} for
     *     streams
     */
    default long llseek(OpenFile f, long offset, int whence) {
        long size = f.inode().attrsAcquire().size();
        long pos;
        switch (whence) {
            case 0:
                pos = offset;
                break;
            case 1:
                pos = f.offset() + offset;
                break;
            case 2:
                pos = size + offset;
                break;
            default:
                if (offset < 0 || offset >= size) {
                    throw new VfsException(Errno.ENXIO, Syscall.LSEEK, null);
                }
                pos = whence == 3 ? offset : size;
                break;
        }
        if (pos < 0) {
            throw new VfsException(Errno.EINVAL, Syscall.LSEEK, null);
        }
        f.setOffset(pos);
        return pos;
    }

    /**
     * Changes the size of {@code inode} to {@code length} bytes ({@code truncate(2)}, {@code
     * ftruncate(2)}, {@code O_TRUNC}; Linux reaches it through {@code ->setattr} with {@code
     * ATTR_SIZE}). The caller checked permission and the read-only state.
     *
     * @param inode the inode
     * @param length the new size in bytes
     * @param cred who asks (an unprivileged writer clears set-user-ID)
     * @param op the call, for the error
     * @throws VfsException {@code EINVAL} by default (not a regular file), {@code EFBIG}, {@code
     *     ENOSPC}; the size is unchanged then
     */
    default void truncate(Inode inode, long length, Credentials cred, Syscall op) {
        throw new VfsException(Errno.EINVAL, op, null);
    }

    /**
     * {@code ->fsync}: makes what was written durable. The default succeeds at once: memory is the
     * medium of a volatile type, every published write is as durable as it gets.
     *
     * @param f the open file
     * @param datasync {@code fdatasync(2)}: only the data and what is needed to read it
     * @throws VfsException {@code EINVAL} for streams, {@code EIO} if the write-back failed
     */
    default void fsync(OpenFile f, boolean datasync) {}

    /**
     * {@code ->fallocate}: allocates ({@code mode} 0 or {@code FALLOC_FL_KEEP_SIZE}) or frees
     * ({@code FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE}) the byte range {@code [offset,
     * offset+len)}. The caller checked the arguments, the access mode and the file type ({@code
     * ESPIPE}, {@code EISDIR}, {@code ENODEV}).
     *
     * @param f the open file
     * @param mode 0, {@code FALLOC_FL_KEEP_SIZE}, or {@code FALLOC_FL_PUNCH_HOLE |
     *     FALLOC_FL_KEEP_SIZE}
     * @param offset the first byte of the range
     * @param len the number of bytes
     * @param cred who asks
     * @throws VfsException {@code EOPNOTSUPP} by default, {@code ENOSPC}, {@code EFBIG}
     */
    default void fallocate(OpenFile f, int mode, long offset, long len, Credentials cred) {
        throw new VfsException(Errno.EOPNOTSUPP, Syscall.FALLOCATE, null);
    }

    /**
     * {@code ->poll}: returns the file's readiness now, as {@link Poll} bits ({@code POLLIN},
     * {@code POLLOUT}, {@code POLLHUP}, {@code POLLERR}, ...). Never blocks. The default is {@code
     * DEFAULT_POLLMASK}: always readable and writable, as a regular file.
     *
     * @param f the open file
     * @return the {@code Poll} bits that hold now
     */
    default int poll(OpenFile f) {
        return Poll.DEFAULT_POLLMASK;
    }

    /**
     * {@code ->iterate_shared}: the directory entries of {@code f} after readdir cookie {@code
     * cookie}, at most {@code max}, in cookie order, {@code .} and {@code ..} first ({@code
     * dir_emit_dots}), names in external form. Returns entries of one snapshot of the directory.
     * The caller holds {@code f}'s position lock and moves the position to the last entry's cookie.
     *
     * @param f the open file
     * @param caller the task listing (computed directories such as {@code /proc} depend on it)
     * @param cookie the readdir cookie to list after
     * @param max the most entries to return
     * @return the entries; empty at the end
     * @throws VfsException {@code ENOTDIR} by default, {@code ENOENT} for a removed directory
     */
    default List<DirEntry> iterate(OpenFile f, WalkContext caller, long cookie, int max) {
        throw new VfsException(Errno.ENOTDIR, Syscall.GETDENTS, null);
    }

    /**
     * {@code ->release}: called once, when the last descriptor of the open file description is
     * closed, before the inode's open count drops. Never blocks.
     *
     * @param f the open file
     */
    default void release(OpenFile f) {}
}
