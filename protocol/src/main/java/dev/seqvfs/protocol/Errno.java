package dev.seqvfs.protocol;

/**
 * Linux error numbers with their names and {@code strerror} texts, as listed in
 * {@code errno(3)} for x86-64. Only the numbers SeqVFS raises are listed.
 *
 * <p>Immutable; thread-safe.
 */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    ESRCH(3, "No such process"),
    EINTR(4, "Interrupted system call"),
    EIO(5, "Input/output error"),
    ENXIO(6, "No such device or address"),
    EBADF(9, "Bad file descriptor"),
    EAGAIN(11, "Resource temporarily unavailable"),
    ENOMEM(12, "Cannot allocate memory"),
    EACCES(13, "Permission denied"),
    EFAULT(14, "Bad address"),
    ENOTBLK(15, "Block device required"),
    EBUSY(16, "Device or resource busy"),
    EEXIST(17, "File exists"),
    EXDEV(18, "Invalid cross-device link"),
    ENODEV(19, "No such device"),
    ENOTDIR(20, "Not a directory"),
    EISDIR(21, "Is a directory"),
    EINVAL(22, "Invalid argument"),
    ENFILE(23, "Too many open files in system"),
    EMFILE(24, "Too many open files"),
    ETXTBSY(26, "Text file busy"),
    EFBIG(27, "File too large"),
    ENOSPC(28, "No space left on device"),
    ESPIPE(29, "Illegal seek"),
    EROFS(30, "Read-only file system"),
    EMLINK(31, "Too many links"),
    EPIPE(32, "Broken pipe"),
    ERANGE(34, "Numerical result out of range"),
    EDEADLK(35, "Resource deadlock avoided"),
    ENAMETOOLONG(36, "File name too long"),
    ENOLCK(37, "No locks available"),
    ENOSYS(38, "Function not implemented"),
    ENOTEMPTY(39, "Directory not empty"),
    ELOOP(40, "Too many levels of symbolic links"),
    ENODATA(61, "No data available"),
    EOVERFLOW(75, "Value too large for defined data type"),
    ENOTSOCK(88, "Socket operation on non-socket"),
    EDESTADDRREQ(89, "Destination address required"),
    EMSGSIZE(90, "Message too long"),
    EPROTONOSUPPORT(93, "Protocol not supported"),
    ESOCKTNOSUPPORT(94, "Socket type not supported"),
    EOPNOTSUPP(95, "Operation not supported"),
    EAFNOSUPPORT(97, "Address family not supported by protocol"),
    ECONNRESET(104, "Connection reset by peer"),
    ENOTCONN(107, "Transport endpoint is not connected"),
    ETIMEDOUT(110, "Connection timed out"),
    ECONNREFUSED(111, "Connection refused"),
    ESTALE(116, "Stale file handle");

    private static final Errno[] BY_NUMBER = new Errno[128];

    static {
        for (Errno e : values()) {
            BY_NUMBER[e.number] = e;
        }
    }

    private final int number;
    private final String message;

    Errno(int number, String message) {
        this.number = number;
        this.message = message;
    }

    /** Returns the Linux errno number (for example 2 for {@code ENOENT}). */
    public int number() {
        return number;
    }

    /** Returns the {@code strerror(3)} text, for example "No such file or directory". */
    public String message() {
        return message;
    }

    /**
     * Returns the constant for a Linux errno number.
     *
     * @param number a Linux errno number
     * @return the constant, or {@code null} when SeqVFS does not model that number
     */
    public static Errno ofNumber(int number) {
        return number >= 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : null;
    }
}
