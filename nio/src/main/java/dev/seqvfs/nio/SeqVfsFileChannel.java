package dev.seqvfs.nio;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A {@link FileChannel} over one SeqVFS descriptor of the file system's task. Reads and writes are
 * the engine's {@code read}/{@code write}/{@code pread}/{@code pwrite} (lock-free for regular
 * files; a write of one buffer is atomic, POSIX 2.9.7); the position is the descriptor's offset;
 * {@code force} is {@code fsync}/{@code fdatasync}; locks are the engine's POSIX record locks
 * ({@code F_SETLKW}, {@code F_SETLK}), with the JDK's {@link
 * java.nio.channels.OverlappingFileLockException} for a range this file system already holds.
 *
 * <p>Thread-safe, as {@link FileChannel} requires: the engine serializes calls that use the
 * position (its {@code f_pos} lock). Not interruptible: an interrupt does not close the channel
 * (the engine's waits end with {@code EINTR} instead). {@link #map} is not supported. After the
 * file system closes, every call throws {@link java.nio.file.ClosedFileSystemException}.
 */
final class SeqVfsFileChannel extends FileChannel {
    private static final int CHUNK = 64 * 1024;

    private final SeqVfsFileSystem fs;
    private final VfsTask task;
    private final int fd;
    private final SeqVfsPath path;
    private final boolean readable;
    private final boolean writable;
    private final boolean deleteOnClose;

    /** Opened with {@code APPEND}: {@link #position()} is the file's size, as the JDK's. */
    private final boolean append;

    private volatile FileKey key;

    SeqVfsFileChannel(
            SeqVfsFileSystem fs,
            int fd,
            SeqVfsPath path,
            boolean readable,
            boolean writable,
            boolean deleteOnClose,
            boolean append) {
        this.fs = fs;
        this.task = fs.task();
        this.fd = fd;
        this.path = path;
        this.readable = readable;
        this.writable = writable;
        this.deleteOnClose = deleteOnClose;
        this.append = append;
    }

    /** The file's identity for the lock table, read once, at the first lock call. */
    private FileKey key() throws IOException {
        FileKey k = key;
        if (k == null) {
            k = FileKey.of(task, fd);
            key = k;
        }
        return k;
    }

    private void ensureOpen() throws IOException {
        fs.checkOpen();
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    private static byte[] scratch(ByteBuffer b, int len) {
        return b.hasArray() ? b.array() : new byte[len];
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        if (!readable) {
            throw new NonReadableChannelException();
        }
        int len = dst.remaining();
        if (len == 0) {
            return 0;
        }
        try {
            int n;
            if (dst.hasArray()) {
                n = task.read(fd, dst.array(), dst.arrayOffset() + dst.position(), len);
                dst.position(dst.position() + n);
            } else {
                byte[] b = new byte[Math.min(len, CHUNK)];
                n = task.read(fd, b, 0, b.length);
                dst.put(b, 0, n);
            }
            return n == 0 ? -1 : n;
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            if (!dsts[i].hasRemaining()) {
                continue;
            }
            int want = dsts[i].remaining();
            int n = read(dsts[i]);
            if (n < 0) {
                return total == 0 ? -1 : total;
            }
            total += n;
            if (n < want) {
                break;
            }
        }
        return total;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        int len = src.remaining();
        try {
            int n;
            if (src.hasArray()) {
                n = task.write(fd, src.array(), src.arrayOffset() + src.position(), len);
                src.position(src.position() + n);
            } else {
                byte[] b = new byte[len];
                src.duplicate().get(b);
                n = task.write(fd, b, 0, len);
                src.position(src.position() + n);
            }
            return n;
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            int want = srcs[i].remaining();
            int n = write(srcs[i]);
            total += n;
            if (n < want) {
                break;
            }
        }
        return total;
    }

    @Override
    public long position() throws IOException {
        ensureOpen();
        try {
            // FileChannelImpl: "in append mode the position is ... the end of the file"
            return append ? task.fstat(fd).size() : task.lseek(fd, 0, VfsTask.SEEK_CUR);
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        if (newPosition < 0) {
            throw new IllegalArgumentException();
        }
        ensureOpen();
        try {
            task.lseek(fd, newPosition, VfsTask.SEEK_SET);
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
        return this;
    }

    @Override
    public long size() throws IOException {
        ensureOpen();
        try {
            return task.fstat(fd).size();
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        try {
            long p = position();
            if (size < size()) {
                task.ftruncate(fd, size);
            }
            if (p > size) {
                position(size);
            }
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        ensureOpen();
        try {
            if (metaData) {
                task.fsync(fd);
            } else {
                task.fdatasync(fd);
            }
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
            throws IOException {
        if (position < 0 || count < 0) {
            throw new IllegalArgumentException();
        }
        ensureOpen();
        if (!readable) {
            throw new NonReadableChannelException();
        }
        long done = 0;
        byte[] b = new byte[(int) Math.min(CHUNK, Math.max(1, count))];
        try {
            while (done < count) {
                int want = (int) Math.min(b.length, count - done);
                int n = task.pread(fd, b, 0, want, position + done);
                if (n <= 0) {
                    break;
                }
                ByteBuffer bb = ByteBuffer.wrap(b, 0, n);
                while (bb.hasRemaining()) {
                    if (target.write(bb) == 0 && bb.hasRemaining()) {
                        return done + bb.position();
                    }
                }
                done += n;
            }
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
        return done;
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
            throws IOException {
        if (position < 0 || count < 0) {
            throw new IllegalArgumentException();
        }
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        if (position > size()) {
            return 0;
        }
        long done = 0;
        ByteBuffer bb = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(1, count)));
        try {
            while (done < count) {
                bb.clear();
                bb.limit((int) Math.min(bb.capacity(), count - done));
                int n = src.read(bb);
                if (n <= 0) {
                    break;
                }
                int off = 0;
                while (off < n) {
                    off += task.pwrite(fd, bb.array(), off, n - off, position + done + off);
                }
                done += n;
            }
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
        return done;
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        ensureOpen();
        if (!readable) {
            throw new NonReadableChannelException();
        }
        int len = dst.remaining();
        if (len == 0) {
            return 0;
        }
        try {
            if (dst.isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer"); // as IOUtil.read
            }
            if (!dst.hasArray()) {
                // a direct buffer: straight from the file's pages, no array between
                int n = task.pread(fd, dst, position);
                return n == 0 ? -1 : n;
            }
            byte[] b = scratch(dst, len);
            int off = dst.arrayOffset() + dst.position();
            int n = task.pread(fd, b, off, len, position);
            dst.position(dst.position() + n);
            return n == 0 ? -1 : n;
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        int len = src.remaining();
        try {
            byte[] b;
            int off;
            if (src.hasArray()) {
                b = src.array();
                off = src.arrayOffset() + src.position();
            } else {
                b = new byte[len];
                src.duplicate().get(b);
                off = 0;
            }
            int n = task.pwrite(fd, b, off, len, position);
            src.position(src.position() + n);
            return n;
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
    }

    /**
     * Not supported: SeqVFS's pages are not mappable memory.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) {
        throw new UnsupportedOperationException("map is not supported by SeqVFS");
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return lock(position, size, shared, true);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return lock(position, size, shared, false);
    }

    /** The JDK's checks of a lock's range, with its messages ({@code FileChannelImpl}). */
    static void checkRange(long position, long size) {
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        if (position + size < 0) {
            throw new IllegalArgumentException("Negative position + size");
        }
    }

    private FileLock lock(long position, long size, boolean shared, boolean wait)
            throws IOException {
        checkRange(position, size);
        ensureOpen();
        if (shared && !readable) {
            throw new NonReadableChannelException();
        }
        if (!shared && !writable) {
            throw new NonWritableChannelException();
        }
        SeqVfsFileLock lock = new SeqVfsFileLock(this, position, size, shared);
        FileKey key = key();
        fs.locks().add(key, lock);
        boolean granted = false;
        try {
            task.fcntlLock(
                    fd,
                    wait ? Fcntl.F_SETLKW : Fcntl.F_SETLK,
                    new Flock(
                            shared ? Flock.F_RDLCK : Flock.F_WRLCK,
                            0,
                            position,
                            size == Long.MAX_VALUE ? 0 : size,
                            0));
            granted = true;
            return lock;
        } catch (VfsException e) {
            if (!wait && (e.errno() == Errno.EAGAIN || e.errno() == Errno.EACCES)) {
                return null;
            }
            throw Errors.forIo(e);
        } finally {
            if (!granted) {
                fs.locks().remove(key, lock);
            }
        }
    }

    void unlock(SeqVfsFileLock lock) throws IOException {
        ensureOpen();
        try {
            task.fcntlLock(
                    fd,
                    Fcntl.F_SETLK,
                    new Flock(
                            Flock.F_UNLCK,
                            0,
                            lock.position(),
                            lock.size() == Long.MAX_VALUE ? 0 : lock.size(),
                            0));
        } catch (VfsException e) {
            throw Errors.forIo(e);
        } finally {
            fs.locks().remove(key(), lock);
        }
    }

    @Override
    protected void implCloseChannel() throws IOException {
        FileKey k = key;
        if (k != null) {
            for (FileLock l : fs.locks().removeAll(k, this)) {
                ((SeqVfsFileLock) l).invalidate();
            }
        }
        fs.closedOne(this);
        try {
            task.close(fd);
            if (deleteOnClose) {
                try {
                    task.unlink(path.filename());
                } catch (VfsException e) {
                    // the JDK ignores a failed delete-on-close too
                }
            }
        } catch (VfsException e) {
            if (e.errno() != Errno.EIO) {
                throw Errors.forIo(e);
            }
        }
    }
}
