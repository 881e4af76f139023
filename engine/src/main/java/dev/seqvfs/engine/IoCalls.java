package dev.seqvfs.engine;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.file.FileData;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.pipe.StreamOps;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Regular-file I/O: {@code read}, {@code pread}, {@code readv}, {@code write},
 * {@code pwrite}, {@code writev}, {@code truncate}, {@code ftruncate}, {@code fsync}.
 *
 * <p>Readers load the file's published {@link FileData} and never lock it; the offset of
 * an open file description is guarded by its monitor (the {@code f_pos} lock). Writers
 * take the per-inode write lock, build the new version by path copying, charge new pages
 * against the superblock's byte limit, publish the data, then the attributes. Lock order:
 * the {@code OpenFile} monitor before the inode write lock. Neither is held across a
 * message.
 *
 * <p>Times follow POSIX with Linux's {@code relatime}: a write sets mtime and ctime; a
 * read sets atime only if atime is not newer than mtime or ctime, or is a day old, so a
 * read rarely writes shared memory. A named FIFO's times move the same way when bytes
 * pass through it ({@code pipe_write}, {@code pipe_read}); an anonymous pipe's never do.
 */
final class IoCalls {
    private static final long DAY_NANOS = 24L * 3600 * 1_000_000_000L;
    /** Most buffers one {@code readv}/{@code writev} takes ({@code IOV_MAX}, {@code UIO_MAXIOV}). */
    private static final int IOV_MAX = 1024;

    private final VfsTask t;

    IoCalls(VfsTask t) {
        this.t = t;
    }

    private static RegularInode regularForRead(OpenFile f, String op) {
        if (f.isPath() || !f.readable()) {
            throw new VfsException(Errno.EBADF, op, null);
        }
        return regular(f.inode(), op);
    }

    private static RegularInode regularForWrite(OpenFile f, String op) {
        if (f.isPath() || !f.writable()) {
            throw new VfsException(Errno.EBADF, op, null);
        }
        return regular(f.inode(), op);
    }

    private static RegularInode regular(Inode i, String op) {
        if (i instanceof RegularInode r) {
            return r;
        }
        throw new VfsException(i.type() == FileType.DIRECTORY ? Errno.EISDIR : Errno.EINVAL, op, null);
    }

    private static final byte[] NO_BYTES = new byte[0];

    /**
     * Checks a caller's buffer range and returns the buffer to use: a null buffer with
     * nothing to transfer is an empty one, as {@code read(fd, NULL, 0)} returns 0 on Linux
     * ({@code access_ok} of zero bytes); otherwise {@code EFAULT} for a null buffer or a
     * range outside it.
     */
    private static byte[] buffer(byte[] buf, int off, int len, String op) {
        if (buf == null && off == 0 && len == 0) {
            return NO_BYTES;
        }
        checkRange(buf, off, len, op);
        return buf;
    }

    private static void checkRange(byte[] buf, int off, int len, String op) {
        if (buf == null) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
        if (off < 0 || len < 0 || off > buf.length - len) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
    }

    /** Whether positional I/O is {@code ESPIPE}: pipes, sockets and FIFOs (no {@code FMODE_PREAD}). */
    private static boolean unseekable(OpenFile f) {
        FileType type = f.inode().type();
        return f.ops() instanceof StreamOps
                || (!f.isPath() && (type == FileType.FIFO || type == FileType.SOCKET));
    }

    /** {@code UIO_MAXIOV}: more buffers than {@code IOV_MAX} (1024) are {@code EINVAL}. */
    private static void checkIovCount(byte[][] iov, String op) {
        if (iov.length > IOV_MAX) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
    }

    private static boolean nonblock(OpenFile f) {
        return (f.statusFlagsAcquire() & OpenFlags.O_NONBLOCK) != 0;
    }

