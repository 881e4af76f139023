package dev.seqvfs.protocol;

/**
 * Linux error numbers with their names and {@code strerror} texts, as listed in {@code errno(3)}
 * for x86-64. Only the numbers SeqVFS raises are listed.
 *
 * <p>Immutable; thread-safe.
 */
public enum Errno {
    /** Errno 1: "Operation not permitted". */
    EPERM(1, "Operation not permitted"),
    /** Errno 2: "No such file or directory". */
    ENOENT(2, "No such file or directory"),
    /** Errno 3: "No such process". */
    ESRCH(3, "No such process"),
    /** Errno 4: "Interrupted system call". */
    EINTR(4, "Interrupted system call"),
    /** Errno 5: "Input/output error". */
    EIO(5, "Input/output error"),
    /** Errno 6: "No such device or address". */
    ENXIO(6, "No such device or address"),
    /** Errno 7: "Argument list too long". */
    E2BIG(7, "Argument list too long"),
    /** Errno 9: "Bad file descriptor". */
    EBADF(9, "Bad file descriptor"),
    /** Errno 11: "Resource temporarily unavailable". */
    EAGAIN(11, "Resource temporarily unavailable"),
    /** Errno 12: "Cannot allocate memory". */
    ENOMEM(12, "Cannot allocate memory"),
    /** Errno 13: "Permission denied". */
    EACCES(13, "Permission denied"),
    /** Errno 14: "Bad address". */
    EFAULT(14, "Bad address"),
    /** Errno 15: "Block device required". */
    ENOTBLK(15, "Block device required"),
    /** Errno 16: "Device or resource busy". */
    EBUSY(16, "Device or resource busy"),
    /** Errno 17: "File exists". */
    EEXIST(17, "File exists"),
    /** Errno 18: "Invalid cross-device link". */
    EXDEV(18, "Invalid cross-device link"),
    /** Errno 19: "No such device". */
    ENODEV(19, "No such device"),
    /** Errno 20: "Not a directory". */
    ENOTDIR(20, "Not a directory"),
    /** Errno 21: "Is a directory". */
    EISDIR(21, "Is a directory"),
    /** Errno 22: "Invalid argument". */
    EINVAL(22, "Invalid argument"),
    /** Errno 23: "Too many open files in system". */
    ENFILE(23, "Too many open files in system"),
    /** Errno 24: "Too many open files". */
    EMFILE(24, "Too many open files"),
    /** Errno 26: "Text file busy". */
    ETXTBSY(26, "Text file busy"),
    /** Errno 27: "File too large". */
    EFBIG(27, "File too large"),
    /** Errno 28: "No space left on device". */
    ENOSPC(28, "No space left on device"),
    /** Errno 29: "Illegal seek". */
    ESPIPE(29, "Illegal seek"),
    /** Errno 30: "Read-only file system". */
    EROFS(30, "Read-only file system"),
    /** Errno 31: "Too many links". */
    EMLINK(31, "Too many links"),
    /** Errno 32: "Broken pipe". */
    EPIPE(32, "Broken pipe"),
    /** Errno 34: "Numerical result out of range". */
    ERANGE(34, "Numerical result out of range"),
    /** Errno 35: "Resource deadlock avoided". */
    EDEADLK(35, "Resource deadlock avoided"),
    /** Errno 36: "File name too long". */
    ENAMETOOLONG(36, "File name too long"),
    /** Errno 37: "No locks available". */
    ENOLCK(37, "No locks available"),
    /** Errno 38: "Function not implemented". */
    ENOSYS(38, "Function not implemented"),
    /** Errno 39: "Directory not empty". */
    ENOTEMPTY(39, "Directory not empty"),
    /** Errno 40: "Too many levels of symbolic links". */
    ELOOP(40, "Too many levels of symbolic links"),
    /** Errno 61: "No data available". */
    ENODATA(61, "No data available"),
    /** Errno 75: "Value too large for defined data type". */
    EOVERFLOW(75, "Value too large for defined data type"),
    /** Errno 88: "Socket operation on non-socket". */
    ENOTSOCK(88, "Socket operation on non-socket"),
    /** Errno 89: "Destination address required". */
    EDESTADDRREQ(89, "Destination address required"),
    /** Errno 90: "Message too long". */
    EMSGSIZE(90, "Message too long"),
    /** Errno 93: "Protocol not supported". */
    EPROTONOSUPPORT(93, "Protocol not supported"),
    /** Errno 94: "Socket type not supported". */
    ESOCKTNOSUPPORT(94, "Socket type not supported"),
    /** Errno 95: "Operation not supported". */
    EOPNOTSUPP(95, "Operation not supported"),
    /** Errno 97: "Address family not supported by protocol". */
    EAFNOSUPPORT(97, "Address family not supported by protocol"),
    /** Errno 104: "Connection reset by peer". */
    ECONNRESET(104, "Connection reset by peer"),
    /** Errno 107: "Transport endpoint is not connected". */
    ENOTCONN(107, "Transport endpoint is not connected"),
    /** Errno 110: "Connection timed out". */
    ETIMEDOUT(110, "Connection timed out"),
    /** Errno 111: "Connection refused". */
    ECONNREFUSED(111, "Connection refused"),
    /** Errno 116: "Stale file handle". */
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

    /** {@return the Linux errno number (for example 2 for {@code ENOENT})} */
    public int number() {
        return number;
    }

    /** {@return the {@code strerror(3)} text, for example "No such file or directory"} */
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
