package dev.seqvfs.engine;

import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.Kiocb;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.notify.Fsnotify;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Falloc;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Poll;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * File I/O: {@code read}, {@code pread}, {@code readv}, {@code write}, {@code pwrite}, {@code
 * writev}, {@code truncate}, {@code ftruncate}, {@code fsync}, {@code fallocate}. Every call
 * reaches its file through the open file description's {@link FileOperations} ({@code f_op}); this
 * class does only what {@code fs/read_write.c} and {@code fs/open.c} do before they call in: the
 * descriptor and its access mode ({@code EBADF}), the buffers ({@code EFAULT}), {@code
 * rw_verify_area} ({@code EINVAL}), whether the file is positional ({@code ESPIPE}), and the file
 * position.
 *
 * <p>The position of an open file description is guarded by its monitor (the {@code f_pos} lock),
 * held around a read or write that uses it; streams ({@link FileOperations#FMODE_STREAM}) have no
 * position and take no lock. Lock order: the {@code OpenFile} monitor before whatever the file's
 * operations take (a regular file's write lock). Neither is held across a message.
 */
final class IoCalls {
    /**
     * Most buffers one {@code readv}/{@code writev} takes ({@code IOV_MAX}, {@code UIO_MAXIOV}).
     */
    private static final int IOV_MAX = 1024;

    private static final byte[] NO_BYTES = new byte[0];

    /**
     * {@code fallocate} modes tmpfs knows of ({@code FALLOC_FL_SUPPORTED_MASK}): others are {@code
     * EOPNOTSUPP}.
     */
    private static final int FALLOC_SUPPORTED =
            Falloc.FALLOC_FL_KEEP_SIZE
                    | Falloc.FALLOC_FL_PUNCH_HOLE
                    | 0x08 /* COLLAPSE_RANGE */
                    | 0x10 /* ZERO_RANGE */
                    | 0x20 /* INSERT_RANGE */
                    | 0x40 /* UNSHARE_RANGE */;

    private final TaskContext t;

    IoCalls(TaskContext t) {
        this.t = t;
    }

    /**
     * Checks a caller's buffer range and returns the buffer to use: a null buffer with nothing to
     * transfer is an empty one, as {@code read(fd, NULL, 0)} returns 0 on Linux ({@code access_ok}
     * of zero bytes); otherwise {@code EFAULT} for a null buffer or a range outside it.
     */
    private static byte[] buffer(byte[] buf, int off, int len, Syscall op) {
        if (buf == null && off == 0 && len == 0) {
            return NO_BYTES;
        }
        checkRange(buf, off, len, op);
        return buf;
    }

    private static void checkRange(byte[] buf, int off, int len, Syscall op) {
        if (buf == null) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
        if (off < 0 || len < 0 || off > buf.length - len) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
    }

    /**
     * {@code import_iovec}: a null vector is {@code EFAULT}, more than {@code IOV_MAX} buffers
     * {@code EINVAL}, a null buffer {@code EFAULT}.
     */
    private static void checkIov(byte[][] iov, Syscall op) {
        if (iov.length > IOV_MAX) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
        for (byte[] b : iov) {
            checkRange(b, 0, b == null ? 0 : b.length, op);
        }
    }

    /**
     * {@code vfs_read}/{@code vfs_write}: the caller's buffer is checked only for a file that can
     * transfer bytes; one that cannot refuses without looking at it.
     */
    private static byte[] buffer(
            OpenFile f, int canMode, byte[] buf, int off, int len, Syscall op) {
        return (f.ops().fmode() & canMode) != 0 ? buffer(buf, off, len, op) : buf;
    }

    /**
     * {@return {@code ENOMEM} for a stream write whose buffer could not be allocated} A pipe's
     * buffer, a datagram's copy and a gathered {@code writev} are allocated before anything is
     * queued, so the pipe or socket is as it was; regular files convert their own (they charge
     * before they allocate).
     */
    private static VfsException outOfMemory(Syscall op) {
        return new VfsException(Errno.ENOMEM, op, null);
    }

    private static boolean stream(OpenFile f) {
        return (f.ops().fmode() & FileOperations.FMODE_STREAM) != 0;
    }

    private static boolean nonblock(OpenFile f) {
        return (f.statusFlagsAcquire() & OpenFlags.O_NONBLOCK) != 0;
    }

    private static OpenFile readable(OpenFile f, Syscall op) {
        if (f.isPath() || !f.readable()) {
            throw new VfsException(Errno.EBADF, op, null);
        }
        return f;
    }

    private static OpenFile writable(OpenFile f, Syscall op) {
        if (f.isPath() || !f.writable()) {
            throw new VfsException(Errno.EBADF, op, null);
        }
        return f;
    }

    /**
     * {@code pread}/{@code pwrite} need a positional file ({@code FMODE_PREAD}/{@code
     * FMODE_PWRITE}), else {@code ESPIPE}.
     */
    private static void positional(OpenFile f, int fmode, Syscall op) {
        if ((f.ops().fmode() & fmode) == 0) {
            throw new VfsException(Errno.ESPIPE, op, null);
        }
    }

    /**
     * The {@link Kiocb} flags of a write through {@code f}: {@code O_APPEND}, {@code O_NONBLOCK}.
     */
    private static int iocbFlags(OpenFile f) {
        int s = f.statusFlagsAcquire();
        return ((s & OpenFlags.O_APPEND) != 0 ? Kiocb.IOCB_APPEND : 0)
                | ((s & OpenFlags.O_NONBLOCK) != 0 ? Kiocb.IOCB_NOWAIT : 0);
    }

    int read(int fd, byte[] buf, int off, int len) {
        OpenFile f = t.fdget(fd, Syscall.READ);
        try {
            return accessed(f, read(f, buf, off, len));
        } finally {
            TaskContext.fdput(f);
        }
    }

    private int read(OpenFile f, byte[] buf, int off, int len) {
        // vfs_read checks the descriptor and its mode before the buffer (EBADF before EFAULT).
        readable(f, Syscall.READ);
        buf = buffer(f, FileOperations.FMODE_CAN_READ, buf, off, len, Syscall.READ);
        FileOperations ops = f.ops();
        if (stream(f)) {
            return ops.read(f, buf, off, len, 0, nonblock(f));
        }
        synchronized (f) {
            long pos = f.offset();
            if (pos + len < 0) {
                throw new VfsException(Errno.EINVAL, Syscall.READ, null);
            }
            int n = ops.read(f, buf, off, len, pos, nonblock(f));
            f.setOffset(pos + n);
            return n;
        }
    }

    int pread(int fd, byte[] buf, int off, int len, long pos) {
        if (pos < 0) {
            throw new VfsException(Errno.EINVAL, Syscall.PREAD, null);
        }
        OpenFile f = t.fdget(fd, Syscall.PREAD);
        try {
            positional(f, FileOperations.FMODE_PREAD, Syscall.PREAD);
            readable(f, Syscall.PREAD);
            buf = buffer(f, FileOperations.FMODE_CAN_READ, buf, off, len, Syscall.PREAD);
            if (pos + len < 0) {
                // rw_verify_area: the end of the read overflows the offset type
                throw new VfsException(Errno.EINVAL, Syscall.PREAD, null);
            }
            return accessed(f, f.ops().read(f, buf, off, len, pos, nonblock(f)));
        } finally {
            TaskContext.fdput(f);
        }
    }

    /**
     * {@link #pread(int, byte[], int, int, long)} into {@code dst} from its position up to its
     * limit, which it advances by the bytes read.
     */
    int pread(int fd, java.nio.ByteBuffer dst, long pos) {
        if (pos < 0) {
            throw new VfsException(Errno.EINVAL, Syscall.PREAD, null);
        }
        if (dst == null) {
            throw new VfsException(Errno.EFAULT, Syscall.PREAD, null);
        }
        OpenFile f = t.fdget(fd, Syscall.PREAD);
        try {
            positional(f, FileOperations.FMODE_PREAD, Syscall.PREAD);
            readable(f, Syscall.PREAD);
            if (dst.isReadOnly()) {
                throw new VfsException(Errno.EFAULT, Syscall.PREAD, null);
            }
            int len = dst.remaining();
            if (pos + len < 0) {
                throw new VfsException(Errno.EINVAL, Syscall.PREAD, null);
            }
            int n = f.ops().read(f, dst, dst.position(), len, pos, nonblock(f));
            if (n > 0) {
                dst.position(dst.position() + n);
            }
            return accessed(f, n);
        } finally {
            TaskContext.fdput(f);
        }
    }

    /** {@code fsnotify_access} after a read that returned bytes; returns {@code n}. */
    private static int accessed(OpenFile f, int n) {
        if (n > 0) {
            Fsnotify.file(f, Inotify.IN_ACCESS);
        }
        return n;
    }

    /** {@code fsnotify_modify} after a write that wrote bytes; returns {@code n}. */
    private static int modified(OpenFile f, int n) {
        if (n > 0) {
            Fsnotify.file(f, Inotify.IN_MODIFY);
        }
        return n;
    }

    long readv(int fd, byte[][] iov) {
        if (iov == null) {
            throw new VfsException(Errno.EFAULT, Syscall.READV, null);
        }
        OpenFile f = t.fdget(fd, Syscall.READV);
        try {
            readable(f, Syscall.READV);
            checkIov(iov, Syscall.READV);
            FileOperations ops = f.ops();
            if (stream(f)) {
                return ops.readv(f, iov, 0, nonblock(f));
            }
            synchronized (f) {
                long pos = f.offset();
                long n = ops.readv(f, iov, pos, nonblock(f));
                f.setOffset(pos + n);
                return n;
            }
        } finally {
            TaskContext.fdput(f);
        }
    }

    int write(int fd, byte[] buf, int off, int len) {
        OpenFile f = t.fdget(fd, Syscall.WRITE);
        try {
            return modified(f, write(f, buf, off, len));
        } finally {
            TaskContext.fdput(f);
        }
    }

    private int write(OpenFile f, byte[] buf, int off, int len) {
        writable(f, Syscall.WRITE);
        buf = buffer(f, FileOperations.FMODE_CAN_WRITE, buf, off, len, Syscall.WRITE);
        FileOperations ops = f.ops();
        if (stream(f)) {
            try {
                return ops.write(f, buf, off, len, new Kiocb(t.cred(), 0, iocbFlags(f)));
            } catch (OutOfMemoryError e) {
                throw outOfMemory(Syscall.WRITE);
            }
        }
        synchronized (f) {
            Kiocb k = new Kiocb(t.cred(), f.offset(), iocbFlags(f));
            int n = ops.write(f, buf, off, len, k);
            f.setOffset(k.pos());
            return n;
        }
    }

    int pwrite(int fd, byte[] buf, int off, int len, long pos) {
        if (pos < 0) {
            throw new VfsException(Errno.EINVAL, Syscall.PWRITE, null);
        }
        OpenFile f = t.fdget(fd, Syscall.PWRITE);
        try {
            positional(f, FileOperations.FMODE_PWRITE, Syscall.PWRITE);
            writable(f, Syscall.PWRITE);
            buf = buffer(f, FileOperations.FMODE_CAN_WRITE, buf, off, len, Syscall.PWRITE);
            return modified(
                    f, f.ops().write(f, buf, off, len, new Kiocb(t.cred(), pos, iocbFlags(f))));
        } finally {
            TaskContext.fdput(f);
        }
    }

    long writev(int fd, byte[][] iov) {
        if (iov == null) {
            throw new VfsException(Errno.EFAULT, Syscall.WRITEV, null);
        }
        OpenFile f = t.fdget(fd, Syscall.WRITEV);
        try {
            writable(f, Syscall.WRITEV);
            checkIov(iov, Syscall.WRITEV);
            int[] offs = new int[iov.length];
            int[] lens = new int[iov.length];
            for (int i = 0; i < iov.length; i++) {
                lens[i] = iov[i].length;
            }
            FileOperations ops = f.ops();
            if (stream(f)) {
                try {
                    return ops.writev(f, iov, offs, lens, new Kiocb(t.cred(), 0, iocbFlags(f)));
                } catch (OutOfMemoryError e) {
                    throw outOfMemory(Syscall.WRITEV);
                }
            }
            synchronized (f) {
                Kiocb k = new Kiocb(t.cred(), f.offset(), iocbFlags(f));
                long n = ops.writev(f, iov, offs, lens, k);
                f.setOffset(k.pos());
                modified(f, n > 0 ? 1 : 0);
                return n;
            }
        } finally {
            TaskContext.fdput(f);
        }
    }

    /**
     * Reads without blocking a thread: streams (pipes, sockets) complete when data arrives;
     * positional files complete at once, on the calling thread.
     */
    CompletableFuture<Integer> readAsync(int fd, byte[] buf, int off, int len) {
        buf = buffer(buf, off, len, Syscall.READ);
        OpenFile f = t.fdget(fd, Syscall.READ);
        CompletableFuture<Integer> out;
        try {
            if (!stream(f)) {
                out = CompletableFuture.completedFuture(accessed(f, read(f, buf, off, len)));
            } else {
                readable(f, Syscall.READ);
                out =
                        nonblock(f)
                                ? CompletableFuture.completedFuture(
                                        f.ops().read(f, buf, off, len, 0, true))
                                : f.ops().readAsync(f, buf, off, len);
            }
        } catch (RuntimeException | Error e) {
            TaskContext.fdput(f);
            throw e;
        }
        return TaskContext.fdputWhenDone(f, out);
    }

    /** Writes without blocking a thread; see {@link #readAsync}. */
    CompletableFuture<Integer> writeAsync(int fd, byte[] buf, int off, int len) {
        buf = buffer(buf, off, len, Syscall.WRITE);
        OpenFile f = t.fdget(fd, Syscall.WRITE);
        CompletableFuture<Integer> out;
        try {
            if (!stream(f)) {
                out = CompletableFuture.completedFuture(modified(f, write(f, buf, off, len)));
            } else {
                writable(f, Syscall.WRITE);
                out =
                        nonblock(f)
                                ? CompletableFuture.completedFuture(
                                        f.ops()
                                                .write(
                                                        f,
                                                        buf,
                                                        off,
                                                        len,
                                                        new Kiocb(t.cred(), 0, Kiocb.IOCB_NOWAIT)))
                                : f.ops().writeAsync(f, buf, off, len);
            }
        } catch (RuntimeException | Error e) {
            TaskContext.fdput(f);
            throw e;
        }
        return TaskContext.fdputWhenDone(f, out);
    }

    void ftruncate(int fd, long len) {
        if (len < 0) {
            throw new VfsException(Errno.EINVAL, Syscall.FTRUNCATE, null);
        }
        OpenFile f = t.fdget(fd, Syscall.FTRUNCATE);
        try {
            if (f.isPath()) {
                throw new VfsException(Errno.EBADF, Syscall.FTRUNCATE, null);
            }
            // do_sys_ftruncate: a file not open for writing, or not a regular file, is EINVAL.
            if (!f.writable() || f.inode().type() != FileType.REGULAR) {
                throw new VfsException(Errno.EINVAL, Syscall.FTRUNCATE, null);
            }
            f.ops().truncate(f.inode(), len, t.cred(), Syscall.FTRUNCATE);
            // notify_change(ATTR_SIZE | ATTR_MTIME | ATTR_CTIME): fsnotify_change's FS_MODIFY
            Fsnotify.file(f, Inotify.IN_MODIFY);
        } finally {
            TaskContext.fdput(f);
        }
    }

    void truncate(Filename path, long len) {
        if (len < 0) {
            throw new VfsException(Errno.EINVAL, Syscall.TRUNCATE, path);
        }
        AttrCalls.Found found =
                t.attrs().resolveForChange(VfsTask.AT_FDCWD, path, Syscall.TRUNCATE, 0);
        VfsPath p = found.path();
        Inode i = p.inode();
        if (i.type() == FileType.DIRECTORY) {
            throw new VfsException(Errno.EISDIR, Syscall.TRUNCATE, path);
        }
        if (i.type() != FileType.REGULAR) {
            throw new VfsException(Errno.EINVAL, Syscall.TRUNCATE, path);
        }
        // vfs_truncate: mnt_want_write, held across the permission check and the truncate, so
        // a read-only remount is EBUSY meanwhile and one that came first makes this EROFS.
        Superblock sb = p.mnt().superblock();
        if (p.mnt().mountReadOnly() || !sb.tryBeginWrite()) {
            throw new VfsException(Errno.EROFS, Syscall.TRUNCATE, path);
        }
        try {
            if (!Permission.check(i, Mode.W_OK, t.cred())) {
                throw new VfsException(Errno.EACCES, Syscall.TRUNCATE, path);
            }
            i.fileOps().truncate(i, len, t.cred(), Syscall.TRUNCATE);
            // do_truncate's notify_change(ATTR_SIZE | ATTR_MTIME | ATTR_CTIME): fsnotify_change
            // reports FS_MODIFY, to the directory it was found in and to the file
            Fsnotify.child(found.parent(), found.name(), i, Inotify.IN_MODIFY);
        } catch (VfsException e) {
            throw e.withContext(Syscall.TRUNCATE, path, null);
        } finally {
            sb.endWrite();
        }
    }

    void fsync(int fd, boolean datasync) {
        Syscall op = datasync ? Syscall.FDATASYNC : Syscall.FSYNC;
        OpenFile f = t.fdget(fd, op);
        try {
            if (f.isPath()) {
                throw new VfsException(Errno.EBADF, op, null);
            }
            f.ops().fsync(f, datasync);
        } finally {
            TaskContext.fdput(f);
        }
    }

    /**
     * {@code syncfs(2)}: makes everything written to the file system {@code fd} is on durable
     * ({@code sync_fs} of its superblock; a memory type has nothing to write back).
     */
    void syncfs(int fd) {
        OpenFile f = t.fdget(fd, Syscall.SYNCFS);
        try {
            VfsMount m = f.mount();
            if (m != null) {
                Superblock sb = m.superblock();
                sb.sop().sync(sb);
            }
        } finally {
            TaskContext.fdput(f);
        }
    }

    /** {@code sync(2)}: {@code sync_fs} of every superblock of the instance. */
    void sync() {
        t.alive(Syscall.SYNC);
        for (Superblock sb : t.vfs().superblocksForSync()) {
            sb.sop().sync(sb);
        }
    }

    /** Returns whether {@code fd} is open on a stream (a pipe, FIFO, socket or eventfd). */
    boolean isStream(int fd) {
        return stream(t.fget(fd, Syscall.READ));
    }

    /**
     * {@code poll(2)} over the descriptors' {@code ->poll}: the events that hold now, masked by
     * what was asked (plus {@code POLLERR}, {@code POLLHUP}, {@code POLLNVAL}), waiting up to
     * {@code timeoutMillis} by re-checking with a growing pause (files do not yet wake pollers).
     * While it pauses it is a waiter of the instance's {@link Shutdown} (the close unparks it); it
     * fails with {@code EIO} once the instance is shut down, when it wakes and before it answers
     * (the close's releases make descriptors look hung up or closed); an interrupt is {@code
     * EINTR}, the thread's interrupt status left set (an interrupt already pending fails a poll
     * that has to wait at once, one that finds an event at once returns it).
     */
    int[] poll(int[] fds, int[] events, long timeoutMillis) {
        if (fds == null || events == null) {
            throw new VfsException(Errno.EFAULT, Syscall.POLL, null);
        }
        if (fds.length != events.length) {
            throw new VfsException(Errno.EINVAL, Syscall.POLL, null);
        }
        t.alive(Syscall.POLL);
        long deadline =
                timeoutMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
        long pause = 20_000;
        Shutdown shutdown = t.vfs().shutdown();
        Thread self = Thread.currentThread();
        Shutdown.Waiter unpark = () -> LockSupport.unpark(self);
        boolean entered = false;
        try {
            while (true) {
                int[] revents = new int[fds.length];
                boolean any = false;
                for (int i = 0; i < fds.length; i++) {
                    if (fds[i] < 0) {
                        continue;
                    }
                    FdTable.Entry e = t.files().tableAcquire().get(fds[i]);
                    int r;
                    if (e == null) {
                        r = Poll.POLLNVAL;
                    } else {
                        OpenFile f = e.file();
                        r =
                                f.isPath()
                                        ? Poll.POLLNVAL
                                        : f.ops().poll(f)
                                                & (events[i]
                                                        | Poll.POLLERR
                                                        | Poll.POLLHUP
                                                        | Poll.POLLNVAL);
                    }
                    revents[i] = r;
                    any |= r != 0;
                }
                long now = System.nanoTime();
                if (any || now >= deadline) {
                    if (shutdown.isShutDown()) {
                        throw Shutdown.error(Syscall.POLL);
                    }
                    return revents;
                }
                if (!entered) {
                    if (!shutdown.enter(unpark)) {
                        throw Shutdown.error(Syscall.POLL);
                    }
                    entered = true;
                }
                LockSupport.parkNanos(Math.min(pause, deadline - now));
                if (shutdown.isShutDown()) {
                    throw Shutdown.error(Syscall.POLL);
                }
                if (Thread.currentThread().isInterrupted()) {
                    // the interrupt status stays set (VfsTask: interrupts)
                    throw new VfsException(Errno.EINTR, Syscall.POLL, null);
                }
                pause = Math.min(pause * 2, 1_000_000);
            }
        } finally {
            if (entered) {
                shutdown.leave(unpark);
            }
        }
    }

    /** {@code fallocate(2)}, with {@code vfs_fallocate}'s checks in its order. */
    void fallocate(int fd, int mode, long offset, long len) {
        OpenFile f = t.fdget(fd, Syscall.FALLOCATE);
        try {
            fallocate(f, mode, offset, len);
        } finally {
            TaskContext.fdput(f);
        }
    }

    private void fallocate(OpenFile f, int mode, long offset, long len) {
        if (f.isPath()) {
            throw new VfsException(Errno.EBADF, Syscall.FALLOCATE, null);
        }
        if (offset < 0 || len <= 0) {
            throw new VfsException(Errno.EINVAL, Syscall.FALLOCATE, null);
        }
        if ((mode & ~FALLOC_SUPPORTED) != 0
                || ((mode & Falloc.FALLOC_FL_PUNCH_HOLE) != 0
                        && (mode & Falloc.FALLOC_FL_KEEP_SIZE) == 0)) {
            throw new VfsException(Errno.EOPNOTSUPP, Syscall.FALLOCATE, null);
        }
        if (!f.writable()) {
            throw new VfsException(Errno.EBADF, Syscall.FALLOCATE, null);
        }
        FileType type = f.inode().type();
        if (type == FileType.FIFO) {
            throw new VfsException(Errno.ESPIPE, Syscall.FALLOCATE, null);
        }
        if (type == FileType.DIRECTORY) {
            throw new VfsException(Errno.EISDIR, Syscall.FALLOCATE, null);
        }
        if (type != FileType.REGULAR) {
            throw new VfsException(Errno.ENODEV, Syscall.FALLOCATE, null);
        }
        if (offset + len < 0) {
            throw new VfsException(Errno.EFBIG, Syscall.FALLOCATE, null);
        }
        if ((mode & ~(Falloc.FALLOC_FL_KEEP_SIZE | Falloc.FALLOC_FL_PUNCH_HOLE)) != 0) {
            // shmem_fallocate: only KEEP_SIZE and PUNCH_HOLE
            throw new VfsException(Errno.EOPNOTSUPP, Syscall.FALLOCATE, null);
        }
        f.ops().fallocate(f, mode, offset, len, t.cred());
    }
}
