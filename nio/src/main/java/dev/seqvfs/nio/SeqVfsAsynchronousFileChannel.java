package dev.seqvfs.nio;

import dev.seqvfs.engine.AsyncVfsTask;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;

/**
 * An {@link AsynchronousFileChannel} on the engine's async calls ({@link AsyncVfsTask}): {@code
 * read} and {@code write} are {@code pread}/{@code pwrite} futures (no thread per call: a regular
 * file's I/O completes on the calling thread), {@code lock} is an async {@code F_SETLKW} (the
 * engine parks it on its pool for calls that can only park, {@code seqvfs-parked}), {@code tryLock}
 * is {@code F_SETLK}. A completion handler runs on the given executor, or, without one, on the
 * thread that completes the call (the caller's, for file I/O): it must not block. Failures are
 * {@link IOException}s with the JDK's reason string. Locks follow {@link SeqVfsFileChannel}'s rules
 * ({@link java.nio.channels.OverlappingFileLockException} within one file system). Thread-safe.
 */
final class SeqVfsAsynchronousFileChannel extends AsynchronousFileChannel {
    private final SeqVfsFileSystem fs;
    private final VfsTask task;
    private final AsyncVfsTask async;
    private final int fd;
    private final boolean readable;
    private final boolean writable;
    private final ExecutorService executor;
    private volatile boolean open = true;

    SeqVfsAsynchronousFileChannel(
            SeqVfsFileSystem fs, int fd, boolean readable, boolean writable, ExecutorService ex) {
        this.fs = fs;
        this.task = fs.task();
        this.async = task.async();
        this.fd = fd;
        this.readable = readable;
        this.writable = writable;
        this.executor = ex;
    }

    private void ensureOpen() throws ClosedChannelException {
        fs.checkOpen();
        if (!open) {
            throw new ClosedChannelException();
        }
    }

    private static Throwable unwrap(Throwable t) {
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (c instanceof VfsException v) {
            return Errors.forIo(v);
        }
        return c;
    }

    private static <V> CompletableFuture<V> translated(CompletableFuture<V> f) {
        CompletableFuture<V> out = new CompletableFuture<>();
        f.whenComplete(
                (v, e) -> {
                    if (e != null) {
                        out.completeExceptionally(unwrap(e));
                    } else {
                        out.complete(v);
                    }
                });
        return out;
    }

    private <V, A> void handle(
            CompletableFuture<V> f, A attachment, CompletionHandler<V, ? super A> handler) {
        BiConsumer<V, Throwable> done =
                (v, e) -> {
                    if (e != null) {
                        handler.failed(unwrap(e), attachment);
                    } else {
                        handler.completed(v, attachment);
                    }
                };
        if (executor != null) {
            f.whenCompleteAsync(done, executor);
        } else {
            f.whenComplete(done);
        }
    }

    private CompletableFuture<Integer> doRead(ByteBuffer dst, long position) {
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        try {
            ensureOpen();
        } catch (ClosedChannelException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!readable) {
            throw new NonReadableChannelException();
        }
        int len = dst.remaining();
        if (len == 0) {
            return CompletableFuture.completedFuture(0);
        }
        byte[] b = new byte[len];
        return async.pread(fd, b, 0, len, position)
                .thenApply(
                        n -> {
                            dst.put(b, 0, n);
                            return n == 0 ? -1 : n;
                        });
    }

    private CompletableFuture<Integer> doWrite(ByteBuffer src, long position) {
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        try {
            ensureOpen();
        } catch (ClosedChannelException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!writable) {
            throw new NonWritableChannelException();
        }
        byte[] b = new byte[src.remaining()];
        src.duplicate().get(b);
        return async.pwrite(fd, b, 0, b.length, position)
                .thenApply(
                        n -> {
                            src.position(src.position() + n);
                            return n;
                        });
    }

