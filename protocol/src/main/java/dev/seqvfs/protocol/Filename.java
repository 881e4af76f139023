package dev.seqvfs.protocol;

import java.util.Arrays;

/**
 * A path as SeqVFS's calls take it ({@code struct filename}): its bytes, parsed once. Every path
 * parameter of the API is a {@link CharSequence}, so a {@code String} literal works as well ({@code
 * task.mkdir("/data", 0755)}); a {@code Filename} passed there is used as it is, without being
 * parsed again, and one made from bytes names a path that is not valid UTF-8 exactly.
 *
 * <p>Text and bytes: a path's text is its bytes decoded as UTF-8, where a byte that is not part of
 * valid UTF-8 stands as the lone surrogate {@code U+DC80..U+DCFF} (Python's surrogateescape), so
 * every byte sequence has exactly one text and {@code of(text)} and {@code of(bytes)} meet: {@code
 * Filename.of(f.bytes()).equals(Filename.of(f.toString()))}. The {@link CharSequence} methods read
 * the text.
 *
 * <p>Equality and hashing are by bytes; the hash is computed once, when first asked for. Immutable
 * and thread-safe. Source: Linux's {@code getname}, {@code path_resolution(7)}.
 */
public final class Filename implements CharSequence, Comparable<Filename> {
    private final String internal;
    private final String text;

    /**
     * The components, once a second walk asked for them ({@link #components()}). A racy cache: the
     * value is immutable with final fields, so a thread that sees it sees it whole, and two threads
     * that both compute it store equal values.
     */
    private PathComponents components;

    /** Whether {@link #components()} was asked once (plain; racy, only a hint). */
    private boolean walked;

    private Filename(String internal, String text) {
        this.internal = internal;
        this.text = text;
    }

    /**
     * {@return {@code path} as a {@code Filename}: itself if it is one, else its text parsed}
     *
     * @param path the path, or a {@code Filename}
     * @throws VfsException {@code EFAULT} for {@code null}; {@code EINVAL} for a NUL character (a C
     *     caller could not pass it) or a lone surrogate that is not an escaped byte; the exception
     *     names no call: the call that takes the path adds it
     */
    public static Filename of(CharSequence path) {
        if (path instanceof Filename f) {
            return f;
        }
        if (path == null) {
            throw new VfsException(Errno.EFAULT, null, null);
        }
        String s = path.toString();
        return new Filename(PathNames.toInternal(s, null), s);
    }

    /**
     * {@return the path made of exactly these bytes (copied)}
     *
     * @param path the path's bytes
     * @throws VfsException {@code EFAULT} for {@code null}, {@code EINVAL} for a NUL byte
     */
    public static Filename of(byte[] path) {
        String internal = PathNames.toInternal(path, null);
        return new Filename(internal, PathNames.toExternal(internal));
    }

    /**
     * {@return the path whose bytes are the chars of {@code internal}, one byte each ({@code
     * '\u0000'..'\u00ff'}, ISO-8859-1): the form SeqVFS's path walk reads} For code that already
     * holds that form (a name read from a directory).
     *
     * @param internal the path's bytes, one char each
     * @throws IllegalArgumentException if a char is above {@code '\u00ff'} or is NUL
     */
    public static Filename ofInternal(String internal) {
        for (int i = 0; i < internal.length(); i++) {
            char c = internal.charAt(i);
            if (c == 0 || c > 0xFF) {
                throw new IllegalArgumentException(
                        "not a byte string: char " + (int) c + " at " + i);
            }
        }
        return new Filename(internal, PathNames.toExternal(internal));
    }

    /** {@return a copy of the path's bytes} */
    public byte[] bytes() {
        return PathNames.toBytes(internal);
    }

    /**
     * {@return the path's bytes as a {@code String} of one char per byte (ISO-8859-1): the form
     * SeqVFS's path walk reads, with no conversion} Its length is the path's length in bytes
     * ({@code PATH_MAX} counts these).
     */
    public String internal() {
        return internal;
    }

    /**
     * {@return the path's components, parsed once, for a walk that reuses this {@code Filename}; or
     * {@code null} the first time it is asked} A {@code Filename} made for one call (a {@code
     * String} literal passed to the API) is walked once, and the walk's own scan is then cheaper
     * than parsing ahead; one kept and walked again (a {@code java.nio.file.Path}'s) is parsed on
     * its second walk and never scanned again. Thread-safe (a racy cache of an immutable value).
     */
    public PathComponents components() {
        PathComponents c = components;
        if (c == null) {
            if (!walked) {
                walked = true;
                return null;
            }
            c = PathComponents.of(internal);
            components = c;
        }
        return c;
    }

    /** {@return the path's length in bytes} */
    public int byteLength() {
        return internal.length();
    }

    /** Returns the path's text (UTF-8 decoded, surrogateescape): what error messages show. */
    @Override
    public String toString() {
        return text;
    }

    @Override
    public int length() {
        return text.length();
    }

    @Override
    public char charAt(int index) {
        return text.charAt(index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return text.subSequence(start, end);
    }

    /** Compares by bytes, unsigned, as {@code strcmp} orders paths. */
    @Override
    public int compareTo(Filename o) {
        return Arrays.compareUnsigned(bytes(), o.bytes());
    }

    /** Two filenames are equal when their bytes are. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Filename f && f.internal.equals(internal);
    }

    /**
     * The hash of the bytes, computed once, when first asked for (the internal string caches it).
     */
    @Override
    public int hashCode() {
        return internal.hashCode();
    }
}
