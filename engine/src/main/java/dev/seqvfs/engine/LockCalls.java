package dev.seqvfs.engine;

import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.lock.FileLockTable;
import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;

/**
 * {@code flock(2)} and the record-lock commands of {@code fcntl(2)}. A lock table is attached to an
 * inode the first time a lock is asked for; until then locks cost nothing. Owners: the open file
 * description for {@code flock}; the descriptor table (the process) for POSIX locks, or a {@link
 * LockOwner} a server passes for its clients. {@code F_SETLKW} and {@code flock} without {@code
 * LOCK_NB} park the calling thread while they wait (they are for plain threads, as in Linux).
 */
final class LockCalls {
    private final TaskContext t;

    LockCalls(TaskContext t) {
        this.t = t;
    }

    private FileLockTable table(Inode i) {
        FileLockTable.WaitGraph g = t.vfs().lockWaitGraph();
        Shutdown s = t.vfs().shutdown();
        return i.fileLocks(() -> new FileLockTable(g, s));
    }

    void flock(int fd, int operation) {
        // As sys_flock: the operation is checked before the descriptor is looked up.
        boolean nb = (operation & Flock.LOCK_NB) != 0;
        int type;
        switch (operation & ~Flock.LOCK_NB) {
            case Flock.LOCK_SH:
                type = FileLockTable.READ;
                break;
            case Flock.LOCK_EX:
                type = FileLockTable.WRITE;
                break;
            case Flock.LOCK_UN:
                type = FileLockTable.UNLOCK;
                break;
            default:
                throw new VfsException(Errno.EINVAL, Syscall.FLOCK, null);
        }
        OpenFile f = t.fdget(fd, Syscall.FLOCK);
        try {
            if (f.isPath() || (type != FileLockTable.UNLOCK && !f.readable() && !f.writable())) {
                // Locking needs a descriptor open for reading or writing (not access mode 3).
                throw new VfsException(Errno.EBADF, Syscall.FLOCK, null);
            }
            // The call's reference keeps the description open while it waits: if its last
            // descriptor is closed meanwhile, the lock is still taken, and the release that
            // follows this call's fdput drops it (locks_remove_file in __fput).
            table(f.inode()).flock(f, type, !nb);
            grantedBeforeClose(Syscall.FLOCK);
        } finally {
            TaskContext.fdput(f); // on every path, the close's EIO included
        }
    }

    /**
     * Fails a lock call that was granted while the instance closed: the close releases every lock,
     * so the grant may be the close's doing ({@code EIO}, as {@link SeqVfs#close()} says).
     */
    private void grantedBeforeClose(Syscall op) {
        if (t.vfs().isClosed()) {
            throw Shutdown.error(op);
        }
    }

    Flock fcntlLock(int fd, int cmd, Flock req) {
        OpenFile f = t.fdget(fd, Syscall.FCNTL);
        try {
            return fcntlLock(f, fd, cmd, req, t.files(), t.pid());
        } finally {
            TaskContext.fdput(f);
        }
    }

    /** {@code fcntl} record locks on behalf of {@code owner} ({@link VfsTask}'s Javadoc). */
    Flock fcntlLock(int fd, int cmd, Flock req, LockOwner owner) {
        if (owner == null || req == null) {
            throw new VfsException(Errno.EFAULT, Syscall.FCNTL, null);
        }
        OpenFile f = t.fdget(fd, Syscall.FCNTL);
        try {
            return fcntlLock(f, fd, cmd, req, owner, req.pid());
        } finally {
            TaskContext.fdput(f);
        }
    }

