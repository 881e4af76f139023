package dev.seqvfs.protocol;

import java.nio.charset.StandardCharsets;

/**
 * Conversions between the paths callers pass (Java {@code String}s, or raw bytes as the kernel sees
 * them) and SeqVFS's internal form: a {@code String} with one {@code char} per byte ({@code
 * '\u0000'..'\u00ff'}, that is ISO-8859-1 over the raw bytes).
 *
 * <p>Linux names are bytes; the internal form keeps them exact, makes {@code NAME_MAX} and {@code
 * PATH_MAX} plain length checks, and costs nothing for ASCII names, which are their own internal
 * form. Caller strings are UTF-8 with Python's <i>surrogateescape</i> convention: a byte that is
 * not part of valid UTF-8 is written as the lone surrogate {@code U+DC80..U+DCFF}, so every byte
 * sequence has a {@code String} that stands for it exactly, and {@link #fromBytes} / {@link
 * #toInternal(String, Syscall)} are inverses. {@link Filename} is the value type built on them.
 *
 * <p>Stateless; thread-safe.
 */
public final class PathNames {
    private PathNames() {}

    /**
     * Converts a caller's path to internal form (UTF-8 bytes, one char each; escaped bytes {@code
     * U+DC80..U+DCFF} as themselves).
     *
     * @param path the caller's path
     * @param op the system call, for the error
     * @return the path in internal form
     * @throws VfsException {@code EFAULT} for {@code null}; {@code EINVAL} for a NUL character (a C
     *     caller could not pass it) or an unpaired surrogate that is not an escaped byte
     */
    public static String toInternal(String path, Syscall op) {
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

    private static String slowToInternal(String path, Syscall op) {
        StringBuilder sb = new StringBuilder(path.length() + 8);
        int n = path.length();
        for (int i = 0; i < n; i++) {
            char c = path.charAt(i);
            if (c == 0) {
                throw new VfsException(Errno.EINVAL, op, path);
            }
            if (c < 0x80) {
                sb.append(c);
            } else if (c < 0x800) {
                sb.append((char) (0xC0 | (c >> 6))).append((char) (0x80 | (c & 0x3F)));
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < n
                    && Character.isLowSurrogate(path.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, path.charAt(++i));
                sb.append((char) (0xF0 | (cp >> 18)))
                        .append((char) (0x80 | ((cp >> 12) & 0x3F)))
                        .append((char) (0x80 | ((cp >> 6) & 0x3F)))
                        .append((char) (0x80 | (cp & 0x3F)));
            } else if (c >= 0xDC80 && c <= 0xDCFF) {
                sb.append((char) (c & 0xFF));
            } else if (Character.isSurrogate(c)) {
                throw new VfsException(Errno.EINVAL, op, path);
            } else {
                sb.append((char) (0xE0 | (c >> 12)))
                        .append((char) (0x80 | ((c >> 6) & 0x3F)))
                        .append((char) (0x80 | (c & 0x3F)));
            }
        }
        return sb.toString();
    }

    /**
     * {@return a {@link Filename}'s internal form: it was converted when it was made}
     *
     * @param path the path
     * @param op the system call, for the error
     * @throws VfsException {@code EFAULT} for {@code null}
     */
    public static String toInternal(Filename path, Syscall op) {
        if (path == null) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
        return path.internal();
    }

    /**
     * Converts raw path bytes to internal form; a NUL byte is {@code EINVAL}.
     *
     * @param path the path's bytes
     * @param op the system call, for the error
     * @return the path in internal form
     * @throws VfsException {@code EFAULT} for {@code null}, {@code EINVAL} for a NUL byte
     */
    public static String toInternal(byte[] path, Syscall op) {
        if (path == null) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
        for (byte b : path) {
            if (b == 0) {
                throw new VfsException(
                        Errno.EINVAL, op, new String(path, StandardCharsets.ISO_8859_1));
            }
        }
        return new String(path, StandardCharsets.ISO_8859_1);
    }

    /**
     * Converts raw bytes to the caller's {@code String} that stands for them exactly
     * (surrogateescape).
     *
     * @param raw the bytes, or {@code null}
     * @return the caller's form of the bytes, or {@code null} for {@code null}
     */
    public static String fromBytes(byte[] raw) {
        return raw == null ? null : toExternal(new String(raw, StandardCharsets.ISO_8859_1));
    }

    /**
     * Converts an internal-form name or path to a caller's {@code String}: UTF-8 decoded, each byte
     * that is not part of valid UTF-8 as {@code U+DC00 + byte}.
     *
     * @param internal a name or path in internal form
     * @return the caller's form
     */
    public static String toExternal(String internal) {
        int n = internal.length();
        int i = 0;
        while (i < n && internal.charAt(i) < 0x80) {
            i++;
        }
        if (i == n) {
            return internal;
        }
        StringBuilder sb = new StringBuilder(n);
        sb.append(internal, 0, i);
        while (i < n) {
            int b0 = internal.charAt(i);
            if (b0 < 0x80) {
                sb.append((char) b0);
                i++;
                continue;
            }
            int len =
                    b0 >= 0xC2 && b0 <= 0xDF
                            ? 2
                            : b0 >= 0xE0 && b0 <= 0xEF ? 3 : b0 >= 0xF0 && b0 <= 0xF4 ? 4 : 0;
            int cp = -1;
            if (len > 0 && i + len <= n) {
                int lo = 0x80;
                int hi = 0xBF;
                if (b0 == 0xE0) {
                    lo = 0xA0;
                } else if (b0 == 0xED) {
                    hi = 0x9F;
                } else if (b0 == 0xF0) {
                    lo = 0x90;
                } else if (b0 == 0xF4) {
                    hi = 0x8F;
                }
                int b1 = internal.charAt(i + 1);
                boolean ok = b1 >= lo && b1 <= hi;
                int v = len == 2 ? b0 & 0x1F : len == 3 ? b0 & 0x0F : b0 & 0x07;
                v = (v << 6) | (b1 & 0x3F);
                for (int k = 2; ok && k < len; k++) {
                    int bk = internal.charAt(i + k);
                    ok = (bk & 0xC0) == 0x80;
                    v = (v << 6) | (bk & 0x3F);
                }
                if (ok) {
                    cp = v;
                }
            }
            if (cp < 0) {
                sb.append((char) (0xDC00 + b0));
                i++;
            } else {
                sb.appendCodePoint(cp);
                i += len;
            }
        }
        return sb.toString();
    }

    /**
     * {@return the raw bytes of an internal-form name or path}
     *
     * @param internal a name or path in internal form
     */
    public static byte[] toBytes(String internal) {
        return internal.getBytes(StandardCharsets.ISO_8859_1);
    }
}
