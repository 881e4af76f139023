package dev.seqvfs.protocol;

import java.util.Objects;

/**
 * The one failure type of SeqVFS: an {@link Errno}, the call that raised it ({@link Syscall#OPEN},
 * {@link Syscall#RENAME}, ...) and the path or paths it concerns, as {@code strace} would show
 * them: {@code open "/a/b": ENOENT (No such file or directory)}. A task's call names every path
 * argument it was given, as given, in the call's order: {@code rename "/a" -> "/b"}, {@code link
 * "/old" -> "/new"}, {@code symlink "target" -> "/linkpath"}, {@code mount "/src" -> "/mnt"} (a
 * bind mount; other mounts name the target only); calls on a descriptor name no path.
 *
 * <p>A call that throws this has changed nothing: SeqVFS validates before it publishes.
 *
 * <p><b>Stack traces.</b> Errors are expected control flow for a file system (ENOENT from {@code
 * open} is a normal answer), so making one costs no stack walk: the engine creates it without a
 * trace, and the task that returns it to its caller fills in the caller's stack ({@link
 * #withCallerStackTrace()}) unless its instance was configured not to ({@code
 * seqvfs.errors.stack-traces = off}, for load runs). The message is formatted when first asked for.
 *
 * <p>Thread-safe; immutable but for the stack trace, which the returning task fills in once before
 * the exception is thrown to its caller.
 */
public final class VfsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The error number; never {@code null}. */
    private final Errno errno;

    /** The call that failed, or {@code null}. */
    private final Syscall operation;

    /** The first path the call concerns, or {@code null}. */
    private final String path;

    /** The second path of a two-path call, or {@code null}. */
    private final String otherPath;

    /**
     * Creates an exception for a call on one path.
     *
     * @param errno the error, never {@code null}
     * @param operation the call, for example {@link Syscall#MKDIR}
     * @param path the path it concerns (external form), or {@code null} for calls on a descriptor
     */
    public VfsException(Errno errno, Syscall operation, CharSequence path) {
        this(errno, operation, path, null);
    }

    /**
     * Creates an exception for a call on two paths ({@code rename}, {@code link}, {@code symlink}).
     *
     * @param errno the error, never {@code null}
     * @param operation the call
     * @param path the first path, or {@code null}
     * @param otherPath the second path, or {@code null}
     */
    public VfsException(Errno errno, Syscall operation, CharSequence path, CharSequence otherPath) {
        super(null, null, false, true);
        this.errno = Objects.requireNonNull(errno, "errno");
        this.operation = operation;
        this.path = path == null ? null : path.toString();
        this.otherPath = otherPath == null ? null : otherPath.toString();
    }

    /**
     * The cause, kept here: the stack-trace-free constructor of {@link Throwable} marks its own
     * cause as given (null), after which {@link Throwable#initCause} refuses any. Guarded by this.
     */
    private Throwable cause;

    /** {@return the cause ({@link #initCause}), or {@code null}} */
    @Override
    public synchronized Throwable getCause() {
        return cause;
    }

    /**
     * Sets the cause once, as {@link Throwable#initCause} does.
     *
     * @param cause the cause
     * @return this exception
     * @throws IllegalStateException if a cause was already set
     * @throws IllegalArgumentException if {@code cause} is this exception
     */
    @Override
    public synchronized Throwable initCause(Throwable cause) {
        if (this.cause != null) {
            throw new IllegalStateException("the cause is already " + this.cause, this);
        }
        if (cause == this) {
            throw new IllegalArgumentException("an exception cannot be its own cause", this);
        }
        this.cause = cause;
        return this;
    }

    /** Returns {@code call "path" -> "other": ERRNO (message)}. */
    @Override
    public String getMessage() {
        StringBuilder sb = new StringBuilder();
        sb.append(operation == null ? "?" : operation.toString());
        if (path != null) {
            sb.append(" \"").append(path).append('"');
        }
        if (otherPath != null) {
            sb.append(" -> \"").append(otherPath).append('"');
        }
        sb.append(": ").append(errno.name()).append(" (").append(errno.message()).append(')');
        return sb.toString();
    }

    /** {@return the error number} */
    public Errno errno() {
        return errno;
    }

    /** {@return the call that failed, or {@code null} if none was named} */
    public Syscall operation() {
        return operation;
    }

    /**
     * Does nothing: an exception is made without a stack trace (see the class comment). The task
     * that throws it to its caller fills the trace in with {@link #withCallerStackTrace}.
     */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }

    /**
     * Fills in the current thread's stack as this exception's trace, where a task hands the
     * exception to its caller, so that the trace shows the caller's call. Returns {@code this}.
     *
     * @return {@code this}
     */
    public VfsException withCallerStackTrace() {
        super.fillInStackTrace();
        return this;
    }

    /** {@return the first path the call concerns, or {@code null}} */
    public String path() {
        return path;
    }

    /** {@return the second path of a two-path call, or {@code null}} */
    public String otherPath() {
        return otherPath;
    }

    /**
     * {@return a copy naming the given operation and paths, keeping the errno} Used where a lower
     * layer raised an error before the caller's path was known.
     *
     * @param operation the call that failed
     * @param path the first path, or {@code null}
     * @param otherPath the second path, or {@code null} (the copy keeps this exception's cause, if
     *     any)
     */
    public VfsException withContext(Syscall operation, CharSequence path, CharSequence otherPath) {
        VfsException e = new VfsException(errno, operation, path, otherPath);
        if (getCause() != null) {
            e.initCause(getCause());
        }
        return e;
    }
}
