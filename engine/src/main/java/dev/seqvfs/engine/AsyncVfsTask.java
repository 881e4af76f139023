package dev.seqvfs.engine;

import dev.seqvfs.engine.fs.StreamFileOperations;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous view of a {@link VfsTask} ({@link VfsTask#async()}): the same task, the
 * same calls with the same arguments, each answering with a {@link CompletableFuture} that
 * completes with what the blocking call returns, or exceptionally with the
 * {@link VfsException} it throws. Semantics, errors and Javadoc are the blocking call's.
 *
 * <p>No call blocks its caller. Calls that change the namespace or the descriptor table
 * complete when the owning actor answers (often before they return: the actor runs on the
 * caller's thread when it is idle). Calls that only read complete at once. Reads and writes
 * of pipes and sockets, and the open of a FIFO, complete when the other side acts, with no
 * thread waiting. Calls that can only wait by parking a thread ({@code F_SETLKW}, a blocking
 * {@code flock}, {@code poll} with a timeout, {@code readv}/{@code writev} of a stream) park
 * one of the instance's pool threads instead of the caller's.
 *
 * <p>Thread-safe, as the task is. Every public call of {@link VfsTask} but its lifecycle
 * ({@code fork}, {@code newThread}, {@code exec}, {@code close}) has its twin here, by name
 * and parameters; a test fails the build if one is missing.
 */
public final class AsyncVfsTask {
    private final TaskContext c;

    AsyncVfsTask(TaskContext c) {
        this.c = c;
    }

    // ---------------------------------------------------------------- open, close

    /** {@link VfsTask#open(CharSequence, int, int)}; cancelling the future withdraws the open as {@link #openat} says. */
    public CompletableFuture<Integer> open(CharSequence path, int flags, int mode) {
        return openat(VfsTask.AT_FDCWD, path, flags, mode);
    }

    /** {@link VfsTask#open(CharSequence, int)}. */
    public CompletableFuture<Integer> open(CharSequence path, int flags) {
        return openat(VfsTask.AT_FDCWD, path, flags, 0);
    }

    /**
     * {@link VfsTask#openat}. Opening a FIFO that must wait for the other side
     * ({@code fifo(7)}) blocks no thread: the future completes when the other side opens.
     *
     * <p>Cancelling the returned future ({@code cancel}, or {@code completeExceptionally},
     * as {@code orTimeout} does) withdraws the open if its descriptor is not installed yet:
     * {@code cancel} then returns {@code true}, no descriptor is ever installed for this
     * call, and a FIFO open waiting for its partner stops counting as a reader or writer
     * (a later {@code O_WRONLY|O_NONBLOCK} open with no other reader fails with
     * {@code ENXIO} again) and holds nothing (the FIFO's pipe is released if nobody else
     * has it open). A file that {@code O_CREAT} already created stays. A cancel that loses
     * the race with the install returns {@code false} and leaves the future completed
     * normally with the descriptor: the caller owns it and must close it. Either way the
     * future is done when {@code cancel} returns. Thread-safe; {@code cancel} may spin for
     * the few instructions the descriptor table's actor takes to publish a descriptor it
     * has claimed, and never blocks otherwise.
     */
    public CompletableFuture<Integer> openat(int dirfd, CharSequence path, int flags, int mode) {
        Filename p;
        try {
            p = TaskContext.path(path, Syscall.OPEN);
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
        OpenFuture out = new OpenFuture();
        out.follow(Revalidate.retrying(() -> c.opens.openat(dirfd, p, flags, mode, out)));
        return out;
    }

    /** {@link VfsTask#close}. */
    public CompletableFuture<Void> close(int fd) {
        return TaskContext.async(() -> c.opens.close(fd));
    }

    /** {@link VfsTask#getdents}. */
    public CompletableFuture<List<DirEntry>> getdents(int fd, int max) {
        return TaskContext.now(() -> c.opens.getdents(fd, max));
    }

    /** {@link VfsTask#lseek}. */
    public CompletableFuture<Long> lseek(int fd, long offset, int whence) {
        return TaskContext.now(() -> c.opens.lseek(fd, offset, whence));
    }

    /** {@link VfsTask#readdir}: completes once the whole listing is read. */
    public CompletableFuture<List<DirEntry>> readdir(CharSequence path) {
        return TaskContext.now(() -> new VfsTask(c).readdir(path));
    }

    // ---------------------------------------------------------------- file data

    /** {@link VfsTask#read}: on a pipe or socket the future completes when data arrives (0 at end of stream). */
    public CompletableFuture<Integer> read(int fd, byte[] buf, int off, int len) {
        return TaskContext.async(() -> c.io.readAsync(fd, buf, off, len));
    }

    /** {@link VfsTask#pread}. */
    public CompletableFuture<Integer> pread(int fd, byte[] buf, int off, int len, long pos) {
        return TaskContext.now(() -> c.io.pread(fd, buf, off, len, pos));
    }

    /** {@link VfsTask#readv}; on a stream, one of the instance's threads waits for the data. */
    public CompletableFuture<Long> readv(int fd, byte[][] iov) {
        return stream(fd) ? c.parked(() -> c.io.readv(fd, iov)) : TaskContext.now(() -> c.io.readv(fd, iov));
    }

    /** {@link VfsTask#write(int, byte[], int, int)}: on a pipe the future completes when every byte is buffered. */
    public CompletableFuture<Integer> write(int fd, byte[] buf, int off, int len) {
        return TaskContext.async(() -> c.io.writeAsync(fd, buf, off, len));
    }

    /** {@link VfsTask#write(int, byte[])}. */
    public CompletableFuture<Integer> write(int fd, byte[] buf) {
        return write(fd, buf, 0, buf == null ? -1 : buf.length);
    }

    /** {@link VfsTask#pwrite}. */
    public CompletableFuture<Integer> pwrite(int fd, byte[] buf, int off, int len, long pos) {
        return TaskContext.now(() -> c.io.pwrite(fd, buf, off, len, pos));
    }

    /** {@link VfsTask#writev}; on a stream, one of the instance's threads waits for room. */
    public CompletableFuture<Long> writev(int fd, byte[][] iov) {
        return stream(fd) ? c.parked(() -> c.io.writev(fd, iov)) : TaskContext.now(() -> c.io.writev(fd, iov));
    }

    private boolean stream(int fd) {
        try {
            return c.io.isStream(fd);
        } catch (VfsException e) {
            return false; // the call itself reports the bad descriptor
        }
    }

    /** {@link VfsTask#ftruncate}. */
    public CompletableFuture<Void> ftruncate(int fd, long length) {
        return TaskContext.now(() -> {
            c.io.ftruncate(fd, length);
            return null;
        });
    }

    /** {@link VfsTask#truncate}. */
    public CompletableFuture<Void> truncate(CharSequence path, long length) {
        return TaskContext.now(() -> {
            c.io.truncate(TaskContext.path(path, Syscall.TRUNCATE), length);
            return null;
        });
    }

    /** {@link VfsTask#fsync}. */
    public CompletableFuture<Void> fsync(int fd) {
        return TaskContext.now(() -> {
            c.io.fsync(fd, false);
            return null;
        });
    }

    /** {@link VfsTask#fdatasync}. */
    public CompletableFuture<Void> fdatasync(int fd) {
        return TaskContext.now(() -> {
            c.io.fsync(fd, true);
            return null;
        });
    }

    /** {@link VfsTask#fallocate}. */
    public CompletableFuture<Void> fallocate(int fd, int mode, long offset, long len) {
        return TaskContext.now(() -> {
            c.io.fallocate(fd, mode, offset, len);
            return null;
        });
    }

    /** {@link VfsTask#poll}: with a timeout, one of the instance's threads waits. */
    public CompletableFuture<int[]> poll(int[] fds, int[] events, long timeoutMillis) {
        return timeoutMillis == 0 ? TaskContext.now(() -> c.io.poll(fds, events, 0))
                : c.parked(() -> c.io.poll(fds, events, timeoutMillis));
    }

    // ---------------------------------------------------------------- advisory locks

    /** {@link VfsTask#flock}: a request that may wait (no {@code LOCK_NB}) waits on one of the instance's threads. */
    public CompletableFuture<Void> flock(int fd, int operation) {
        if ((operation & Flock.LOCK_NB) != 0 || (operation & ~Flock.LOCK_NB) == Flock.LOCK_UN) {
            return TaskContext.now(() -> {
                c.locks.flock(fd, operation);
                return null;
            });
        }
        return c.parked(() -> {
            c.locks.flock(fd, operation);
            return null;
        });
    }

    /** {@link VfsTask#fcntlLock}: {@code F_SETLKW} waits on one of the instance's threads. */
    public CompletableFuture<Flock> fcntlLock(int fd, int cmd, Flock lock) {
        return cmd == Fcntl.F_SETLKW ? c.parked(() -> c.locks.fcntlLock(fd, cmd, lock))
                : TaskContext.now(() -> c.locks.fcntlLock(fd, cmd, lock));
    }

    // ---------------------------------------------------------------- pipes and sockets

    /** {@link VfsTask#pipe}. */
    public CompletableFuture<int[]> pipe() {
        return pipe2(0);
    }

    /** {@link VfsTask#pipe2}. */
    public CompletableFuture<int[]> pipe2(int flags) {
        return TaskContext.async(() -> c.anon.pipe2(flags));
    }

    /** {@link VfsTask#socket}. */
    public CompletableFuture<Integer> socket(int domain, int type, int protocol) {
        return TaskContext.async(() -> c.anon.socket(domain, type, protocol));
    }

    /** {@link VfsTask#socketpair}. */
    public CompletableFuture<int[]> socketpair(int domain, int type, int protocol) {
        return TaskContext.async(() -> c.anon.socketpair(domain, type, protocol));
    }

    /** {@link VfsTask#anonInodeGetFd}. */
    public CompletableFuture<Integer> anonInodeGetFd(String name, StreamFileOperations ops, int flags) {
        return TaskContext.async(() -> c.anon.anonInodeGetFd(name, ops, flags));
    }

    /** {@link VfsTask#eventfd}. */
    public CompletableFuture<Integer> eventfd(long initial, int flags) {
        return TaskContext.async(() -> VfsTask.eventfdAsync(c, initial, flags));
    }

    /** {@link VfsTask#shutdown}. */
    public CompletableFuture<Void> shutdown(int fd, int how) {
        return TaskContext.now(() -> {
            c.anon.shutdown(fd, how);
            return null;
        });
    }

    // ---------------------------------------------------------------- namespace

    /** {@link VfsTask#mkdir}. */
    public CompletableFuture<Void> mkdir(CharSequence path, int mode) {
        return mkdirat(VfsTask.AT_FDCWD, path, mode);
    }

    /** {@link VfsTask#mkdirat}. */
    public CompletableFuture<Void> mkdirat(int dirfd, CharSequence path, int mode) {
        return TaskContext.async(() -> {
            Filename p = TaskContext.path(path, Syscall.MKDIR);
            return Revalidate.retrying(() -> c.ns.mkdirat(dirfd, p, mode));
        });
    }

    /** {@link VfsTask#mknod}. */
    public CompletableFuture<Void> mknod(CharSequence path, int mode, long dev) {
        return mknodat(VfsTask.AT_FDCWD, path, mode, dev);
    }

    /** {@link VfsTask#mknodat}. */
    public CompletableFuture<Void> mknodat(int dirfd, CharSequence path, int mode, long dev) {
        return TaskContext.async(() -> {
            Filename p = TaskContext.path(path, Syscall.MKNOD);
            return Revalidate.retrying(() -> c.ns.mknodat(dirfd, p, mode, dev));
        });
    }

    /** {@link VfsTask#symlink}. */
    public CompletableFuture<Void> symlink(CharSequence target, CharSequence linkpath) {
        return symlinkat(target, VfsTask.AT_FDCWD, linkpath);
    }

    /** {@link VfsTask#symlinkat}. */
    public CompletableFuture<Void> symlinkat(CharSequence target, int newdirfd, CharSequence linkpath) {
        return TaskContext.async(() -> {
            Filename t = TaskContext.path(target, Syscall.SYMLINK);
            Filename l = TaskContext.path(linkpath, Syscall.SYMLINK);
            return Revalidate.retrying(() -> c.ns.symlinkat(t, newdirfd, l));
        });
    }

    /** {@link VfsTask#link}. */
    public CompletableFuture<Void> link(CharSequence oldpath, CharSequence newpath) {
        return linkat(VfsTask.AT_FDCWD, oldpath, VfsTask.AT_FDCWD, newpath, 0);
    }

    /** {@link VfsTask#linkat}. */
    public CompletableFuture<Void> linkat(int olddirfd, CharSequence oldpath, int newdirfd, CharSequence newpath,
                                          int flags) {
        return TaskContext.async(() -> {
            Filename o = TaskContext.path(oldpath, Syscall.LINK);
            Filename n = TaskContext.path(newpath, Syscall.LINK);
            return Revalidate.retrying(() -> c.ns.linkat(olddirfd, o, newdirfd, n, flags));
        });
    }

    /** {@link VfsTask#unlink}. */
    public CompletableFuture<Void> unlink(CharSequence path) {
        return unlinkat(VfsTask.AT_FDCWD, path, 0);
    }

    /** {@link VfsTask#unlinkat}. */
    public CompletableFuture<Void> unlinkat(int dirfd, CharSequence path, int flags) {
        return TaskContext.async(() -> {
            Filename p = TaskContext.path(path,
                    (flags & OpenFlags.AT_REMOVEDIR) != 0 ? Syscall.RMDIR : Syscall.UNLINK);
            return Revalidate.retrying(() -> c.ns.unlinkat(dirfd, p, flags));
        });
    }

    /** {@link VfsTask#rmdir}. */
    public CompletableFuture<Void> rmdir(CharSequence path) {
        return unlinkat(VfsTask.AT_FDCWD, path, OpenFlags.AT_REMOVEDIR);
    }

    /** {@link VfsTask#rename}. */
    public CompletableFuture<Void> rename(CharSequence oldpath, CharSequence newpath) {
        return renameat2(VfsTask.AT_FDCWD, oldpath, VfsTask.AT_FDCWD, newpath, 0);
    }

    /** {@link VfsTask#renameat2}. */
    public CompletableFuture<Void> renameat2(int olddirfd, CharSequence oldpath, int newdirfd, CharSequence newpath,
                                             int flags) {
        return TaskContext.async(() -> {
            Filename o = TaskContext.path(oldpath, Syscall.RENAME);
            Filename n = TaskContext.path(newpath, Syscall.RENAME);
            return Revalidate.retrying(() -> c.ns.renameat2(olddirfd, o, newdirfd, n, flags));
        });
    }

    /** {@link VfsTask#readlink}. */
    public CompletableFuture<String> readlink(CharSequence path) {
        return readlinkat(VfsTask.AT_FDCWD, path);
    }

    /** {@link VfsTask#readlinkat}. */
    public CompletableFuture<String> readlinkat(int dirfd, CharSequence path) {
        return TaskContext.now(() -> PathNames.toExternal(
                c.attrs.readlinkat(dirfd, TaskContext.path(path, Syscall.READLINK))));
    }

    // ---------------------------------------------------------------- attributes

    /** {@link VfsTask#stat}. */
    public CompletableFuture<Stat> stat(CharSequence path) {
        return fstatat(VfsTask.AT_FDCWD, path, 0);
    }

    /** {@link VfsTask#lstat}. */
    public CompletableFuture<Stat> lstat(CharSequence path) {
        return fstatat(VfsTask.AT_FDCWD, path, OpenFlags.AT_SYMLINK_NOFOLLOW);
    }

    /** {@link VfsTask#fstatat}. */
    public CompletableFuture<Stat> fstatat(int dirfd, CharSequence path, int flags) {
        return TaskContext.now(() -> c.attrs.fstatat(dirfd, TaskContext.path(path, Syscall.STAT), flags));
    }

    /** {@link VfsTask#fstat}. */
    public CompletableFuture<Stat> fstat(int fd) {
        return TaskContext.now(() -> AttrCalls.stat(c.fget(fd, Syscall.FSTAT).inode()));
    }

    /** {@link VfsTask#chmod}. */
    public CompletableFuture<Void> chmod(CharSequence path, int mode) {
        return fchmodat(VfsTask.AT_FDCWD, path, mode, 0);
    }

    /** {@link VfsTask#fchmodat}. */
    public CompletableFuture<Void> fchmodat(int dirfd, CharSequence path, int mode, int flags) {
        return TaskContext.async(() -> c.attrs.fchmodat(dirfd, TaskContext.path(path, Syscall.CHMOD), mode, flags));
    }

    /** {@link VfsTask#fchmod}. */
    public CompletableFuture<Void> fchmod(int fd, int mode) {
        return TaskContext.async(() -> VfsTask.fchmod(c, fd, mode));
    }

    /** {@link VfsTask#fchown}. */
    public CompletableFuture<Void> fchown(int fd, int uid, int gid) {
        return TaskContext.async(() -> VfsTask.fchown(c, fd, uid, gid));
    }

    /** {@link VfsTask#chown}. */
    public CompletableFuture<Void> chown(CharSequence path, int uid, int gid) {
        return fchownat(VfsTask.AT_FDCWD, path, uid, gid, 0);
    }

    /** {@link VfsTask#lchown}. */
    public CompletableFuture<Void> lchown(CharSequence path, int uid, int gid) {
        return fchownat(VfsTask.AT_FDCWD, path, uid, gid, OpenFlags.AT_SYMLINK_NOFOLLOW);
    }

    /** {@link VfsTask#fchownat}. */
    public CompletableFuture<Void> fchownat(int dirfd, CharSequence path, int uid, int gid, int flags) {
        return TaskContext.async(() -> c.attrs.fchownat(dirfd, TaskContext.path(path, Syscall.CHOWN), uid, gid,
                flags));
    }

    /** {@link VfsTask#utimensat}. */
    public CompletableFuture<Void> utimensat(int dirfd, CharSequence path, Timespec atime, Timespec mtime, int flags) {
        return TaskContext.async(() -> c.attrs.utimensat(dirfd, TaskContext.pathOrNull(path, Syscall.UTIMENSAT),
                atime, mtime, flags));
    }

    /** {@link VfsTask#access}. */
    public CompletableFuture<Void> access(CharSequence path, int mode) {
        return faccessat(VfsTask.AT_FDCWD, path, mode, 0);
    }

    /** {@link VfsTask#faccessat}. */
    public CompletableFuture<Void> faccessat(int dirfd, CharSequence path, int mode, int flags) {
        return TaskContext.now(() -> {
            c.attrs.faccessat(dirfd, TaskContext.path(path, Syscall.ACCESS), mode, flags);
            return null;
        });
    }

    /** {@link VfsTask#statfs}. */
    public CompletableFuture<StatFs> statfs(CharSequence path) {
        return TaskContext.now(() -> c.attrs.statfs(c.attrs.resolve(VfsTask.AT_FDCWD,
                TaskContext.path(path, Syscall.STATFS), Syscall.STATFS, 0, 0)));
    }

    /** {@link VfsTask#fstatfs}. */
    public CompletableFuture<StatFs> fstatfs(int fd) {
        return TaskContext.now(() -> c.attrs.statfs(c.fdPath(fd, Syscall.FSTATFS)));
    }

    // ---------------------------------------------------------------- the task

    /** {@link VfsTask#umask}. */
    public CompletableFuture<Integer> umask(int mask) {
        return TaskContext.now(() -> c.setUmask(mask));
    }

    /** {@link VfsTask#chdir}. */
    public CompletableFuture<Void> chdir(CharSequence path) {
        return TaskContext.now(() -> {
            c.task.chdir(TaskContext.path(path, Syscall.CHDIR));
            return null;
        });
    }

    /** {@link VfsTask#fchdir}. */
    public CompletableFuture<Void> fchdir(int fd) {
        return TaskContext.now(() -> {
            c.task.fchdir(fd);
            return null;
        });
    }

    /** {@link VfsTask#getcwd}. */
    public CompletableFuture<String> getcwd() {
        return TaskContext.now(c.task::getcwd);
    }

    /** {@link VfsTask#mount}. */
    public CompletableFuture<Void> mount(CharSequence source, CharSequence target, String fstype, long flags,
                                         String data) {
        return TaskContext.async(() -> c.task.mount(TaskContext.pathOrNull(source, Syscall.MOUNT),
                TaskContext.path(target, Syscall.MOUNT), fstype, flags, data));
    }

    /** {@link VfsTask#umount}. */
    public CompletableFuture<Void> umount(CharSequence target) {
        return umount2(target, 0);
    }

    /** {@link VfsTask#umount2}. */
    public CompletableFuture<Void> umount2(CharSequence target, int flags) {
        return TaskContext.now(() -> {
            c.task.umount2(TaskContext.path(target, Syscall.UMOUNT), flags);
            return null;
        });
    }

    // ---------------------------------------------------------------- descriptors

    /** {@link VfsTask#dup}. */
    public CompletableFuture<Integer> dup(int oldfd) {
        return TaskContext.async(() -> c.fds.dup(oldfd));
    }

    /** {@link VfsTask#dup2}. */
    public CompletableFuture<Integer> dup2(int oldfd, int newfd) {
        return TaskContext.async(() -> c.fds.dup3(oldfd, newfd, 0, false));
    }

    /** {@link VfsTask#dup3}. */
    public CompletableFuture<Integer> dup3(int oldfd, int newfd, int flags) {
        return TaskContext.async(() -> c.fds.dup3(oldfd, newfd, flags, true));
    }

    /** {@link VfsTask#fcntl}. */
    public CompletableFuture<Integer> fcntl(int fd, int cmd, long arg) {
        return TaskContext.async(() -> c.fds.fcntl(fd, cmd, arg));
    }

    /** {@link VfsTask#closeRange}. */
    public CompletableFuture<Void> closeRange(int first, int last, int flags) {
        return TaskContext.async(() -> c.fds.closeRange(first, last, flags).thenApply(n -> null));
    }

    /** Returns the task's process id ({@link VfsTask#pid()}). */
    public int pid() {
        return c.pid();
    }

    /** Returns the task's credentials ({@link VfsTask#cred()}). */
    public Credentials cred() {
        return c.cred();
    }
}
