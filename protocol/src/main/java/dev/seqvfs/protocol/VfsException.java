package dev.seqvfs.protocol;

/**
 * The one failure type of SeqVFS: an {@link Errno}, the operation that raised it
 * ({@code "open"}, {@code "rename"}, ...) and the path or paths it concerns, as
 * {@code strace} would show them.
 *
 * <p>A call that throws this has changed nothing: SeqVFS validates before it publishes.
 * The stack trace is not filled in: errors are expected control flow for a file system
 * (ENOENT from {@code open} is a normal answer), and callers want them cheap.
 *
 * <p>Immutable; thread-safe.
 */
public final class VfsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Errno errno;
    private final String operation;
    private final String path;
    private final String otherPath;

    /**
     * Creates an exception for a call on one path.
     *
     * @param errno the error, never {@code null}
     * @param operation the system call's name, for example {@code "mkdir"}
     * @param path the path it concerns, or {@code null} for calls on a descriptor
     */
    public VfsException(Errno errno, String operation, String path) {
        this(errno, operation, path, null);
    }

    /**
     * Creates an exception for a call on two paths ({@code rename}, {@code link},
     * {@code symlink}).
     *
     * @param errno the error, never {@code null}
     * @param operation the system call's name
     * @param path the first path, or {@code null}
     * @param otherPath the second path, or {@code null}
     */
    public VfsException(Errno errno, String operation, String path, String otherPath) {
        super(format(errno, operation, path, otherPath), null, false, false);
        this.errno = errno;
        this.operation = operation;
        this.path = path;
        this.otherPath = otherPath;
    }

    private static String format(Errno errno, String operation, String path, String otherPath) {
        StringBuilder sb = new StringBuilder();
        sb.append(operation);
        if (path != null) {
            sb.append(" \"").append(path).append('"');
        }
        if (otherPath != null) {
            sb.append(" -> \"").append(otherPath).append('"');
        }
        sb.append(": ").append(errno.name()).append(" (").append(errno.message()).append(')');
        return sb.toString();
    }

    /** Returns the error number. */
    public Errno errno() {
        return errno;
    }

    /** Returns the name of the system call that failed. */
    public String operation() {
        return operation;
    }

    /** Returns the first path the call concerns, or {@code null}. */
    public String path() {
        return path;
    }

    /** Returns the second path of a two-path call, or {@code null}. */
    public String otherPath() {
        return otherPath;
    }

    /**
     * Returns a copy naming the given operation and paths, keeping the errno. Used where a
     * lower layer raised an error before the caller's path was known.
     */
    public VfsException withContext(String operation, String path, String otherPath) {
        return new VfsException(errno, operation, path, otherPath);
    }
}
