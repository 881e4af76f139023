package dev.seqvfs.load.dbench;

import dev.seqvfs.protocol.Errno;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An NT status code as a loadfile records it ({@code NT_STATUS_OK}, {@code
 * NT_STATUS_OBJECT_NAME_NOT_FOUND}, or the numeric form {@code 0x00000000}), and the mapping from a
 * Linux errno to the status a Samba server would have answered.
 *
 * <p>dbench's local-file backend only distinguishes "OK" from "an error" (its {@code
 * expected_status()} returns 0 or -1, and most operations ignore even that); this replay checks the
 * exact status. {@link #fromErrno} follows Samba's table ({@code unix_nt_errmap}, {@code
 * source3/lib/errmap_unix.c}) and its path resolution: a missing or non-directory
 * <em>intermediate</em> component is {@code NT_STATUS_OBJECT_PATH_NOT_FOUND}, a missing last
 * component {@code NT_STATUS_OBJECT_NAME_NOT_FOUND}.
 *
 * <p>Immutable. Two statuses are equal when their codes are (or, for a name this class does not
 * know, when their names are).
 */
public final class NtStatus {
    private static final Map<String, NtStatus> BY_NAME = new HashMap<>();
    private static final Map<Long, NtStatus> BY_CODE = new HashMap<>();

    /** Success. */
    public static final NtStatus OK = known("NT_STATUS_OK", 0x00000000L);

    /** Unspecified failure (an errno with no better mapping). */
    public static final NtStatus UNSUCCESSFUL = known("NT_STATUS_UNSUCCESSFUL", 0xC0000001L);

    /** Bad handle ({@code EBADF}, or a handle the replay never opened). */
    public static final NtStatus INVALID_HANDLE = known("NT_STATUS_INVALID_HANDLE", 0xC0000008L);

    /** {@code EINVAL}. */
    public static final NtStatus INVALID_PARAMETER =
            known("NT_STATUS_INVALID_PARAMETER", 0xC000000DL);

    /** A search (FIND_FIRST) matched nothing. */
    public static final NtStatus NO_SUCH_FILE = known("NT_STATUS_NO_SUCH_FILE", 0xC000000FL);

    /** {@code ENOMEM}. */
    public static final NtStatus NO_MEMORY = known("NT_STATUS_NO_MEMORY", 0xC0000017L);

    /** {@code EACCES}, {@code EPERM}. */
    public static final NtStatus ACCESS_DENIED = known("NT_STATUS_ACCESS_DENIED", 0xC0000022L);

    /** {@code ENAMETOOLONG}. */
    public static final NtStatus OBJECT_NAME_INVALID =
            known("NT_STATUS_OBJECT_NAME_INVALID", 0xC0000033L);

    /** {@code ENOENT} on the last component. */
    public static final NtStatus OBJECT_NAME_NOT_FOUND =
            known("NT_STATUS_OBJECT_NAME_NOT_FOUND", 0xC0000034L);

    /** {@code EEXIST}. */
    public static final NtStatus OBJECT_NAME_COLLISION =
            known("NT_STATUS_OBJECT_NAME_COLLISION", 0xC0000035L);

    /** {@code ENOENT} or {@code ENOTDIR} on an intermediate component; {@code ELOOP}. */
    public static final NtStatus OBJECT_PATH_NOT_FOUND =
            known("NT_STATUS_OBJECT_PATH_NOT_FOUND", 0xC000003AL);

    /** {@code EBUSY}. */
    public static final NtStatus SHARING_VIOLATION =
            known("NT_STATUS_SHARING_VIOLATION", 0xC0000043L);

    /** A byte-range lock conflict ({@code EAGAIN} from {@code F_SETLK}). */
    public static final NtStatus LOCK_NOT_GRANTED =
            known("NT_STATUS_LOCK_NOT_GRANTED", 0xC0000055L);

    /** {@code ENOSPC}, {@code EFBIG}. */
    public static final NtStatus DISK_FULL = known("NT_STATUS_DISK_FULL", 0xC000007FL);

    /** {@code EROFS}. */
    public static final NtStatus MEDIA_WRITE_PROTECTED =
            known("NT_STATUS_MEDIA_WRITE_PROTECTED", 0xC00000A2L);

    /** {@code EISDIR}. */
    public static final NtStatus FILE_IS_A_DIRECTORY =
            known("NT_STATUS_FILE_IS_A_DIRECTORY", 0xC00000BAL);

    /** {@code ENOSYS}, {@code EOPNOTSUPP}. */
    public static final NtStatus NOT_SUPPORTED = known("NT_STATUS_NOT_SUPPORTED", 0xC00000BBL);

    /** {@code EXDEV}. */
    public static final NtStatus NOT_SAME_DEVICE = known("NT_STATUS_NOT_SAME_DEVICE", 0xC00000D4L);

    /** {@code ENOTEMPTY}. */
    public static final NtStatus DIRECTORY_NOT_EMPTY =
            known("NT_STATUS_DIRECTORY_NOT_EMPTY", 0xC0000101L);

    /** {@code ENOTDIR} on the last component (a directory open of a file). */
    public static final NtStatus NOT_A_DIRECTORY = known("NT_STATUS_NOT_A_DIRECTORY", 0xC0000103L);