    private CompletableFuture<FileLock> doLock(long position, long size, boolean shared) {
        SeqVfsFileChannel.checkRange(position, size);
        FileKey k;
        try {
            ensureOpen();
            k = key();
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (shared && !readable) {
            throw new NonReadableChannelException();
        }
        if (!shared && !writable) {
            throw new NonWritableChannelException();
        }
        FileLock lock = new Lock(this, position, size, shared);
        // in the table while it waits too, as the JDK's: an overlapping request throws at once
        fs.locks().add(k, lock);
        CompletableFuture<?> granted;
        try {
            granted = async.fcntlLock(fd, Fcntl.F_SETLKW, flock(lock, shared));
        } catch (RuntimeException e) {
            fs.locks().remove(k, lock);
            throw e;
        }
        return granted.handle(
                (x, failure) -> {
                    if (failure != null) {
                        fs.locks().remove(k, lock);
                        throw failure instanceof java.util.concurrent.CompletionException c
                                ? c
                                : new java.util.concurrent.CompletionException(failure);
                    }
                    return lock;
                });
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

    private volatile FileKey key;

    private static Flock flock(FileLock l, boolean shared) {
        return new Flock(
                shared ? Flock.F_RDLCK : Flock.F_WRLCK,
                0,
                l.position(),
                l.size() == Long.MAX_VALUE ? 0 : l.size(),
                0);
    }

    @Override
    public Future<Integer> read(ByteBuffer dst, long position) {
        return translated(doRead(dst, position));
    }

    @Override
    public <A> void read(
            ByteBuffer dst,
            long position,
            A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handle(doRead(dst, position), attachment, handler);
    }

    @Override
    public Future<Integer> write(ByteBuffer src, long position) {
        return translated(doWrite(src, position));
    }

    @Override
    public <A> void write(
            ByteBuffer src,
            long position,
            A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handle(doWrite(src, position), attachment, handler);
    }

    @Override
    public Future<FileLock> lock(long position, long size, boolean shared) {
        return translated(doLock(position, size, shared));
    }

    @Override
    public <A> void lock(
            long position,
            long size,
            boolean shared,
            A attachment,
            CompletionHandler<FileLock, ? super A> handler) {
        handle(doLock(position, size, shared), attachment, handler);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        SeqVfsFileChannel.checkRange(position, size);
        ensureOpen();
        if (shared && !readable) {
            throw new NonReadableChannelException();
        }
        if (!shared && !writable) {
            throw new NonWritableChannelException();
        }
        FileLock lock = new Lock(this, position, size, shared);
        FileKey k = key();
        fs.locks().add(k, lock);
        boolean granted = false;
        try {
            task.fcntlLock(fd, Fcntl.F_SETLK, flock(lock, shared));
            granted = true;
            return lock;
        } catch (VfsException e) {
            if (e.errno() == Errno.EAGAIN || e.errno() == Errno.EACCES) {
                return null;
            }
            throw Errors.forIo(e);
        } finally {
            if (!granted) {
                fs.locks().remove(k, lock);
            }
        }
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
    public AsynchronousFileChannel truncate(long size) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        try {
            if (size < task.fstat(fd).size()) {
                task.ftruncate(fd, size);
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
            task.fsync(fd);
        } catch (VfsException e) {
            throw Errors.forIo(e);
        }
    }

    @Override
    public boolean isOpen() {
        return open && fs.isOpen();
    }

    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (!open) {
                return;
            }
            open = false;
        }
        FileKey k = key;
        if (k != null) {
            for (FileLock l : fs.locks().removeAll(k, this)) {
                ((Lock) l).valid = false;
            }
        }
        fs.closedOne(this);
        try {
            task.close(fd);
        } catch (VfsException e) {
            if (e.errno() != Errno.EIO) {
                throw Errors.forIo(e);
            }
        }
    }

    private static final class Lock extends FileLock {
        private volatile boolean valid = true;

        Lock(SeqVfsAsynchronousFileChannel ch, long position, long size, boolean shared) {
            super(ch, position, size, shared);
        }

        @Override
        public boolean isValid() {
            return valid && acquiredBy().isOpen();
        }

        @Override
        public void release() throws IOException {
            SeqVfsAsynchronousFileChannel ch = (SeqVfsAsynchronousFileChannel) acquiredBy();
            ch.ensureOpen();
            if (valid) {
                valid = false;
                FileKey k = ch.key;
                if (k != null) {
                    ch.fs.locks().remove(k, this);
                }
                try {
                    ch.task.fcntlLock(
                            ch.fd,
                            Fcntl.F_SETLK,
                            new Flock(
                                    Flock.F_UNLCK,
                                    0,
                                    position(),
                                    size() == Long.MAX_VALUE ? 0 : size(),
                                    0));
                } catch (VfsException e) {
                    throw Errors.forIo(e);
                }
            }
        }
    }
}