    int read(int fd, byte[] buf, int off, int len) {
        // vfs_read checks the descriptor and its mode before the buffer (EBADF before EFAULT).
        OpenFile f = t.fget(fd, "read");
        if (f.ops() instanceof StreamOps s) {
            if (f.isPath() || !f.readable()) {
                throw new VfsException(Errno.EBADF, "read", null);
            }
            buf = buffer(buf, off, len, "read");
            return streamRead(f, s.read(f, buf, off, len, nonblock(f)));
        }
        RegularInode ri = regularForRead(f, "read");
        buf = buffer(buf, off, len, "read");
        int n;
        synchronized (f) {
            long pos = f.offset();
            if (pos + len < 0) {
                throw new VfsException(Errno.EINVAL, "read", null);
            }
            n = Math.max(0, ri.dataAcquire().read(pos, buf, off, len));
            f.setOffset(pos + n);
        }
        touchAtime(f, ri);
        return n;
    }

    int pread(int fd, byte[] buf, int off, int len, long pos) {
        if (pos < 0) {
            throw new VfsException(Errno.EINVAL, "pread", null);
        }
        OpenFile f = t.fget(fd, "pread");
        if (unseekable(f)) {
            throw new VfsException(Errno.ESPIPE, "pread", null);
        }
        RegularInode ri = regularForRead(f, "pread");
        buf = buffer(buf, off, len, "pread");
        if (pos + len < 0) {
            // rw_verify_area: the end of the read overflows the offset type
            throw new VfsException(Errno.EINVAL, "pread", null);
        }
        int n = Math.max(0, ri.dataAcquire().read(pos, buf, off, len));
        touchAtime(f, ri);
        return n;
    }

    long readv(int fd, byte[][] iov) {
        if (iov == null) {
            throw new VfsException(Errno.EFAULT, "readv", null);
        }
        OpenFile f = t.fget(fd, "readv");
        if (f.ops() instanceof StreamOps s) {
            return streamReadv(f, s, iov);
        }
        RegularInode ri = regularForRead(f, "readv");
        checkIovCount(iov, "readv");
        long total = 0;
        synchronized (f) {
            FileData d = ri.dataAcquire();
            long pos = f.offset();
            for (byte[] b : iov) {
                checkRange(b, 0, b == null ? 0 : b.length, "readv");
                int n = Math.max(0, d.read(pos + total, b, 0, b.length));
                total += n;
                if (n < b.length) {
                    break;
                }
            }
            f.setOffset(pos + total);
        }
        touchAtime(f, ri);
        return total;
    }

    int write(int fd, byte[] buf, int off, int len) {
        OpenFile f = t.fget(fd, "write");
        if (f.ops() instanceof StreamOps s) {
            if (f.isPath() || !f.writable()) {
                throw new VfsException(Errno.EBADF, "write", null);
            }
            buf = buffer(buf, off, len, "write");
            return streamWritten(f, s.write(f, buf, off, len, nonblock(f)));
        }
        RegularInode ri = regularForWrite(f, "write");
        buf = buffer(buf, off, len, "write");
        synchronized (f) {
            Written w = writeAt(ri, f, f.offset(), new byte[][] {buf}, new int[] {off}, new int[] {len}, "write");
            f.setOffset(w.end());
            return (int) w.count();
        }
    }

    int pwrite(int fd, byte[] buf, int off, int len, long pos) {
        if (pos < 0) {
            throw new VfsException(Errno.EINVAL, "pwrite", null);
        }
        OpenFile f = t.fget(fd, "pwrite");
        if (unseekable(f)) {
            throw new VfsException(Errno.ESPIPE, "pwrite", null);
        }
        RegularInode ri = regularForWrite(f, "pwrite");
        buf = buffer(buf, off, len, "pwrite");
        return (int) writeAt(ri, f, pos, new byte[][] {buf}, new int[] {off}, new int[] {len}, "pwrite").count();
    }

