package dev.seqvfs.persist;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.file.RegularFileOperations;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.Kiocb;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.walk.FileOrigin;
import dev.seqvfs.engine.walk.WalkContext;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Syscall;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The file operations of a persistfs regular file: tmpfs's ({@link RegularFileOperations}: the
 * pages live in memory, as a page cache), with each change to the content marking the blocks it
 * touched dirty once it is made ({@link DirtyBlocks}) and {@code fsync}/{@code fdatasync} writing
 * them back ({@link PersistfsOps#writeBack}: changed blocks and attributes, before the call
 * returns).
 *
 * <p>Thread-safe (stateless but for the superblock's operations it reports to).
 */
final class PersistFileOperations implements FileOperations {
    private final FileOperations d = RegularFileOperations.INSTANCE;
    private final PersistfsOps ops;

    PersistFileOperations(PersistfsOps ops) {
        this.ops = ops;
    }

    @Override
    public int fmode() {
        return d.fmode();
    }

    @Override
    public FileOperations open(Inode inode, int flags) {
        FileOperations o = d.open(inode, flags);
        return o == d ? this : o;
    }

    @Override
    public int read(OpenFile f, byte[] dst, int off, int len, long pos, boolean nonblock) {
        return d.read(f, dst, off, len, pos, nonblock);
    }

    @Override
    public int read(
            OpenFile f, java.nio.ByteBuffer dst, int index, int len, long pos, boolean nonblock) {
        return d.read(f, dst, index, len, pos, nonblock);
    }

    @Override
    public long readv(OpenFile f, byte[][] iov, long pos, boolean nonblock) {
        return d.readv(f, iov, pos, nonblock);
    }

    @Override
    public int write(OpenFile f, byte[] src, int off, int len, Kiocb k) {
        int n = d.write(f, src, off, len, k);
        // after the write: k.pos() is where it ended (for O_APPEND too)
        ops.dirtyRange(f.inode(), k.pos() - n, k.pos());
        synced(f, Syscall.WRITE);
        return n;
    }

    /**
     * After a write through {@code f}: writes the file back before the call returns when the mount
     * is {@code sync} or {@code f} was opened {@code O_SYNC}/{@code O_DSYNC} (open(2): "the write
     * operation will flush the data and all associated metadata to the underlying hardware").
     */
    private void synced(OpenFile f, Syscall op) {
        if (writesThrough(f)) {
            ops.writeBack(f.inode(), op);
        }
    }

    /** {@return whether a write through {@code f} is written back before it returns} */
    private boolean writesThrough(OpenFile f) {
        return ops.syncWrites()
                || (f.statusFlagsAcquire() & (OpenFlags.O_SYNC | OpenFlags.O_DSYNC)) != 0;
    }

    @Override
    public long writev(OpenFile f, byte[][] bufs, int[] offs, int[] lens, Kiocb k) {
        long n = d.writev(f, bufs, offs, lens, k);
        ops.dirtyRange(f.inode(), k.pos() - n, k.pos());
        synced(f, Syscall.WRITEV);
        return n;
    }

    @Override
    public CompletableFuture<Integer> readAsync(OpenFile f, byte[] dst, int off, int len) {
        return d.readAsync(f, dst, off, len);
    }

    @Override
    public CompletableFuture<Integer> writeAsync(OpenFile f, byte[] src, int off, int len) {
        // where the write lands is known only to the write itself: every block is marked
        CompletableFuture<Integer> w =
                d.writeAsync(f, src, off, len)
                        .thenApply(
                                n -> {
                                    ops.dirtyAll(f.inode());
                                    return n;
                                });
        if (writesThrough(f)) {
            // the write-back blocks for the database: run it where the write completes
            return w.thenApplyAsync(
                    n -> {
                        ops.writeBack(f.inode(), Syscall.WRITE);
                        return n;
                    });
        }
        return w;
    }

    @Override
    public long llseek(OpenFile f, long offset, int whence) {
        return d.llseek(f, offset, whence);
    }

    @Override
    public void truncate(Inode inode, long length, Credentials cred, Syscall op) {
        long before = inode.attrsAcquire().size();
        d.truncate(inode, length, cred, op);
        ops.dirtySize(inode, Math.min(before, length));
        if (ops.syncWrites()) {
            ops.writeBack(inode, op);
        }
    }

    @Override
    public void fsync(OpenFile f, boolean datasync) {
        d.fsync(f, datasync);
        Syscall op = datasync ? Syscall.FDATASYNC : Syscall.FSYNC;
        // an async mount: the file's newest name, and those of new directories above it, go
        // with it, as ext4's commit takes the directory entries along
        FileOrigin o = f.origin();
        boolean names = ops.pathWritten(f.inode(), o == null ? null : o.dir(), op);
        if (!ops.writeBack(f.inode(), op) && names) {
            ops.forceStore(op); // the write-back's own force covers them when it wrote
        }
    }

    @Override
    public void fallocate(OpenFile f, int mode, long offset, long len, Credentials cred) {
        d.fallocate(f, mode, offset, len, cred);
        // the engine's modes (allocate, punch a hole) change only the range
        ops.dirtyRange(
                f.inode(), offset, len > Long.MAX_VALUE - offset ? Long.MAX_VALUE : offset + len);
        synced(f, Syscall.FALLOCATE);
    }

    @Override
    public int poll(OpenFile f) {
        return d.poll(f);
    }

    @Override
    public List<DirEntry> iterate(OpenFile f, WalkContext caller, long cookie, int max) {
        return d.iterate(f, caller, cookie, max);
    }

    @Override
    public void release(OpenFile f) {
        d.release(f);
    }
}
