package dev.seqvfs.engine;

import dev.seqvfs.engine.fdtable.FdReply;
import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.FdTableActor;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.walk.PathNames;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.engine.walk.WalkContext;
import dev.seqvfs.engine.walk.WalkFunction;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import dev.seqvfs.engine.reply.ReplyTo;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A task ({@code task_struct}): the POSIX-style API of SeqVFS, with the caller's
 * credentials, umask, working and root directories, and descriptor table.
 *
 * <p>Every call follows its Linux man page (section 2): same arguments, same results,
 * same errno, raised as a {@link VfsException} that names the call and its path(s). Paths
 * are Java strings (encoded as UTF-8) or, through the {@code byte[]} overloads, raw bytes.
 * A failed call has changed nothing.
 *
 * <p><b>Blocking and async.</b> Calls that change the namespace or the descriptor table
 * send one message to the actor that owns the state; each has an {@code ...Async} twin
 * returning a {@link CompletionStage} that message-driven callers can compose without
 * blocking (a failure completes it exceptionally with the {@link VfsException}). The
 * blocking form waits for the same stage; with the calling-thread dispatcher the actor
 * usually runs on the caller's thread, so it rarely parks. Calls that only read
 * ({@code stat}, {@code readlink}, {@code access}, {@code getdents}, {@code getcwd},
 * {@code statfs}) never send a message, never lock and never block, so they have no twin.
 *
 * <p><b>Thread-safety.</b> A task may be used by several threads at once (they then share
 * its descriptor table, like threads of a process). {@code cwd}, {@code root} and
 * {@code umask} are volatile fields, read with acquire and written with release by the
 * task's own calls.
 *
 * <p>This class is the system-call table, so it is long: each call is a few lines that
 * delegate to {@code NamespaceCalls}, {@code OpenCalls}, {@code AttrCalls} or
 * {@code TaskCalls}, where the logic lives.
 */
public final class VfsTask implements WalkContext, AutoCloseable {
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

    private final SeqVfs vfs;
    private final FilesStruct files;
    private final Credentials cred;
    private final NamespaceCalls ns = new NamespaceCalls(this);
    private final OpenCalls opens = new OpenCalls(this);
    private final AttrCalls attrs = new AttrCalls(this);
    private final TaskCalls task = new TaskCalls(this);
    private final IoCalls io = new IoCalls(this);
    private final FdCalls fds = new FdCalls(this);
    private final AnonCalls anon = new AnonCalls(this);
    private final LockCalls locks = new LockCalls(this);
    private volatile VfsPath cwd;
    private volatile VfsPath root;
    private volatile int umask = 022;
    private volatile boolean exited;
    private final int pid;

    VfsTask(SeqVfs vfs, FilesStruct files, Credentials cred) {
        this.vfs = vfs;
        this.files = files;
        this.cred = cred;
        VfsMount rm = vfs.namespace().rootMount();
        VfsPath r = new VfsPath(rm, rm.root());
        rm.pinAgain();
        rm.pinAgain();
        this.cwd = r;
        this.root = r;
        this.pid = vfs.register(this);
    }

    private VfsTask(VfsTask parent, FilesStruct files) {
        this.vfs = parent.vfs;
        this.files = files;
        this.cred = parent.cred;
        synchronized (parent) {
            this.cwd = parent.cwd;
            this.root = parent.root;
            cwd.mnt().pinAgain();
            root.mnt().pinAgain();
        }
        this.umask = parent.umask;
        this.pid = vfs.register(this);
    }

    // ---------------------------------------------------------------- plumbing

    SeqVfs vfs() {
        return vfs;
    }

    Asker asker() {
        alive("call");
        return vfs.asker();
    }

    FilesStruct files() {
        return files;
    }

    AttrCalls attrs() {
        return attrs;
    }

    IoCalls io() {
        return io;
    }

    int umask() {
        return umask;
    }

    /** Returns the task's process id, as {@code /proc/<pid>} and {@code /proc/self} show it. */
    public int pid() {
        return pid;
    }

    @Override
    public Credentials cred() {
        return cred;
    }

    @Override
    public VfsPath root() {
        return root;
    }

    @Override
    public VfsPath cwd() {
        return cwd;
    }

    /** Pins {@code p}'s mount, makes it the working directory, unpins the old one. */
    synchronized boolean setCwd(VfsPath p) {
        if (!p.mnt().tryPin()) {
            return false;
        }
        VfsPath old = cwd;
        cwd = p;
        old.mnt().unpin();
        return true;
    }

    <T> T walk(VfsPath start, String internalPath, String op, WalkFunction<T> fn) {
        alive(op);
        return vfs.walker().walk(this, start, internalPath, op, fn);
    }

    /**
     * Refuses calls on a task that has exited: {@code ESRCH}, as a call on a process that is
     * gone would be; and calls on an instance that was closed: {@code EIO}, as a file system
     * that was shut down answers. Every call passes here through {@link #walk}, {@link #fget}
     * or {@link #asker}.
     */
    void alive(String op) {
        if (exited) {
            throw new VfsException(Errno.ESRCH, op, null);
        }
        if (vfs.isClosed()) {
            throw new VfsException(Errno.EIO, op, null);
        }
    }

    /**
     * Returns where a relative path starts: the working directory for {@code AT_FDCWD},
     * else the directory open on {@code dirfd}. Absolute paths ignore it (but a bad
     * {@code dirfd} is still {@code EBADF} only when it is used, as in Linux). An empty
     * path (without {@code emptyOk}) is {@code ENOENT} and a path of {@code PATH_MAX} bytes
     * or more {@code ENAMETOOLONG} before {@code dirfd} is looked at, as {@code getname}
     * rejects them before {@code path_init}.
     */
    VfsPath startFor(int dirfd, String internalPath, String op, String extPath, boolean emptyOk) {
        if (internalPath.isEmpty() && !emptyOk) {
            throw new VfsException(Errno.ENOENT, op, extPath);
        }
        if (internalPath.length() >= Limits.PATH_MAX) {
            throw new VfsException(Errno.ENAMETOOLONG, op, extPath);
        }
        if (dirfd == AT_FDCWD || (!internalPath.isEmpty() && internalPath.charAt(0) == '/')) {
            return cwd;
        }
        OpenFile f = fget(dirfd, op);
        VfsPath p = new VfsPath(f.mount(), f.inode());
        if (!(internalPath.isEmpty() && emptyOk) && p.dir() == null) {
            throw new VfsException(Errno.ENOTDIR, op, extPath);
        }
        return p;
    }