    /** {@code readv} on a pipe or socket: one read, scattered over the buffers in order. */
    private long streamReadv(OpenFile f, StreamOps s, byte[][] iov) {
        if (f.isPath() || !f.readable()) {
            throw new VfsException(Errno.EBADF, "readv", null);
        }
        checkIovCount(iov, "readv");
        byte[] all = new byte[streamLength(iov, "readv")];
        int n = streamRead(f, s.read(f, all, 0, all.length, nonblock(f)));
        int done = 0;
        for (int i = 0; i < iov.length && done < n; i++) {
            int k = Math.min(iov[i].length, n - done);
            System.arraycopy(all, done, iov[i], 0, k);
            done += k;
        }
        return n;
    }

    /** {@code writev} on a pipe or socket: the buffers gathered into one write (atomic up to {@code PIPE_BUF}). */
    private long streamWritev(OpenFile f, StreamOps s, byte[][] iov) {
        if (f.isPath() || !f.writable()) {
            throw new VfsException(Errno.EBADF, "writev", null);
        }
        checkIovCount(iov, "writev");
        byte[] all = new byte[streamLength(iov, "writev")];
        int at = 0;
        for (byte[] b : iov) {
            System.arraycopy(b, 0, all, at, b.length);
            at += b.length;
        }
        return streamWritten(f, s.write(f, all, 0, all.length, nonblock(f)));
    }

    /** The total length of the buffers ({@code EFAULT} for a null one, {@code EINVAL} past an int). */
    private static int streamLength(byte[][] iov, String op) {
        long total = 0;
        for (byte[] b : iov) {
            checkRange(b, 0, b == null ? 0 : b.length, op);
            total += b.length;
        }
        if (total > Integer.MAX_VALUE) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
        return (int) total;
    }

    /** What a write did: the offset after it and the bytes written. */
    private record Written(long end, long count) {
    }

    long writev(int fd, byte[][] iov) {
        if (iov == null) {
            throw new VfsException(Errno.EFAULT, "writev", null);
        }
        OpenFile f = t.fget(fd, "writev");
        if (f.ops() instanceof StreamOps s) {
            return streamWritev(f, s, iov);
        }
        RegularInode ri = regularForWrite(f, "writev");
        checkIovCount(iov, "writev");
        int[] offs = new int[iov.length];
        int[] lens = new int[iov.length];
        long total = 0;
        for (int i = 0; i < iov.length; i++) {
            checkRange(iov[i], 0, iov[i] == null ? 0 : iov[i].length, "writev");
            lens[i] = iov[i].length;
            total += lens[i];
        }
        synchronized (f) {
            Written w = writeAt(ri, f, f.offset(), iov, offs, lens, "writev");
            f.setOffset(w.end());
            return w.count();
        }
    }

