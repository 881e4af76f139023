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
 * The asynchronous view of a {@link VfsTask} ({@link VfsTask#async()}): the same task, the same
 * calls with the same arguments, each answering with a {@link CompletableFuture} that completes
 * with what the blocking call returns, or exceptionally with the {@link VfsException} it throws.
 * Semantics, errors and Javadoc are the blocking call's.
 *
 * <p>No call blocks its caller. Calls that change the namespace or the descriptor table complete
 * when the owning actor answers (often before they return: the actor runs on the caller's thread
 * when it is idle). Calls that only read complete at once. Reads and writes of pipes and sockets,
 * and the open of a FIFO, complete when the other side acts, with no thread waiting. Calls that can
 * only wait by parking a thread ({@code F_SETLKW}, a blocking {@code flock}, {@code poll} with a
 * timeout, {@code readv}/{@code writev} of a stream) park one of the instance's pool threads
 * instead of the caller's.
 *
 * <p><b>Failures and their stack traces.</b> A future fails with the {@link VfsException} the
 * blocking call would throw, naming the same call and paths. That exception has no stack trace of
 * its own: {@code getStackTrace()} is empty, whatever {@code seqvfs.errors.stack-traces} says
 * ({@link #readdir} excepted). It is made where the call's work ends, on an actor's thread, a pool
 * thread or the thread of another task whose write completed a pending read, whose stack says
 * nothing about the caller; taking the caller's stack at every call would cost a stack walk per
 * call. The trace that points at the caller's code is the wrapper's: {@code get()} throws an {@code
 * ExecutionException}, and {@code join()} a {@code CompletionException}, made on the thread that
 * waits, with the {@code VfsException} as its cause. A dependent stage ({@code thenApply}, {@code
 * whenComplete}) sees the {@code VfsException} itself, or wrapped in a {@code CompletionException}
 * made where the stage ran.
 *
 * <p><b>Cancellation and interrupts.</b> Interrupting the thread that made a call does nothing to
 * the call, which waits on no thread of the caller's. Completing the future exceptionally ({@code
 * cancel}, {@code orTimeout}) completes it at once; it withdraws a pending {@link #openat open}.
 * Any other call it does not withdraw: a pending read of a pipe or socket still takes the bytes
 * that come, a pending write still writes, a lock request already running on a pool thread still
 * takes its lock when it is free (a caller that gave up on one unlocks it).
 *
 * <p><b>Closing.</b> {@link SeqVfs#close()} fails every future still pending with {@code EIO}
 * naming its call, on the closing thread (dependent stages run there), and ends the pool threads.
 *
 * <p>Thread-safe, as the task is. Every public call of {@link VfsTask} but its lifecycle ({@code
 * fork}, {@code newThread}, {@code exec}, {@code close}) has its twin here, by name and parameters;
 * a test fails the build if one is missing.
 */
public final class AsyncVfsTask {
    private final TaskContext c;

    AsyncVfsTask(TaskContext c) {
        this.c = c;
    }

    // ---------------------------------------------------------------- open, close

    /**
     * {@link VfsTask#open(CharSequence, int, int)}; cancelling the future withdraws the open as
     * {@link #openat} says.
     *
     * @param path the path
     * @param flags access mode and flags
     * @param mode permission bits for a created file
     * @return a future of the descriptor
     */
    public CompletableFuture<Integer> open(CharSequence path, int flags, int mode) {
        return openat(VfsTask.AT_FDCWD, path, flags, mode);
    }

    /**
     * {@link VfsTask#open(CharSequence, int)}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param flags {@code O_*} flags ({@link OpenFlags}), without {@code O_CREAT} or {@code
     *     O_TMPFILE}
     * @return a future of the new descriptor, the lowest free one
     */
    public CompletableFuture<Integer> open(CharSequence path, int flags) {
        return openat(VfsTask.AT_FDCWD, path, flags, 0);
    }

    /**
     * {@link VfsTask#openat}. Opening a FIFO that must wait for the other side ({@code fifo(7)})
     * blocks no thread: the future completes when the other side opens.
     *
     * <p>Cancelling the returned future ({@code cancel}, or {@code completeExceptionally}, as
     * {@code orTimeout} does) withdraws the open if its descriptor is not installed yet: {@code
     * cancel} then returns {@code true}, no descriptor is ever installed for this call, and a FIFO
     * open waiting for its partner stops counting as a reader or writer (a later {@code
     * O_WRONLY|O_NONBLOCK} open with no other reader fails with {@code ENXIO} again) and holds
     * nothing (the FIFO's pipe is released if nobody else has it open). A file that {@code O_CREAT}
     * already created stays. A cancel that loses the race with the install returns {@code false}
     * and leaves the future completed normally with the descriptor: the caller owns it and must
     * close it. Either way the future is done when {@code cancel} returns. Thread-safe; {@code
     * cancel} may spin for the few instructions the descriptor table's actor takes to publish a
     * descriptor it has claimed, and never blocks otherwise.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param flags {@code O_*} flags ({@link OpenFlags})
     * @param mode permission bits of a created file, before the umask
     * @return a future of the new descriptor, the lowest free one
     */
    public CompletableFuture<Integer> openat(int dirfd, CharSequence path, int flags, int mode) {
        Filename p;
        try {
            p = TaskContext.path(path, Syscall.OPEN);
        } catch (VfsException e) {
            return c.answer(CompletableFuture.failedFuture(e), Syscall.OPEN, path, null);
        }
        OpenFuture out = new OpenFuture(x -> c.labelAny(x, Syscall.OPEN, path, null));
        out.follow(Revalidate.retrying(() -> c.opens.openat(dirfd, p, flags, mode, out)));
        if (!out.isDone()) {
            // the close withdraws it (completeExceptionally), as a cancellation would
            c.failAtShutdown(out, Syscall.OPEN, path, null);
        }
        return out;
    }

    /**
     * {@link VfsTask#reopen}: cancellable as {@link #openat} is.
     *
     * @param fd the descriptor whose inode to open
     * @param flags {@code O_*} flags ({@link OpenFlags}); {@code O_CREAT} opens the existing inode
     * @return a future of the new descriptor, the lowest free one
     */
    public CompletableFuture<Integer> reopen(int fd, int flags) {
        OpenFuture out = new OpenFuture(x -> c.labelAny(x, Syscall.OPEN, null, null));
        out.follow(Revalidate.retrying(() -> c.opens.reopen(fd, flags, out)));
        if (!out.isDone()) {
            c.failAtShutdown(out, Syscall.OPEN, null, null);
        }
        return out;
    }

    /**
     * {@link VfsTask#close}.
     *
     * @param fd the descriptor
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> close(int fd) {
        return c.answer(TaskContext.async(() -> c.opens.close(fd)), Syscall.CLOSE, null, null);
    }

    /**
     * {@link VfsTask#getdents}.
     *
     * @param fd a descriptor open on a directory
     * @param max the most entries to return
     * @return a future of the entries; empty at the end
     */
    public CompletableFuture<List<DirEntry>> getdents(int fd, int max) {
        return c.answer(
                TaskContext.now(() -> c.opens.getdents(fd, max)), Syscall.GETDENTS, null, null);
    }

    /**
     * {@link VfsTask#lseek}.
     *
     * @param fd the descriptor
     * @param offset the offset in bytes, relative to {@code whence}
     * @param whence {@code SEEK_SET}, {@code SEEK_CUR}, {@code SEEK_END}, {@code SEEK_DATA} or
     *     {@code SEEK_HOLE}
     * @return a future of the new offset in bytes (or the cookie)
     */
    public CompletableFuture<Long> lseek(int fd, long offset, int whence) {
        return c.answer(
                TaskContext.now(() -> c.opens.lseek(fd, offset, whence)),
                Syscall.LSEEK,
                null,
                null);
    }

    /**
     * {@link VfsTask#readdir}: completes once the whole listing is read. Unlike the other calls it
     * runs on the calling thread, as the blocking {@code readdir} does (its {@code open} and {@code
     * close} wait for the descriptor table's actor there), so it returns a completed future and its
     * failure carries the caller's stack.
     *
     * @param path the directory's path
     * @return a future of the entries, in the directory's order
     */
    public CompletableFuture<List<DirEntry>> readdir(CharSequence path) {
        return TaskContext.now(() -> new VfsTask(c).readdir(path));
    }

    // ---------------------------------------------------------------- file data

    /**
     * {@link VfsTask#read}: on a pipe or socket the future completes when data arrives (0 at end of
     * stream).
     *
     * @param fd the descriptor
     * @param buf the buffer the bytes are read into
     * @param off the index in {@code buf} of the first byte
     * @param len the most bytes to read
     * @return a future of the bytes read, 0 at end of file
     */
    public CompletableFuture<Integer> read(int fd, byte[] buf, int off, int len) {
        return c.answer(
                TaskContext.async(() -> c.io.readAsync(fd, buf, off, len)),
                Syscall.READ,
                null,
                null);
    }

    /**
     * {@link VfsTask#pread}.
     *
     * @param fd the descriptor
     * @param buf the buffer the bytes are read into
     * @param off the index in {@code buf} of the first byte
     * @param len the most bytes to read
     * @param pos the file offset to read at, in bytes
     * @return a future of the bytes read, 0 at end of file
     */
    public CompletableFuture<Integer> pread(int fd, byte[] buf, int off, int len, long pos) {
        return c.answer(
                TaskContext.now(() -> c.io.pread(fd, buf, off, len, pos)),
                Syscall.PREAD,
                null,
                null);
    }

    /**
     * {@link VfsTask#pread(int, java.nio.ByteBuffer, long)}: into a buffer from its position, which
     * it advances; not thread-safe for one buffer.
     *
     * @param fd the descriptor
     * @param dst the buffer, filled from its position
     * @param pos the file offset to read at, in bytes
     * @return a future of the bytes read, 0 at end of file
     */
    public CompletableFuture<Integer> pread(int fd, java.nio.ByteBuffer dst, long pos) {
        return c.answer(TaskContext.now(() -> c.io.pread(fd, dst, pos)), Syscall.PREAD, null, null);
    }

    /**
     * {@link VfsTask#readv}; on a stream, one of the instance's threads waits for the data.
     *
     * @param fd the descriptor
     * @param iov the buffers to fill, in order
     * @return a future of the bytes read in all, 0 at end of file
     */
    public CompletableFuture<Long> readv(int fd, byte[][] iov) {
        return c.answer(
                stream(fd)
                        ? c.parked(() -> c.io.readv(fd, iov))
                        : TaskContext.now(() -> c.io.readv(fd, iov)),
                Syscall.READV,
                null,
                null);
    }

    /**
     * {@link VfsTask#write(int, byte[], int, int)}: on a pipe the future completes when every byte
     * is buffered.
     *
     * @param fd the descriptor
     * @param buf the buffer holding the bytes
     * @param off the index in {@code buf} of the first byte
     * @param len the number of bytes to write
     * @return a future of {@code len}, or fewer when the file system fills (the pages that fit are
     *     written, as tmpfs does) or an {@code O_APPEND} write would cross the maximum file size
     *     ({@code LLONG_MAX})
     */
    public CompletableFuture<Integer> write(int fd, byte[] buf, int off, int len) {
        return c.answer(
                TaskContext.async(() -> c.io.writeAsync(fd, buf, off, len)),
                Syscall.WRITE,
                null,
                null);
    }

    /**
     * {@link VfsTask#write(int, byte[])}.
     *
     * @param fd the descriptor
     * @param buf the bytes to write
     * @return a future of the bytes written, as {@link #write(int, byte[], int, int)}
     */
    public CompletableFuture<Integer> write(int fd, byte[] buf) {
        return write(fd, buf, 0, buf == null ? -1 : buf.length);
    }

    /**
     * {@link VfsTask#pwrite}.
     *
     * @param fd the descriptor
     * @param buf the buffer holding the bytes
     * @param off the index in {@code buf} of the first byte
     * @param len the number of bytes to write
     * @param pos the file offset to write at, in bytes
     * @return a future of the bytes written, as {@link #write(int, byte[], int, int)}
     */
    public CompletableFuture<Integer> pwrite(int fd, byte[] buf, int off, int len, long pos) {
        return c.answer(
                TaskContext.now(() -> c.io.pwrite(fd, buf, off, len, pos)),
                Syscall.PWRITE,
                null,
                null);
    }

    /**
     * {@link VfsTask#writev}; on a stream, one of the instance's threads waits for room.
     *
     * @param fd the descriptor
     * @param iov the buffers to write, in order
     * @return a future of the bytes written in all
     */
    public CompletableFuture<Long> writev(int fd, byte[][] iov) {
        return c.answer(
                stream(fd)
                        ? c.parked(() -> c.io.writev(fd, iov))
                        : TaskContext.now(() -> c.io.writev(fd, iov)),
                Syscall.WRITEV,
                null,
                null);
    }

    private boolean stream(int fd) {
        try {
            return c.io.isStream(fd);
        } catch (VfsException e) {
            return false; // the call itself reports the bad descriptor
        }
    }

    /**
     * {@link VfsTask#ftruncate}.
     *
     * @param fd the descriptor
     * @param length the new size in bytes
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> ftruncate(int fd, long length) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.io.ftruncate(fd, length);
                            return null;
                        }),
                Syscall.FTRUNCATE,
                null,
                null);
    }

    /**
     * {@link VfsTask#truncate}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param length the new size in bytes
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> truncate(CharSequence path, long length) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.io.truncate(TaskContext.path(path, Syscall.TRUNCATE), length);
                            return null;
                        }),
                Syscall.TRUNCATE,
                path,
                null);
    }

    /**
     * {@link VfsTask#fsync}.
     *
     * @param fd the descriptor
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fsync(int fd) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.io.fsync(fd, false);
                            return null;
                        }),
                Syscall.FSYNC,
                null,
                null);
    }

    /**
     * {@link VfsTask#syncfs}.
     *
     * @param fd the descriptor
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> syncfs(int fd) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.io.syncfs(fd);
                            return null;
                        }),
                Syscall.SYNCFS,
                null,
                null);
    }

    /**
     * {@link VfsTask#sync}.
     *
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> sync() {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.io.sync();
                            return null;
                        }),
                Syscall.SYNC,
                null,
                null);
    }

    /**
     * {@link VfsTask#fdatasync}.
     *
     * @param fd the descriptor
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fdatasync(int fd) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.io.fsync(fd, true);
                            return null;
                        }),
                Syscall.FDATASYNC,
                null,
                null);
    }

    /**
     * {@link VfsTask#fallocate}.
     *
     * @param fd the descriptor
     * @param mode 0, {@code FALLOC_FL_KEEP_SIZE}, or {@code FALLOC_FL_PUNCH_HOLE |
     *     FALLOC_FL_KEEP_SIZE}
     * @param offset the first byte of the range
     * @param len the length of the range in bytes
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fallocate(int fd, int mode, long offset, long len) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.io.fallocate(fd, mode, offset, len);
                            return null;
                        }),
                Syscall.FALLOCATE,
                null,
                null);
    }

    /**
     * {@link VfsTask#poll}: with a timeout, one of the instance's threads waits.
     *
     * @param fds the descriptors; a negative one is skipped
     * @param events the {@code Poll} events asked for each descriptor
     * @param timeoutMillis the longest wait in milliseconds; 0 none, negative no limit
     * @return a future of the events that hold for each descriptor (poll(2)'s revents), in order
     */
    public CompletableFuture<int[]> poll(int[] fds, int[] events, long timeoutMillis) {
        return c.answer(
                timeoutMillis == 0
                        ? TaskContext.now(() -> c.io.poll(fds, events, 0))
                        : c.parked(() -> c.io.poll(fds, events, timeoutMillis)),
                Syscall.POLL,
                null,
                null);
    }

    // ---------------------------------------------------------------- advisory locks

    /**
     * {@link VfsTask#flock}: a request that may wait (no {@code LOCK_NB}) waits on one of the
     * instance's threads.
     *
     * @param fd the descriptor
     * @param operation {@code LOCK_SH}, {@code LOCK_EX} or {@code LOCK_UN}, optionally with {@code
     *     LOCK_NB}
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> flock(int fd, int operation) {
        if ((operation & Flock.LOCK_NB) != 0 || (operation & ~Flock.LOCK_NB) == Flock.LOCK_UN) {
            return c.answer(
                    TaskContext.now(
                            () -> {
                                c.locks.flock(fd, operation);
                                return null;
                            }),
                    Syscall.FLOCK,
                    null,
                    null);
        }
        return c.answer(
                c.parked(
                        () -> {
                            c.locks.flock(fd, operation);
                            return null;
                        }),
                Syscall.FLOCK,
                null,
                null);
    }

    /**
     * {@link VfsTask#fcntlLock}: {@code F_SETLKW} waits on one of the instance's threads.
     *
     * @param fd the descriptor
     * @param cmd {@code F_GETLK}, {@code F_SETLK} or {@code F_SETLKW}
     * @param lock the lock asked for
     * @return a future of the lock: for {@code F_GETLK} the conflicting one, or {@code lock} with
     *     type {@code F_UNLCK}; for the others {@code lock}
     */
    public CompletableFuture<Flock> fcntlLock(int fd, int cmd, Flock lock) {
        return c.answer(
                cmd == Fcntl.F_SETLKW
                        ? c.parked(() -> c.locks.fcntlLock(fd, cmd, lock))
                        : TaskContext.now(() -> c.locks.fcntlLock(fd, cmd, lock)),
                Syscall.FCNTL,
                null,
                null);
    }

    /**
     * {@link VfsTask#fcntlLock(int, int, Flock, LockOwner)}: {@code F_SETLKW} waits on one of the
     * instance's threads.
     *
     * @param fd the descriptor
     * @param cmd {@code F_GETLK}, {@code F_SETLK} or {@code F_SETLKW}
     * @param lock the lock asked for; its {@code pid} is recorded as the holder's
     * @param owner whose lock it is
     * @return a future of the lock: for {@code F_GETLK} the conflicting one, or {@code lock} with
     *     type {@code F_UNLCK}; for the others {@code lock}
     */
    public CompletableFuture<Flock> fcntlLock(int fd, int cmd, Flock lock, LockOwner owner) {
        return c.answer(
                cmd == Fcntl.F_SETLKW
                        ? c.parked(() -> c.locks.fcntlLock(fd, cmd, lock, owner))
                        : TaskContext.now(() -> c.locks.fcntlLock(fd, cmd, lock, owner)),
                Syscall.FCNTL,
                null,
                null);
    }

    // ---------------------------------------------------------------- pipes and sockets

    /**
     * {@link VfsTask#pipe}.
     *
     * @return a future of the read end's and the write end's descriptors
     */
    public CompletableFuture<int[]> pipe() {
        return c.answer(TaskContext.async(() -> c.anon.pipe2(0)), Syscall.PIPE, null, null);
    }

    /**
     * {@link VfsTask#pipe2}.
     *
     * @param flags {@code O_NONBLOCK}, {@code O_CLOEXEC} and {@code O_DIRECT}, or 0
     * @return a future of the read end's and the write end's descriptors
     */
    public CompletableFuture<int[]> pipe2(int flags) {
        return c.answer(TaskContext.async(() -> c.anon.pipe2(flags)), Syscall.PIPE2, null, null);
    }

    /**
     * {@link VfsTask#socket}.
     *
     * @param domain the address family ({@code AF_UNIX}, {@code AF_INET}, {@code AF_INET6})
     * @param type the socket type, with {@code SOCK_NONBLOCK} and {@code SOCK_CLOEXEC} or-ed in
     * @param protocol the protocol, or 0 for the type's default
     * @return a future of the new descriptor
     */
    public CompletableFuture<Integer> socket(int domain, int type, int protocol) {
        return c.answer(
                TaskContext.async(() -> c.anon.socket(domain, type, protocol)),
                Syscall.SOCKET,
                null,
                null);
    }

    /**
     * {@link VfsTask#socketpair}.
     *
     * @param domain the address family; only {@code AF_UNIX} makes a pair
     * @param type the socket type, with {@code SOCK_NONBLOCK} and {@code SOCK_CLOEXEC} or-ed in
     * @param protocol the protocol, or 0 for the type's default
     * @return a future of the two sockets' descriptors
     */
    public CompletableFuture<int[]> socketpair(int domain, int type, int protocol) {
        return c.answer(
                TaskContext.async(() -> c.anon.socketpair(domain, type, protocol)),
                Syscall.SOCKETPAIR,
                null,
                null);
    }

    /**
     * {@link VfsTask#anonInodeGetFd}.
     *
     * @param name the name shown as {@code anon_inode:[name]}
     * @param ops the file's read and write operations
     * @param flags an access mode, {@code O_NONBLOCK} and {@code O_CLOEXEC}
     * @return a future of the new descriptor
     */
    public CompletableFuture<Integer> anonInodeGetFd(
            String name, StreamFileOperations ops, int flags) {
        return c.answer(
                TaskContext.async(() -> c.anon.anonInodeGetFd(name, ops, flags)),
                Syscall.ANON_INODE_GETFD,
                null,
                null);
    }

    /**
     * {@link VfsTask#eventfd}.
     *
     * @param initial the counter's first value, an unsigned 32-bit int
     * @param flags {@code EFD_SEMAPHORE}, {@code O_NONBLOCK} and {@code O_CLOEXEC}, or 0
     * @return a future of the new descriptor
     */
    public CompletableFuture<Integer> eventfd(long initial, int flags) {
        return c.answer(
                TaskContext.async(() -> VfsTask.eventfdAsync(c, initial, flags)),
                Syscall.EVENTFD,
                null,
                null);
    }

    /**
     * {@link VfsTask#inotifyInit1}.
     *
     * @param flags {@code IN_NONBLOCK}, {@code IN_CLOEXEC}, or 0
     * @return a future of the new descriptor
     */
    public CompletableFuture<Integer> inotifyInit1(int flags) {
        return c.answer(
                TaskContext.async(() -> c.inotify.init1(flags)), Syscall.INOTIFY_INIT1, null, null);
    }

    /**
     * {@link VfsTask#inotifyAddWatch}.
     *
     * @param fd an inotify descriptor
     * @param path the path; a relative one starts at the working directory
     * @param mask {@code IN_*} events and flags
     * @return a future of the watch descriptor
     */
    public CompletableFuture<Integer> inotifyAddWatch(int fd, CharSequence path, int mask) {
        return c.answer(
                TaskContext.now(
                        () ->
                                c.inotify.addWatch(
                                        fd,
                                        TaskContext.path(path, Syscall.INOTIFY_ADD_WATCH),
                                        mask)),
                Syscall.INOTIFY_ADD_WATCH,
                path,
                null);
    }

    /**
     * {@link VfsTask#inotifyRmWatch}.
     *
     * @param fd an inotify descriptor
     * @param wd a watch descriptor of that instance
     * @return a future completed when the watch is removed
     */
    public CompletableFuture<Void> inotifyRmWatch(int fd, int wd) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.inotify.rmWatch(fd, wd);
                            return null;
                        }),
                Syscall.INOTIFY_RM_WATCH,
                null,
                null);
    }

    /**
     * {@link VfsTask#shutdown}.
     *
     * @param fd a socket's descriptor
     * @param how {@code SHUT_RD}, {@code SHUT_WR} or {@code SHUT_RDWR}
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> shutdown(int fd, int how) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.anon.shutdown(fd, how);
                            return null;
                        }),
                Syscall.SHUTDOWN,
                null,
                null);
    }

    // ---------------------------------------------------------------- namespace

    /**
     * {@link VfsTask#mkdir}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param mode permission bits, before the umask
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> mkdir(CharSequence path, int mode) {
        return mkdirat(VfsTask.AT_FDCWD, path, mode);
    }

    /**
     * {@link VfsTask#mkdirat}.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param mode permission bits, before the umask
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> mkdirat(int dirfd, CharSequence path, int mode) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, Syscall.MKDIR);
                            return Revalidate.retrying(() -> c.ns.mkdirat(dirfd, p, mode));
                        }),
                Syscall.MKDIR,
                path,
                null);
    }

    /**
     * {@link VfsTask#mknod}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param mode type and permission bits
     * @param dev device number for {@code S_IFCHR}/{@code S_IFBLK}
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> mknod(CharSequence path, int mode, long dev) {
        return mknodat(VfsTask.AT_FDCWD, path, mode, dev);
    }

    /**
     * {@link VfsTask#mknodat}.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param mode type and permission bits
     * @param dev device number for {@code S_IFCHR}/{@code S_IFBLK}
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> mknodat(int dirfd, CharSequence path, int mode, long dev) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, Syscall.MKNOD);
                            return Revalidate.retrying(() -> c.ns.mknodat(dirfd, p, mode, dev));
                        }),
                Syscall.MKNOD,
                path,
                null);
    }

    /**
     * {@link VfsTask#symlink}.
     *
     * @param target the link's contents, stored as given
     * @param linkpath the path of the new link
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> symlink(CharSequence target, CharSequence linkpath) {
        return symlinkat(target, VfsTask.AT_FDCWD, linkpath);
    }

    /**
     * {@link VfsTask#symlinkat}.
     *
     * @param target the link's contents, stored as given
     * @param newdirfd the directory a relative {@code linkpath} starts from, or {@link
     *     VfsTask#AT_FDCWD}
     * @param linkpath the path of the new link
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> symlinkat(
            CharSequence target, int newdirfd, CharSequence linkpath) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename t = TaskContext.path(target, Syscall.SYMLINK);
                            Filename l = TaskContext.path(linkpath, Syscall.SYMLINK);
                            return Revalidate.retrying(() -> c.ns.symlinkat(t, newdirfd, l));
                        }),
                Syscall.SYMLINK,
                target,
                linkpath);
    }

    /**
     * {@link VfsTask#link}.
     *
     * @param oldpath the existing path
     * @param newpath the new path
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> link(CharSequence oldpath, CharSequence newpath) {
        return linkat(VfsTask.AT_FDCWD, oldpath, VfsTask.AT_FDCWD, newpath, 0);
    }

    /**
     * {@link VfsTask#linkat}.
     *
     * @param olddirfd the directory a relative {@code oldpath} starts from, or {@link
     *     VfsTask#AT_FDCWD}
     * @param oldpath the existing path
     * @param newdirfd the directory a relative {@code newpath} starts from, or {@link
     *     VfsTask#AT_FDCWD}
     * @param newpath the new path
     * @param flags {@code AT_SYMLINK_FOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> linkat(
            int olddirfd, CharSequence oldpath, int newdirfd, CharSequence newpath, int flags) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename o = TaskContext.path(oldpath, Syscall.LINK);
                            Filename n = TaskContext.path(newpath, Syscall.LINK);
                            return Revalidate.retrying(
                                    () -> c.ns.linkat(olddirfd, o, newdirfd, n, flags));
                        }),
                Syscall.LINK,
                oldpath,
                newpath);
    }

    /**
     * {@link VfsTask#unlink}.
     *
     * @param path the path; a relative one starts at the working directory
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> unlink(CharSequence path) {
        return unlinkat(VfsTask.AT_FDCWD, path, 0);
    }

    /**
     * {@link VfsTask#unlinkat}.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param flags {@code AT_REMOVEDIR} to remove a directory, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> unlinkat(int dirfd, CharSequence path, int flags) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p =
                                    TaskContext.path(
                                            path,
                                            (flags & OpenFlags.AT_REMOVEDIR) != 0
                                                    ? Syscall.RMDIR
                                                    : Syscall.UNLINK);
                            return Revalidate.retrying(() -> c.ns.unlinkat(dirfd, p, flags));
                        }),
                (flags & OpenFlags.AT_REMOVEDIR) != 0 ? Syscall.RMDIR : Syscall.UNLINK,
                path,
                null);
    }

    /**
     * {@link VfsTask#rmdir}.
     *
     * @param path the path; a relative one starts at the working directory
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> rmdir(CharSequence path) {
        return unlinkat(VfsTask.AT_FDCWD, path, OpenFlags.AT_REMOVEDIR);
    }

    /**
     * {@link VfsTask#rename}.
     *
     * @param oldpath the path to rename
     * @param newpath its new path
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> rename(CharSequence oldpath, CharSequence newpath) {
        return renameat2(VfsTask.AT_FDCWD, oldpath, VfsTask.AT_FDCWD, newpath, 0);
    }

    /**
     * {@link VfsTask#renameat2}.
     *
     * @param olddirfd the directory a relative {@code oldpath} starts from, or {@link
     *     VfsTask#AT_FDCWD}
     * @param oldpath the path to rename
     * @param newdirfd the directory a relative {@code newpath} starts from, or {@link
     *     VfsTask#AT_FDCWD}
     * @param newpath its new path
     * @param flags {@code RENAME_NOREPLACE}, {@code RENAME_EXCHANGE}, {@code RENAME_WHITEOUT}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> renameat2(
            int olddirfd, CharSequence oldpath, int newdirfd, CharSequence newpath, int flags) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename o = TaskContext.path(oldpath, Syscall.RENAME);
                            Filename n = TaskContext.path(newpath, Syscall.RENAME);
                            return Revalidate.retrying(
                                    () -> c.ns.renameat2(olddirfd, o, newdirfd, n, flags));
                        }),
                Syscall.RENAME,
                oldpath,
                newpath);
    }

    /**
     * {@link VfsTask#readlink}.
     *
     * @param path the symbolic link's path
     * @return a future of the target, as text
     */
    public CompletableFuture<String> readlink(CharSequence path) {
        return readlinkat(VfsTask.AT_FDCWD, path);
    }

    /**
     * {@link VfsTask#readlinkat}.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the symbolic link's path, relative to {@code dirfd} if relative; empty for {@code
     *     dirfd} itself
     * @return a future of the target, as text
     */
    public CompletableFuture<String> readlinkat(int dirfd, CharSequence path) {
        return c.answer(
                TaskContext.now(
                        () ->
                                PathNames.toExternal(
                                        c.attrs.readlinkat(
                                                dirfd, TaskContext.path(path, Syscall.READLINK)))),
                Syscall.READLINK,
                path,
                null);
    }

    // ---------------------------------------------------------------- attributes

    /**
     * {@link VfsTask#stat}.
     *
     * @param path the path; a relative one starts at the working directory
     * @return a future of the attributes of the file
     */
    public CompletableFuture<Stat> stat(CharSequence path) {
        return fstatat(VfsTask.AT_FDCWD, path, 0);
    }

    /**
     * {@link VfsTask#lstat}.
     *
     * @param path the path; a relative one starts at the working directory
     * @return a future of the attributes of the file, or of the link itself
     */
    public CompletableFuture<Stat> lstat(CharSequence path) {
        return fstatat(VfsTask.AT_FDCWD, path, OpenFlags.AT_SYMLINK_NOFOLLOW, Syscall.LSTAT);
    }

    /**
     * {@link VfsTask#fstatat}.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param flags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @return a future of the attributes of the file
     */
    public CompletableFuture<Stat> fstatat(int dirfd, CharSequence path, int flags) {
        return fstatat(dirfd, path, flags, Syscall.STAT);
    }

    private CompletableFuture<Stat> fstatat(int dirfd, CharSequence path, int flags, Syscall op) {
        return c.answer(
                TaskContext.now(() -> c.attrs.fstatat(dirfd, TaskContext.path(path, op), flags)),
                op,
                path,
                null);
    }

    /**
     * {@link VfsTask#fstat}.
     *
     * @param fd the descriptor
     * @return a future of the attributes of the open file's inode
     */
    public CompletableFuture<Stat> fstat(int fd) {
        return c.answer(
                TaskContext.now(() -> AttrCalls.stat(c.fget(fd, Syscall.FSTAT).inode())),
                Syscall.FSTAT,
                null,
                null);
    }

    /**
     * {@link VfsTask#chmod}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param mode the new permission bits ({@code 07777})
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> chmod(CharSequence path, int mode) {
        return fchmodat(VfsTask.AT_FDCWD, path, mode, 0);
    }

    /**
     * {@link VfsTask#fchmodat}.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param mode the new permission bits ({@code 07777})
     * @param flags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fchmodat(int dirfd, CharSequence path, int mode, int flags) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, Syscall.CHMOD);
                            return Revalidate.retrying(
                                    () -> c.attrs.fchmodat(dirfd, p, mode, flags));
                        }),
                Syscall.CHMOD,
                path,
                null);
    }

    /**
     * {@link VfsTask#fchmod}.
     *
     * @param fd the descriptor
     * @param mode the new permission bits ({@code 07777})
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fchmod(int fd, int mode) {
        return c.answer(
                TaskContext.async(() -> VfsTask.fchmod(c, fd, mode)), Syscall.FCHMOD, null, null);
    }

    /**
     * {@link VfsTask#fchown}.
     *
     * @param fd the descriptor
     * @param uid the new owner's user id, or -1 to keep it
     * @param gid the new group id, or -1 to keep it
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fchown(int fd, int uid, int gid) {
        return c.answer(
                TaskContext.async(() -> VfsTask.fchown(c, fd, uid, gid)),
                Syscall.FCHOWN,
                null,
                null);
    }

    /**
     * {@link VfsTask#chown}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param uid the new owner's user id, or -1 to keep it
     * @param gid the new group id, or -1 to keep it
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> chown(CharSequence path, int uid, int gid) {
        return fchownat(VfsTask.AT_FDCWD, path, uid, gid, 0);
    }

    /**
     * {@link VfsTask#lchown}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param uid the new owner's user id, or -1 to keep it
     * @param gid the new group id, or -1 to keep it
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> lchown(CharSequence path, int uid, int gid) {
        return fchownat(
                VfsTask.AT_FDCWD, path, uid, gid, OpenFlags.AT_SYMLINK_NOFOLLOW, Syscall.LCHOWN);
    }

    /**
     * {@link VfsTask#fchownat}.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param uid the new owner's user id, or -1 to keep it
     * @param gid the new group id, or -1 to keep it
     * @param flags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fchownat(
            int dirfd, CharSequence path, int uid, int gid, int flags) {
        return fchownat(dirfd, path, uid, gid, flags, Syscall.CHOWN);
    }

    private CompletableFuture<Void> fchownat(
            int dirfd, CharSequence path, int uid, int gid, int flags, Syscall op) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, op);
                            return Revalidate.retrying(
                                    () -> c.attrs.fchownat(dirfd, p, uid, gid, flags));
                        }),
                op,
                path,
                null);
    }

    /**
     * {@link VfsTask#utimensat}.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the path, relative to {@code dirfd} if relative; {@code null} for {@code dirfd}
     *     itself
     * @param atime the access time, {@code null} for now
     * @param mtime the modification time, {@code null} for now
     * @param flags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> utimensat(
            int dirfd, CharSequence path, Timespec atime, Timespec mtime, int flags) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.pathOrNull(path, Syscall.UTIMENSAT);
                            return Revalidate.retrying(
                                    () -> c.attrs.utimensat(dirfd, p, atime, mtime, flags));
                        }),
                Syscall.UTIMENSAT,
                path,
                null);
    }

    /**
     * {@link VfsTask#access}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param mode {@code F_OK}, or {@code R_OK}, {@code W_OK} and {@code X_OK} or-ed
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> access(CharSequence path, int mode) {
        return faccessat(VfsTask.AT_FDCWD, path, mode, 0);
    }

    /**
     * {@link VfsTask#faccessat}.
     *
     * @param dirfd the directory a relative path starts from, or {@link VfsTask#AT_FDCWD} for the
     *     working directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param mode {@code F_OK}, or {@code R_OK}, {@code W_OK} and {@code X_OK} or-ed
     * @param flags {@code AT_EACCESS}, {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> faccessat(int dirfd, CharSequence path, int mode, int flags) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.attrs.faccessat(
                                    dirfd, TaskContext.path(path, Syscall.ACCESS), mode, flags);
                            return null;
                        }),
                Syscall.ACCESS,
                path,
                null);
    }

    // ---------------------------------------------------------------- extended attributes

    /**
     * {@link VfsTask#setxattr}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     * @param value the value, 0 to 65,536 bytes (copied)
     * @param flags {@link dev.seqvfs.protocol.Xattr#XATTR_CREATE}, {@link
     *     dev.seqvfs.protocol.Xattr#XATTR_REPLACE}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> setxattr(
            CharSequence path, String name, byte[] value, int flags) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, Syscall.SETXATTR);
                            return Revalidate.retrying(
                                    () ->
                                            c.xattrs.set(
                                                    p, true, name, value, flags, Syscall.SETXATTR));
                        }),
                Syscall.SETXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#lsetxattr}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     * @param value the value, 0 to 65,536 bytes (copied)
     * @param flags {@link dev.seqvfs.protocol.Xattr#XATTR_CREATE}, {@link
     *     dev.seqvfs.protocol.Xattr#XATTR_REPLACE}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> lsetxattr(
            CharSequence path, String name, byte[] value, int flags) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, Syscall.LSETXATTR);
                            return Revalidate.retrying(
                                    () ->
                                            c.xattrs.set(
                                                    p,
                                                    false,
                                                    name,
                                                    value,
                                                    flags,
                                                    Syscall.LSETXATTR));
                        }),
                Syscall.LSETXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#fsetxattr}.
     *
     * @param fd the descriptor
     * @param name the full name, namespace prefix included
     * @param value the value, 0 to 65,536 bytes (copied)
     * @param flags {@link dev.seqvfs.protocol.Xattr#XATTR_CREATE}, {@link
     *     dev.seqvfs.protocol.Xattr#XATTR_REPLACE}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fsetxattr(int fd, String name, byte[] value, int flags) {
        return c.answer(
                TaskContext.async(() -> c.xattrs.fset(fd, name, value, flags)),
                Syscall.FSETXATTR,
                null,
                null);
    }

    /**
     * {@link VfsTask#getxattr}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     * @return a future of the value (a new array)
     */
    public CompletableFuture<byte[]> getxattr(CharSequence path, String name) {
        return c.answer(
                TaskContext.now(
                        () ->
                                c.xattrs.get(
                                        TaskContext.path(path, Syscall.GETXATTR),
                                        true,
                                        name,
                                        Syscall.GETXATTR)),
                Syscall.GETXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#lgetxattr}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     * @return a future of the value (a new array)
     */
    public CompletableFuture<byte[]> lgetxattr(CharSequence path, String name) {
        return c.answer(
                TaskContext.now(
                        () ->
                                c.xattrs.get(
                                        TaskContext.path(path, Syscall.LGETXATTR),
                                        false,
                                        name,
                                        Syscall.LGETXATTR)),
                Syscall.LGETXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#fgetxattr}.
     *
     * @param fd the descriptor
     * @param name the full name, namespace prefix included
     * @return a future of the value (a new array)
     */
    public CompletableFuture<byte[]> fgetxattr(int fd, String name) {
        return c.answer(
                TaskContext.now(() -> c.xattrs.fget(fd, name)), Syscall.FGETXATTR, null, null);
    }

    /**
     * {@link VfsTask#listxattr}.
     *
     * @param path the path; a relative one starts at the working directory
     * @return a future of the names (immutable)
     */
    public CompletableFuture<List<String>> listxattr(CharSequence path) {
        return c.answer(
                TaskContext.now(
                        () ->
                                c.xattrs.list(
                                        TaskContext.path(path, Syscall.LISTXATTR),
                                        true,
                                        Syscall.LISTXATTR)),
                Syscall.LISTXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#llistxattr}.
     *
     * @param path the path; a relative one starts at the working directory
     * @return a future of the names (immutable)
     */
    public CompletableFuture<List<String>> llistxattr(CharSequence path) {
        return c.answer(
                TaskContext.now(
                        () ->
                                c.xattrs.list(
                                        TaskContext.path(path, Syscall.LLISTXATTR),
                                        false,
                                        Syscall.LLISTXATTR)),
                Syscall.LLISTXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#flistxattr}.
     *
     * @param fd the descriptor
     * @return a future of the names (immutable)
     */
    public CompletableFuture<List<String>> flistxattr(int fd) {
        return c.answer(TaskContext.now(() -> c.xattrs.flist(fd)), Syscall.FLISTXATTR, null, null);
    }

    /**
     * {@link VfsTask#removexattr}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> removexattr(CharSequence path, String name) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, Syscall.REMOVEXATTR);
                            return Revalidate.retrying(
                                    () -> c.xattrs.remove(p, true, name, Syscall.REMOVEXATTR));
                        }),
                Syscall.REMOVEXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#lremovexattr}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> lremovexattr(CharSequence path, String name) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, Syscall.LREMOVEXATTR);
                            return Revalidate.retrying(
                                    () -> c.xattrs.remove(p, false, name, Syscall.LREMOVEXATTR));
                        }),
                Syscall.LREMOVEXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#fremovexattr}.
     *
     * @param fd the descriptor
     * @param name the full name, namespace prefix included
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fremovexattr(int fd, String name) {
        return c.answer(
                TaskContext.async(() -> c.xattrs.fremove(fd, name)),
                Syscall.FREMOVEXATTR,
                null,
                null);
    }

    /**
     * {@link VfsTask#statfs}.
     *
     * @param path the path; a relative one starts at the working directory
     * @return a future of the statistics of the file system holding {@code path}
     */
    public CompletableFuture<StatFs> statfs(CharSequence path) {
        return c.answer(
                TaskContext.now(
                        () ->
                                c.attrs.statfs(
                                        c.attrs.resolve(
                                                VfsTask.AT_FDCWD,
                                                TaskContext.path(path, Syscall.STATFS),
                                                Syscall.STATFS,
                                                0,
                                                0))),
                Syscall.STATFS,
                path,
                null);
    }

    /**
     * {@link VfsTask#fstatfs}.
     *
     * @param fd the descriptor
     * @return a future of the statistics of the file system holding the open file
     */
    public CompletableFuture<StatFs> fstatfs(int fd) {
        return c.answer(
                TaskContext.now(() -> c.attrs.statfs(c.fdPath(fd, Syscall.FSTATFS))),
                Syscall.FSTATFS,
                null,
                null);
    }

    // ---------------------------------------------------------------- the task

    /**
     * {@link VfsTask#setxattrat}.
     *
     * @param dirfd the directory a relative path starts from, {@link VfsTask#AT_FDCWD}, or the
     *     descriptor itself with {@code AT_EMPTY_PATH}
     * @param path the path; a relative one starts at {@code dirfd}
     * @param atFlags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @param name the full name, namespace prefix included
     * @param value the value, 0 to 65,536 bytes (copied)
     * @param flags {@link dev.seqvfs.protocol.Xattr#XATTR_CREATE}, {@link
     *     dev.seqvfs.protocol.Xattr#XATTR_REPLACE}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> setxattrat(
            int dirfd, CharSequence path, int atFlags, String name, byte[] value, int flags) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, Syscall.SETXATTR);
                            return Revalidate.retrying(
                                    () ->
                                            c.xattrs.setAt(
                                                    dirfd,
                                                    p,
                                                    atFlags,
                                                    name,
                                                    value,
                                                    flags,
                                                    Syscall.SETXATTR));
                        }),
                Syscall.SETXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#getxattrat}.
     *
     * @param dirfd the directory a relative path starts from, {@link VfsTask#AT_FDCWD}, or the
     *     descriptor itself with {@code AT_EMPTY_PATH}
     * @param path the path; a relative one starts at {@code dirfd}
     * @param atFlags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @param name the full name, namespace prefix included
     * @return a future of the value (a new array)
     */
    public CompletableFuture<byte[]> getxattrat(
            int dirfd, CharSequence path, int atFlags, String name) {
        return c.answer(
                TaskContext.now(
                        () ->
                                c.xattrs.getAt(
                                        dirfd,
                                        TaskContext.path(path, Syscall.GETXATTR),
                                        atFlags,
                                        name,
                                        Syscall.GETXATTR)),
                Syscall.GETXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#listxattrat}.
     *
     * @param dirfd the directory a relative path starts from, {@link VfsTask#AT_FDCWD}, or the
     *     descriptor itself with {@code AT_EMPTY_PATH}
     * @param path the path; a relative one starts at {@code dirfd}
     * @param atFlags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @return a future of the names (immutable)
     */
    public CompletableFuture<List<String>> listxattrat(int dirfd, CharSequence path, int atFlags) {
        return c.answer(
                TaskContext.now(
                        () ->
                                c.xattrs.listAt(
                                        dirfd,
                                        TaskContext.path(path, Syscall.LISTXATTR),
                                        atFlags,
                                        Syscall.LISTXATTR)),
                Syscall.LISTXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#removexattrat}.
     *
     * @param dirfd the directory a relative path starts from, {@link VfsTask#AT_FDCWD}, or the
     *     descriptor itself with {@code AT_EMPTY_PATH}
     * @param path the path; a relative one starts at {@code dirfd}
     * @param atFlags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @param name the full name, namespace prefix included
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> removexattrat(
            int dirfd, CharSequence path, int atFlags, String name) {
        return c.answer(
                TaskContext.async(
                        () -> {
                            Filename p = TaskContext.path(path, Syscall.REMOVEXATTR);
                            return Revalidate.retrying(
                                    () ->
                                            c.xattrs.removeAt(
                                                    dirfd, p, atFlags, name, Syscall.REMOVEXATTR));
                        }),
                Syscall.REMOVEXATTR,
                path,
                null);
    }

    /**
     * {@link VfsTask#umask}.
     *
     * @param mask the new mask; only {@code 0777} is kept
     * @return a future of the previous mask
     */
    public CompletableFuture<Integer> umask(int mask) {
        return c.answer(TaskContext.now(() -> c.setUmask(mask)), Syscall.UMASK, null, null);
    }

    /**
     * {@link VfsTask#chdir}.
     *
     * @param path the new working directory's path
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> chdir(CharSequence path) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.task.chdir(TaskContext.path(path, Syscall.CHDIR));
                            return null;
                        }),
                Syscall.CHDIR,
                path,
                null);
    }

    /**
     * {@link VfsTask#fchdir}.
     *
     * @param fd a descriptor open on a directory
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> fchdir(int fd) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.task.fchdir(fd);
                            return null;
                        }),
                Syscall.FCHDIR,
                null,
                null);
    }

    /**
     * {@link VfsTask#getcwd}.
     *
     * @return a future of the working directory's absolute path
     */
    public CompletableFuture<String> getcwd() {
        return c.answer(TaskContext.now(c.task::getcwd), Syscall.GETCWD, null, null);
    }

    /**
     * {@link VfsTask#mount}.
     *
     * @param source what to mount: a directory for {@code MS_BIND}, else ignored (may be {@code
     *     null})
     * @param target the directory to mount on
     * @param fstype the registered file-system type, for a new superblock
     * @param flags {@code MS_*} flags: {@code MS_BIND}, {@code MS_REMOUNT}, {@code MS_RDONLY}
     * @param data the file system's options (as {@code size=1m,mode=755}), or {@code null}
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> mount(
            CharSequence source, CharSequence target, String fstype, long flags, String data) {
        return c.answer(
                TaskContext.async(
                        () ->
                                c.task.mount(
                                        TaskContext.pathOrNull(source, Syscall.MOUNT),
                                        TaskContext.path(target, Syscall.MOUNT),
                                        fstype,
                                        flags,
                                        data)),
                Syscall.MOUNT,
                TaskContext.mountSourceIsPath(flags) ? source : target,
                TaskContext.mountSourceIsPath(flags) ? target : null);
    }

    /**
     * {@link VfsTask#umount}.
     *
     * @param target the path of the mount point
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> umount(CharSequence target) {
        return umount2(target, 0);
    }

    /**
     * {@link VfsTask#umount2}.
     *
     * @param target the path of the mount point
     * @param flags {@code MNT_DETACH}, {@code MNT_FORCE}, {@code UMOUNT_NOFOLLOW}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> umount2(CharSequence target, int flags) {
        return c.answer(
                TaskContext.now(
                        () -> {
                            c.task.umount2(TaskContext.path(target, Syscall.UMOUNT), flags);
                            return null;
                        }),
                Syscall.UMOUNT,
                target,
                null);
    }

    // ---------------------------------------------------------------- descriptors

    /**
     * {@link VfsTask#dup}.
     *
     * @param oldfd the descriptor to duplicate
     * @return a future of the new descriptor
     */
    public CompletableFuture<Integer> dup(int oldfd) {
        return c.answer(TaskContext.async(() -> c.fds.dup(oldfd)), Syscall.DUP, null, null);
    }

    /**
     * {@link VfsTask#dup2}.
     *
     * @param oldfd the descriptor to duplicate
     * @param newfd the descriptor to make point at it
     * @return a future of {@code newfd}
     */
    public CompletableFuture<Integer> dup2(int oldfd, int newfd) {
        return c.answer(
                TaskContext.async(() -> c.fds.dup3(oldfd, newfd, 0, false)),
                Syscall.DUP2,
                null,
                null);
    }

    /**
     * {@link VfsTask#dup3}.
     *
     * @param oldfd the descriptor to duplicate
     * @param newfd the descriptor to make point at it
     * @param flags {@code O_CLOEXEC}, or 0
     * @return a future of {@code newfd}
     */
    public CompletableFuture<Integer> dup3(int oldfd, int newfd, int flags) {
        return c.answer(
                TaskContext.async(() -> c.fds.dup3(oldfd, newfd, flags, true)),
                Syscall.DUP3,
                null,
                null);
    }

    /**
     * {@link VfsTask#fcntl}.
     *
     * @param fd the descriptor
     * @param cmd the command, an {@code F_*} constant of {@link dev.seqvfs.protocol.Fcntl}
     * @param arg the command's argument (ignored by the {@code F_GET*} commands)
     * @return a future of what the command returns: a descriptor, flags, a pipe size, or 0
     */
    public CompletableFuture<Integer> fcntl(int fd, int cmd, long arg) {
        return c.answer(
                TaskContext.async(() -> c.fds.fcntl(fd, cmd, arg)), Syscall.FCNTL, null, null);
    }

    /**
     * {@link VfsTask#closeRange}.
     *
     * @param first the first descriptor of the range
     * @param last the last descriptor of the range (inclusive)
     * @param flags {@code CLOSE_RANGE_CLOEXEC}, {@code CLOSE_RANGE_UNSHARE}, or 0
     * @return a future completed when the call is done
     */
    public CompletableFuture<Void> closeRange(int first, int last, int flags) {
        return c.answer(
                TaskContext.async(() -> c.fds.closeRange(first, last, flags).thenApply(n -> null)),
                Syscall.CLOSE_RANGE,
                null,
                null);
    }

    /** {@return the task's process id ({@link VfsTask#pid()})} */
    public int pid() {
        return c.pid();
    }

    /** {@return the task's credentials ({@link VfsTask#cred()})} */
    public Credentials cred() {
        return c.cred();
    }
}
