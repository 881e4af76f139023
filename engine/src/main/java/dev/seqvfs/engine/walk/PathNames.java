package dev.seqvfs.engine.walk;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.nio.charset.StandardCharsets;

/**
 * Conversions between the paths callers pass (Java {@code String}s, or raw bytes as the
 * kernel sees them) and SeqVFS's internal form: a {@code String} with one {@code char}
 * per byte ({@code '\u0000'..'\u00ff'}, that is ISO-8859-1 over the raw bytes).
 *
 * <p>Linux names are bytes; the internal form keeps them exact (an invalid UTF-8 name
 * survives a round trip through the byte API), makes {@code NAME_MAX} and
 * {@code PATH_MAX} plain length checks, and costs nothing for ASCII names, which are
 * their own internal form. Caller strings are encoded as UTF-8.
 *
 * <p>Stateless; thread-safe.
 */
public final class PathNames {
    private PathNames() {
    }

    /**
     * Converts a caller's path to internal form (UTF-8 bytes, one char each).
     *
     * @param path the caller's path
     * @param op the system call, for the error
     * @throws VfsException {@code EFAULT} for {@code null}; {@code EINVAL} for a path with a
     *         NUL character, which a C caller could not pass
     */
    public static String toInternal(String path, String op) {
        if (path == null) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
        int n = path.length();
        for (int i = 0; i < n; i++) {
            char c = path.charAt(i);
            if (c >= 0x80 || c == 0) {
                return slowToInternal(path, op);
            }
        }
        return path;
    }

    private static String slowToInternal(String path, String op) {
        if (path.indexOf('\0') >= 0) {
            throw new VfsException(Errno.EINVAL, op, path);
        }
        return new String(path.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /** Converts raw path bytes to internal form; a NUL byte is {@code EINVAL}. */
    public static String toInternal(byte[] path, String op) {
        if (path == null) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
        for (byte b : path) {
            if (b == 0) {
                throw new VfsException(Errno.EINVAL, op, new String(path, StandardCharsets.ISO_8859_1));
            }
        }
        return new String(path, StandardCharsets.ISO_8859_1);
    }

    /** Converts an internal-form name or path to a caller's {@code String} (decoding UTF-8). */
    public static String toExternal(String internal) {
        int n = internal.length();
        for (int i = 0; i < n; i++) {
            if (internal.charAt(i) >= 0x80) {
                return new String(internal.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
            }
        }
        return internal;
    }

    /** Returns the raw bytes of an internal-form name or path. */
    public static byte[] toBytes(String internal) {
        return internal.getBytes(StandardCharsets.ISO_8859_1);
    }
}