    /**
     * Writes the buffers as one atomic change at {@code pos} (or at the end, with
     * {@code O_APPEND}, even for {@code pwrite}, as Linux does), under the inode's write lock.
     *
     * @return the offset after the write and the bytes written (fewer than asked when the
     *         write would cross the maximum size)
     * @throws VfsException {@code EINVAL} if {@code pos} plus the count overflows,
     *         {@code EFBIG} at the maximum size, {@code ENOSPC} when the new
     *         pages do not fit; nothing is written then
     */
    private Written writeAt(RegularInode ri, OpenFile f, long pos, byte[][] bufs, int[] offs, int[] lens, String op) {
        long total = 0;
        for (int l : lens) {
            total += l;
        }
        if (pos + total < 0) {
            // rw_verify_area: the end of the write overflows the offset type (checked on the
            // position asked for, before O_APPEND moves it)
            throw new VfsException(Errno.EINVAL, op, null);
        }
        ReentrantLock lock = ri.writeLock();
        lock.lock();
        try {
            FileData d = ri.dataAcquire();
            long at = (f.statusFlagsAcquire() & OpenFlags.O_APPEND) != 0 ? d.size() : pos;
            if (total == 0) {
                // Nothing written: the offset stays where it was, even with O_APPEND.
                return new Written(pos, 0);
            }
            // generic_write_check_limits: nothing at or past the maximum size; a write
            // crossing it is cut short there.
            if (at >= FileData.MAX_SIZE) {
                throw new VfsException(Errno.EFBIG, op, null);
            }
            long left = Math.min(total, FileData.MAX_SIZE - at);
            long count = left;
            FileData next = d;
            long p = at;
            for (int i = 0; i < bufs.length && left > 0; i++) {
                int n = (int) Math.min(lens[i], left);
                next = next.write(p, bufs[i], offs[i], n);
                p += n;
                left -= n;
            }
            publish(ri, d, next, op, true);
            return new Written(p, count);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Charges the page difference, publishes {@code next}, then the attributes. The caller
     * holds the write lock.
     */
    private void publish(RegularInode ri, FileData prev, FileData next, String op, boolean content) {
        long delta = next.allocatedBytes() - prev.allocatedBytes();
        Superblock sb = (Superblock) ri.owner();
        if (delta > 0) {
            sb.chargeBytes(delta, op);
            if (!ri.addCharge(delta)) {
                // The file was freed (unlinked, last descriptor closed) while this write
                // waited: its account is settled, so this charge goes straight back.
                sb.unchargeBytes(delta);
            }
        }
        ri.publishDataRelease(next);
        if (delta < 0 && ri.addCharge(delta)) {
            sb.unchargeBytes(-delta);
        }
        long now = t.vfs().clock().nowNanos();
        long blocks = next.allocatedBytes() / 512;
        boolean killPrivs = !t.cred().isRoot();
        ri.updateAttrs(a -> {
            InodeAttrs sized = a.withSize(next.size(), blocks, now);
            // file_remove_privs: a write or truncate by an unprivileged caller clears
            // set-user-ID, and set-group-ID when group-execute is set or the caller is not
            // in the file's group (setattr_should_drop_sgid).
            int perm = sized.permissions();
            int kept = perm & ~Mode.S_ISUID;
            if ((perm & 010) != 0 || !t.cred().inGroup(sized.gid())) {
                kept &= ~Mode.S_ISGID;
            }
            return killPrivs && kept != perm ? sized.withPermissions(kept, now) : sized;
        });
    }

    /** Truncates (or extends) a regular file to {@code len} bytes; mtime and ctime change. */
    void truncateInode(RegularInode ri, long len, String op) {
        if (len > FileData.MAX_SIZE) {
            throw new VfsException(Errno.EFBIG, op, null);
        }
        ReentrantLock lock = ri.writeLock();
        lock.lock();
        try {
            FileData d = ri.dataAcquire();
            publish(ri, d, d.truncate(len), op, false);
        } finally {
            lock.unlock();
        }
    }

    void ftruncate(int fd, long len) {
        if (len < 0) {
            throw new VfsException(Errno.EINVAL, "ftruncate", null);
        }
        OpenFile f = t.fget(fd, "ftruncate");
        if (f.isPath()) {
            throw new VfsException(Errno.EBADF, "ftruncate", null);
        }
        if (!f.writable() || !(f.inode() instanceof RegularInode ri)) {
            throw new VfsException(Errno.EINVAL, "ftruncate", null);
        }
        truncateInode(ri, len, "ftruncate");
    }

    void truncate(String path, long len) {
        if (len < 0) {
            throw new VfsException(Errno.EINVAL, "truncate", path);
        }
        VfsPath p = t.attrs().resolve(VfsTask.AT_FDCWD, path, "truncate", 0, 0);
        Inode i = p.inode();
        if (i.type() == FileType.DIRECTORY) {
            throw new VfsException(Errno.EISDIR, "truncate", path);
        }
        if (!(i instanceof RegularInode ri)) {
            throw new VfsException(Errno.EINVAL, "truncate", path);
        }
        if (p.mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, "truncate", path);
        }
        if (!Permission.check(i, Mode.W_OK, t.cred())) {
            throw new VfsException(Errno.EACCES, "truncate", path);
        }
        try {
            truncateInode(ri, len, "truncate");
        } catch (VfsException e) {
            throw e.withContext("truncate", path, null);
        }
    }

    /**
     * Reads without blocking a thread: streams (pipes, sockets) complete when data arrives;
     * regular files complete at once.
     */
    java.util.concurrent.CompletableFuture<Integer> readAsync(int fd, byte[] buf, int off, int len) {
        buf = buffer(buf, off, len, "read");
        OpenFile f = t.fget(fd, "read");
        if (f.ops() instanceof StreamOps s) {
            if (f.isPath() || !f.readable()) {
                throw new VfsException(Errno.EBADF, "read", null);
            }
            return nonblock(f) ? java.util.concurrent.CompletableFuture.completedFuture(
                    streamRead(f, s.read(f, buf, off, len, true)))
                    : s.readAsync(f, buf, off, len).thenApply(n -> streamRead(f, n));
        }
        return java.util.concurrent.CompletableFuture.completedFuture(read(fd, buf, off, len));
    }

    /** Writes without blocking a thread; see {@link #readAsync}. */
    java.util.concurrent.CompletableFuture<Integer> writeAsync(int fd, byte[] buf, int off, int len) {
        buf = buffer(buf, off, len, "write");
        OpenFile f = t.fget(fd, "write");
        if (f.ops() instanceof StreamOps s) {
            if (f.isPath() || !f.writable()) {
                throw new VfsException(Errno.EBADF, "write", null);
            }
            return nonblock(f) ? java.util.concurrent.CompletableFuture.completedFuture(
                    streamWritten(f, s.write(f, buf, off, len, true)))
                    : s.writeAsync(f, buf, off, len).thenApply(n -> streamWritten(f, n));
        }
        return java.util.concurrent.CompletableFuture.completedFuture(write(fd, buf, off, len));
    }

    void fsync(int fd, String op) {
        OpenFile f = t.fget(fd, op);
        if (f.isPath()) {
            throw new VfsException(Errno.EBADF, op, null);
        }
        FileType type = f.inode().type();
        if (type != FileType.REGULAR && type != FileType.DIRECTORY && type != FileType.SYMLINK) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
        // Memory is the medium: every published write is already as durable as it gets.
    }

    /**
     * The times a transfer of {@code n} bytes through a stream sets: a named FIFO's inode gets
     * atime from a read as a regular file's ({@code pipe_read} calls {@code file_accessed}
     * when it read something), nothing else does. Anonymous pipes keep their times (host,
     * Linux 6.18: {@code fstat} of both ends of a {@code pipe(2)} after a write and a read
     * shows the creation times). Returns {@code n}.
     */
    private int streamRead(OpenFile f, int n) {
        if (n > 0 && isFifo(f.inode())) {
            touchAtime(f, f.inode());
        }
        return n;
    }

    /**
     * {@code pipe_write}'s {@code file_update_time}: a write that wrote something sets a named
     * FIFO's mtime and ctime (not an anonymous pipe's, see {@link #streamRead}). Returns {@code n}.
     */
    private int streamWritten(OpenFile f, int n) {
        if (n > 0 && isFifo(f.inode())) {
            long now = t.vfs().clock().nowNanos();
            f.inode().updateAttrs(a -> a.withTimes(a.atime(), now, now));
        }
        return n;
    }

    private static boolean isFifo(Inode i) {
        return i instanceof dev.seqvfs.engine.inode.SpecialInode && i.type() == FileType.FIFO;
    }

    /**
     * relatime: update atime only when it is not newer than mtime/ctime, or a day old; never
     * through an {@code O_NOATIME} description ({@code file_accessed}).
     */
    private void touchAtime(OpenFile f, Inode ri) {
        if ((f.statusFlagsAcquire() & OpenFlags.O_NOATIME) != 0) {
            return;
        }
        InodeAttrs a = ri.attrsAcquire();
        long now = t.vfs().clock().nowNanos();
        if (a.atime() <= a.mtime() || a.atime() <= a.ctime() || now - a.atime() >= DAY_NANOS) {
            ri.updateAttrs(x -> x.accessed(now));
        }
    }
}