    private Flock fcntlLock(OpenFile f, int fd, int cmd, Flock req, Object owner, int pid) {
        if (f.isPath()) {
            throw new VfsException(Errno.EBADF, Syscall.FCNTL, null);
        }
        if (cmd != Fcntl.F_GETLK && cmd != Fcntl.F_SETLK && cmd != Fcntl.F_SETLKW) {
            throw new VfsException(Errno.EINVAL, Syscall.FCNTL, null);
        }
        if (req == null) {
            throw new VfsException(Errno.EFAULT, Syscall.FCNTL, null);
        }
        int type = req.type();
        if (type != Flock.F_RDLCK && type != Flock.F_WRLCK && type != Flock.F_UNLCK) {
            throw new VfsException(Errno.EINVAL, Syscall.FCNTL, null);
        }
        long base;
        switch (req.whence()) {
            case VfsTask.SEEK_SET:
                base = 0;
                break;
            case VfsTask.SEEK_CUR:
                synchronized (f) {
                    base = f.offset();
                }
                break;
            case VfsTask.SEEK_END:
                base = f.inode().attrsAcquire().size();
                break;
            default:
                throw new VfsException(Errno.EINVAL, Syscall.FCNTL, null);
        }
        // flock_to_posix_lock: a range past OFFSET_MAX (LLONG_MAX) is EOVERFLOW
        if (req.start() > Long.MAX_VALUE - base) {
            throw new VfsException(Errno.EOVERFLOW, Syscall.FCNTL, null);
        }
        long start = base + req.start();
        long end;
        if (req.len() > 0) {
            if (start >= 0 && req.len() - 1 > Long.MAX_VALUE - start) {
                throw new VfsException(Errno.EOVERFLOW, Syscall.FCNTL, null);
            }
            end = start + req.len() - 1;
        } else if (req.len() == 0) {
            end = Long.MAX_VALUE;
        } else {
            end = start - 1;
            start = start + req.len();
        }
        if (start < 0 || end < start) {
            throw new VfsException(Errno.EINVAL, Syscall.FCNTL, null);
        }
        FileLockTable table = table(f.inode());
        if (cmd == Fcntl.F_GETLK) {
            if (type == Flock.F_UNLCK) {
                throw new VfsException(Errno.EINVAL, Syscall.FCNTL, null);
            }
            FileLockTable.Lock l =
                    table.test(
                            owner,
                            type == Flock.F_WRLCK ? FileLockTable.WRITE : FileLockTable.READ,
                            start,
                            end);
            if (l == null) {
                return new Flock(Flock.F_UNLCK, req.whence(), req.start(), req.len(), 0);
            }
            long len = l.end() == Long.MAX_VALUE ? 0 : l.end() - l.start() + 1;
            return new Flock(
                    l.type() == FileLockTable.WRITE ? Flock.F_WRLCK : Flock.F_RDLCK,
                    VfsTask.SEEK_SET,
                    l.start(),
                    len,
                    l.pid());
        }
        if (type == Flock.F_RDLCK && !f.readable()) {
            throw new VfsException(Errno.EBADF, Syscall.FCNTL, null);
        }
        if (type == Flock.F_WRLCK && !f.writable()) {
            throw new VfsException(Errno.EBADF, Syscall.FCNTL, null);
        }
        int kind =
                type == Flock.F_UNLCK
                        ? FileLockTable.UNLOCK
                        : type == Flock.F_WRLCK ? FileLockTable.WRITE : FileLockTable.READ;
        table.setPosix(owner, pid, kind, start, end, cmd == Fcntl.F_SETLKW);
        grantedBeforeClose(Syscall.FCNTL);
        if (kind != FileLockTable.UNLOCK) {
            // Close race (as Linux's fcntl_setlk): if fd was closed or replaced while we
            // looked it up or waited, its close already dropped the process's locks on the
            // file; drop the one just taken too.
            FdTable.Entry now = t.files().tableAcquire().get(fd);
            if (now == null || now.file() != f) {
                table.setPosix(owner, pid, FileLockTable.UNLOCK, start, end, false);
                throw new VfsException(Errno.EBADF, Syscall.FCNTL, null);
            }
        }
        return req;
    }
}
