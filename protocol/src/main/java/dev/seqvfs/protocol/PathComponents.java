package dev.seqvfs.protocol;

/**
 * The components of one path in internal form ({@link Filename#internal()}), found once so that a
 * path walked again is not scanned again: for each component (a maximal run of chars other than
 * {@code '/'}), where it starts and ends, its {@link String#hashCode()}, its kind ({@code "."},
 * {@code ".."} or an ordinary name), and its first 16 chars packed one per byte, low byte first,
 * zero past its end, as a directory entry stores its name for comparison. Offsets are char indexes
 * into the internal string, which are byte offsets into the path.
 *
 * <p>Immutable: every field is final, so an instance may be published through a data race (the Java
 * memory model's final-field guarantee), as {@link Filename#components()} caches it. Source: the
 * component rules of {@code path_resolution(7)}; the walk that reads it is the engine's {@code
 * Nameidata}.
 */
public final class PathComponents {
    /** {@link #kind}: an ordinary name. */
    public static final int NAME = 0;

    /** {@link #kind}: {@code "."}. */
    public static final int DOT = 1;

    /** {@link #kind}: {@code ".."}. */
    public static final int DOTDOT = 2;

    /**
     * {@link #kind}: a name holding a char above {@code '\u00ff'}: not internal form, so it names
     * no directory entry (the packed words are then meaningless).
     */
    public static final int WIDE = 3;

    /** Per component, four ints: start, end, hash, kind. */
    private final int[] meta;

    /** Per component, two longs: chars 0 to 7 and chars 8 to 15, one per byte. */
    private final long[] words;

    private PathComponents(int[] meta, long[] words) {
        this.meta = meta;
        this.words = words;
    }

    /**
     * {@return the components of {@code internal}} O(length of the path); one pass.
     *
     * @param internal a path in internal form (one char per byte)
     */
    public static PathComponents of(String internal) {
        int len = internal.length();
        int n = 0;
        for (int i = 0; i < len; i++) {
            if (internal.charAt(i) != '/' && (i == 0 || internal.charAt(i - 1) == '/')) {
                n++;
            }
        }
        int[] meta = new int[n * 4];
        long[] words = new long[n * 2];
        int c = 0;
        int p = 0;
        while (c < n) {
            while (internal.charAt(p) == '/') {
                p++;
            }
            int end = p;
            int hash = 0;
            int seen = 0;
            long w0 = 0;
            long w1 = 0;
            char ch;
            while (end < len && (ch = internal.charAt(end)) != '/') {
                hash = 31 * hash + ch;
                seen |= ch;
                int i = end - p;
                if (i < 8) {
                    w0 |= (long) ch << (i << 3);
                } else if (i < 16) {
                    w1 |= (long) ch << ((i - 8) << 3);
                }
                end++;
            }
            int kind = NAME;
            if (seen > 0xFF) {
                kind = WIDE;
            } else if (end - p == 1 && internal.charAt(p) == '.') {
                kind = DOT;
            } else if (end - p == 2 && internal.charAt(p) == '.' && internal.charAt(p + 1) == '.') {
                kind = DOTDOT;
            }
            meta[c * 4] = p;
            meta[c * 4 + 1] = end;
            meta[c * 4 + 2] = hash;
            meta[c * 4 + 3] = kind;
            words[c * 2] = w0;
            words[c * 2 + 1] = w1;
            c++;
            p = end;
        }
        return new PathComponents(meta, words);
    }

    /** {@return how many components the path has (0 for {@code "/"} and {@code ""})} */
    public int count() {
        return meta.length >> 2;
    }

    /**
     * {@return the index of component {@code i}'s first char}
     *
     * @param i the component, from 0
     */
    public int start(int i) {
        return meta[i << 2];
    }

    /**
     * {@return the index just past component {@code i}'s last char}
     *
     * @param i the component, from 0
     */
    public int end(int i) {
        return meta[(i << 2) + 1];
    }

    /**
     * {@return component {@code i}'s {@link String#hashCode()}}
     *
     * @param i the component, from 0
     */
    public int hash(int i) {
        return meta[(i << 2) + 2];
    }

    /**
     * {@return component {@code i}'s kind: {@link #NAME}, {@link #DOT}, {@link #DOTDOT} or {@link
     * #WIDE}}
     *
     * @param i the component, from 0
     */
    public int kind(int i) {
        return meta[(i << 2) + 3];
    }

    /**
     * {@return component {@code i}'s chars 0 to 7, one per byte, low byte first, zero past its end}
     *
     * @param i the component, from 0
     */
    public long word0(int i) {
        return words[i << 1];
    }

    /**
     * {@return component {@code i}'s chars 8 to 15, one per byte, low byte first, zero past its
     * end}
     *
     * @param i the component, from 0
     */
    public long word1(int i) {
        return words[(i << 1) + 1];
    }
}
