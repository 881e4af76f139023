package dev.seqvfs.engine.fs.proc;

import dev.seqvfs.engine.dir.DirectoryFileOperations;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.Kiocb;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;

/**
 * The file operations of procfs: its text files ({@link #FILE}, as {@code seq_file}: read at any
 * position, no {@code ->write}, so a write is {@code EINVAL}; {@code lseek} takes {@code SEEK_SET}
 * and {@code SEEK_CUR} only; {@link #ENTRY_FILE} for an entry of its own, whose write is {@code
 * EIO}) and its directories ({@link #DIRECTORY}: entries computed by the directory's {@code
 * InodeOperations.list}, for the task that lists). Checked against Linux 6.18 ({@code
 * /proc/self/mounts}: {@code write} and {@code lseek(SEEK_END)} fail with {@code EINVAL}).
 * Stateless and thread-safe.
 */
final class ProcFileOperations {
    private ProcFileOperations() {}

    /**
     * {@code seq_lseek}: only {@code SEEK_SET} and {@code SEEK_CUR}; a negative position is {@code
     * EINVAL}.
     */
    private static long seqLseek(OpenFile f, long offset, int whence) {
        long pos;
        if (whence == 0) {
            pos = offset;
        } else if (whence == 1) {
            pos = f.offset() + offset;
        } else {
            throw new VfsException(Errno.EINVAL, Syscall.LSEEK, null);
        }
        if (pos < 0) {
            throw new VfsException(Errno.EINVAL, Syscall.LSEEK, null);
        }
        f.setOffset(pos);
        return pos;
    }

    /**
     * A procfs text file of a {@code /proc/<pid>} directory ({@code mounts}, {@code fdinfo/N}): a
     * {@code seq_file}, its content made when it was looked up. It has no {@code ->write}, so a
     * write is {@code EINVAL}, and {@code seq_open} clears {@code FMODE_PWRITE}, so a {@code
     * pwrite} is {@code ESPIPE}; a truncate (an {@code O_TRUNC} open, {@code truncate}, {@code
     * ftruncate}) succeeds and changes nothing ({@code proc_setattr} ignores the size).
     */
    static final FileOperations FILE =
            new FileOperations() {
                @Override
                public int fmode() {
                    return FMODE_LSEEK | FMODE_PREAD | FMODE_CAN_READ;
                }

                @Override
                public int read(
                        OpenFile f, byte[] dst, int off, int len, long pos, boolean nonblock) {
                    return ((RegularInode) f.inode()).read(pos, dst, off, len);
                }

                @Override
                public long llseek(OpenFile f, long offset, int whence) {
                    return seqLseek(f, offset, whence);
                }

                @Override
                public void truncate(Inode inode, long length, Credentials cred, Syscall op) {}
            };

    /**
     * A procfs file of its own ({@code /proc/filesystems}: a {@code proc_dir_entry} read through
     * {@code proc_reg_file_ops}): as {@link #FILE}, but writable in form, so a write reaches {@code
     * proc_reg_write}, which answers {@code EIO} for an entry without {@code proc_write} (Linux
     * 6.18, as root).
     */
    static final FileOperations ENTRY_FILE =
            new FileOperations() {
                @Override
                public int fmode() {
                    return FMODE_LSEEK | FMODE_PREAD | FMODE_CAN_READ | FMODE_CAN_WRITE;
                }

                @Override
                public int read(
                        OpenFile f, byte[] dst, int off, int len, long pos, boolean nonblock) {
                    return FILE.read(f, dst, off, len, pos, nonblock);
                }

                @Override
                public int write(OpenFile f, byte[] src, int off, int len, Kiocb k) {
                    throw new VfsException(Errno.EIO, Syscall.WRITE, null);
                }

                @Override
                public long writev(OpenFile f, byte[][] bufs, int[] offs, int[] lens, Kiocb k) {
                    throw new VfsException(Errno.EIO, Syscall.WRITE, null);
                }

                @Override
                public long llseek(OpenFile f, long offset, int whence) {
                    return seqLseek(f, offset, whence);
                }

                @Override
                public void truncate(Inode inode, long length, Credentials cred, Syscall op) {}
            };

    /** A procfs directory: {@code getdents} lists what its inode operations compute. */
    static final FileOperations DIRECTORY = DirectoryFileOperations.COMPUTED;
}
