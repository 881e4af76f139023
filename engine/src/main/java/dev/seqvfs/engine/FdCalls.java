package dev.seqvfs.engine;

import dev.seqvfs.engine.fdtable.FdReply;
import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.FdTableActor;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.pipe.Pipe;
import dev.seqvfs.engine.pipe.PipeEnd;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The descriptor-table calls: {@code dup}, {@code dup2}, {@code dup3}, {@code fcntl} (descriptor
 * and status flags, duplication), {@code close_range}, and the table side of {@code fork} and
 * {@code execve}. Every change is one message to the table's actor (seed 002: allocation and
 * install together); {@code F_GETFD} and {@code F_GETFL} read the published table without a
 * message.
 */
final class FdCalls {
    private static final int O_DIRECT = 040000;
    private final TaskContext t;

    FdCalls(TaskContext t) {
        this.t = t;
    }

    private CompletableFuture<Integer> askFd(
            Function<ReplyTo<FdReply>, FdTableActor.Command> m, Syscall op) {
        return t.asker()
                .ask(t.files().commands(), m)
                .thenApply(
                        r -> {
                            if (r.error() != null) {
                                throw new VfsException(r.error(), op, null);
                            }
                            return r.fd();
                        });
    }

    CompletableFuture<Integer> dup(int oldfd) {
        return askFd(r -> new FdTableActor.DupFd(oldfd, 0, false, r), Syscall.DUP);
    }

    CompletableFuture<Integer> dup3(int oldfd, int newfd, int flags, boolean isDup3) {
        if ((flags & ~OpenFlags.O_CLOEXEC) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.DUP3, null);
        }
        if (isDup3 && oldfd == newfd) {
            // ksys_dup3 refuses equal descriptors before it looks either up.
            throw new VfsException(Errno.EINVAL, Syscall.DUP3, null);
        }
        boolean cloexec = (flags & OpenFlags.O_CLOEXEC) != 0;
        return askFd(
                r -> new FdTableActor.Dup2(oldfd, newfd, cloexec, isDup3, r),
                isDup3 ? Syscall.DUP3 : Syscall.DUP2);
    }

    CompletableFuture<Integer> fcntl(int fd, int cmd, long arg) {
        switch (cmd) {
            case Fcntl.F_DUPFD:
            case Fcntl.F_DUPFD_CLOEXEC:
                {
                    int min = arg < 0 || arg > Integer.MAX_VALUE ? -1 : (int) arg;
                    boolean cloexec = cmd == Fcntl.F_DUPFD_CLOEXEC;
                    return askFd(r -> new FdTableActor.DupFd(fd, min, cloexec, r), Syscall.FCNTL);
                }
            case Fcntl.F_GETFD:
                {
                    FdTable.Entry e = t.files().tableAcquire().get(fd);
                    if (e == null) {
                        throw new VfsException(Errno.EBADF, Syscall.FCNTL, null);
                    }
                    return CompletableFuture.completedFuture(e.cloexec() ? Fcntl.FD_CLOEXEC : 0);
                }
            case Fcntl.F_SETFD:
                {
                    boolean cloexec = (arg & Fcntl.FD_CLOEXEC) != 0;
                    return askFd(r -> new FdTableActor.SetCloexec(fd, cloexec, r), Syscall.FCNTL)
                            .thenApply(x -> 0);
                }
            case Fcntl.F_GETFL:
                return CompletableFuture.completedFuture(t.fget(fd, Syscall.FCNTL).getFl());
            case Fcntl.F_SETFL:
                {
                    OpenFile f = t.fget(fd, Syscall.FCNTL);
                    if (f.isPath()) {
                        throw new VfsException(Errno.EBADF, Syscall.FCNTL, null);
                    }
                    int old = f.statusFlagsAcquire();
                    int set = (int) arg & Fcntl.SETFL_MASK;
                    if ((set & OpenFlags.O_NOATIME) != 0
                            && (old & OpenFlags.O_NOATIME) == 0
                            && !Permission.ownerOrRoot(f.inode().attrsAcquire(), t.cred())) {
                        // setfl: O_NOATIME only for the file's owner (or CAP_FOWNER), as open(2)
                        throw new VfsException(Errno.EPERM, Syscall.FCNTL, null);
                    }
                    FileType type = f.inode().type();
                    if ((set & O_DIRECT) != 0
                            && type != FileType.FIFO
                            && type != FileType.REGULAR) {
                        // setfl: O_DIRECT needs FMODE_CAN_ODIRECT (tmpfs files) or a pipe (packet
                        // mode)
                        throw new VfsException(Errno.EINVAL, Syscall.FCNTL, null);
                    }
                    f.publishStatusFlagsRelease((old & ~Fcntl.SETFL_MASK) | set);
                    return CompletableFuture.completedFuture(0);
                }
            case Fcntl.F_GETPIPE_SZ:
            case Fcntl.F_SETPIPE_SZ:
                {
                    Pipe pipe = PipeEnd.pipeOf(t.fget(fd, Syscall.FCNTL));
                    if (pipe == null) {
                        throw new VfsException(Errno.EBADF, Syscall.FCNTL, null);
                    }
                    return CompletableFuture.completedFuture(
                            cmd == Fcntl.F_GETPIPE_SZ ? pipe.capacity() : pipe.setCapacity(arg));
                }
            default:
                if (t.fget(fd, Syscall.FCNTL).isPath()) {
                    // check_fcntl_cmd: an O_PATH descriptor knows only the dup and flag-query
                    // commands
                    throw new VfsException(Errno.EBADF, Syscall.FCNTL, null);
                }
                throw new VfsException(Errno.EINVAL, Syscall.FCNTL, null);
        }
    }

    CompletableFuture<Integer> closeRange(int first, int last, int flags) {
        if ((flags & ~(Fcntl.CLOSE_RANGE_CLOEXEC | Fcntl.CLOSE_RANGE_UNSHARE)) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.CLOSE_RANGE, null);
        }
        boolean cloexecOnly = (flags & Fcntl.CLOSE_RANGE_CLOEXEC) != 0;
        return askFd(
                        r -> new FdTableActor.CloseRange(first, last, cloexecOnly, r),
                        Syscall.CLOSE_RANGE)
                .thenApply(n -> 0);
    }

    /** Copies the table for a child, each open file gaining one reference. */
    FdTable copyForFork() {
        return t.asker()
                .join(
                        t.asker()
                                .ask(
                                        t.files().commands(),
                                        (ReplyTo<FdTable> r) -> new FdTableActor.CopyForFork(r)),
                        Syscall.FORK,
                        null);
    }

    void exec() {
        t.asker()
                .join(
                        askFd(r -> new FdTableActor.CloseOnExec(r), Syscall.EXECVE),
                        Syscall.EXECVE,
                        null);
    }
}