    /** Returns the open file on {@code fd} ({@code fget}), lock-free. */
    OpenFile fget(int fd, String op) {
        alive(op);
        FdTable.Entry e = files.tableAcquire().get(fd);
        if (e == null) {
            throw new VfsException(Errno.EBADF, op, null);
        }
        return e.file();
    }

    VfsPath fdPath(int fd, String op) {
        OpenFile f = fget(fd, op);
        return new VfsPath(f.mount(), f.inode());
    }

    /** Like {@link #fdPath}, for calls that an {@code O_PATH} descriptor may not make ({@code EBADF}). */
    VfsPath fileFdPath(int fd, String op) {
        OpenFile f = fget(fd, op);
        if (f.isPath()) {
            throw new VfsException(Errno.EBADF, op, null);
        }
        return new VfsPath(f.mount(), f.inode());
    }

    private static <T> CompletableFuture<T> async(Supplier<CompletableFuture<T>> body) {
        try {
            return body.get();
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private <T> T await(CompletableFuture<T> f, String op, String path) {
        return vfs.asker().join(f, op, path);
    }

    /**
     * The blocking form of a call its writer may answer {@code ESTALE}: every attempt runs
     * and is awaited on the calling thread, each under its own ask timeout
     * ({@link Revalidate#retryingBlocking}), so a long run of stale attempts ends with
     * Revalidate's bounded answer, not with the ask timeout of the whole chain.
     */
    private <T> T retryingAwait(Supplier<CompletableFuture<T>> attempt, String op, String path) {
        return Revalidate.retryingBlocking(() -> await(async(attempt), op, path));
    }

    /** A raw path as the caller's {@code String} that stands for it exactly (see {@link PathNames}). */
    private static String str(byte[] path) {
        return PathNames.fromBytes(path);
    }

    // ---------------------------------------------------------------- open, close

    /**
     * {@code open(2)}: opens (and with {@code O_CREAT}, creates) a file and returns the
     * lowest free descriptor. Flags are {@link OpenFlags} values. Creation applies the
     * umask. Follows a final symlink unless {@code O_NOFOLLOW} ({@code ELOOP}) or
     * {@code O_CREAT | O_EXCL} ({@code EEXIST}); a dangling symlink with {@code O_CREAT}
     * creates its target.
     *
     * @param path the path
     * @param flags access mode and flags
     * @param mode permission bits for a created file
     * @return the descriptor
     * @throws VfsException {@code ENOENT}, {@code EEXIST}, {@code EISDIR}, {@code ENOTDIR},
     *         {@code EACCES}, {@code ELOOP}, {@code EROFS}, {@code EMFILE}, {@code ENOSPC},
     *         {@code ENAMETOOLONG}, {@code EINVAL} (O_CREAT|O_DIRECTORY); access mode 3
     *         ({@code O_ACCMODE}) checks read and write permission and gives a descriptor
     *         that can do neither, as in Linux. A FIFO ({@code fifo(7)}) opens one end of
     *         the pipe it shares with its other openers: {@code O_RDONLY} parks the calling
     *         thread until a writer opens, {@code O_WRONLY} until a reader does
     *         ({@code ENXIO} instead under {@code O_NONBLOCK}), {@code O_RDWR} and
     *         {@code O_RDONLY|O_NONBLOCK} never wait; access mode 3 is {@code EINVAL};
     *         an interrupted wait is {@code EINTR}
     */
    public int open(String path, int flags, int mode) {
        return openat(AT_FDCWD, path, flags, mode);
    }

    /** {@code open(2)} without a mode (no {@code O_CREAT}). */
    public int open(String path, int flags) {
        return openat(AT_FDCWD, path, flags, 0);
    }

    /** {@code open(2)} with a raw-byte path. */
    public int open(byte[] path, int flags, int mode) {
        return openat(AT_FDCWD, str(path), flags, mode);
    }

    /** {@code openat(2)}: {@link #open} relative to {@code dirfd} ({@code EBADF}, {@code ENOTDIR}). */
    public int openat(int dirfd, String path, int flags, int mode) {
        // Every attempt (a retry after ESTALE too) runs on this thread, so a FIFO open parks
        // this thread, interruptibly (EINTR), however many attempts it takes.
        return Revalidate.retryingBlocking(() -> await(opens.openat(dirfd, path, flags, mode, null), "open", path));
    }

    /**
     * The async twin of {@link #openat}. Opening a FIFO that must wait for the other side
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
    public CompletableFuture<Integer> openatAsync(int dirfd, String path, int flags, int mode) {
        OpenFuture out = new OpenFuture();
        out.follow(Revalidate.retrying(() -> opens.openat(dirfd, path, flags, mode, out)));
        return out;
    }

    /**
     * The async twin of {@link #open(String, int, int)}; cancelling its future withdraws the
     * open as {@link #openatAsync} says.
     */
    public CompletableFuture<Integer> openAsync(String path, int flags, int mode) {
        return openatAsync(AT_FDCWD, path, flags, mode);
    }

    /**
     * {@code close(2)}: closes a descriptor; the open file is released when its last
     * descriptor closes, and an unlinked inode is freed when its last open file is.
     *
     * @throws VfsException {@code EBADF} if {@code fd} is not open
     */
    public void close(int fd) {
        opens.closeBlocking(fd);
    }

    /** The async twin of {@link #close}. */
    public CompletableFuture<Void> closeAsync(int fd) {
        return async(() -> opens.close(fd));
    }

    /**
     * {@code getdents64(2)}: reads up to {@code max} entries of the directory open on
     * {@code fd}, from its offset, and advances the offset (a cookie, see
     * {@link DirEntry#cookie()}). "." and ".." come first. Entries come from one snapshot.
     *
     * @return the entries; empty at the end
     * @throws VfsException {@code EBADF}, {@code ENOTDIR}, {@code ENOENT} (directory removed), {@code EINVAL} (max &lt;= 0)
     */
    public List<DirEntry> getdents(int fd, int max) {
        return opens.getdents(fd, max);
    }

    /**
     * {@code lseek(2)} with {@code SEEK_SET}, {@code SEEK_CUR}, {@code SEEK_END}, and on
     * regular files {@code SEEK_DATA} / {@code SEEK_HOLE}; on a directory the offset is a
     * readdir cookie ({@code telldir}/{@code seekdir}); on a stream file its
     * {@code StreamOps.llseek} decides (an eventfd returns 0 whatever the arguments, as
     * {@code noop_llseek}). A {@code whence} above {@code SEEK_HOLE} is {@code EINVAL} first.
     *
     * @return the new offset in bytes (or the cookie)
     * @throws VfsException {@code EBADF}, {@code EINVAL} (bad whence, negative result,
     *         {@code SEEK_END} on a directory), {@code ESPIPE} (a pipe, FIFO or socket),
     *         {@code ENXIO} ({@code SEEK_DATA}/{@code SEEK_HOLE} at or past the end or negative, no data after)
     */
    public long lseek(int fd, long offset, int whence) {
        return opens.lseek(fd, offset, whence);
    }

    /**
     * Lists a whole directory by path ({@code opendir} + {@code readdir} + {@code closedir}),
     * without "." and "..".
     */
    public List<DirEntry> readdir(String path) {
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
     * {@code read(2)}: reads up to {@code len} bytes at the file offset into
     * {@code buf[off..]}, advancing the offset. Lock-free on the data; a read sees each
     * write whole or not at all. Holes read as zeros.
     *
     * @return the bytes read, 0 at end of file
     * @throws VfsException {@code EBADF} (not open for reading, {@code O_PATH}),
     *         {@code EISDIR}, {@code EINVAL} (not a regular file), {@code EFAULT} (bad range)
     */
    public int read(int fd, byte[] buf, int off, int len) {
        return io.read(fd, buf, off, len);
    }

    /** {@code pread(2)}: {@link #read} at {@code pos} bytes, without moving the offset ({@code EINVAL} if negative). */
    public int pread(int fd, byte[] buf, int off, int len, long pos) {
        return io.pread(fd, buf, off, len, pos);
    }

    /** {@code readv(2)}: fills the buffers in order from one version of the file (on a pipe or socket, from one read). */
    public long readv(int fd, byte[][] iov) {
        return io.readv(fd, iov);
    }

    /**
     * {@code write(2)}: writes {@code len} bytes at the file offset (at the end with
     * {@code O_APPEND}, atomically with respect to other writers), advancing it; sets
     * mtime and ctime.
     *
     * @return {@code len}, or fewer when an {@code O_APPEND} write would cross the maximum
     *         file size ({@code LLONG_MAX})
     * @throws VfsException {@code EBADF} (not open for writing), {@code EISDIR},
     *         {@code EINVAL} (not a regular file, offset plus {@code len} past {@code LLONG_MAX}),
     *         {@code EFBIG} (appending at the maximum size), {@code ENOSPC} (nothing written)
     */
    public int write(int fd, byte[] buf, int off, int len) {
        return io.write(fd, buf, off, len);
    }

    /**
     * {@code write(2)} of the whole array. A null array has no length to write: {@code EFAULT}
     * (after the descriptor checks), where {@code write(fd, null, 0, 0)} writes nothing and
     * returns 0, as {@code write(fd, NULL, 0)} on Linux.
     */
    public int write(int fd, byte[] buf) {
        return io.write(fd, buf, 0, buf == null ? -1 : buf.length);
    }

    /** {@code pwrite(2)}: writes at {@code pos} without moving the offset (with {@code O_APPEND}, at the end, as Linux). */
    public int pwrite(int fd, byte[] buf, int off, int len, long pos) {
        return io.pwrite(fd, buf, off, len, pos);
    }

    /** {@code writev(2)}: writes the buffers as one atomic write (on a pipe or socket, as one {@code write}). */
    public long writev(int fd, byte[][] iov) {
        return io.writev(fd, iov);
    }

    /**
     * {@code ftruncate(2)}: sets the size; shrinking frees pages, growing adds a hole.
     *
     * @throws VfsException {@code EBADF}, {@code EINVAL} (not open for writing, not a
     *         regular file, negative length), {@code EFBIG}, {@code ENOSPC}
     */
    public void ftruncate(int fd, long length) {
        io.ftruncate(fd, length);
    }

    /** {@code truncate(2)}: by path; needs write permission ({@code EACCES}), {@code EISDIR}, {@code EROFS}. */
    public void truncate(String path, long length) {
        io.truncate(path, length);
    }

    /** {@code fsync(2)}: every published write is already stable in memory; checks the descriptor. */
    public void fsync(int fd) {
        io.fsync(fd, false);
    }

    /** {@code fdatasync(2)}. */
    public void fdatasync(int fd) {
        io.fsync(fd, true);
    }

    /**
     * Reads without blocking a thread: on a pipe or socket the stage completes when data
     * arrives (with 0 at end of stream); on a regular file at once.
     */
    public CompletableFuture<Integer> readAsync(int fd, byte[] buf, int off, int len) {
        return async(() -> io.readAsync(fd, buf, off, len));
    }

    /** Writes without blocking a thread; on a pipe the stage completes when every byte is buffered. */
    public CompletableFuture<Integer> writeAsync(int fd, byte[] buf, int off, int len) {
        return async(() -> io.writeAsync(fd, buf, off, len));
    }

    // ---------------------------------------------------------------- advisory locks

    /**
     * {@code flock(2)}: {@code LOCK_SH}, {@code LOCK_EX} or {@code LOCK_UN}, with
     * {@code LOCK_NB} to fail instead of waiting. The lock belongs to the open file
     * description: duplicated descriptors share it, and it is dropped when the last of them
     * closes. Waiting parks the calling thread.
     *
     * @throws VfsException {@code EBADF}, {@code EINVAL} (bad operation), {@code EAGAIN}
     *         ({@code EWOULDBLOCK}: conflict with {@code LOCK_NB}), {@code EINTR}
     */
    public void flock(int fd, int operation) {
        locks.flock(fd, operation);
    }

    /**
     * {@code fcntl(2)} record locks: {@code F_GETLK} (returns the blocking lock, or the
     * request with type {@code F_UNLCK}), {@code F_SETLK}, {@code F_SETLKW} (waits, parking
     * the calling thread). Locks belong to the process (the descriptor table): closing any
     * of its descriptors of the file releases them all, as POSIX says.
     *
     * @throws VfsException {@code EBADF} (bad descriptor, or lock type not allowed by its
     *         access mode), {@code EINVAL} (bad command, type, whence or range),
     *         {@code EAGAIN} (conflict with {@code F_SETLK}), {@code EDEADLK} (waiting would
     *         deadlock), {@code EINTR}
     */
    public Flock fcntlLock(int fd, int cmd, Flock lock) {
        return locks.fcntlLock(fd, cmd, lock);
    }

    // ---------------------------------------------------------------- pipes and sockets

    /**
     * {@code pipe(2)}: a pipe of 64 KiB; returns {read end, write end}. Its inode lives in
     * no directory; {@code readlink("/proc/self/fd/N")} shows {@code pipe:[ino]}.
     *
     * @throws VfsException {@code EMFILE} (neither descriptor installed)
     */
    public int[] pipe() {
        return pipe2(0);
    }

    /**
     * {@code pipe2(2)} with {@code O_NONBLOCK}, {@code O_CLOEXEC} and {@code O_DIRECT}
     * (packet mode, set on the write end only; see {@code Pipe}); {@code EINVAL} for other flags.
     */
    public int[] pipe2(int flags) {
        return await(pipe2Async(flags), "pipe2", null);
    }

    /** The async twin of {@link #pipe2}. */
    public CompletableFuture<int[]> pipe2Async(int flags) {
        return async(() -> anon.pipe2(flags));
    }

    /**
     * {@code socket(2)}: an unconnected socket on a sockfs inode ({@code AF_UNIX}:
     * {@code SOCK_STREAM}, {@code SOCK_DGRAM}, {@code SOCK_SEQPACKET}, {@code SOCK_RAW} as
     * datagram; {@code AF_INET}, {@code AF_INET6}: TCP/MPTCP streams, UDP/UDP-Lite
     * datagrams; with {@code SOCK_NONBLOCK}/{@code SOCK_CLOEXEC}). Argument errors come in
     * Linux 6.18's order (see {@code AnonCalls.checkSocket}).
     *
     * @throws VfsException {@code EINVAL} (type flags, type or Internet protocol out of
     *         range), {@code EAFNOSUPPORT} (family), {@code ESOCKTNOSUPPORT} (type),
     *         {@code EPROTONOSUPPORT} (protocol), {@code EACCES} (ping socket),
     *         {@code EPERM} (raw Internet socket: no task has {@code CAP_NET_RAW}),
     *         {@code EMFILE}
     */
    public int socket(int domain, int type, int protocol) {
        return await(socketAsync(domain, type, protocol), "socket", null);
    }

    /** The async twin of {@link #socket}. */
    public CompletableFuture<Integer> socketAsync(int domain, int type, int protocol) {
        return async(() -> anon.socket(domain, type, protocol));
    }

    /**
     * {@code socketpair(2)} for {@code AF_UNIX}: two connected sockets; data written on one
     * is read on the other, both ways: a byte stream for {@code SOCK_STREAM}, datagrams
     * that keep their boundaries for {@code SOCK_DGRAM} and {@code SOCK_SEQPACKET}.
     *
     * @throws VfsException the errors of {@link #socket}, then {@code EOPNOTSUPP} for
     *         Internet families, {@code EMFILE}
     */
    public int[] socketpair(int domain, int type, int protocol) {
        return await(async(() -> anon.socketpair(domain, type, protocol)), "socketpair", null);
    }

    /**
     * {@code anon_inode_getfd}: a descriptor for a new anonymous inode named {@code name}
     * (shown as {@code anon_inode:[name]}) whose reads and writes are {@code ops}; flags are
     * an access mode (default {@code O_RDWR}), {@code O_NONBLOCK} and {@code O_CLOEXEC}.
     * Creating it touches no shared structure (seeds 000, 003).
     */
    public int anonInodeGetFd(String name, dev.seqvfs.engine.fs.StreamFileOperations ops, int flags) {
        return await(async(() -> anon.anonInodeGetFd(name, ops, flags)), "anon_inode_getfd", null);
    }

    /**
     * {@code eventfd(2)}: a counter file, {@code anon_inode:[eventfd]}; flags
     * {@code EFD_SEMAPHORE} (1), {@code O_NONBLOCK}, {@code O_CLOEXEC} ({@code EINVAL} for
     * any other flag, or an initial value that is not an unsigned int).
     */
    public int eventfd(long initial, int flags) {
        if (initial < 0 || initial > 0xFFFFFFFFL) {
            // eventfd(2) takes an unsigned int
            throw new VfsException(Errno.EINVAL, "eventfd", null);
        }
        if ((flags & ~(dev.seqvfs.engine.anon.EventFd.EFD_SEMAPHORE | OpenFlags.O_NONBLOCK | OpenFlags.O_CLOEXEC)) != 0) {
            // EFD_FLAGS_SET: no access mode or other open flag
            throw new VfsException(Errno.EINVAL, "eventfd", null);
        }
        int efd = flags & dev.seqvfs.engine.anon.EventFd.EFD_SEMAPHORE;
        return anonInodeGetFd("eventfd", new dev.seqvfs.engine.anon.EventFd(initial, efd), flags & ~efd);
    }

    /** {@code shutdown(2)}: {@code SHUT_RD}, {@code SHUT_WR}, {@code SHUT_RDWR} ({@code ENOTSOCK}, {@code ENOTCONN}, {@code EINVAL}). */
    public void shutdown(int fd, int how) {
        anon.shutdown(fd, how);
    }

    // ---------------------------------------------------------------- namespace

    /**
     * {@code mkdir(2)}: creates a directory with {@code mode & ~umask & 01777}; in a
     * set-group-ID directory it takes the directory's group and the set-group-ID bit.
     *
     * @throws VfsException {@code EEXIST}, {@code ENOENT}, {@code ENOTDIR}, {@code EACCES},
     *         {@code EROFS}, {@code ENOSPC}, {@code ENAMETOOLONG}, {@code ELOOP}
     */
    public void mkdir(String path, int mode) {
        mkdirat(AT_FDCWD, path, mode);
    }

    /** {@code mkdir(2)} with a raw-byte path. */
    public void mkdir(byte[] path, int mode) {
        mkdirat(AT_FDCWD, str(path), mode);
    }

    /** {@code mkdirat(2)}. */
    public void mkdirat(int dirfd, String path, int mode) {
        retryingAwait(() -> ns.mkdirat(dirfd, path, mode), "mkdir", path);
    }

    /** The async twin of {@link #mkdirat}. */
    public CompletableFuture<Void> mkdiratAsync(int dirfd, String path, int mode) {
        return Revalidate.retrying(() -> ns.mkdirat(dirfd, path, mode));
    }

    /** The async twin of {@link #mkdir(String, int)}. */
    public CompletableFuture<Void> mkdirAsync(String path, int mode) {
        return mkdiratAsync(AT_FDCWD, path, mode);
    }

    /**
     * {@code mknod(2)}: creates a regular file ({@code S_IFREG} or 0), FIFO, socket, or (root
     * only) device node. {@code S_IFDIR} is {@code EPERM}; an unknown type {@code EINVAL}.
     *
     * @param mode type and permission bits
     * @param dev device number for {@code S_IFCHR}/{@code S_IFBLK}
     */
    public void mknod(String path, int mode, long dev) {
        mknodat(AT_FDCWD, path, mode, dev);
    }

    /** {@code mknodat(2)}. */
    public void mknodat(int dirfd, String path, int mode, long dev) {
        retryingAwait(() -> ns.mknodat(dirfd, path, mode, dev), "mknod", path);
    }

    /** The async twin of {@link #mknodat}. */
    public CompletableFuture<Void> mknodatAsync(int dirfd, String path, int mode, long dev) {
        return Revalidate.retrying(() -> ns.mknodat(dirfd, path, mode, dev));
    }

    /**
     * {@code symlink(2)}: creates {@code linkpath} pointing at {@code target} (stored
     * as given, not resolved).
     *
     * @throws VfsException {@code ENOENT} (empty target), {@code ENAMETOOLONG}, {@code EEXIST}, ...
     */
    public void symlink(String target, String linkpath) {
        symlinkat(target, AT_FDCWD, linkpath);
    }

    /** {@code symlinkat(2)}. */
    public void symlinkat(String target, int newdirfd, String linkpath) {
        retryingAwait(() -> ns.symlinkat(target, newdirfd, linkpath), "symlink", linkpath);
    }

    /** The async twin of {@link #symlinkat}. */
    public CompletableFuture<Void> symlinkatAsync(String target, int newdirfd, String linkpath) {
        return Revalidate.retrying(() -> ns.symlinkat(target, newdirfd, linkpath));
    }

    /**
     * {@code link(2)}: gives {@code oldpath}'s inode another name. Does not follow a final
     * symlink of {@code oldpath} (as Linux's {@code link}).
     *
     * @throws VfsException {@code EPERM} (a directory), {@code EXDEV}, {@code EEXIST}, {@code ENOENT}, ...
     */
    public void link(String oldpath, String newpath) {
        linkat(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
    }

    /** {@code linkat(2)} with {@code AT_SYMLINK_FOLLOW} and {@code AT_EMPTY_PATH}. */
    public void linkat(int olddirfd, String oldpath, int newdirfd, String newpath, int flags) {
        retryingAwait(() -> ns.linkat(olddirfd, oldpath, newdirfd, newpath, flags), "link", oldpath);
    }

    /** The async twin of {@link #linkat}. */
    public CompletableFuture<Void> linkatAsync(int olddirfd, String oldpath, int newdirfd, String newpath,
                                               int flags) {
        return Revalidate.retrying(() -> ns.linkat(olddirfd, oldpath, newdirfd, newpath, flags));
    }

    /**
     * {@code unlink(2)}: removes a name; the inode is freed when its last link and last open
     * file are gone.
     *
     * @throws VfsException {@code ENOENT}, {@code EISDIR}, {@code ENOTDIR}, {@code EACCES},
     *         {@code EPERM} (sticky directory), {@code EROFS}, {@code EBUSY}
     */
    public void unlink(String path) {
        unlinkat(AT_FDCWD, path, 0);
    }

    /** {@code unlink(2)} with a raw-byte path. */
    public void unlink(byte[] path) {
        unlinkat(AT_FDCWD, str(path), 0);
    }

    /** {@code unlinkat(2)}, with {@code AT_REMOVEDIR} for {@code rmdir}. */
    public void unlinkat(int dirfd, String path, int flags) {
        retryingAwait(() -> ns.unlinkat(dirfd, path, flags), (flags & OpenFlags.AT_REMOVEDIR) != 0 ? "rmdir" : "unlink",
                path);
    }

    /** The async twin of {@link #unlinkat}. */
    public CompletableFuture<Void> unlinkatAsync(int dirfd, String path, int flags) {
        return Revalidate.retrying(() -> ns.unlinkat(dirfd, path, flags));
    }

    /** The async twin of {@link #unlink(String)}. */
    public CompletableFuture<Void> unlinkAsync(String path) {
        return unlinkatAsync(AT_FDCWD, path, 0);
    }

    /**
     * {@code rmdir(2)}: removes an empty directory.
     *
     * @throws VfsException {@code ENOTEMPTY}, {@code EINVAL} (".") , {@code EBUSY}
     *         (a mountpoint or "/"), {@code ENOTDIR}, {@code ENOENT}, {@code EACCES}, {@code EROFS}
     */
    public void rmdir(String path) {
        unlinkat(AT_FDCWD, path, OpenFlags.AT_REMOVEDIR);
    }

    /** The async twin of {@link #rmdir}. */
    public CompletableFuture<Void> rmdirAsync(String path) {
        return unlinkatAsync(AT_FDCWD, path, OpenFlags.AT_REMOVEDIR);
    }

    /**
     * {@code rename(2)}: atomically renames, replacing an existing target (an empty
     * directory if the source is a directory).
     *
     * @throws VfsException {@code EINVAL} (a directory into its own subtree),
     *         {@code ENOTEMPTY}, {@code EISDIR}, {@code ENOTDIR}, {@code EXDEV}, {@code EBUSY},
     *         {@code ENOENT}, {@code EACCES}, {@code EPERM}, {@code EROFS}
     */
    public void rename(String oldpath, String newpath) {
        renameat2(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
    }

    /** {@code renameat2(2)} with {@code RENAME_NOREPLACE} ({@code EEXIST}) and {@code RENAME_EXCHANGE}. */
    public void renameat2(int olddirfd, String oldpath, int newdirfd, String newpath, int flags) {
        retryingAwait(() -> ns.renameat2(olddirfd, oldpath, newdirfd, newpath, flags), "rename", oldpath);
    }

    /** The async twin of {@link #renameat2}. */
    public CompletableFuture<Void> renameat2Async(int olddirfd, String oldpath, int newdirfd, String newpath,
                                                  int flags) {
        return Revalidate.retrying(() -> ns.renameat2(olddirfd, oldpath, newdirfd, newpath, flags));
    }

    /** The async twin of {@link #rename}. */
    public CompletableFuture<Void> renameAsync(String oldpath, String newpath) {
        return renameat2Async(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
    }

    /**
     * {@code readlink(2)}: returns a symbolic link's target.
     *
     * @throws VfsException {@code EINVAL} (not a symlink), {@code ENOENT}, ...
     */
    public String readlink(String path) {
        return readlinkat(AT_FDCWD, path);
    }

    /** {@code readlinkat(2)}; an empty path reads the link open on {@code dirfd} with {@code O_PATH | O_NOFOLLOW}. */
    public String readlinkat(int dirfd, String path) {
        return PathNames.toExternal(attrs.readlinkat(dirfd, path));
    }

    /** {@code readlink(2)} returning the target's raw bytes. */
    public byte[] readlinkBytes(String path) {
        return PathNames.toBytes(attrs.readlinkat(AT_FDCWD, path));
    }

    // ---------------------------------------------------------------- attributes

    /**
     * {@code stat(2)}: follows a final symlink. Lock-free; never blocks.
     *
     * @throws VfsException {@code ENOENT}, {@code ENOTDIR}, {@code EACCES}, {@code ELOOP}, {@code ENAMETOOLONG}
     */
    public Stat stat(String path) {
        return attrs.fstatat(AT_FDCWD, path, 0);
    }

    /** {@code stat(2)} with a raw-byte path. */
    public Stat stat(byte[] path) {
        return attrs.fstatat(AT_FDCWD, str(path), 0);
    }

    /** {@code lstat(2)}: does not follow a final symlink. */
    public Stat lstat(String path) {
        return attrs.fstatat(AT_FDCWD, path, OpenFlags.AT_SYMLINK_NOFOLLOW);
    }

    /** {@code fstatat(2)} with {@code AT_SYMLINK_NOFOLLOW} and {@code AT_EMPTY_PATH}. */
    public Stat fstatat(int dirfd, String path, int flags) {
        return attrs.fstatat(dirfd, path, flags);
    }

    /** {@code fstat(2)} ({@code EBADF}); works on {@code O_PATH} descriptors. */
    public Stat fstat(int fd) {
        return AttrCalls.stat(fget(fd, "fstat").inode());
    }

    /**
     * {@code chmod(2)}: sets permission bits (owner or root, else {@code EPERM}), following a
     * final symlink. By path, the change takes effect at an instant at which {@code path}
     * still names the inode changed: a rename racing the call makes it walk again.
     *
     * @throws VfsException {@code EPERM} (neither owner nor root), {@code ENOENT},
     *         {@code ENOTDIR}, {@code EACCES} (search permission), {@code ELOOP},
     *         {@code ENAMETOOLONG}, {@code EROFS}; {@code EIO} if the path kept changing under
     *         the call for 1000 attempts (nothing changed)
     */
    public void chmod(String path, int mode) {
        fchmodat(AT_FDCWD, path, mode, 0);
    }

    /**
     * {@code fchmodat(2)}: {@link #chmod} relative to {@code dirfd}; {@code AT_SYMLINK_NOFOLLOW}
     * on a symlink is {@code EOPNOTSUPP}, another flag {@code EINVAL}; {@code EBADF} for a bad
     * {@code dirfd}; else the errnos of {@link #chmod}.
     */
    public void fchmodat(int dirfd, String path, int mode, int flags) {
        retryingAwait(() -> attrs.fchmodat(dirfd, path, mode, flags), "chmod", path);
    }

    /** The async twin of {@link #fchmodat}. */
    public CompletableFuture<Void> fchmodatAsync(int dirfd, String path, int mode, int flags) {
        return Revalidate.retrying(() -> attrs.fchmodat(dirfd, path, mode, flags));
    }

    /** {@code fchmod(2)} ({@code EBADF} also for an {@code O_PATH} descriptor). */
    public void fchmod(int fd, int mode) {
        await(async(() -> attrs.setAttrs(fileFdPath(fd, "fchmod"),
                new dev.seqvfs.engine.inode.AttrChange.Chmod(mode), "fchmod", null)), "fchmod", null);
    }

    /** {@code fchown(2)}: -1 leaves an id unchanged ({@code EBADF}, {@code EPERM}, {@code EROFS}). */
    public void fchown(int fd, int uid, int gid) {
        await(async(() -> {
            dev.seqvfs.engine.fdtable.OpenFile f = fget(fd, "fchown");
            if (f.isPath()) {
                throw new VfsException(Errno.EBADF, "fchown", null);
            }
            return attrs.setAttrs(new VfsPath(f.mount(), f.inode()),
                    new dev.seqvfs.engine.inode.AttrChange.Chown(uid, gid), "fchown", null);
        }), "fchown", null);
    }

    /**
     * {@code chown(2)}: -1 leaves an id unchanged; follows symlinks. By path, the change takes
     * effect while {@code path} still names the inode (as {@link #chmod}).
     *
     * @throws VfsException {@code EPERM} (not root, or an owner giving the file away or
     *         choosing a group it is not in), {@code ENOENT}, {@code ENOTDIR}, {@code EACCES},
     *         {@code ELOOP}, {@code ENAMETOOLONG}, {@code EROFS}; {@code EIO} after
     *         1000 attempts that the path changed under (nothing changed)
     */
    public void chown(String path, int uid, int gid) {
        fchownat(AT_FDCWD, path, uid, gid, 0);
    }

    /** {@code lchown(2)}: changes a symlink itself. */
    public void lchown(String path, int uid, int gid) {
        fchownat(AT_FDCWD, path, uid, gid, OpenFlags.AT_SYMLINK_NOFOLLOW);
    }

    /** {@code fchownat(2)}: {@link #chown} relative to {@code dirfd} ({@code EBADF}), with {@code AT_SYMLINK_NOFOLLOW} and {@code AT_EMPTY_PATH} (another flag: {@code EINVAL}). */
    public void fchownat(int dirfd, String path, int uid, int gid, int flags) {
        retryingAwait(() -> attrs.fchownat(dirfd, path, uid, gid, flags), "chown", path);
    }

    /** The async twin of {@link #fchownat}. */
    public CompletableFuture<Void> fchownatAsync(int dirfd, String path, int uid, int gid, int flags) {
        return Revalidate.retrying(() -> attrs.fchownat(dirfd, path, uid, gid, flags));
    }

    /**
     * {@code utimensat(2)}: sets access and modification times; {@code null} means now;
     * {@link Timespec#NOW} and {@link Timespec#OMIT} as in the man page. A {@code null}
     * path operates on {@code dirfd} itself ({@code futimens}). By path, the change takes
     * effect while {@code path} still names the inode (as {@link #chmod}).
     *
     * @throws VfsException {@code EINVAL} (bad flags, a {@code tv_nsec} out of range, flags
     *         with a {@code null} path), {@code EFAULT} ({@code null} path with
     *         {@code AT_FDCWD}), {@code EPERM} / {@code EACCES} (setting times, or "now" without
     *         write permission, as neither owner nor root), {@code EBADF}, {@code ENOENT},
     *         {@code ENOTDIR}, {@code ELOOP}, {@code EROFS}; {@code EIO} after
     *         1000 attempts that the path changed under (nothing changed)
     */
    public void utimensat(int dirfd, String path, Timespec atime, Timespec mtime, int flags) {
        retryingAwait(() -> attrs.utimensat(dirfd, path, atime, mtime, flags), "utimensat", path);
    }

    /** The async twin of {@link #utimensat}. */
    public CompletableFuture<Void> utimensatAsync(int dirfd, String path, Timespec atime, Timespec mtime,
                                                  int flags) {
        return Revalidate.retrying(() -> attrs.utimensat(dirfd, path, atime, mtime, flags));
    }

    /**
     * {@code access(2)}: checks {@code R_OK|W_OK|X_OK} (or {@code F_OK}) with the task's
     * ids; root passes read/write always and execute when any x bit is set.
     *
     * @throws VfsException {@code EACCES}, {@code EROFS} (write on a read-only mount), {@code ENOENT}, {@code EINVAL}
     */
    public void access(String path, int mode) {
        attrs.faccessat(AT_FDCWD, path, mode, 0);
    }

    /** {@code faccessat(2)} with {@code AT_EACCESS}, {@code AT_SYMLINK_NOFOLLOW}. */
    public void faccessat(int dirfd, String path, int mode, int flags) {
        attrs.faccessat(dirfd, path, mode, flags);
    }

    /** {@code statfs(2)}: the file system holding {@code path}: sizes, free inodes, flags. */
    public StatFs statfs(String path) {
        return attrs.statfs(attrs.resolve(AT_FDCWD, path, "statfs", 0, 0));
    }

    /** {@code fstatfs(2)}. */
    public StatFs fstatfs(int fd) {
        return attrs.statfs(fdPath(fd, "fstatfs"));
    }

    // ---------------------------------------------------------------- the task

    /**
     * {@code umask(2)}: sets the creation mask ({@code & 0777}) and returns the old one.
     */
    public int umask(int mask) {
        alive("umask");
        int old = umask;
        umask = mask & 0777;
        return old;
    }

    /**
     * {@code chdir(2)}: needs search permission on the directory.
     *
     * @throws VfsException {@code ENOENT}, {@code ENOTDIR}, {@code EACCES}, ...
     */
    public void chdir(String path) {
        task.chdir(path);
    }

    /** {@code fchdir(2)} ({@code EBADF}, {@code ENOTDIR}, {@code EACCES}). */
    public void fchdir(int fd) {
        task.fchdir(fd);
    }

    /**
     * {@code getcwd(2)}: the working directory's path from the task's root; lock-free.
     *
     * @throws VfsException {@code ENOENT} if the working directory was removed
     */
    public String getcwd() {
        return task.getcwd();
    }

    /**
     * {@code mount(2)}: {@code fstype "tmpfs"} mounts a new instance (data: {@code size=},
     * {@code nr_inodes=}, {@code mode=}, {@code uid=}, {@code gid=}); {@code MS_BIND}
     * binds a directory's subtree; {@code MS_REMOUNT [| MS_BIND] [| MS_RDONLY]} changes
     * the superblock's (or, with {@code MS_BIND}, the mount's) read-only flag. Root only.
     *
     * @throws VfsException {@code EPERM}, {@code ENOENT}, {@code ENOTDIR} (also a bind of a
     *         non-directory onto the directory target), {@code ENODEV} (unknown type),
     *         {@code EINVAL} (bad options, remount of a non-mount), {@code EBUSY} (a
     *         superblock remount read-only while one of its regular files is open for
     *         writing, a write to it is being applied, or a removed file of it is still
     *         open, as {@code sb_prepare_remount_readonly}: nothing changed)
     */
    public void mount(String source, String target, String fstype, long flags, String data) {
        await(mountAsync(source, target, fstype, flags, data), "mount", target);
    }

    /** The async twin of {@link #mount}. */
    public CompletableFuture<Void> mountAsync(String source, String target, String fstype, long flags,
                                              String data) {
        return async(() -> task.mount(source, target, fstype, flags, data));
    }

    /** {@code umount(2)}. */
    public void umount(String target) {
        umount2(target, 0);
    }

    /**
     * {@code umount2(2)}: detaches the mount whose root {@code target} names.
     *
     * @throws VfsException {@code EINVAL} (not a mount root), {@code EBUSY} (open files,
     *         working directories or submounts, unless {@code MNT_DETACH}), {@code EPERM}
     */
    public void umount2(String target, int flags) {
        task.umount2(target, flags);
    }

    /**
     * {@code fork(2)}: a new task with a copy of this task's descriptor table (each open
     * file description shared, gaining a reference), and the same working and root
     * directories, umask and credentials. Blocks for two messages (the copy, the new
     * table's actor).
     */
    public VfsTask fork() {
        alive("fork");
        FdTable copy = fds.copyForFork();
        return new VfsTask(this, vfs.newFilesStruct(copy));
    }

    /**
     * A new thread of this task ({@code clone(CLONE_FILES)}): it shares this task's
     * descriptor table; working directory and umask start as this task's.
     */
    public VfsTask newThread() {
        alive("clone");
        files.retainUser();
        return new VfsTask(this, files);
    }

    /** The descriptor side of {@code execve(2)}: closes every close-on-exec descriptor. */
    public void exec() {
        fds.exec();
    }

    /**
     * Ends the task ({@code exit}): drops its use of the descriptor table (closing every
     * descriptor, released before this returns, when it was the last task sharing it) and
     * releases its working and root directories. Further calls fail. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (exited) {
            return;
        }
        exited = true;
        vfs.unregister(pid);
        if (files.releaseUser() && !vfs.isClosed()) {
            // (A closed instance's actors are stopping and release every open file themselves.)
            // Release the open files before returning, so that an observer sees them closed
            // once exit() has returned; stopping the actor alone would do it later.
            vfs.asker().join(vfs.asker().ask(files.actor(), (ReplyTo<FdReply> r) -> new FdTableActor.CloseAll(r)), "exit",
                    null);
            vfs.stopFilesStruct(files);
        }
        cwd.mnt().unpin();
        root.mnt().unpin();
    }

    // ---------------------------------------------------------------- raw-byte paths

    /** {@code rmdir(2)} with a raw-byte path. */
    public void rmdir(byte[] path) {
        rmdir(str(path));
    }

    /** {@code lstat(2)} with a raw-byte path. */
    public Stat lstat(byte[] path) {
        return lstat(str(path));
    }

    /** {@code rename(2)} with raw-byte paths. */
    public void rename(byte[] oldpath, byte[] newpath) {
        rename(str(oldpath), str(newpath));
    }

    /** {@code link(2)} with raw-byte paths. */
    public void link(byte[] oldpath, byte[] newpath) {
        link(str(oldpath), str(newpath));
    }

    /** {@code symlink(2)} with a raw-byte target and link path. */
    public void symlink(byte[] target, byte[] linkpath) {
        symlink(str(target), str(linkpath));
    }

    /** {@code readlink(2)} with a raw-byte path, returning the target's raw bytes. */
    public byte[] readlink(byte[] path) {
        return PathNames.toBytes(attrs.readlinkat(AT_FDCWD, str(path)));
    }

    /** {@code chdir(2)} with a raw-byte path. */
    public void chdir(byte[] path) {
        chdir(str(path));
    }

    /** {@code access(2)} with a raw-byte path. */
    public void access(byte[] path, int mode) {
        access(str(path), mode);
    }

    /** {@code chmod(2)} with a raw-byte path. */
    public void chmod(byte[] path, int mode) {
        chmod(str(path), mode);
    }

    /** {@code mknod(2)} with a raw-byte path. */
    public void mknod(byte[] path, int mode, long dev) {
        mknod(str(path), mode, dev);
    }

    /** Returns a directory entry's name as raw bytes (names are UTF-8 with surrogateescape in {@link DirEntry#name()}). */
    public static byte[] nameBytes(DirEntry e) {
        return PathNames.toBytes(PathNames.toInternal(e.name(), "getdents"));
    }

    // ---------------------------------------------------------------- descriptors

    /**
     * {@code dup(2)}: a new descriptor, the lowest free one, sharing {@code oldfd}'s open file.
     *
     * @throws VfsException {@code EBADF}, {@code EMFILE}
     */
    public int dup(int oldfd) {
        return await(dupAsync(oldfd), "dup", null);
    }

    /** The async twin of {@link #dup}. */
    public CompletableFuture<Integer> dupAsync(int oldfd) {
        return async(() -> fds.dup(oldfd));
    }

    /**
     * {@code dup2(2)}: makes {@code newfd} share {@code oldfd}'s open file, closing what
     * {@code newfd} held, atomically; {@code dup2(fd, fd)} returns {@code fd} if it is open.
     *
     * @throws VfsException {@code EBADF} ({@code oldfd} not open, {@code newfd} out of range)
     */
    public int dup2(int oldfd, int newfd) {
        return await(async(() -> fds.dup3(oldfd, newfd, 0, false)), "dup2", null);
    }

    /** {@code dup3(2)}: like {@link #dup2} with {@code O_CLOEXEC}; {@code oldfd == newfd} is {@code EINVAL}. */
    public int dup3(int oldfd, int newfd, int flags) {
        return await(async(() -> fds.dup3(oldfd, newfd, flags, true)), "dup3", null);
    }

    /**
     * {@code fcntl(2)} with {@code F_DUPFD}, {@code F_DUPFD_CLOEXEC}, {@code F_GETFD},
     * {@code F_SETFD}, {@code F_GETFL}, {@code F_SETFL} (see {@link dev.seqvfs.protocol.Fcntl}).
     *
     * @return the command's result (new descriptor, flags, or 0)
     * @throws VfsException {@code EBADF}, {@code EINVAL} (unknown command, bad argument), {@code EMFILE}
     */
    public int fcntl(int fd, int cmd, long arg) {
        return await(fcntlAsync(fd, cmd, arg), "fcntl", null);
    }

    /** The async twin of {@link #fcntl}. */
    public CompletableFuture<Integer> fcntlAsync(int fd, int cmd, long arg) {
        return async(() -> fds.fcntl(fd, cmd, arg));
    }

    /**
     * {@code close_range(2)}: closes (or with {@code CLOSE_RANGE_CLOEXEC} marks) every
     * descriptor from {@code first} to {@code last} (unsigned; -1 is "to the end").
     *
     * @throws VfsException {@code EINVAL} (first &gt; last, unknown flags)
     */
    public void closeRange(int first, int last, int flags) {
        await(async(() -> fds.closeRange(first, last, flags)), "close_range", null);
    }
}