    /** {@code EMFILE}, {@code ENFILE}. */
    public static final NtStatus TOO_MANY_OPENED_FILES =
            known("NT_STATUS_TOO_MANY_OPENED_FILES", 0xC000011FL);

    /** {@code EIO}. */
    public static final NtStatus IO_DEVICE_ERROR = known("NT_STATUS_IO_DEVICE_ERROR", 0xC0000185L);

    /** {@code EDEADLK}. */
    public static final NtStatus POSSIBLE_DEADLOCK =
            known("NT_STATUS_POSSIBLE_DEADLOCK", 0xC0000194L);

    /** {@code EINTR}. */
    public static final NtStatus RETRY = known("NT_STATUS_RETRY", 0xC000022DL);

    /** {@code EMLINK}. */
    public static final NtStatus TOO_MANY_LINKS = known("NT_STATUS_TOO_MANY_LINKS", 0xC0000265L);

    private final String name;
    private final long code;

    private NtStatus(String name, long code) {
        this.name = name;
        this.code = code;
    }

    private static NtStatus known(String name, long code) {
        NtStatus s = new NtStatus(name, code);
        BY_NAME.put(name, s);
        BY_CODE.put(code, s);
        return s;
    }

    /**
     * Parses a loadfile's status token: a name {@code NT_STATUS_...} (case as given; an unknown
     * name is kept and compared by name) or a 32-bit hex code {@code 0x...}.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static NtStatus parse(String token) {
        NtStatus s = BY_NAME.get(token);
        if (s != null) {
            return s;
        }
        if (token.startsWith("NT_STATUS_") && token.length() > "NT_STATUS_".length()) {
            return new NtStatus(token, -1);
        }
        if (token.startsWith("0x") || token.startsWith("0X")) {
            long code;
            try {
                code = Long.parseLong(token.substring(2), 16);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad status code " + token);
            }
            if (code < 0 || code > 0xFFFFFFFFL) {
                throw new IllegalArgumentException("status code out of range: " + token);
            }
            NtStatus k = BY_CODE.get(code);
            return k != null ? k : new NtStatus(String.format(Locale.ROOT, "0x%08X", code), code);
        }
        throw new IllegalArgumentException("not an NT status: " + token);
    }

    /**
     * Returns the status a Samba server answers for {@code errno}.
     *
     * @param errno the Linux error of the call
     * @param parentIsDirectory whether the path's parent directory exists (as a directory); decides
     *     between {@code OBJECT_NAME_NOT_FOUND} / {@code NOT_A_DIRECTORY} (the last component) and
     *     {@code OBJECT_PATH_NOT_FOUND} (an intermediate one) for {@code ENOENT} and {@code
     *     ENOTDIR}; ignored for other errors
     */
    public static NtStatus fromErrno(Errno errno, boolean parentIsDirectory) {
        switch (errno) {
            case ENOENT:
                return parentIsDirectory ? OBJECT_NAME_NOT_FOUND : OBJECT_PATH_NOT_FOUND;
            case ENOTDIR:
                return parentIsDirectory ? NOT_A_DIRECTORY : OBJECT_PATH_NOT_FOUND;
            case ELOOP:
                return OBJECT_PATH_NOT_FOUND;
            case EPERM:
            case EACCES:
                return ACCESS_DENIED;
            case EROFS:
                return MEDIA_WRITE_PROTECTED;
            case EBADF:
                return INVALID_HANDLE;
            case EINVAL:
                return INVALID_PARAMETER;
            case EEXIST:
                return OBJECT_NAME_COLLISION;
            case ENFILE:
            case EMFILE:
                return TOO_MANY_OPENED_FILES;
            case ENOSPC:
            case EFBIG:
                return DISK_FULL;
            case ENOTEMPTY:
                return DIRECTORY_NOT_EMPTY;
            case EXDEV:
                return NOT_SAME_DEVICE;
            case ENAMETOOLONG:
                return OBJECT_NAME_INVALID;
            case EISDIR:
                return FILE_IS_A_DIRECTORY;
            case EMLINK:
                return TOO_MANY_LINKS;
            case EAGAIN:
                return LOCK_NOT_GRANTED;
            case EDEADLK:
                return POSSIBLE_DEADLOCK;
            case EBUSY:
                return SHARING_VIOLATION;
            case ENOMEM:
                return NO_MEMORY;
            case EIO:
                return IO_DEVICE_ERROR;
            case EINTR:
                return RETRY;
            case ENOSYS:
            case EOPNOTSUPP:
                return NOT_SUPPORTED;
            default:
                return UNSUCCESSFUL;
        }
    }

    /** Returns the name ({@code NT_STATUS_OK}; {@code 0x...} for a code without a known name). */
    public String name() {
        return name;
    }

    /** Returns the 32-bit code, or -1 for a name this class does not know. */
    public long code() {
        return code;
    }

    /** Returns whether this is success. */
    public boolean isOk() {
        return code == 0;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof NtStatus s)) {
            return false;
        }
        return (code >= 0 && s.code >= 0) ? code == s.code : name.equals(s.name);
    }

    @Override
    public int hashCode() {
        return code >= 0 ? Long.hashCode(code) : name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
