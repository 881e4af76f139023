package dev.seqvfs.engine;

import dev.seqvfs.engine.anon.EventFd;
import dev.seqvfs.engine.fs.StreamFileOperations;
import dev.seqvfs.engine.inode.AttrChange;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A task ({@code task_struct}): the POSIX-style API of SeqVFS, with the caller's credentials,
 * umask, working and root directories, and descriptor table. This is the blocking view; {@link
 * #async()} is the same task's asynchronous view, with one twin of every call here (a test keeps
 * the two in step).
 *
 * <p>Every call follows its Linux man page (section 2): same arguments, same results, same errno,
 * raised as a {@link VfsException} that names the call ({@link Syscall}: the call itself, whatever
 * step of it failed, an {@code *at} form by its base call) and every path argument it was given, as
 * given, in the call's order ({@code link "/old" -> "/new"}; {@code openat(fd, "x", ...)} names
 * {@code "x"}; {@code readdir}, a library routine, fails as the {@code open} or {@code getdents} it
 * makes), with the caller's stack as its trace ({@code seqvfs.errors.stack-traces}). A failed call
 * has changed nothing. Paths are {@link CharSequence}s: a {@code String} (UTF-8, a byte that is not
 * valid UTF-8 written as {@code U+DC80..U+DCFF}, Python's surrogateescape), or a {@link Filename},
 * parsed once and used as it is (for paths that are raw bytes, {@code Filename.of(bytes)}).
 *
 * <p><b>Blocking.</b> Calls that change the namespace or the descriptor table send one message to
 * the actor that owns the state and wait for its answer; with the calling-thread dispatcher the
 * actor usually runs on the caller's thread, so it rarely parks. Calls that only read ({@code
 * stat}, {@code readlink}, {@code access}, {@code getdents}, {@code getcwd}, {@code statfs}, and
 * {@code read}/{@code write} of regular files) send no message, take no lock on the walk and never
 * park. Reads and writes of pipes, FIFOs, sockets and eventfds, {@code F_SETLKW}, a blocking {@code
 * flock}, {@code poll} with a timeout, and the open of a FIFO park the calling thread until the
 * other party acts, as Linux parks a process.
 *
 * <p><b>Interrupts</b> ({@link Thread#interrupt()}, the analogue of a signal). A thread parked
 * waiting for another party (the calls just listed) is woken and its call fails with {@code EINTR}
 * having changed nothing, as Linux's interruptible sleeps do with a signal and no {@code
 * SA_RESTART}. The exceptions are Linux's: a blocking write to a pipe or stream socket that had
 * written some bytes returns their count, and a {@code flock} that converts a lock has dropped the
 * old one before it waits ({@code flock(2)}: conversion is not atomic). A wait for an actor's
 * answer (every call that changes the namespace or the descriptor table, including the descriptor a
 * FIFO open installs) is not interruptible, as Linux's {@code mkdir} sleeps uninterruptibly on its
 * directory's lock: the command is already sent and may yet be applied, so the call waits for the
 * answer (bounded by {@code seqvfs.ask-timeout}) and returns it. Either way the thread's interrupt
 * status is still set when the call returns or throws, so the caller's own code sees the interrupt
 * too; an interrupt already pending makes the next call that has to wait for another party fail at
 * once with {@code EINTR}, while calls that need not wait run as usual. A caller that retries on
 * {@code EINTR} clears the status first ({@link Thread#interrupted()}), as a signal handler's
 * return would. The async view has no caller thread to interrupt: {@link AsyncVfsTask} explains its
 * cancellation.
 *
 * <p><b>Closing.</b> Once {@link SeqVfs#close()} has begun, every call fails with {@code EIO}
 * naming itself, and a call parked on its thread is woken and fails with {@code EIO} too; the
 * close's Javadoc is the contract.
 *
 * <p><b>Thread-safety.</b> A task may be used by several threads at once (they then share its
 * descriptor table, like threads of a process). {@link #newThread()} makes a task that shares the
 * table explicitly.
 *
 * <p>This class is the system-call table, so it is long: each call converts its arguments and
 * delegates, in one line, to the package's call classes ({@code NamespaceCalls}, {@code OpenCalls},
 * {@code IoCalls}, {@code AttrCalls}, {@code FdCalls}, {@code AnonCalls}, {@code LockCalls}, {@code
 * TaskCalls}), where the logic lives.
 */
public final class VfsTask implements AutoCloseable {
    /** {@code AT_FDCWD}: resolve relative paths against the working directory. */
    public static final int AT_FDCWD = OpenFlags.AT_FDCWD;

    /** {@code lseek(2)}: from the start. */
    public static final int SEEK_SET = 0;

    /** {@code lseek(2)}: from the current offset. */
    public static final int SEEK_CUR = 1;

    /** {@code lseek(2)}: from the end. */
    public static final int SEEK_END = 2;

    /** {@code lseek(2)}: to the next data at or after the offset ({@code ENXIO} if none). */
    public static final int SEEK_DATA = 3;

    /** {@code lseek(2)}: to the next hole at or after the offset (the end counts as one). */
    public static final int SEEK_HOLE = 4;

    private final TaskContext c;
    private final AsyncVfsTask async;

    VfsTask(TaskContext c) {
        this.c = c;
        this.async = new AsyncVfsTask(c);
    }

    /** {@return this task's asynchronous view: the same calls, answering with futures} */
    public AsyncVfsTask async() {
        return async;
    }

    /** {@return the task's process id, as {@code /proc/<pid>} and {@code /proc/self} show it} */
    public int pid() {
        return c.pid();
    }

    /** {@return the task's credentials} */
    public Credentials cred() {
        return c.cred();
    }

    TaskContext context() {
        return c;
    }

    // ---------------------------------------------------------------- open, close

    /**
     * {@code open(2)}: opens (and with {@code O_CREAT}, creates) a file and returns the lowest free
     * descriptor. Flags are {@link OpenFlags} values. Creation applies the umask. Follows a final
     * symlink unless {@code O_NOFOLLOW} ({@code ELOOP}) or {@code O_CREAT | O_EXCL} ({@code
     * EEXIST}); a dangling symlink with {@code O_CREAT} creates its target. With {@code O_TMPFILE}
     * (and a writable access mode, without {@code O_CREAT}: else {@code EINVAL}) {@code path} names
     * a directory, in which a regular file with no name is made and opened: freed at its last close
     * unless {@link #linkat} names it first ({@code AT_EMPTY_PATH} on the descriptor, or {@code
     * /proc/self/fd/N} with {@code AT_SYMLINK_FOLLOW}), which {@code O_EXCL} forbids; {@code
     * EOPNOTSUPP} on a type without it (persistfs).
     *
     * @param path the path
     * @param flags access mode and flags
     * @param mode permission bits for a created file
     * @return the descriptor
     * @throws VfsException {@code ENOENT}, {@code EEXIST}, {@code EISDIR}, {@code ENOTDIR}, {@code
     *     EACCES}, {@code ELOOP}, {@code EROFS}, {@code EMFILE}, {@code ENOSPC}, {@code
     *     ENAMETOOLONG}, {@code EINVAL} (O_CREAT|O_DIRECTORY); access mode 3 ({@code O_ACCMODE})
     *     checks read and write permission and gives a descriptor that can do neither, as in Linux.
     *     A FIFO ({@code fifo(7)}) opens one end of the pipe it shares with its other openers:
     *     {@code O_RDONLY} parks the calling thread until a writer opens, {@code O_WRONLY} until a
     *     reader does ({@code ENXIO} instead under {@code O_NONBLOCK}), {@code O_RDWR} and {@code
     *     O_RDONLY|O_NONBLOCK} never wait; access mode 3 is {@code EINVAL}; an interrupted wait is
     *     {@code EINTR}
     */
    public int open(CharSequence path, int flags, int mode) {
        return openat(AT_FDCWD, path, flags, mode);
    }

    /**
     * {@code open(2)} without a mode (no {@code O_CREAT}).
     *
     * @param path the path; a relative one starts at the working directory
     * @param flags {@code O_*} flags ({@link OpenFlags}), without {@code O_CREAT} or {@code
     *     O_TMPFILE}
     * @return the new descriptor, the lowest free one
     */
    public int open(CharSequence path, int flags) {
        return openat(AT_FDCWD, path, flags, 0);
    }

    /**
     * {@code openat(2)}: {@link #open} relative to {@code dirfd} ({@code EBADF}, {@code ENOTDIR}).
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param flags {@code O_*} flags ({@link OpenFlags})
     * @param mode permission bits of a created file, before the umask
     * @return the new descriptor, the lowest free one
     */
    public int openat(int dirfd, CharSequence path, int flags, int mode) {
        try {
            Filename p = TaskContext.path(path, Syscall.OPEN);
            // Every attempt (a retry after ESTALE too) runs on this thread, so a FIFO open
            // parks this thread, interruptibly (EINTR), however many attempts it takes.
            return Revalidate.retryingBlocking(
                    () -> c.await(c.opens.openat(dirfd, p, flags, mode, null), Syscall.OPEN, p));
        } catch (VfsException e) {
            throw c.raise(e, Syscall.OPEN, path, null);
        }
    }

    /**
     * {@code open(2)} of {@code /proc/self/fd/FD} ({@code proc_pid_fd(5)}; {@code open(2)}: an
     * {@code O_PATH} descriptor "can be reopened with the desired access mode"): a new open file
     * description, and the lowest free descriptor, of the inode {@code fd} names, whatever the
     * inode's names are now (it may have none left: a file removed while {@code fd} holds it, a
     * removed directory). No path is walked; the open is checked as an open of that inode is
     * ({@code may_open}: permission for the access mode, {@code EISDIR}, {@code ELOOP} for a
     * symbolic link unless {@code O_PATH}, {@code O_TRUNC}'s truncation and {@code EROFS}), with
     * this task's credentials. {@code fd} may be any descriptor, {@code O_PATH} ones included; the
     * new description has its own offset and flags.
     *
     * @param fd the descriptor whose inode to open
     * @param flags {@code O_*} flags ({@link OpenFlags}); {@code O_CREAT} opens the existing inode
     * @return the new descriptor, the lowest free one
     * @throws VfsException {@code EBADF} ({@code fd} not open), {@code EEXIST} ({@code O_CREAT |
     *     O_EXCL}), {@code ENOTDIR} ({@code O_DIRECTORY} on what is not a directory), and the
     *     errors of {@link #open} for an existing inode ({@code EACCES}, {@code EISDIR}, {@code
     *     ELOOP}, {@code EROFS}, {@code EMFILE}, {@code ENXIO}, {@code EINTR} for a FIFO); nothing
     *     is opened then
     */
    public int reopen(int fd, int flags) {
        try {
            return Revalidate.retryingBlocking(
                    () -> c.await(c.opens.reopen(fd, flags, null), Syscall.OPEN, null));
        } catch (VfsException e) {
            throw c.raise(e, Syscall.OPEN, null, null);
        }
    }

    /**
     * {@code close(2)}: closes a descriptor; the open file is released when its last descriptor
     * closes, and an unlinked inode is freed when its last open file is.
     *
     * @param fd the descriptor
     * @throws VfsException {@code EBADF} if {@code fd} is not open
     */
    public void close(int fd) {
        try {
            c.opens.closeBlocking(fd);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.CLOSE, null, null);
        }
    }

    /**
     * {@code getdents64(2)}: reads up to {@code max} entries of the directory open on {@code fd},
     * from its offset, and advances the offset (a cookie, see {@link DirEntry#cookie()}). "." and
     * ".." come first. Entries come from one snapshot.
     *
     * @param fd a descriptor open on a directory
     * @param max the most entries to return
     * @return the entries; empty at the end
     * @throws VfsException {@code EBADF}, {@code ENOTDIR}, {@code ENOENT} (directory removed),
     *     {@code EINVAL} (max &lt;= 0)
     */
    public List<DirEntry> getdents(int fd, int max) {
        try {
            return c.opens.getdents(fd, max);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.GETDENTS, null, null);
        }
    }

    /**
     * {@code lseek(2)} with {@code SEEK_SET}, {@code SEEK_CUR}, {@code SEEK_END}, and on regular
     * files {@code SEEK_DATA} / {@code SEEK_HOLE}; on a directory the offset is a readdir cookie
     * ({@code telldir}/{@code seekdir}); what a file does is its file operations' ({@code
     * ->llseek}: an eventfd returns 0 whatever the arguments, as {@code noop_llseek}). A {@code
     * whence} above {@code SEEK_HOLE} is {@code EINVAL} first.
     *
     * @param fd the descriptor
     * @param offset the offset in bytes, relative to {@code whence}
     * @param whence {@code SEEK_SET}, {@code SEEK_CUR}, {@code SEEK_END}, {@code SEEK_DATA} or
     *     {@code SEEK_HOLE}
     * @return the new offset in bytes (or the cookie)
     * @throws VfsException {@code EBADF}, {@code EINVAL} (bad whence, negative result, {@code
     *     SEEK_END} on a directory), {@code ESPIPE} (a pipe, FIFO or socket), {@code ENXIO} ({@code
     *     SEEK_DATA}/{@code SEEK_HOLE} at or past the end or negative, no data after)
     */
    public long lseek(int fd, long offset, int whence) {
        try {
            return c.opens.lseek(fd, offset, whence);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.LSEEK, null, null);
        }
    }

    /**
     * Lists a whole directory by path ({@code opendir} + {@code readdir} + {@code closedir}),
     * without "." and "..".
     *
     * @param path the directory's path
     * @return the entries, in the directory's order
     * @throws VfsException the errors of {@link #open} and {@link #getdents}
     */
    public List<DirEntry> readdir(CharSequence path) {
        int fd = open(path, OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            List<DirEntry> out = new ArrayList<>();
            while (true) {
                List<DirEntry> chunk = getdents(fd, 256);
                if (chunk.isEmpty()) {
                    return out;
                }
                for (DirEntry e : chunk) {
                    if (!e.name().equals(".") && !e.name().equals("..")) {
                        out.add(e);
                    }
                }
            }
        } finally {
            close(fd);
        }
    }

    // ---------------------------------------------------------------- file data

    /**
     * {@code read(2)}: reads up to {@code len} bytes at the file offset into {@code buf[off..]},
     * advancing the offset. On a regular file lock-free on the data: a read sees each write whole
     * or not at all, and holes read as zeros. On a pipe or socket it parks the calling thread until
     * data arrives (unless {@code O_NONBLOCK}).
     *
     * @param fd the descriptor
     * @param buf the buffer the bytes are read into
     * @param off the index in {@code buf} of the first byte
     * @param len the most bytes to read
     * @return the bytes read, 0 at end of file
     * @throws VfsException {@code EBADF} (not open for reading, {@code O_PATH}), {@code EISDIR},
     *     {@code EINVAL} (a file that cannot be read), {@code EFAULT} (bad range), {@code EAGAIN},
     *     {@code EINTR}
     */
    public int read(int fd, byte[] buf, int off, int len) {
        try {
            return c.io.read(fd, buf, off, len);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.READ, null, null);
        }
    }

    /**
     * {@code pread(2)}: {@link #read} at {@code pos} bytes, without moving the offset ({@code
     * EINVAL} if negative, {@code ESPIPE} on a stream).
     *
     * @param fd the descriptor
     * @param buf the buffer the bytes are read into
     * @param off the index in {@code buf} of the first byte
     * @param len the most bytes to read
     * @param pos the file offset to read at, in bytes
     * @return the bytes read, 0 at end of file
     */
    public int pread(int fd, byte[] buf, int off, int len, long pos) {
        try {
            return c.io.pread(fd, buf, off, len, pos);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.PREAD, null, null);
        }
    }

    /**
     * {@code pread(2)} into a {@link java.nio.ByteBuffer}: reads up to {@code dst.remaining()}
     * bytes at {@code pos} into {@code dst} from its position, and advances the position by the
     * bytes read (as {@link java.nio.channels.FileChannel#read(java.nio.ByteBuffer, long)}). A
     * regular file's bytes go straight from its pages into the buffer, with no array between: the
     * form for a direct buffer (a FUSE reply, a channel's direct buffer). The same guarantees and
     * errnos as {@link #pread(int, byte[], int, int, long)}; a read-only buffer is {@code EFAULT}.
     * Not thread-safe for one buffer, as any use of a {@code ByteBuffer}.
     *
     * @param fd the descriptor
     * @param dst the buffer, filled from its position
     * @param pos the file offset to read at, in bytes
     * @return the bytes read, 0 at end of file
     */
    public int pread(int fd, java.nio.ByteBuffer dst, long pos) {
        try {
            return c.io.pread(fd, dst, pos);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.PREAD, null, null);
        }
    }

    /**
     * {@code readv(2)}: fills the buffers in order from one version of the file (on a pipe or
     * socket, from one read).
     *
     * @param fd the descriptor
     * @param iov the buffers to fill, in order
     * @return the bytes read in all, 0 at end of file
     */
    public long readv(int fd, byte[][] iov) {
        try {
            return c.io.readv(fd, iov);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.READV, null, null);
        }
    }

    /**
     * {@code write(2)}: writes {@code len} bytes at the file offset (at the end with {@code
     * O_APPEND}, atomically with respect to other writers), advancing it; sets mtime and ctime.
     *
     * @param fd the descriptor
     * @param buf the buffer holding the bytes
     * @param off the index in {@code buf} of the first byte
     * @param len the number of bytes to write
     * @return {@code len}, or fewer when the file system fills (the pages that fit are written, as
     *     tmpfs does) or an {@code O_APPEND} write would cross the maximum file size ({@code
     *     LLONG_MAX})
     * @throws VfsException {@code EBADF} (not open for writing), {@code EISDIR}, {@code EINVAL}
     *     (not a regular file, offset plus {@code len} past {@code LLONG_MAX}), {@code EFBIG}
     *     (appending at the maximum size), {@code ENOSPC} (not one byte fits), {@code EPIPE} (a
     *     pipe without readers), {@code EAGAIN}, {@code EINTR}
     */
    public int write(int fd, byte[] buf, int off, int len) {
        try {
            return c.io.write(fd, buf, off, len);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.WRITE, null, null);
        }
    }

    /**
     * {@code write(2)} of the whole array. A null array has no length to write: {@code EFAULT}
     * (after the descriptor checks), where {@code write(fd, null, 0, 0)} writes nothing and returns
     * 0, as {@code write(fd, NULL, 0)} on Linux.
     *
     * @param fd the descriptor
     * @param buf the bytes to write
     * @return the bytes written, as {@link #write(int, byte[], int, int)}
     */
    public int write(int fd, byte[] buf) {
        return write(fd, buf, 0, buf == null ? -1 : buf.length);
    }

    /**
     * {@code pwrite(2)}: writes at {@code pos} without moving the offset (with {@code O_APPEND}, at
     * the end, as Linux).
     *
     * @param fd the descriptor
     * @param buf the buffer holding the bytes
     * @param off the index in {@code buf} of the first byte
     * @param len the number of bytes to write
     * @param pos the file offset to write at, in bytes
     * @return the bytes written, as {@link #write(int, byte[], int, int)}
     */
    public int pwrite(int fd, byte[] buf, int off, int len, long pos) {
        try {
            return c.io.pwrite(fd, buf, off, len, pos);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.PWRITE, null, null);
        }
    }

    /**
     * {@code writev(2)}: writes the buffers as one atomic write (on a pipe or socket, as one {@code
     * write}).
     *
     * @param fd the descriptor
     * @param iov the buffers to write, in order
     * @return the bytes written in all
     */
    public long writev(int fd, byte[][] iov) {
        try {
            return c.io.writev(fd, iov);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.WRITEV, null, null);
        }
    }

    /**
     * {@code ftruncate(2)}: sets the size; shrinking frees pages, growing adds a hole.
     *
     * @param fd the descriptor
     * @param length the new size in bytes
     * @throws VfsException {@code EBADF}, {@code EINVAL} (not open for writing, not a regular file,
     *     negative length), {@code EFBIG}
     */
    public void ftruncate(int fd, long length) {
        try {
            c.io.ftruncate(fd, length);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FTRUNCATE, null, null);
        }
    }

    /**
     * {@code truncate(2)}: by path; needs write permission ({@code EACCES}), {@code EISDIR}, {@code
     * EROFS}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param length the new size in bytes
     */
    public void truncate(CharSequence path, long length) {
        try {
            c.io.truncate(TaskContext.path(path, Syscall.TRUNCATE), length);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.TRUNCATE, path, null);
        }
    }

    /**
     * {@code fsync(2)}: what the file's type makes durable (memory types: nothing to do); {@code
     * EINVAL} on a stream.
     *
     * @param fd the descriptor
     */
    public void fsync(int fd) {
        try {
            c.io.fsync(fd, false);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FSYNC, null, null);
        }
    }

    /**
     * {@code syncfs(2)}: makes everything written to the file system that {@code fd} is on durable
     * (a memory type, tmpfs: nothing to do; persistfs: every file written since its last
     * write-back). Blocks until it is.
     *
     * @param fd the descriptor
     * @throws VfsException {@code EBADF} for a bad descriptor, {@code EIO} if the write-back failed
     */
    public void syncfs(int fd) {
        try {
            c.io.syncfs(fd);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.SYNCFS, null, null);
        }
    }

    /**
     * {@code sync(2)}: {@link #syncfs} of every file system of the instance. Blocks until done.
     *
     * @throws VfsException {@code EIO} if a write-back failed (Linux's {@code sync} reports
     *     nothing; SeqVFS says so rather than losing the error)
     */
    public void sync() {
        try {
            c.io.sync();
        } catch (VfsException e) {
            throw c.raise(e, Syscall.SYNC, null, null);
        }
    }

    /**
     * {@code fdatasync(2)}.
     *
     * @param fd the descriptor
     */
    public void fdatasync(int fd) {
        try {
            c.io.fsync(fd, true);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FDATASYNC, null, null);
        }
    }

    /**
     * {@code fallocate(2)}: {@code mode} 0 allocates the byte range {@code [offset, offset+len)}
     * (holes become zero-filled pages, charged; the size grows to cover it), {@code
     * FALLOC_FL_KEEP_SIZE} allocates without changing the size, {@code FALLOC_FL_PUNCH_HOLE |
     * FALLOC_FL_KEEP_SIZE} frees the range (it reads as zeros).
     *
     * @param fd the descriptor
     * @param mode 0, {@code FALLOC_FL_KEEP_SIZE}, or {@code FALLOC_FL_PUNCH_HOLE |
     *     FALLOC_FL_KEEP_SIZE}
     * @param offset the first byte of the range
     * @param len the length of the range in bytes
     * @throws VfsException {@code EBADF} (not open for writing), {@code EINVAL} (negative offset,
     *     length not positive), {@code EOPNOTSUPP} (another mode, or a punch without keep-size),
     *     {@code ESPIPE} (a pipe or FIFO), {@code EISDIR}, {@code ENODEV} (not a regular file),
     *     {@code EFBIG}, {@code ENOSPC} (nothing allocated)
     */
    public void fallocate(int fd, int mode, long offset, long len) {
        try {
            c.io.fallocate(fd, mode, offset, len);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FALLOCATE, null, null);
        }
    }

    /**
     * {@code poll(2)}: the readiness of each descriptor ({@code fds[i]}) for the events asked
     * ({@code events[i]}, {@link dev.seqvfs.protocol.Poll} bits), waiting up to {@code
     * timeoutMillis} (0: not at all; negative: until one is ready) for one to be ready. {@code
     * POLLERR}, {@code POLLHUP} and {@code POLLNVAL} (a descriptor not open) are reported whether
     * asked or not; a negative descriptor is skipped. A wait re-checks the files every millisecond
     * at most (files do not notify waiters of readiness yet).
     *
     * @param fds the descriptors; a negative one is skipped
     * @param events the {@code Poll} events asked for each descriptor
     * @param timeoutMillis the longest wait in milliseconds; 0 none, negative no limit
     * @return the events that hold for each descriptor (poll(2)'s revents), in order
     * @throws VfsException {@code EINVAL} (arrays of different lengths), {@code EINTR} (interrupted
     *     while waiting; see the class comment)
     */
    public int[] poll(int[] fds, int[] events, long timeoutMillis) {
        try {
            return c.io.poll(fds, events, timeoutMillis);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.POLL, null, null);
        }
    }

    // ---------------------------------------------------------------- advisory locks

    /**
     * {@code flock(2)}: {@code LOCK_SH}, {@code LOCK_EX} or {@code LOCK_UN}, with {@code LOCK_NB}
     * to fail instead of waiting. The lock belongs to the open file description: duplicated
     * descriptors share it, and it is dropped when the last of them closes. Waiting parks the
     * calling thread. Converting a held lock drops it first, as Linux does: a conversion that fails
     * ({@code EAGAIN}, {@code EINTR}) leaves no lock.
     *
     * @param fd the descriptor
     * @param operation {@code LOCK_SH}, {@code LOCK_EX} or {@code LOCK_UN}, optionally with {@code
     *     LOCK_NB}
     * @throws VfsException {@code EBADF}, {@code EINVAL} (bad operation), {@code EAGAIN} ({@code
     *     EWOULDBLOCK}: conflict with {@code LOCK_NB}), {@code EINTR} (interrupted while waiting;
     *     see the class comment)
     */
    public void flock(int fd, int operation) {
        try {
            c.locks.flock(fd, operation);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FLOCK, null, null);
        }
    }

    /**
     * {@code fcntl(2)} record locks: {@code F_GETLK} (returns the blocking lock, or the request
     * with type {@code F_UNLCK}), {@code F_SETLK}, {@code F_SETLKW} (waits, parking the calling
     * thread). Locks belong to the process (the descriptor table): closing any of its descriptors
     * of the file releases them all, as POSIX says.
     *
     * @param fd the descriptor
     * @param cmd {@code F_GETLK}, {@code F_SETLK} or {@code F_SETLKW}
     * @param lock the lock asked for
     * @return for {@code F_GETLK} the conflicting lock, or {@code lock} with type {@code F_UNLCK};
     *     for the others {@code lock}
     * @throws VfsException {@code EBADF} (bad descriptor, or lock type not allowed by its access
     *     mode), {@code EINVAL} (bad command, type, whence or range), {@code EAGAIN} (conflict with
     *     {@code F_SETLK}), {@code EDEADLK} (waiting would deadlock), {@code EINTR}
     */
    public Flock fcntlLock(int fd, int cmd, Flock lock) {
        try {
            return c.locks.fcntlLock(fd, cmd, lock);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FCNTL, null, null);
        }
    }

    /**
     * {@link #fcntlLock(int, int, Flock)} on behalf of {@code owner} instead of this task's
     * descriptor table: for a server that takes lock requests from processes the engine does not
     * know (the FUSE front end passes one owner per FUSE {@code lock_owner}). The locks conflict
     * with every other owner's, this task's own included, and merge with {@code owner}'s; waiting
     * ({@code F_SETLKW}) and {@code EDEADLK} detection work across owners as across processes.
     * Closing a descriptor does not release them (POSIX's rule is per process, and {@code owner} is
     * none): the caller unlocks them ({@code F_UNLCK} over the whole file, as libfuse does at each
     * {@code close} of its client). {@code F_GETLK} reports the holder's {@code lock.pid()} of the
     * request that took the lock. Thread-safety, blocking and errno as {@link #fcntlLock(int, int,
     * Flock)}.
     *
     * @param fd the descriptor (its access mode decides which lock types are allowed)
     * @param cmd {@code F_GETLK}, {@code F_SETLK} or {@code F_SETLKW}
     * @param lock the lock asked for; its {@code pid} is recorded as the holder's
     * @param owner whose lock it is
     * @return for {@code F_GETLK} the conflicting lock, or {@code lock} with type {@code F_UNLCK};
     *     for the others {@code lock}
     * @throws VfsException {@code EBADF}, {@code EINVAL}, {@code EAGAIN}, {@code EDEADLK}, {@code
     *     EINTR}, as {@link #fcntlLock(int, int, Flock)}; {@code EFAULT} if {@code owner} is null
     */
    public Flock fcntlLock(int fd, int cmd, Flock lock, LockOwner owner) {
        try {
            return c.locks.fcntlLock(fd, cmd, lock, owner);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FCNTL, null, null);
        }
    }

    // ---------------------------------------------------------------- pipes and sockets

    /**
     * {@code pipe(2)}: a pipe of 64 KiB; returns {read end, write end}. Its inode lives in no
     * directory; {@code readlink("/proc/self/fd/N")} shows {@code pipe:[ino]}.
     *
     * @return the read end's and the write end's descriptors
     * @throws VfsException {@code EMFILE} (neither descriptor installed)
     */
    public int[] pipe() {
        try {
            return c.await(TaskContext.async(() -> c.anon.pipe2(0)), Syscall.PIPE, null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.PIPE, null, null);
        }
    }

    /**
     * {@code pipe2(2)} with {@code O_NONBLOCK}, {@code O_CLOEXEC} and {@code O_DIRECT} (packet
     * mode, set on the write end only); {@code EINVAL} for other flags.
     *
     * @param flags {@code O_NONBLOCK}, {@code O_CLOEXEC} and {@code O_DIRECT}, or 0
     * @return the read end's and the write end's descriptors
     */
    public int[] pipe2(int flags) {
        try {
            return c.await(TaskContext.async(() -> c.anon.pipe2(flags)), Syscall.PIPE2, null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.PIPE2, null, null);
        }
    }

    /**
     * {@code socket(2)}: an unconnected socket on a sockfs inode ({@code AF_UNIX}: {@code
     * SOCK_STREAM}, {@code SOCK_DGRAM}, {@code SOCK_SEQPACKET}, {@code SOCK_RAW} as datagram;
     * {@code AF_INET}, {@code AF_INET6}: TCP/MPTCP streams, UDP/UDP-Lite datagrams; with {@code
     * SOCK_NONBLOCK}/{@code SOCK_CLOEXEC}). Argument errors come in Linux 6.18's order.
     *
     * @param domain the address family ({@code AF_UNIX}, {@code AF_INET}, {@code AF_INET6})
     * @param type the socket type, with {@code SOCK_NONBLOCK} and {@code SOCK_CLOEXEC} or-ed in
     * @param protocol the protocol, or 0 for the type's default
     * @return the new descriptor
     * @throws VfsException {@code EINVAL} (type flags, type or Internet protocol out of range),
     *     {@code EAFNOSUPPORT} (family), {@code ESOCKTNOSUPPORT} (type), {@code EPROTONOSUPPORT}
     *     (protocol), {@code EACCES} (ping socket), {@code EPERM} (raw Internet socket: no task has
     *     {@code CAP_NET_RAW}), {@code EMFILE}
     */
    public int socket(int domain, int type, int protocol) {
        try {
            return c.await(
                    TaskContext.async(() -> c.anon.socket(domain, type, protocol)),
                    Syscall.SOCKET,
                    null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.SOCKET, null, null);
        }
    }

    /**
     * {@code socketpair(2)} for {@code AF_UNIX}: two connected sockets; data written on one is read
     * on the other, both ways: a byte stream for {@code SOCK_STREAM}, datagrams that keep their
     * boundaries for {@code SOCK_DGRAM} and {@code SOCK_SEQPACKET}.
     *
     * @param domain the address family; only {@code AF_UNIX} makes a pair
     * @param type the socket type, with {@code SOCK_NONBLOCK} and {@code SOCK_CLOEXEC} or-ed in
     * @param protocol the protocol, or 0 for the type's default
     * @return the two sockets' descriptors
     * @throws VfsException the errors of {@link #socket}, then {@code EOPNOTSUPP} for Internet
     *     families, {@code EMFILE}
     */
    public int[] socketpair(int domain, int type, int protocol) {
        try {
            return c.await(
                    TaskContext.async(() -> c.anon.socketpair(domain, type, protocol)),
                    Syscall.SOCKETPAIR,
                    null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.SOCKETPAIR, null, null);
        }
    }

    /**
     * {@code anon_inode_getfd}: a descriptor for a new anonymous inode named {@code name} (shown as
     * {@code anon_inode:[name]}) whose reads and writes are {@code ops} (an embedder's own stream
     * file, {@link StreamFileOperations}); flags are an access mode (default {@code O_RDWR}),
     * {@code O_NONBLOCK} and {@code O_CLOEXEC}. Creating it touches no shared structure (seeds 000,
     * 003).
     *
     * @param name the name shown as {@code anon_inode:[name]}
     * @param ops the file's read and write operations
     * @param flags an access mode, {@code O_NONBLOCK} and {@code O_CLOEXEC}
     * @return the new descriptor
     * @throws VfsException {@code EINVAL} (a {@code null} name or operations, another flag), {@code
     *     EMFILE}
     */
    public int anonInodeGetFd(String name, StreamFileOperations ops, int flags) {
        try {
            return c.await(
                    TaskContext.async(() -> c.anon.anonInodeGetFd(name, ops, flags)),
                    Syscall.ANON_INODE_GETFD,
                    null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.ANON_INODE_GETFD, null, null);
        }
    }

    /**
     * {@code eventfd(2)}: a counter file, {@code anon_inode:[eventfd]}; flags {@code EFD_SEMAPHORE}
     * (1), {@code O_NONBLOCK}, {@code O_CLOEXEC}.
     *
     * @param initial the counter's first value, an unsigned 32-bit int
     * @param flags {@code EFD_SEMAPHORE}, {@code O_NONBLOCK} and {@code O_CLOEXEC}, or 0
     * @return the new descriptor
     * @throws VfsException {@code EINVAL} (another flag, or an initial value that is not an
     *     unsigned int), {@code EMFILE}
     */
    public int eventfd(long initial, int flags) {
        try {
            return c.await(
                    TaskContext.async(() -> eventfdAsync(c, initial, flags)),
                    Syscall.EVENTFD,
                    null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.EVENTFD, null, null);
        }
    }

    /**
     * {@code inotify_init1(2)}: a new inotify instance, {@code anon_inode:inotify}, with no watch.
     * Read it with {@link #read(int, byte[], int, int)}: whole {@code struct inotify_event} records
     * in Linux's layout ({@link Inotify}), as many as fit; {@code EINVAL} if the buffer is too
     * small for the next one; an empty queue waits, or is {@code EAGAIN} with {@code IN_NONBLOCK};
     * {@link #poll} reports {@code POLLIN} while an event is queued. Events are queued by the
     * writer that applies each change, in its order (see {@code CONCURRENCY.md}); an event
     * identical to the last unread one is merged into it, and past {@link
     * Inotify#MAX_QUEUED_EVENTS} one {@code IN_Q_OVERFLOW} (watch descriptor -1) stands for the
     * events dropped. The last close removes every watch.
     *
     * @param flags {@code IN_NONBLOCK}, {@code IN_CLOEXEC}, or 0
     * @return the new descriptor
     * @throws VfsException {@code EINVAL} (another flag), {@code EMFILE}
     */
    public int inotifyInit1(int flags) {
        try {
            return c.await(
                    TaskContext.async(() -> c.inotify.init1(flags)), Syscall.INOTIFY_INIT1, null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.INOTIFY_INIT1, null, null);
        }
    }

    /**
     * {@code inotify_add_watch(2)}: watches the inode {@code path} names for the events of {@code
     * mask}; an inode this instance watches already keeps its watch descriptor and gets the new
     * mask (added to the old one with {@code IN_MASK_ADD}). Lock-free walk, no message.
     *
     * @param fd an inotify descriptor
     * @param path the path; a relative one starts at the working directory; a final symbolic link
     *     is followed unless {@code IN_DONT_FOLLOW}
     * @param mask {@code IN_*} events and {@code IN_ONLYDIR}, {@code IN_DONT_FOLLOW}, {@code
     *     IN_MASK_ADD}, {@code IN_MASK_CREATE}, {@code IN_ONESHOT}, {@code IN_EXCL_UNLINK}
     *     (accepted, no effect)
     * @return the watch descriptor, a positive int unique in the instance
     * @throws VfsException {@code EBADF} ({@code fd} not open), {@code EINVAL} ({@code fd} is not
     *     an inotify descriptor, no event in {@code mask}, an unknown bit, {@code IN_MASK_ADD} with
     *     {@code IN_MASK_CREATE}), the walk's {@code ENOENT}, {@code ENOTDIR}, {@code EACCES},
     *     {@code ELOOP}, {@code ENAMETOOLONG}; {@code ENOTDIR} ({@code IN_ONLYDIR} on a
     *     non-directory); {@code EACCES} (no read permission on the inode); {@code EEXIST} ({@code
     *     IN_MASK_CREATE} and a watch exists). Nothing changed on failure
     */
    public int inotifyAddWatch(int fd, CharSequence path, int mask) {
        try {
            return c.inotify.addWatch(fd, TaskContext.path(path, Syscall.INOTIFY_ADD_WATCH), mask);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.INOTIFY_ADD_WATCH, path, null);
        }
    }

    /**
     * {@code inotify_rm_watch(2)}: removes watch {@code wd} and queues its {@code IN_IGNORED}.
     *
     * @param fd an inotify descriptor
     * @param wd a watch descriptor of that instance
     * @throws VfsException {@code EBADF} ({@code fd} not open), {@code EINVAL} (not an inotify
     *     descriptor, or no such watch); nothing changed
     */
    public void inotifyRmWatch(int fd, int wd) {
        try {
            c.inotify.rmWatch(fd, wd);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.INOTIFY_RM_WATCH, null, null);
        }
    }

    /** The checks of {@code eventfd(2)}, then the anonymous file: one code path for both views. */
    static CompletableFuture<Integer> eventfdAsync(TaskContext c, long initial, int flags) {
        if (initial < 0 || initial > 0xFFFFFFFFL) {
            // eventfd(2) takes an unsigned int
            throw new VfsException(Errno.EINVAL, Syscall.EVENTFD, null);
        }
        if ((flags & ~(EventFd.EFD_SEMAPHORE | OpenFlags.O_NONBLOCK | OpenFlags.O_CLOEXEC)) != 0) {
            // EFD_FLAGS_SET: no access mode or other open flag
            throw new VfsException(Errno.EINVAL, Syscall.EVENTFD, null);
        }
        int efd = flags & EventFd.EFD_SEMAPHORE;
        return c.anon.anonInodeGetFd(
                "eventfd", new EventFd(initial, efd, c.vfs().shutdown()), flags & ~efd);
    }

    /**
     * {@code shutdown(2)}: {@code SHUT_RD}, {@code SHUT_WR}, {@code SHUT_RDWR} ({@code ENOTSOCK},
     * {@code ENOTCONN}, {@code EINVAL}).
     *
     * @param fd a socket's descriptor
     * @param how {@code SHUT_RD}, {@code SHUT_WR} or {@code SHUT_RDWR}
     */
    public void shutdown(int fd, int how) {
        try {
            c.anon.shutdown(fd, how);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.SHUTDOWN, null, null);
        }
    }

    // ---------------------------------------------------------------- namespace

    /**
     * {@code mkdir(2)}: creates a directory with {@code mode & ~umask & 01777}; in a set-group-ID
     * directory it takes the directory's group and the set-group-ID bit.
     *
     * @param path the path; a relative one starts at the working directory
     * @param mode permission bits, before the umask
     * @throws VfsException {@code EEXIST}, {@code ENOENT}, {@code ENOTDIR}, {@code EACCES}, {@code
     *     EROFS}, {@code ENOSPC}, {@code ENAMETOOLONG}, {@code ELOOP}
     */
    public void mkdir(CharSequence path, int mode) {
        mkdirat(AT_FDCWD, path, mode);
    }

    /**
     * {@code mkdirat(2)}.
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param mode permission bits, before the umask
     */
    public void mkdirat(int dirfd, CharSequence path, int mode) {
        try {
            Filename p = TaskContext.path(path, Syscall.MKDIR);
            c.retryingAwait(() -> c.ns.mkdirat(dirfd, p, mode), Syscall.MKDIR, p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.MKDIR, path, null);
        }
    }

    /**
     * {@code mknod(2)}: creates a regular file ({@code S_IFREG} or 0), FIFO, socket, or (root only)
     * device node. {@code S_IFDIR} is {@code EPERM}; an unknown type {@code EINVAL}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param mode type and permission bits
     * @param dev device number for {@code S_IFCHR}/{@code S_IFBLK}
     */
    public void mknod(CharSequence path, int mode, long dev) {
        mknodat(AT_FDCWD, path, mode, dev);
    }

    /**
     * {@code mknodat(2)}.
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param mode type and permission bits
     * @param dev device number for {@code S_IFCHR}/{@code S_IFBLK}
     */
    public void mknodat(int dirfd, CharSequence path, int mode, long dev) {
        try {
            Filename p = TaskContext.path(path, Syscall.MKNOD);
            c.retryingAwait(() -> c.ns.mknodat(dirfd, p, mode, dev), Syscall.MKNOD, p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.MKNOD, path, null);
        }
    }

    /**
     * {@code symlink(2)}: creates {@code linkpath} pointing at {@code target} (stored as given, not
     * resolved).
     *
     * @param target the link's contents, stored as given
     * @param linkpath the path of the new link
     * @throws VfsException {@code ENOENT} (empty target), {@code ENAMETOOLONG}, {@code EEXIST}, ...
     */
    public void symlink(CharSequence target, CharSequence linkpath) {
        symlinkat(target, AT_FDCWD, linkpath);
    }

    /**
     * {@code symlinkat(2)}.
     *
     * @param target the link's contents, stored as given
     * @param newdirfd the directory a relative {@code linkpath} starts from, or {@link #AT_FDCWD}
     * @param linkpath the path of the new link
     */
    public void symlinkat(CharSequence target, int newdirfd, CharSequence linkpath) {
        try {
            Filename t = TaskContext.path(target, Syscall.SYMLINK);
            Filename l = TaskContext.path(linkpath, Syscall.SYMLINK);
            c.retryingAwait(() -> c.ns.symlinkat(t, newdirfd, l), Syscall.SYMLINK, l);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.SYMLINK, target, linkpath);
        }
    }

    /**
     * {@code link(2)}: gives {@code oldpath}'s inode another name. Does not follow a final symlink
     * of {@code oldpath} (as Linux's {@code link}).
     *
     * @param oldpath the existing path
     * @param newpath the new path
     * @throws VfsException {@code EEXIST}, {@code EPERM} (a directory), {@code EXDEV}, {@code
     *     EMLINK}, {@code ENOENT}, {@code EACCES}, {@code EROFS}
     */
    public void link(CharSequence oldpath, CharSequence newpath) {
        linkat(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
    }

    /**
     * {@code linkat(2)} with {@code AT_SYMLINK_FOLLOW} and {@code AT_EMPTY_PATH}.
     *
     * @param olddirfd the directory a relative {@code oldpath} starts from, or {@link #AT_FDCWD}
     * @param oldpath the existing path
     * @param newdirfd the directory a relative {@code newpath} starts from, or {@link #AT_FDCWD}
     * @param newpath the new path
     * @param flags {@code AT_SYMLINK_FOLLOW}, {@code AT_EMPTY_PATH}, or 0
     */
    public void linkat(
            int olddirfd, CharSequence oldpath, int newdirfd, CharSequence newpath, int flags) {
        try {
            Filename o = TaskContext.path(oldpath, Syscall.LINK);
            Filename n = TaskContext.path(newpath, Syscall.LINK);
            c.retryingAwait(() -> c.ns.linkat(olddirfd, o, newdirfd, n, flags), Syscall.LINK, o);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.LINK, oldpath, newpath);
        }
    }

    /**
     * {@code unlink(2)}: removes a name; the inode is freed when its last link and last open file
     * are gone.
     *
     * @param path the path; a relative one starts at the working directory
     * @throws VfsException {@code ENOENT}, {@code EISDIR}, {@code ENOTDIR}, {@code EACCES}, {@code
     *     EPERM} (sticky directory), {@code EROFS}, {@code EBUSY}
     */
    public void unlink(CharSequence path) {
        unlinkat(AT_FDCWD, path, 0);
    }

    /**
     * {@code unlinkat(2)}, with {@code AT_REMOVEDIR} for {@code rmdir}.
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param flags {@code AT_REMOVEDIR} to remove a directory, or 0
     */
    public void unlinkat(int dirfd, CharSequence path, int flags) {
        Syscall op = (flags & OpenFlags.AT_REMOVEDIR) != 0 ? Syscall.RMDIR : Syscall.UNLINK;
        try {
            Filename p = TaskContext.path(path, op);
            c.retryingAwait(() -> c.ns.unlinkat(dirfd, p, flags), op, p);
        } catch (VfsException e) {
            throw c.raise(e, op, path, null);
        }
    }

    /**
     * {@code rmdir(2)}: removes an empty directory.
     *
     * @param path the path; a relative one starts at the working directory
     * @throws VfsException {@code ENOTEMPTY}, {@code EINVAL} ("."), {@code EBUSY} (a mountpoint or
     *     "/"), {@code ENOTDIR}, {@code ENOENT}, {@code EACCES}, {@code EROFS}
     */
    public void rmdir(CharSequence path) {
        unlinkat(AT_FDCWD, path, OpenFlags.AT_REMOVEDIR);
    }

    /**
     * {@code rename(2)}: atomically renames, replacing an existing target (an empty directory if
     * the source is a directory).
     *
     * @param oldpath the path to rename
     * @param newpath its new path
     * @throws VfsException {@code EINVAL} (a directory into its own subtree), {@code ENOTEMPTY},
     *     {@code EISDIR}, {@code ENOTDIR}, {@code EXDEV}, {@code EBUSY}, {@code ENOENT}, {@code
     *     EACCES}, {@code EPERM}, {@code EROFS}
     */
    public void rename(CharSequence oldpath, CharSequence newpath) {
        renameat2(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
    }

    /**
     * {@code renameat2(2)} with {@code RENAME_NOREPLACE} ({@code EEXIST}), {@code RENAME_EXCHANGE}
     * and {@code RENAME_WHITEOUT} (the source name is left bound to a whiteout, a character device
     * of mode 0 and number 0/0 owned by the caller, in the same atomic change, as tmpfs does; no
     * privilege needed, as since Linux 5.8; {@code ENOSPC} without a free inode). {@code EINVAL}
     * for an unknown flag, or {@code RENAME_EXCHANGE} with either other flag.
     *
     * @param olddirfd the directory a relative {@code oldpath} starts from, or {@link #AT_FDCWD}
     * @param oldpath the path to rename
     * @param newdirfd the directory a relative {@code newpath} starts from, or {@link #AT_FDCWD}
     * @param newpath its new path
     * @param flags {@code RENAME_NOREPLACE}, {@code RENAME_EXCHANGE}, {@code RENAME_WHITEOUT}, or 0
     */
    public void renameat2(
            int olddirfd, CharSequence oldpath, int newdirfd, CharSequence newpath, int flags) {
        try {
            Filename o = TaskContext.path(oldpath, Syscall.RENAME);
            Filename n = TaskContext.path(newpath, Syscall.RENAME);
            c.retryingAwait(
                    () -> c.ns.renameat2(olddirfd, o, newdirfd, n, flags), Syscall.RENAME, o);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.RENAME, oldpath, newpath);
        }
    }

    /**
     * {@code readlink(2)}: returns a symbolic link's target (its text; for its bytes, {@code
     * Filename.of(target).bytes()}).
     *
     * @param path the symbolic link's path
     * @return the target, as text
     * @throws VfsException {@code EINVAL} (not a symlink), {@code ENOENT}, ...
     */
    public String readlink(CharSequence path) {
        return readlinkat(AT_FDCWD, path);
    }

    /**
     * {@code readlinkat(2)}; an empty path reads the link open on {@code dirfd} with {@code O_PATH
     * | O_NOFOLLOW}.
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the symbolic link's path, relative to {@code dirfd} if relative; empty for {@code
     *     dirfd} itself
     * @return the target, as text
     */
    public String readlinkat(int dirfd, CharSequence path) {
        try {
            return PathNames.toExternal(
                    c.attrs.readlinkat(dirfd, TaskContext.path(path, Syscall.READLINK)));
        } catch (VfsException e) {
            throw c.raise(e, Syscall.READLINK, path, null);
        }
    }

    // ---------------------------------------------------------------- attributes

    /**
     * {@code stat(2)}: follows a final symlink. Lock-free; never blocks.
     *
     * @param path the path; a relative one starts at the working directory
     * @return the attributes of the file
     * @throws VfsException {@code ENOENT}, {@code ENOTDIR}, {@code EACCES}, {@code ELOOP}, {@code
     *     ENAMETOOLONG}
     */
    public Stat stat(CharSequence path) {
        return fstatat(AT_FDCWD, path, 0);
    }

    /**
     * {@code lstat(2)}: does not follow a final symlink.
     *
     * @param path the path; a relative one starts at the working directory
     * @return the attributes of the file, or of the link itself
     */
    public Stat lstat(CharSequence path) {
        return fstatat(AT_FDCWD, path, OpenFlags.AT_SYMLINK_NOFOLLOW, Syscall.LSTAT);
    }

    /**
     * {@code fstatat(2)} with {@code AT_SYMLINK_NOFOLLOW} and {@code AT_EMPTY_PATH}.
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param flags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @return the attributes of the file
     */
    public Stat fstatat(int dirfd, CharSequence path, int flags) {
        return fstatat(dirfd, path, flags, Syscall.STAT);
    }

    private Stat fstatat(int dirfd, CharSequence path, int flags, Syscall op) {
        try {
            return c.attrs.fstatat(dirfd, TaskContext.path(path, op), flags);
        } catch (VfsException e) {
            throw c.raise(e, op, path, null);
        }
    }

    /**
     * {@code fstat(2)} ({@code EBADF}); works on {@code O_PATH} descriptors.
     *
     * @param fd the descriptor
     * @return the attributes of the open file's inode
     */
    public Stat fstat(int fd) {
        try {
            return AttrCalls.stat(c.fget(fd, Syscall.FSTAT).inode());
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FSTAT, null, null);
        }
    }

    /**
     * {@code chmod(2)}: sets permission bits (owner or root, else {@code EPERM}).
     *
     * @param path the path; a relative one starts at the working directory
     * @param mode the new permission bits ({@code 07777})
     */
    public void chmod(CharSequence path, int mode) {
        fchmodat(AT_FDCWD, path, mode, 0);
    }

    /**
     * {@code fchmodat(2)}, with Linux 6.6's {@code fchmodat2} flags: {@code AT_SYMLINK_NOFOLLOW}
     * (on a symlink, {@code EOPNOTSUPP}) and {@code AT_EMPTY_PATH} (an empty {@code path} names
     * {@code dirfd} itself, which may be an {@code O_PATH} descriptor, of an inode with no name
     * left too; a symlink so named is {@code EOPNOTSUPP}).
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param mode the new permission bits ({@code 07777})
     * @param flags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0 ({@code EINVAL} for
     *     others)
     */
    public void fchmodat(int dirfd, CharSequence path, int mode, int flags) {
        try {
            Filename p = TaskContext.path(path, Syscall.CHMOD);
            c.retryingAwait(() -> c.attrs.fchmodat(dirfd, p, mode, flags), Syscall.CHMOD, p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.CHMOD, path, null);
        }
    }

    /**
     * {@code fchmod(2)} ({@code EBADF} also for an {@code O_PATH} descriptor).
     *
     * @param fd the descriptor
     * @param mode the new permission bits ({@code 07777})
     */
    public void fchmod(int fd, int mode) {
        try {
            c.await(TaskContext.async(() -> fchmod(c, fd, mode)), Syscall.FCHMOD, null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FCHMOD, null, null);
        }
    }

    static CompletableFuture<Void> fchmod(TaskContext c, int fd, int mode) {
        return c.attrs.setAttrs(
                AttrCalls.Found.byDescriptor(c, fd, Syscall.FCHMOD),
                new AttrChange.Chmod(mode),
                Syscall.FCHMOD,
                null);
    }

    /**
     * {@code fchown(2)}: -1 leaves an id unchanged ({@code EBADF}, {@code EPERM}, {@code EROFS}).
     *
     * @param fd the descriptor
     * @param uid the new owner's user id, or -1 to keep it
     * @param gid the new group id, or -1 to keep it
     */
    public void fchown(int fd, int uid, int gid) {
        try {
            c.await(TaskContext.async(() -> fchown(c, fd, uid, gid)), Syscall.FCHOWN, null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FCHOWN, null, null);
        }
    }

    static CompletableFuture<Void> fchown(TaskContext c, int fd, int uid, int gid) {
        return c.attrs.setAttrs(
                AttrCalls.Found.byDescriptor(c, fd, Syscall.FCHOWN),
                new AttrChange.Chown(uid, gid),
                Syscall.FCHOWN,
                null);
    }

    /**
     * {@code chown(2)}: -1 leaves an id unchanged; follows symlinks.
     *
     * @param path the path; a relative one starts at the working directory
     * @param uid the new owner's user id, or -1 to keep it
     * @param gid the new group id, or -1 to keep it
     */
    public void chown(CharSequence path, int uid, int gid) {
        fchownat(AT_FDCWD, path, uid, gid, 0);
    }

    /**
     * {@code lchown(2)}: changes a symlink itself.
     *
     * @param path the path; a relative one starts at the working directory
     * @param uid the new owner's user id, or -1 to keep it
     * @param gid the new group id, or -1 to keep it
     */
    public void lchown(CharSequence path, int uid, int gid) {
        fchownat(AT_FDCWD, path, uid, gid, OpenFlags.AT_SYMLINK_NOFOLLOW, Syscall.LCHOWN);
    }

    /**
     * {@code fchownat(2)}.
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param uid the new owner's user id, or -1 to keep it
     * @param gid the new group id, or -1 to keep it
     * @param flags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     */
    public void fchownat(int dirfd, CharSequence path, int uid, int gid, int flags) {
        fchownat(dirfd, path, uid, gid, flags, Syscall.CHOWN);
    }

    private void fchownat(int dirfd, CharSequence path, int uid, int gid, int flags, Syscall op) {
        try {
            Filename p = TaskContext.path(path, op);
            c.retryingAwait(() -> c.attrs.fchownat(dirfd, p, uid, gid, flags), op, p);
        } catch (VfsException e) {
            throw c.raise(e, op, path, null);
        }
    }

    /**
     * {@code utimensat(2)}: sets access and modification times; {@code null} means now; {@link
     * Timespec#NOW} and {@link Timespec#OMIT} as in the man page. A {@code null} path operates on
     * {@code dirfd} itself ({@code futimens}). By path, the change takes effect while {@code path}
     * still names the inode (as {@link #chmod}).
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the path, relative to {@code dirfd} if relative; {@code null} for {@code dirfd}
     *     itself
     * @param atime the access time, {@code null} for now
     * @param mtime the modification time, {@code null} for now
     * @param flags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     * @throws VfsException {@code EINVAL} (bad flags, a {@code tv_nsec} out of range, flags with a
     *     {@code null} path), {@code EFAULT} ({@code null} path with {@code AT_FDCWD}), {@code
     *     EPERM} / {@code EACCES} (setting times, or "now" without write permission, as neither
     *     owner nor root), {@code EBADF}, {@code ENOENT}, {@code ENOTDIR}, {@code ELOOP}, {@code
     *     EROFS}; {@code EIO} after 1000 attempts that the path changed under (nothing changed)
     */
    public void utimensat(int dirfd, CharSequence path, Timespec atime, Timespec mtime, int flags) {
        try {
            Filename p = TaskContext.pathOrNull(path, Syscall.UTIMENSAT);
            c.retryingAwait(
                    () -> c.attrs.utimensat(dirfd, p, atime, mtime, flags), Syscall.UTIMENSAT, p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.UTIMENSAT, path, null);
        }
    }

    /**
     * {@code access(2)}: checks {@code R_OK|W_OK|X_OK} (or {@code F_OK}) with the task's ids; root
     * passes read/write always and execute when any x bit is set.
     *
     * @param path the path; a relative one starts at the working directory
     * @param mode {@code F_OK}, or {@code R_OK}, {@code W_OK} and {@code X_OK} or-ed
     * @throws VfsException {@code EACCES}, {@code EROFS} (write on a read-only mount), {@code
     *     ENOENT}, {@code EINVAL}
     */
    public void access(CharSequence path, int mode) {
        faccessat(AT_FDCWD, path, mode, 0);
    }

    /**
     * {@code faccessat(2)} with {@code AT_EACCESS}, {@code AT_SYMLINK_NOFOLLOW}.
     *
     * @param dirfd the directory a relative path starts from, or {@link #AT_FDCWD} for the working
     *     directory
     * @param path the path; a relative one starts at {@code dirfd}
     * @param mode {@code F_OK}, or {@code R_OK}, {@code W_OK} and {@code X_OK} or-ed
     * @param flags {@code AT_EACCESS}, {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0
     */
    public void faccessat(int dirfd, CharSequence path, int mode, int flags) {
        try {
            c.attrs.faccessat(dirfd, TaskContext.path(path, Syscall.ACCESS), mode, flags);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.ACCESS, path, null);
        }
    }

    /**
     * {@code statfs(2)}: the file system holding {@code path}: sizes, free inodes, flags.
     *
     * @param path the path; a relative one starts at the working directory
     * @return the statistics of the file system holding {@code path}
     */
    public StatFs statfs(CharSequence path) {
        try {
            return c.attrs.statfs(
                    c.attrs.resolve(
                            AT_FDCWD,
                            TaskContext.path(path, Syscall.STATFS),
                            Syscall.STATFS,
                            0,
                            0));
        } catch (VfsException e) {
            throw c.raise(e, Syscall.STATFS, path, null);
        }
    }

    /**
     * {@code fstatfs(2)}.
     *
     * @param fd the descriptor
     * @return the statistics of the file system holding the open file
     */
    public StatFs fstatfs(int fd) {
        try {
            return c.attrs.statfs(c.fdPath(fd, Syscall.FSTATFS));
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FSTATFS, null, null);
        }
    }

    // ---------------------------------------------------------------- extended attributes

    /**
     * {@code setxattr(2)}: sets the extended attribute {@code name} of the file at {@code path}
     * (follows a symbolic link) to {@code value}; atomic (one attribute snapshot), sets ctime.
     * {@code EINVAL} for unknown flags, {@code ERANGE} for an empty name or one past 255 bytes,
     * {@code E2BIG} for a value past 65,536 bytes, then the lookup's errors, {@code EROFS}, {@code
     * EPERM} ({@code trusted.*} or {@code security.*} by a caller other than root, {@code user.*}
     * on a file other than a regular file or directory, or on a sticky directory the caller does
     * not own), {@code EACCES} (no write permission), {@code EOPNOTSUPP} (another namespace, or a
     * file system without xattrs such as procfs), {@code EEXIST} ({@code XATTR_CREATE}, it exists),
     * {@code ENODATA} ({@code XATTR_REPLACE}, it does not). Nothing changes on failure. Follows
     * Linux 6.18 on tmpfs, except that the space is not charged to {@code nr_inodes}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included ({@code "user.mime"})
     * @param value the value, 0 to 65,536 bytes (copied)
     * @param flags {@link dev.seqvfs.protocol.Xattr#XATTR_CREATE}, {@link
     *     dev.seqvfs.protocol.Xattr#XATTR_REPLACE}, or 0
     */
    public void setxattr(CharSequence path, String name, byte[] value, int flags) {
        try {
            Filename p = TaskContext.path(path, Syscall.SETXATTR);
            c.retryingAwait(
                    () -> c.xattrs.set(p, true, name, value, flags, Syscall.SETXATTR),
                    Syscall.SETXATTR,
                    p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.SETXATTR, path, null);
        }
    }

    /**
     * {@code lsetxattr(2)}: sets the extended attribute {@code name} of the file at {@code path}
     * (acts on a symbolic link itself (where {@code user.*} is {@code EPERM})) to {@code value};
     * atomic (one attribute snapshot), sets ctime. {@code EINVAL} for unknown flags, {@code ERANGE}
     * for an empty name or one past 255 bytes, {@code E2BIG} for a value past 65,536 bytes, then
     * the lookup's errors, {@code EROFS}, {@code EPERM} ({@code trusted.*} or {@code security.*} by
     * a caller other than root, {@code user.*} on a file other than a regular file or directory, or
     * on a sticky directory the caller does not own), {@code EACCES} (no write permission), {@code
     * EOPNOTSUPP} (another namespace, or a file system without xattrs such as procfs), {@code
     * EEXIST} ({@code XATTR_CREATE}, it exists), {@code ENODATA} ({@code XATTR_REPLACE}, it does
     * not). Nothing changes on failure. Follows Linux 6.18 on tmpfs, except that the space is not
     * charged to {@code nr_inodes}.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included ({@code "user.mime"})
     * @param value the value, 0 to 65,536 bytes (copied)
     * @param flags {@link dev.seqvfs.protocol.Xattr#XATTR_CREATE}, {@link
     *     dev.seqvfs.protocol.Xattr#XATTR_REPLACE}, or 0
     */
    public void lsetxattr(CharSequence path, String name, byte[] value, int flags) {
        try {
            Filename p = TaskContext.path(path, Syscall.LSETXATTR);
            c.retryingAwait(
                    () -> c.xattrs.set(p, false, name, value, flags, Syscall.LSETXATTR),
                    Syscall.LSETXATTR,
                    p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.LSETXATTR, path, null);
        }
    }

    /**
     * {@code fsetxattr(2)}: {@link #setxattr} on an open file ({@code EBADF}, also for an {@code
     * O_PATH} descriptor).
     *
     * @param fd the descriptor
     * @param name the full name, namespace prefix included
     * @param value the value, 0 to 65,536 bytes (copied)
     * @param flags {@link dev.seqvfs.protocol.Xattr#XATTR_CREATE}, {@link
     *     dev.seqvfs.protocol.Xattr#XATTR_REPLACE}, or 0
     */
    public void fsetxattr(int fd, String name, byte[] value, int flags) {
        try {
            c.await(
                    TaskContext.async(() -> c.xattrs.fset(fd, name, value, flags)),
                    Syscall.FSETXATTR,
                    null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FSETXATTR, null, null);
        }
    }

    /**
     * {@code getxattr(2)}: returns a copy of the value of the extended attribute {@code name}
     * (follows a symbolic link); lock-free, no message. The whole value is returned, so the size
     * probe and {@code ERANGE} of a short buffer have no equivalent here. {@code ERANGE} for an
     * empty name or one past 255 bytes, the lookup's errors, {@code ENODATA} (no such attribute,
     * {@code trusted.*} for a caller other than root, {@code user.*} on a file other than a regular
     * file or directory), {@code EACCES} (no read permission), {@code EOPNOTSUPP} (another
     * namespace, or a file system without xattrs).
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     * @return the value (a new array)
     */
    public byte[] getxattr(CharSequence path, String name) {
        try {
            return c.xattrs.get(
                    TaskContext.path(path, Syscall.GETXATTR), true, name, Syscall.GETXATTR);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.GETXATTR, path, null);
        }
    }

    /**
     * {@code lgetxattr(2)}: returns a copy of the value of the extended attribute {@code name}
     * (acts on a symbolic link itself (where {@code user.*} is {@code ENODATA})); lock-free, no
     * message. The whole value is returned, so the size probe and {@code ERANGE} of a short buffer
     * have no equivalent here. {@code ERANGE} for an empty name or one past 255 bytes, the lookup's
     * errors, {@code ENODATA} (no such attribute, {@code trusted.*} for a caller other than root,
     * {@code user.*} on a file other than a regular file or directory), {@code EACCES} (no read
     * permission), {@code EOPNOTSUPP} (another namespace, or a file system without xattrs).
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     * @return the value (a new array)
     */
    public byte[] lgetxattr(CharSequence path, String name) {
        try {
            return c.xattrs.get(
                    TaskContext.path(path, Syscall.LGETXATTR), false, name, Syscall.LGETXATTR);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.LGETXATTR, path, null);
        }
    }

    /**
     * {@code fgetxattr(2)}: {@link #getxattr} on an open file ({@code EBADF}).
     *
     * @param fd the descriptor
     * @param name the full name, namespace prefix included
     * @return the value (a new array)
     */
    public byte[] fgetxattr(int fd, String name) {
        try {
            return c.xattrs.fget(fd, name);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FGETXATTR, null, null);
        }
    }

    /**
     * {@code listxattr(2)}: returns the names of the file's extended attributes (follows a symbolic
     * link), sorted as tmpfs lists them, without {@code trusted.*} for a caller other than root;
     * empty on a file system without xattrs. Needs no permission on the file; lock-free, no
     * message.
     *
     * @param path the path; a relative one starts at the working directory
     * @return the names (immutable)
     */
    public List<String> listxattr(CharSequence path) {
        try {
            return c.xattrs.list(
                    TaskContext.path(path, Syscall.LISTXATTR), true, Syscall.LISTXATTR);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.LISTXATTR, path, null);
        }
    }

    /**
     * {@code llistxattr(2)}: returns the names of the file's extended attributes (acts on a
     * symbolic link itself), sorted as tmpfs lists them, without {@code trusted.*} for a caller
     * other than root; empty on a file system without xattrs. Needs no permission on the file;
     * lock-free, no message.
     *
     * @param path the path; a relative one starts at the working directory
     * @return the names (immutable)
     */
    public List<String> llistxattr(CharSequence path) {
        try {
            return c.xattrs.list(
                    TaskContext.path(path, Syscall.LLISTXATTR), false, Syscall.LLISTXATTR);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.LLISTXATTR, path, null);
        }
    }

    /**
     * {@code flistxattr(2)}: {@link #listxattr} on an open file ({@code EBADF}).
     *
     * @param fd the descriptor
     * @return the names (immutable)
     */
    public List<String> flistxattr(int fd) {
        try {
            return c.xattrs.flist(fd);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FLISTXATTR, null, null);
        }
    }

    /**
     * {@code removexattr(2)}: removes the extended attribute {@code name} (follows a symbolic
     * link); atomic, sets ctime. The errors of {@link #setxattr} (but {@code E2BIG} and {@code
     * EEXIST}), and {@code ENODATA} when there is no such attribute.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     */
    public void removexattr(CharSequence path, String name) {
        try {
            Filename p = TaskContext.path(path, Syscall.REMOVEXATTR);
            c.retryingAwait(
                    () -> c.xattrs.remove(p, true, name, Syscall.REMOVEXATTR),
                    Syscall.REMOVEXATTR,
                    p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.REMOVEXATTR, path, null);
        }
    }

    /**
     * {@code lremovexattr(2)}: removes the extended attribute {@code name} (acts on a symbolic link
     * itself); atomic, sets ctime. The errors of {@link #setxattr} (but {@code E2BIG} and {@code
     * EEXIST}), and {@code ENODATA} when there is no such attribute.
     *
     * @param path the path; a relative one starts at the working directory
     * @param name the full name, namespace prefix included
     */
    public void lremovexattr(CharSequence path, String name) {
        try {
            Filename p = TaskContext.path(path, Syscall.LREMOVEXATTR);
            c.retryingAwait(
                    () -> c.xattrs.remove(p, false, name, Syscall.LREMOVEXATTR),
                    Syscall.LREMOVEXATTR,
                    p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.LREMOVEXATTR, path, null);
        }
    }

    /**
     * {@code fremovexattr(2)}: {@link #removexattr} on an open file ({@code EBADF}).
     *
     * @param fd the descriptor
     * @param name the full name, namespace prefix included
     */
    public void fremovexattr(int fd, String name) {
        try {
            c.await(
                    TaskContext.async(() -> c.xattrs.fremove(fd, name)),
                    Syscall.FREMOVEXATTR,
                    null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FREMOVEXATTR, null, null);
        }
    }

    // ---------------------------------------------------------------- the task

    /**
     * {@code setxattrat(2)} (Linux 6.13): {@link #setxattr} of the file at {@code path} relative to
     * {@code dirfd}, or of {@code dirfd} itself with an empty path and {@code AT_EMPTY_PATH}, which
     * may then be an {@code O_PATH} descriptor (of an inode with no name left too). Same checks,
     * errors and atomicity as {@link #setxattr}; the errors name {@code setxattr}.
     *
     * @param dirfd the directory a relative path starts from, {@link #AT_FDCWD}, or the descriptor
     *     itself with {@code AT_EMPTY_PATH}
     * @param path the path; a relative one starts at {@code dirfd}
     * @param atFlags {@code AT_SYMLINK_NOFOLLOW} (act on a final symbolic link itself), {@code
     *     AT_EMPTY_PATH}, or 0 ({@code EINVAL} for others)
     * @param name the full name, namespace prefix included
     * @param value the value, 0 to 65,536 bytes (copied)
     * @param flags {@link dev.seqvfs.protocol.Xattr#XATTR_CREATE}, {@link
     *     dev.seqvfs.protocol.Xattr#XATTR_REPLACE}, or 0
     */
    public void setxattrat(
            int dirfd, CharSequence path, int atFlags, String name, byte[] value, int flags) {
        try {
            Filename p = TaskContext.path(path, Syscall.SETXATTR);
            c.retryingAwait(
                    () -> c.xattrs.setAt(dirfd, p, atFlags, name, value, flags, Syscall.SETXATTR),
                    Syscall.SETXATTR,
                    p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.SETXATTR, path, null);
        }
    }

    /**
     * {@code getxattrat(2)} (Linux 6.13): {@link #getxattr} by a path relative to {@code dirfd}, or
     * of {@code dirfd} itself ({@code AT_EMPTY_PATH}, an {@code O_PATH} descriptor too). Lock-free,
     * no message; the errors name {@code getxattr}.
     *
     * @param dirfd the directory a relative path starts from, {@link #AT_FDCWD}, or the descriptor
     *     itself with {@code AT_EMPTY_PATH}
     * @param path the path; a relative one starts at {@code dirfd}
     * @param atFlags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0 ({@code EINVAL})
     * @param name the full name, namespace prefix included
     * @return the value (a new array)
     */
    public byte[] getxattrat(int dirfd, CharSequence path, int atFlags, String name) {
        try {
            return c.xattrs.getAt(
                    dirfd,
                    TaskContext.path(path, Syscall.GETXATTR),
                    atFlags,
                    name,
                    Syscall.GETXATTR);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.GETXATTR, path, null);
        }
    }

    /**
     * {@code listxattrat(2)} (Linux 6.13): {@link #listxattr} by a path relative to {@code dirfd},
     * or of {@code dirfd} itself ({@code AT_EMPTY_PATH}). Lock-free; the errors name {@code
     * listxattr}.
     *
     * @param dirfd the directory a relative path starts from, {@link #AT_FDCWD}, or the descriptor
     *     itself with {@code AT_EMPTY_PATH}
     * @param path the path; a relative one starts at {@code dirfd}
     * @param atFlags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0 ({@code EINVAL})
     * @return the names the caller may see (immutable)
     */
    public List<String> listxattrat(int dirfd, CharSequence path, int atFlags) {
        try {
            return c.xattrs.listAt(
                    dirfd, TaskContext.path(path, Syscall.LISTXATTR), atFlags, Syscall.LISTXATTR);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.LISTXATTR, path, null);
        }
    }

    /**
     * {@code removexattrat(2)} (Linux 6.13): {@link #removexattr} by a path relative to {@code
     * dirfd}, or of {@code dirfd} itself ({@code AT_EMPTY_PATH}); the errors name {@code
     * removexattr}.
     *
     * @param dirfd the directory a relative path starts from, {@link #AT_FDCWD}, or the descriptor
     *     itself with {@code AT_EMPTY_PATH}
     * @param path the path; a relative one starts at {@code dirfd}
     * @param atFlags {@code AT_SYMLINK_NOFOLLOW}, {@code AT_EMPTY_PATH}, or 0 ({@code EINVAL})
     * @param name the full name, namespace prefix included
     */
    public void removexattrat(int dirfd, CharSequence path, int atFlags, String name) {
        try {
            Filename p = TaskContext.path(path, Syscall.REMOVEXATTR);
            c.retryingAwait(
                    () -> c.xattrs.removeAt(dirfd, p, atFlags, name, Syscall.REMOVEXATTR),
                    Syscall.REMOVEXATTR,
                    p);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.REMOVEXATTR, path, null);
        }
    }

    /**
     * {@code umask(2)}: sets the creation mask to {@code mask & 0777} and returns the old one.
     *
     * @param mask the new mask; only {@code 0777} is kept
     * @return the previous mask
     */
    public int umask(int mask) {
        try {
            return c.setUmask(mask);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.UMASK, null, null);
        }
    }

    /**
     * {@code chdir(2)}: {@code ENOENT}, {@code ENOTDIR}, {@code EACCES} (no search permission).
     *
     * @param path the new working directory's path
     */
    public void chdir(CharSequence path) {
        try {
            c.task.chdir(TaskContext.path(path, Syscall.CHDIR));
        } catch (VfsException e) {
            throw c.raise(e, Syscall.CHDIR, path, null);
        }
    }

    /**
     * {@code fchdir(2)}: to the directory open on {@code fd} ({@code EBADF}, {@code ENOTDIR},
     * {@code EACCES}).
     *
     * @param fd a descriptor open on a directory
     */
    public void fchdir(int fd) {
        try {
            c.task.fchdir(fd);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FCHDIR, null, null);
        }
    }

    /**
     * {@code getcwd(2)}, the system call: the working directory's path, as one consistent cut,
     * lock-free. A directory the task's root cannot reach (in a mount detached by {@code
     * umount2(MNT_DETACH)}) is answered as Linux's {@code sys_getcwd} answers it: {@code
     * "(unreachable)"} followed by its path within the detached mount ({@code "(unreachable)/d"}
     * for {@code /m/d} after {@code /m} was detached; {@code "(unreachable)/"} at that mount's
     * root), never the path it had; glibc's {@code getcwd(3)} fails with {@code ENOENT} on such an
     * answer. Thread-safe.
     *
     * @return the working directory's absolute path, or an {@code "(unreachable)"} one
     * @throws VfsException {@code ENOENT} (the directory was removed), {@code ENAMETOOLONG} (a path
     *     of {@code PATH_MAX} bytes or more)
     */
    public String getcwd() {
        try {
            return c.task.getcwd();
        } catch (VfsException e) {
            throw c.raise(e, Syscall.GETCWD, null, null);
        }
    }

    /**
     * {@code mount(2)}: a new superblock of the registered file-system type {@code fstype} (built
     * from {@code data}, its options) on the directory {@code target}; with {@code MS_BIND}, the
     * directory {@code source} again there; with {@code MS_REMOUNT}, changes the read-only state of
     * the mount at {@code target} ({@code MS_RDONLY}). Root only.
     *
     * @param source what to mount: a directory for {@code MS_BIND}, else ignored (may be {@code
     *     null})
     * @param target the directory to mount on
     * @param fstype the registered file-system type, for a new superblock
     * @param flags {@code MS_*} flags: {@code MS_BIND}, {@code MS_REMOUNT}, {@code MS_RDONLY}
     * @param data the file system's options (as {@code size=1m,mode=755}), or {@code null}
     * @throws VfsException {@code EPERM} (not root), {@code ENODEV} (type not registered), {@code
     *     EINVAL} (bad options, a remount of what is not a mount root), {@code ENOENT}, {@code
     *     ENOTDIR}, {@code EBUSY}
     */
    public void mount(
            CharSequence source, CharSequence target, String fstype, long flags, String data) {
        try {
            Filename s = TaskContext.pathOrNull(source, Syscall.MOUNT);
            Filename t = TaskContext.path(target, Syscall.MOUNT);
            c.await(
                    TaskContext.async(() -> c.task.mount(s, t, fstype, flags, data)),
                    Syscall.MOUNT,
                    t);
        } catch (VfsException e) {
            throw c.raise(
                    e,
                    Syscall.MOUNT,
                    TaskContext.mountSourceIsPath(flags) ? source : target,
                    TaskContext.mountSourceIsPath(flags) ? target : null);
        }
    }

    /**
     * {@code umount(2)}: {@link #umount2} with no flags.
     *
     * @param target the path of the mount point
     */
    public void umount(CharSequence target) {
        umount2(target, 0);
    }

    /**
     * {@code umount2(2)} with {@code MNT_DETACH} (lazy: detached now, freed when its last user is
     * gone), {@code MNT_FORCE} and {@code UMOUNT_NOFOLLOW}.
     *
     * @param target the path of the mount point
     * @param flags {@code MNT_DETACH}, {@code MNT_FORCE}, {@code UMOUNT_NOFOLLOW}, or 0
     * @throws VfsException {@code EINVAL} (not a mount root, bad flags), {@code EBUSY} (open files,
     *     working directories or submounts, unless {@code MNT_DETACH}), {@code EPERM}
     */
    public void umount2(CharSequence target, int flags) {
        try {
            c.task.umount2(TaskContext.path(target, Syscall.UMOUNT), flags);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.UMOUNT, target, null);
        }
    }

    // ---------------------------------------------------------------- descriptors

    /**
     * {@code dup(2)}: the lowest free descriptor, sharing the open file ({@code EBADF}, {@code
     * EMFILE}).
     *
     * @param oldfd the descriptor to duplicate
     * @return the new descriptor
     */
    public int dup(int oldfd) {
        try {
            return c.await(TaskContext.async(() -> c.fds.dup(oldfd)), Syscall.DUP, null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.DUP, null, null);
        }
    }

    /**
     * {@code dup2(2)}: {@code newfd} is closed first if open; {@code oldfd == newfd} returns it
     * ({@code EBADF}).
     *
     * @param oldfd the descriptor to duplicate
     * @param newfd the descriptor to make point at it
     * @return {@code newfd}
     */
    public int dup2(int oldfd, int newfd) {
        try {
            return c.await(
                    TaskContext.async(() -> c.fds.dup3(oldfd, newfd, 0, false)),
                    Syscall.DUP2,
                    null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.DUP2, null, null);
        }
    }

    /**
     * {@code dup3(2)}: as {@code dup2} with {@code O_CLOEXEC}; {@code oldfd == newfd} is {@code
     * EINVAL}.
     *
     * @param oldfd the descriptor to duplicate
     * @param newfd the descriptor to make point at it
     * @param flags {@code O_CLOEXEC}, or 0
     * @return {@code newfd}
     */
    public int dup3(int oldfd, int newfd, int flags) {
        try {
            return c.await(
                    TaskContext.async(() -> c.fds.dup3(oldfd, newfd, flags, true)),
                    Syscall.DUP3,
                    null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.DUP3, null, null);
        }
    }

    /**
     * {@code fcntl(2)}: {@code F_DUPFD}, {@code F_DUPFD_CLOEXEC}, {@code F_GETFD}, {@code F_SETFD},
     * {@code F_GETFL}, {@code F_SETFL} ({@code O_APPEND}, {@code O_NONBLOCK}, {@code O_NOATIME},
     * {@code O_DIRECT}, {@code O_ASYNC}), {@code F_GETPIPE_SZ}, {@code F_SETPIPE_SZ}; record locks
     * are {@link #fcntlLock}.
     *
     * @param fd the descriptor
     * @param cmd the command, an {@code F_*} constant of {@link dev.seqvfs.protocol.Fcntl}
     * @param arg the command's argument (ignored by the {@code F_GET*} commands)
     * @return what the command returns: a descriptor, flags, a pipe size, or 0
     * @throws VfsException {@code EBADF}, {@code EINVAL} (unknown command, bad argument), {@code
     *     EMFILE}, {@code EPERM}, {@code EBUSY}
     */
    public int fcntl(int fd, int cmd, long arg) {
        try {
            return c.await(TaskContext.async(() -> c.fds.fcntl(fd, cmd, arg)), Syscall.FCNTL, null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FCNTL, null, null);
        }
    }

    /**
     * {@code close_range(2)}: closes (or with {@code CLOSE_RANGE_CLOEXEC} marks) {@code
     * first..last} ({@code EINVAL}).
     *
     * @param first the first descriptor of the range
     * @param last the last descriptor of the range (inclusive)
     * @param flags {@code CLOSE_RANGE_CLOEXEC}, {@code CLOSE_RANGE_UNSHARE}, or 0
     */
    public void closeRange(int first, int last, int flags) {
        try {
            c.await(
                    TaskContext.async(() -> c.fds.closeRange(first, last, flags)),
                    Syscall.CLOSE_RANGE,
                    null);
        } catch (VfsException e) {
            throw c.raise(e, Syscall.CLOSE_RANGE, null, null);
        }
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * {@code fork(2)}: a new task with a copy of this task's descriptor table (each open file
     * description shared, gaining a reference), and the same working and root directories, umask
     * and credentials. Blocks for two messages (the copy, the new table's actor).
     *
     * @return the new task
     */
    public VfsTask fork() {
        try {
            return new VfsTask(c.fork());
        } catch (VfsException e) {
            throw c.raise(e, Syscall.FORK, null, null);
        }
    }

    /**
     * A new thread of this task ({@code clone(CLONE_FILES)}): it shares this task's descriptor
     * table; working directory and umask start as this task's.
     *
     * @return the new thread's task
     */
    public VfsTask newThread() {
        try {
            return new VfsTask(c.newThread());
        } catch (VfsException e) {
            throw c.raise(e, Syscall.CLONE, null, null);
        }
    }

    /**
     * A new thread of this task with other credentials: {@code clone(CLONE_FILES)} followed, on the
     * new thread, by {@code setfsuid(2)}, {@code setfsgid(2)} and {@code setgroups(2)}, which on
     * Linux change the calling thread's credentials only ({@code credentials(7)}; a FUSE server
     * switches its worker's this way to act as its caller). The new thread shares this task's
     * descriptor table, so a descriptor either opens is usable by both, while each call is checked
     * against the credentials of the task that makes it; working directory and umask start as this
     * task's.
     *
     * @param cred the new thread's credentials (user, group, supplementary groups)
     * @return the new thread's task
     * @throws VfsException {@code EPERM} unless this task is root (Linux: {@code CAP_SETUID} and
     *     {@code CAP_SETGID}) or {@code cred} equals its own; nothing is made then
     */
    public VfsTask newThread(Credentials cred) {
        try {
            return new VfsTask(c.newThread(cred));
        } catch (VfsException e) {
            throw c.raise(e, Syscall.CLONE, null, null);
        }
    }

    /** The descriptor side of {@code execve(2)}: closes every close-on-exec descriptor. */
    public void exec() {
        try {
            c.fds.exec();
        } catch (VfsException e) {
            throw c.raise(e, Syscall.EXECVE, null, null);
        }
    }

    /**
     * Ends the task ({@code exit}): drops its use of the descriptor table (closing every
     * descriptor, released before this returns, when it was the last task sharing it) and releases
     * its working and root directories. Further calls fail with {@code ESRCH}. Idempotent.
     */
    @Override
    public void close() {
        c.exit();
    }
}
