package dev.seqvfs.engine;

import dev.seqvfs.engine.fdtable.FdReply;
import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.FdTableActor;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.wait.Shutdown;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.engine.walk.WalkContext;
import dev.seqvfs.engine.walk.WalkFunction;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.PathComponents;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * The state of one task ({@code task_struct}): its instance, credentials, descriptor table, working
 * and root directories, umask and process id, and the call classes that implement the system calls
 * on it. {@link VfsTask} and {@link AsyncVfsTask} are its two public views; the {@code *Calls}
 * classes take this context, never a view.
 *
 * <h2>Concurrency</h2>
 *
 * A task may be used by several threads at once (they then share its descriptor table, as threads
 * of a process do). {@code cwd}, {@code root}, {@code umask} and {@code exited} are volatile: read
 * with acquire, written with release by the task's own calls; {@link #setCwd} and {@link #exit}
 * hold this object's monitor so that a working directory's mount pin moves exactly once. Everything
 * else is final.
 *
 * <h2>States</h2>
 *
 * running → exited ({@link #exit}); an exited task answers every call with {@code ESRCH}.
 */
final class TaskContext implements WalkContext {
    private final SeqVfs vfs;
    private final FilesStruct files;
    private final Credentials cred;
    final NamespaceCalls ns = new NamespaceCalls(this);
    final OpenCalls opens = new OpenCalls(this);
    final AttrCalls attrs = new AttrCalls(this);
    final XattrCalls xattrs = new XattrCalls(this);
    final TaskCalls task = new TaskCalls(this);
    final IoCalls io = new IoCalls(this);
    final FdCalls fds = new FdCalls(this);
    final AnonCalls anon = new AnonCalls(this);
    final LockCalls locks = new LockCalls(this);
    final InotifyCalls inotify = new InotifyCalls(this);
    private volatile VfsPath cwd;
    private volatile VfsPath root;
    private volatile int umask = 022;
    private volatile boolean exited;
    private final int pid;

    /** A new process: the root as working and root directory. */
    TaskContext(SeqVfs vfs, FilesStruct files, Credentials cred) {
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

    /**
     * A child ({@code fork}) or a thread ({@code clone(CLONE_FILES)}) of {@code parent}, with
     * {@code files}.
     */
    TaskContext(TaskContext parent, FilesStruct files) {
        this(parent, files, parent.cred);
    }

    /**
     * A child or thread of {@code parent} with {@code files} and credentials {@code cred} (a thread
     * that changed its own, {@link #newThread(Credentials)}).
     */
    private TaskContext(TaskContext parent, FilesStruct files, Credentials cred) {
        this.vfs = parent.vfs;
        this.files = files;
        this.cred = cred;
        synchronized (parent) {
            this.cwd = parent.cwd;
            this.root = parent.root;
            cwd.mnt().pinAgain();
            root.mnt().pinAgain();
        }
        this.umask = parent.umask;
        this.pid = vfs.register(this);
    }

    SeqVfs vfs() {
        return vfs;
    }

    /** Returns the instance's asker, refusing calls on an exited task or a closed instance. */
    Asker asker() {
        alive(Syscall.REQUEST);
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

    /** Sets the umask to {@code mask & 0777} and returns the old one ({@code umask(2)}). */
    int setUmask(int mask) {
        alive(Syscall.UMASK);
        int old = umask;
        umask = mask & 0777;
        return old;
    }

    @Override
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

    <T> T walk(VfsPath start, String internalPath, Syscall op, WalkFunction<T> fn) {
        return walk(start, internalPath, null, op, fn);
    }

    /**
     * As {@link #walk(VfsPath, String, Syscall, WalkFunction)} for a path the caller passed as
     * {@code source}: when that is a {@link Filename} whose internal form is {@code internalPath}
     * and which was walked before, the walk reads its components parsed ahead ({@link
     * Filename#components()}) instead of scanning its chars again.
     */
    <T> T walk(
            VfsPath start,
            String internalPath,
            CharSequence source,
            Syscall op,
            WalkFunction<T> fn) {
        alive(op);
        PathComponents comps =
                source instanceof Filename f && f.internal() == internalPath
                        ? f.components()
                        : null;
        return vfs.walker().walk(this, start, internalPath, comps, op, fn);
    }

    /**
     * Refuses calls on a task that has exited: {@code ESRCH}, as a call on a process that is gone
     * would be; and calls on an instance that was closed: {@code EIO}, as a file system that was
     * shut down answers. Every call passes here through {@link #walk}, {@link #fget} or {@link
     * #asker}.
     */
    void alive(Syscall op) {
        if (exited) {
            throw new VfsException(Errno.ESRCH, op, null);
        }
        if (vfs.isClosed()) {
            throw new VfsException(Errno.EIO, op, null);
        }
    }

    /**
     * Returns where a relative path starts: the working directory for {@code AT_FDCWD}, else the
     * directory open on {@code dirfd}. Absolute paths ignore it (but a bad {@code dirfd} is still
     * {@code EBADF} only when it is used, as in Linux). An empty path (without {@code emptyOk}) is
     * {@code ENOENT} and a path of {@code PATH_MAX} bytes or more {@code ENAMETOOLONG} before
     * {@code dirfd} is looked at, as {@code getname} rejects them before {@code path_init}.
     */
    VfsPath startFor(
            int dirfd, String internalPath, Syscall op, CharSequence extPath, boolean emptyOk) {
        if (internalPath.isEmpty() && !emptyOk) {
            throw new VfsException(Errno.ENOENT, op, extPath);
        }
        if (internalPath.length() >= Limits.PATH_MAX) {
            throw new VfsException(Errno.ENAMETOOLONG, op, extPath);
        }
        if (dirfd == OpenFlags.AT_FDCWD
                || (!internalPath.isEmpty() && internalPath.charAt(0) == '/')) {
            return cwd;
        }
        OpenFile f = fget(dirfd, op);
        VfsPath p = new VfsPath(f.mount(), f.inode());
        if (!(internalPath.isEmpty() && emptyOk) && p.dir() == null) {
            throw new VfsException(Errno.ENOTDIR, op, extPath);
        }
        return p;
    }

    /**
     * Returns the open file on {@code fd} with a reference held for the call ({@code fdget}); the
     * call gives it back with {@link #fdput} when it returns, parked or not. Meanwhile a {@code
     * close} of {@code fd} (from another thread sharing the table) removes only the descriptor: the
     * file's release (a pipe losing a reader, the last close's lock release) waits for the call, as
     * on Linux. Lock-free: the table's published version, then a CAS on the file's count, again if
     * a close released the file in between.
     *
     * <p>Unlike Linux's {@code fdget}, this always takes the reference: a task object may be used
     * by several Java threads at once, so no table is known to have a single user.
     *
     * @throws VfsException {@code EBADF} if {@code fd} is not open
     */
    OpenFile fdget(int fd, Syscall op) {
        alive(op);
        while (true) {
            FdTable.Entry e = files.tableAcquire().get(fd);
            if (e == null) {
                throw new VfsException(Errno.EBADF, op, null);
            }
            OpenFile f = e.file();
            if (f.tryRetain()) {
                return f;
            }
            Thread.onSpinWait(); // a close released it: the table no longer holds it
        }
    }

    /** Gives back the reference {@link #fdget} took ({@code fdput}); the last one releases. */
    static void fdput(OpenFile f) {
        f.release();
    }

    /**
     * Returns {@code f} after {@code result} completes, however it completes: the reference of an
     * asynchronous call is held until its future is done.
     */
    static <T> CompletableFuture<T> fdputWhenDone(OpenFile f, CompletableFuture<T> result) {
        var unused = result.whenComplete((v, e) -> fdput(f));
        return result;
    }

    /**
     * Returns the open file on {@code fd} without taking a reference, lock-free: for calls that
     * neither park nor use the file's state after the lookup (they read its fixed inode, mount and
     * mode). Calls that read, write, wait or lock use {@link #fdget}.
     */
    OpenFile fget(int fd, Syscall op) {
        alive(op);
        FdTable.Entry e = files.tableAcquire().get(fd);
        if (e == null) {
            throw new VfsException(Errno.EBADF, op, null);
        }
        return e.file();
    }

    VfsPath fdPath(int fd, Syscall op) {
        OpenFile f = fget(fd, op);
        return new VfsPath(f.mount(), f.inode());
    }

    /**
     * Like {@link #fdPath}, for calls that an {@code O_PATH} descriptor may not make ({@code
     * EBADF}).
     */
    VfsPath fileFdPath(int fd, Syscall op) {
        OpenFile f = fget(fd, op);
        if (f.isPath()) {
            throw new VfsException(Errno.EBADF, op, null);
        }
        return new VfsPath(f.mount(), f.inode());
    }

    // ---------------------------------------------------------------- the views' plumbing

    /**
     * Returns {@code path} as a {@link Filename} for call {@code op}: a bad path ({@code null}, a
     * NUL character) fails with its errno naming the call.
     */
    static Filename path(CharSequence path, Syscall op) {
        try {
            return Filename.of(path);
        } catch (VfsException e) {
            throw e.withContext(op, path == null ? null : path.toString(), null);
        }
    }

    /**
     * Returns {@code path} as a {@link Filename}, or {@code null} for {@code null} (optional
     * paths).
     */
    static Filename pathOrNull(CharSequence path, Syscall op) {
        return path == null ? null : path(path, op);
    }

    /**
     * Waits for a call's future on the calling thread; its failure is thrown as the {@link
     * VfsException}.
     */
    <T> T await(CompletableFuture<T> f, Syscall op, CharSequence path) {
        return vfs.asker().join(f, op, path);
    }

    /**
     * The blocking form of a call its writer may answer {@code ESTALE}: every attempt runs and is
     * awaited on the calling thread, each under its own ask timeout ({@link
     * Revalidate#retryingBlocking}), so a long run of stale attempts ends with Revalidate's bounded
     * answer, not with the ask timeout of the whole chain.
     */
    <T> T retryingAwait(Supplier<CompletableFuture<T>> attempt, Syscall op, CharSequence path) {
        return Revalidate.retryingBlocking(() -> await(async(attempt), op, path));
    }

    /**
     * Runs a call that answers by future, turning a failure before the first message into a failed
     * future.
     */
    static <T> CompletableFuture<T> async(Supplier<CompletableFuture<T>> body) {
        try {
            return body.get();
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Runs a call that answers at once, as a completed (or failed) future. */
    static <T> CompletableFuture<T> now(Supplier<T> body) {
        try {
            return CompletableFuture.completedFuture(body.get());
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Runs a call that may park its thread ({@code F_SETLKW}, a blocking {@code flock}, a {@code
     * poll} with a timeout) on the instance's pool for such calls, so that the async view never
     * blocks its caller.
     */
    <T> CompletableFuture<T> parked(Supplier<T> body) {
        if (vfs.isClosed()) {
            return CompletableFuture.failedFuture(Shutdown.error(Syscall.REQUEST));
        }
        try {
            return CompletableFuture.supplyAsync(body, vfs.blockingExecutor());
        } catch (RejectedExecutionException e) {
            // the pool is shut down: the instance closed after the check above
            return CompletableFuture.failedFuture(Shutdown.error(Syscall.REQUEST));
        }
    }

    /**
     * Prepares an error for the caller of a blocking call: names the call, {@code op}, and the path
     * arguments the caller gave it ({@link #label}), and fills in the caller's stack as its trace
     * unless the instance was configured not to ({@code seqvfs.errors.stack-traces = off}).
     */
    VfsException raise(VfsException e, Syscall op, CharSequence path, CharSequence other) {
        VfsException named = label(e, op, path, other);
        return vfs.config().stackTraces() ? named.withCallerStackTrace() : named;
    }

    /**
     * Names the call in an error that any step of it raised (a walk, an actor's reply, a file's
     * operations, a step shared with other calls such as a request to an actor): the public call
     * {@code op} and its path arguments as the caller gave them, in the call's order ({@code
     * rename(old, new)}, {@code symlink(target, linkpath)}, {@code mount(source, target)} of a bind
     * mount), or {@code null} where it takes none. The errno stays, but once the instance is closed
     * every failure is {@code EIO} ({@link SeqVfs#close()}): what a call saw while the close
     * released its state ({@code EBADF}, {@code EPIPE}, ...) is not its answer. Returns {@code e}
     * itself when it already says that.
     */
    VfsException label(VfsException e, Syscall op, CharSequence path, CharSequence other) {
        Errno errno = vfs.isClosed() ? Errno.EIO : e.errno();
        String p = path == null ? null : path.toString();
        String o = other == null ? null : other.toString();
        if (e.errno() == errno
                && e.operation() == op
                && Objects.equals(e.path(), p)
                && Objects.equals(e.otherPath(), o)) {
            return e;
        }
        return new VfsException(errno, op, p, o);
    }

    /** {@link #label} for any failure: other throwables (a cancellation, a bug) pass unchanged. */
    Throwable labelAny(Throwable x, Syscall op, CharSequence path, CharSequence other) {
        Throwable c = x instanceof CompletionException && x.getCause() != null ? x.getCause() : x;
        return c instanceof VfsException v ? label(v, op, path, other) : c;
    }

    /**
     * Returns an async call's future as its caller gets it: its failure names the call ({@link
     * #label}). A future already complete is returned as it is, or as a new failed one; a pending
     * one is followed by a new future, whose exceptional completion by the caller ({@code cancel},
     * {@code orTimeout}) is passed back to {@code f}, as if the caller held {@code f}. While it is
     * pending, the new future is registered with the instance's {@link Shutdown}: the instance's
     * close fails it with {@code EIO} (and so {@code f}), whatever {@code f} waits for.
     */
    <T> CompletableFuture<T> answer(
            CompletableFuture<T> f, Syscall op, CharSequence path, CharSequence other) {
        if (f.isDone()) {
            if (!f.isCompletedExceptionally()) {
                return f;
            }
            Throwable x = failureOf(f);
            return x instanceof VfsException v
                    ? CompletableFuture.failedFuture(label(v, op, path, other))
                    : f;
        }
        CompletableFuture<T> out = new CompletableFuture<>();
        var unused =
                f.whenComplete(
                        (v, x) -> {
                            if (x == null) {
                                out.complete(v);
                            } else {
                                out.completeExceptionally(labelAny(x, op, path, other));
                            }
                        });
        failAtShutdown(out, op, path, other);
        var unusedBack =
                out.whenComplete(
                        (v, x) -> {
                            if (x != null) {
                                f.completeExceptionally(x); // a no-op unless the caller failed out
                            }
                        });
        return out;
    }

    /**
     * Registers a pending call's future with the instance's {@link Shutdown} until it completes, so
     * that the instance's close fails it with {@code EIO} naming the call; fails it at once if the
     * instance is closed already.
     */
    void failAtShutdown(
            CompletableFuture<?> out, Syscall op, CharSequence path, CharSequence other) {
        Shutdown s = vfs.shutdown();
        Shutdown.Waiter w =
                () -> out.completeExceptionally(label(Shutdown.error(op), op, path, other));
        if (!s.enter(w)) {
            w.wake();
            return;
        }
        var unused = out.whenComplete((v, x) -> s.leave(w));
    }

    /** Returns the failure of a future that completed exceptionally. */
    private static Throwable failureOf(CompletableFuture<?> f) {
        try {
            f.join();
            throw new IllegalStateException("not failed: " + f);
        } catch (CompletionException e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (CancellationException e) {
            return e;
        }
    }

    /**
     * Whether {@code mount(2)}'s {@code source} is a path, which its errors name before the target:
     * for a bind mount, not for a remount or a new superblock (a device name).
     */
    static boolean mountSourceIsPath(long flags) {
        return (flags & MountFlags.MS_BIND) != 0 && (flags & MountFlags.MS_REMOUNT) == 0;
    }

    // ---------------------------------------------------------------- lifecycle

    /** {@code fork()}: a new process with a copy of the descriptor table. */
    TaskContext fork() {
        alive(Syscall.FORK);
        FdTable copy = fds.copyForFork();
        return new TaskContext(this, vfs.newFilesStruct(copy));
    }

    /** A thread ({@code clone(CLONE_FILES)}): the same descriptor table. */
    TaskContext newThread() {
        alive(Syscall.CLONE);
        files.retainUser();
        return new TaskContext(this, files);
    }

    /**
     * A thread ({@code clone(CLONE_FILES)}) that then sets its own credentials to {@code cred}
     * ({@code setfsuid(2)}, {@code setfsgid(2)}, {@code setgroups(2)}, which change one Linux
     * thread's): {@code EPERM} unless this task is root ({@code CAP_SETUID}, {@code CAP_SETGID}) or
     * {@code cred} is its own.
     */
    TaskContext newThread(Credentials cred) {
        alive(Syscall.CLONE);
        if (!this.cred.isRoot() && !this.cred.equals(cred)) {
            throw new VfsException(Errno.EPERM, Syscall.CLONE, null);
        }
        files.retainUser();
        return new TaskContext(this, files, cred);
    }

    /**
     * {@code exit}: the task's descriptors are closed (if it was the table's last user) before this
     * returns, and its directories' mount pins are dropped. Idempotent.
     */
    synchronized void exit() {
        if (exited) {
            return;
        }
        exited = true;
        vfs.unregister(pid);
        if (files.releaseUser() && !vfs.isClosed()) {
            // (A closed instance's actors are stopping and release every open file themselves.)
            // Release the open files before returning, so that an observer sees them closed
            // once exit() has returned; stopping the actor alone would do it later.
            vfs.asker()
                    .join(
                            vfs.asker()
                                    .ask(
                                            files.commands(),
                                            (ReplyTo<FdReply> r) -> new FdTableActor.CloseAll(r)),
                            Syscall.EXIT,
                            null);
            vfs.stopFilesStruct(files);
        }
        cwd.mnt().unpin();
        root.mnt().unpin();
    }
}
