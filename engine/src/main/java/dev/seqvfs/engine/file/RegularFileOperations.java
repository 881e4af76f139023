package dev.seqvfs.engine.file;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.Kiocb;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.notify.Fsnotify;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;

/**
 * The file operations of a regular file whose contents are a {@link FileData} held by its {@link
 * RegularInode} ({@code generic_file_read_iter}, {@code generic_perform_write}, {@code
 * shmem_file_llseek}, {@code shmem_fallocate}): reads copy from one published version without a
 * lock and set atime under {@code relatime} ({@code file_accessed}, never through {@code
 * O_NOATIME}); writes, truncates and allocations run under the inode's write lock ({@link
 * RegularInode#write}). tmpfs uses them for its regular files; any type that keeps file data in
 * memory can.
 *
 * <p>Stateless and thread-safe: one shared {@link #INSTANCE}.
 */
public final class RegularFileOperations implements FileOperations {
    /** The one instance. */
    public static final RegularFileOperations INSTANCE = new RegularFileOperations();

    private RegularFileOperations() {}

    @Override
    public int fmode() {
        return FMODE_POSITIONAL | FMODE_CAN_READ | FMODE_CAN_WRITE;
    }

    private static RegularInode regular(OpenFile f) {
        return (RegularInode) f.inode();
    }

    @Override
    public int read(OpenFile f, byte[] dst, int off, int len, long pos, boolean nonblock) {
        RegularInode ri = regular(f);
        int n = ri.read(pos, dst, off, len);
        accessed(f, ri);
        return n;
    }

    /**
     * Straight from the pages into the buffer: {@link RegularInode#read(long, java.nio.ByteBuffer,
     * int, int)}.
     */
    @Override
    public int read(
            OpenFile f, java.nio.ByteBuffer dst, int index, int len, long pos, boolean nonblock) {
        RegularInode ri = regular(f);
        int n = ri.read(pos, dst, index, len);
        accessed(f, ri);
        return n;
    }

    /** Reads every buffer from one published version of the file. */
    @Override
    public long readv(OpenFile f, byte[][] iov, long pos, boolean nonblock) {
        RegularInode ri = regular(f);
        long n = ri.readv(pos, iov);
        accessed(f, ri);
        return n;
    }

    private static void accessed(OpenFile f, Inode i) {
        f.fileAccessed(i);
    }

    /** One buffer: {@link RegularInode#write(Kiocb, byte[], int, int, Credentials, Syscall)}. */
    @Override
    public int write(OpenFile f, byte[] src, int off, int len, Kiocb k) {
        return (int) regular(f).write(k, src, off, len, k.cred(), Syscall.WRITE);
    }

    @Override
    public long writev(OpenFile f, byte[][] bufs, int[] offs, int[] lens, Kiocb k) {
        return regular(f).write(k, bufs, offs, lens, k.cred(), Syscall.WRITE);
    }

    /**
     * {@code shmem_file_llseek}: {@code SEEK_DATA} and {@code SEEK_HOLE} skip holes page by page.
     */
    @Override
    public long llseek(OpenFile f, long offset, int whence) {
        if (whence != 3 && whence != 4) {
            return FileOperations.super.llseek(f, offset, whence);
        }
        FileData d = regular(f).dataAcquire();
        if (offset < 0 || offset >= d.size()) {
            // shmem_file_llseek: a negative offset is ENXIO too
            throw new VfsException(Errno.ENXIO, Syscall.LSEEK, null);
        }
        long at = whence == 3 ? d.nextData(offset) : d.nextHole(offset);
        if (at < 0) {
            throw new VfsException(Errno.ENXIO, Syscall.LSEEK, null);
        }
        f.setOffset(at);
        return at;
    }

    @Override
    public void truncate(Inode inode, long length, Credentials cred, Syscall op) {
        ((RegularInode) inode).truncate(length, cred, op);
    }

    @Override
    public void fallocate(OpenFile f, int mode, long offset, long len, Credentials cred) {
        regular(f).fallocate(mode, offset, len, cred, Syscall.FALLOCATE);
    }

    /**
     * {@code __fput}'s {@code fsnotify_close}: {@code IN_CLOSE_WRITE} if the file was open for
     * writing, else {@code IN_CLOSE_NOWRITE}, when its last reference goes.
     */
    @Override
    public void release(OpenFile f) {
        Fsnotify.file(f, f.writable() ? Inotify.IN_CLOSE_WRITE : Inotify.IN_CLOSE_NOWRITE);
    }
}
