package dev.seqvfs.nio;

import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A path of a {@link SeqVfsFileSystem}, with the JDK's Unix semantics ({@code sun.nio.fs.UnixPath}
 * on Linux): a sequence of bytes (UTF-8 of the string it was made from) with redundant and trailing
 * slashes removed, {@code /} the only root, the empty path one empty name; {@link #relativize}
 * gives the JDK 9+ results (JDK-8066943: {@code ..} normalized away first).
 *
 * <p>Parsed once: the name offsets are computed at construction, the hash and the engine's {@link
 * Filename} on first use (racy single-check: every thread computes the same value), so a walk takes
 * the path without parsing it again. Immutable and thread-safe; equality, hashing and order are by
 * bytes and file system.
 */
public final class SeqVfsPath implements Path {
    private static final byte[] DOT = {'.'};

    private final SeqVfsFileSystem fs;
    private final byte[] path;
    private final int[] offsets;
    private int hash;
    private String string;
    private Filename filename;

    SeqVfsPath(SeqVfsFileSystem fs, byte[] normalized) {
        this.fs = fs;
        this.path = normalized;
        this.offsets = offsets(normalized);
    }

    /**
     * Parses {@code input} as the JDK's {@code UnixPath.normalizeAndCheck} does: a NUL is {@link
     * InvalidPathException} ("Nul character not allowed"); repeated slashes collapse; a trailing
     * slash goes. Encoded as UTF-8, but a character {@code U+DC80..U+DCFF} stands for the raw byte
     * {@code 0x80..0xFF} (surrogateescape, the engine's form of a name that is not UTF-8, so that a
     * name a listing returned names the same file again); any other unpaired surrogate is {@link
     * InvalidPathException} ("Malformed input or input contains unmappable characters", as the
     * JDK's {@code UnixPath.encode}), never a silent {@code '?'}.
     */
    static SeqVfsPath parse(SeqVfsFileSystem fs, String input) {
        int n = input.length();
        StringBuilder sb = new StringBuilder(n);
        char prev = 0;
        for (int i = 0; i < n; i++) {
            char c = input.charAt(i);
            if (c == '\u0000') {
                throw new InvalidPathException(input, "Nul character not allowed");
            }
            if (c == '/' && prev == '/') {
                continue;
            }
            sb.append(c);
            prev = c;
        }
        if (sb.length() > 1 && sb.charAt(sb.length() - 1) == '/') {
            sb.setLength(sb.length() - 1);
        }
        String s = sb.toString();
        byte[] bytes;
        try {
            bytes = PathNames.toBytes(PathNames.toInternal(s, Syscall.OPEN));
        } catch (VfsException e) {
            throw new InvalidPathException(
                    input, "Malformed input or input contains unmappable characters");
        }
        return new SeqVfsPath(fs, bytes);
    }

    private static int[] offsets(byte[] p) {
        if (p.length == 0) {
            return new int[] {0};
        }
        List<Integer> list = new ArrayList<>();
        int i = 0;
        while (i < p.length) {
            if (p[i] == '/') {
                i++;
                continue;
            }
            list.add(i);
            while (i < p.length && p[i] != '/') {
                i++;
            }
        }
        int[] o = new int[list.size()];
        for (int k = 0; k < o.length; k++) {
            o[k] = list.get(k);
        }
        return o;
    }

    /** {@return the path's bytes (not copied: callers must not change them)} */
    byte[] bytes() {
        return path;
    }

    /** {@return the path as the engine takes it, made once} */
    Filename filename() {
        Filename f = filename;
        if (f == null) {
            // the empty path names the working directory, as the JDK's UnixPath hands "." to
            // its system calls (getByteArrayForSysCalls)
            f = Filename.of(path.length == 0 ? DOT : path);
            filename = f;
        }
        return f;
    }

    boolean isEmpty() {
        return path.length == 0;
    }

    private SeqVfsPath of(byte[] b) {
        return new SeqVfsPath(fs, b);
    }

    private byte[] name(int i) {
        int start = offsets[i];
        int end = i + 1 < offsets.length ? offsets[i + 1] - 1 : path.length;
        return Arrays.copyOfRange(path, start, end);
    }

    private boolean isDot(int i) {
        int end = i + 1 < offsets.length ? offsets[i + 1] - 1 : path.length;
        return end - offsets[i] == 1 && path[offsets[i]] == '.';
    }

    private boolean isDotDot(int i) {
        int end = i + 1 < offsets.length ? offsets[i + 1] - 1 : path.length;
        return end - offsets[i] == 2 && path[offsets[i]] == '.' && path[offsets[i] + 1] == '.';
    }

    static SeqVfsPath check(Path p) {
        Objects.requireNonNull(p);
        if (!(p instanceof SeqVfsPath)) {
            throw new ProviderMismatchException();
        }
        return (SeqVfsPath) p;
    }

    @Override
    public SeqVfsFileSystem getFileSystem() {
        return fs;
    }

    @Override
    public boolean isAbsolute() {
        return path.length > 0 && path[0] == '/';
    }

    @Override
    public SeqVfsPath getRoot() {
        return isAbsolute() ? fs.rootDirectory() : null;
    }

    @Override
    public SeqVfsPath getFileName() {
        int count = offsets.length;
        if (count == 0) {
            return null;
        }
        if (count == 1 && path.length > 0 && path[0] != '/') {
            return this;
        }
        return of(name(count - 1));
    }

    @Override
    public SeqVfsPath getParent() {
        int count = offsets.length;
        if (count == 0) {
            return null;
        }
        int len = offsets[count - 1] - 1;
        if (len <= 0) {
            return getRoot();
        }
        return of(Arrays.copyOf(path, len));
    }

    @Override
    public int getNameCount() {
        return offsets.length;
    }

    @Override
    public SeqVfsPath getName(int index) {
        if (index < 0 || index >= offsets.length) {
            throw new IllegalArgumentException();
        }
        return of(name(index));
    }

    @Override
    public SeqVfsPath subpath(int beginIndex, int endIndex) {
        if (beginIndex < 0
                || beginIndex >= offsets.length
                || endIndex > offsets.length
                || beginIndex >= endIndex) {
            throw new IllegalArgumentException();
        }
        int start = offsets[beginIndex];
        int end = endIndex == offsets.length ? path.length : offsets[endIndex] - 1;
        return of(Arrays.copyOfRange(path, start, end));
    }

    private List<byte[]> names() {
        List<byte[]> l = new ArrayList<>(offsets.length);
        for (int i = 0; i < offsets.length; i++) {
            l.add(name(i));
        }
        return l;
    }

    @Override
    public boolean startsWith(Path other) {
        if (!(Objects.requireNonNull(other) instanceof SeqVfsPath)) {
            return false;
        }
        SeqVfsPath that = (SeqVfsPath) other;
        if (that.fs != fs || that.isAbsolute() != isAbsolute()) {
            return false;
        }
        if (that.offsets.length > offsets.length) {
            return false;
        }
        if (that.isEmpty()) {
            return isEmpty();
        }
        for (int i = 0; i < that.offsets.length; i++) {
            if (!Arrays.equals(name(i), that.name(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean endsWith(Path other) {
        if (!(Objects.requireNonNull(other) instanceof SeqVfsPath)) {
            return false;
        }
        SeqVfsPath that = (SeqVfsPath) other;
        if (that.fs != fs) {
            return false;
        }
        if (that.isAbsolute()) {
            return Arrays.equals(path, that.path);
        }
        if (that.isEmpty()) {
            return isEmpty();
        }
        int d = offsets.length - that.offsets.length;
        if (d < 0 || (isEmpty() && !that.isEmpty())) {
            return false;
        }
        for (int i = 0; i < that.offsets.length; i++) {
            if (!Arrays.equals(name(d + i), that.name(i))) {
                return false;
            }
        }
        return true;
    }

    private boolean hasDotOrDotDot() {
        for (int i = 0; i < offsets.length; i++) {
            if (isDot(i) || isDotDot(i)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public SeqVfsPath normalize() {
        if (!hasDotOrDotDot()) {
            return this;
        }
        boolean abs = isAbsolute();
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < offsets.length; i++) {
            if (isDot(i)) {
                continue;
            }
            if (isDotDot(i)) {
                if (!out.isEmpty() && !isDotDotName(out.get(out.size() - 1))) {
                    out.remove(out.size() - 1);
                    continue;
                }
                if (abs) {
                    continue;
                }
            }
            out.add(name(i));
        }
        return join(abs, out);
    }

    private static boolean isDotDotName(byte[] n) {
        return n.length == 2 && n[0] == '.' && n[1] == '.';
    }

    private SeqVfsPath join(boolean abs, List<byte[]> names) {
        int len = abs ? 1 : 0;
        for (byte[] n : names) {
            len += n.length;
        }
        len += Math.max(0, names.size() - 1);
        byte[] b = new byte[len];
        int at = 0;
        if (abs) {
            b[at++] = '/';
        }
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) {
                b[at++] = '/';
            }
            byte[] n = names.get(i);
            System.arraycopy(n, 0, b, at, n.length);
            at += n.length;
        }
        return of(b);
    }

    @Override
    public SeqVfsPath resolve(Path other) {
        SeqVfsPath o = check(other);
        if (o.isAbsolute()) {
            return o;
        }
        if (o.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return o;
        }
        byte[] b;
        if (path.length == 1 && path[0] == '/') {
            b = new byte[1 + o.path.length];
            b[0] = '/';
            System.arraycopy(o.path, 0, b, 1, o.path.length);
        } else {
            b = new byte[path.length + 1 + o.path.length];
            System.arraycopy(path, 0, b, 0, path.length);
            b[path.length] = '/';
            System.arraycopy(o.path, 0, b, path.length + 1, o.path.length);
        }
        return of(b);
    }

    @Override
    public SeqVfsPath resolve(String other) {
        return resolve(parse(fs, other));
    }

    @Override
    public SeqVfsPath relativize(Path other) {
        SeqVfsPath child = check(other);
        if (child.equals(this)) {
            return fs.emptyPath();
        }
        if (isAbsolute() != child.isAbsolute()) {
            throw new IllegalArgumentException("'other' is different type of Path");
        }
        if (isEmpty()) {
            return child;
        }
        SeqVfsPath base = this;
        if (base.hasDotOrDotDot() || child.hasDotOrDotDot()) {
            base = base.normalize();
            child = child.normalize();
        }
        List<byte[]> bn = base.isEmpty() ? List.of() : base.names();
        List<byte[]> cn = child.isEmpty() ? List.of() : child.names();
        int n = Math.min(bn.size(), cn.size());
        int i = 0;
        while (i < n && Arrays.equals(bn.get(i), cn.get(i))) {
            i++;
        }
        List<byte[]> rest = cn.subList(i, cn.size());
        if (i == bn.size()) {
            return join(false, rest);
        }
        for (byte[] b : bn.subList(i, bn.size())) {
            if (isDotDotName(b)) {
                throw new IllegalArgumentException(
                        "Unable to compute relative  path from " + this + " to " + other);
            }
        }
        List<byte[]> out = new ArrayList<>();
        for (int k = i; k < bn.size(); k++) {
            out.add(new byte[] {'.', '.'});
        }
        out.addAll(rest);
        return join(false, out);
    }

    @Override
    public URI toUri() {
        SeqVfsPath abs = toAbsolutePath();
        String p = abs.toString();
        if (!p.endsWith("/") && fs.isDirectoryQuietly(abs)) {
            p = p + "/";
        }
        try {
            return new URI(SeqVfsFileSystemProvider.SCHEME, fs.name(), p, null);
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public SeqVfsPath toAbsolutePath() {
        if (isAbsolute()) {
            return this;
        }
        fs.checkOpen();
        return fs.workingDirectory().resolve(this);
    }

    @Override
    public SeqVfsPath toRealPath(LinkOption... options) throws IOException {
        return fs.realPath(toAbsolutePath(), Options.followLinks(options));
    }

    /**
     * Registers this directory with a watch service of this path's file system: an {@code
     * inotify_add_watch} with {@code IN_ONLYDIR}; registering again returns the same key with the
     * new kinds.
     *
     * @throws ProviderMismatchException if {@code watcher} is not a SeqVFS watch service
     * @throws java.nio.file.ClosedWatchServiceException if it is closed
     * @throws java.nio.file.NotDirectoryException if this path is not a directory
     * @throws UnsupportedOperationException for a kind other than the standard ones, or a modifier
     * @throws IOException the walk's failure ({@code NoSuchFileException}, {@code
     *     AccessDeniedException}: no read permission)
     */
    @Override
    public WatchKey register(
            WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers)
            throws IOException {
        if (!(watcher instanceof SeqVfsWatchService w)) {
            throw new ProviderMismatchException();
        }
        return w.register(toAbsolutePath(), events, modifiers);
    }

    @Override
    public int compareTo(Path other) {
        SeqVfsPath o = (SeqVfsPath) other;
        return Arrays.compareUnsigned(path, o.path);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SeqVfsPath p && p.fs == fs && Arrays.equals(p.path, path);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = Arrays.hashCode(path);
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        String s = string;
        if (s == null) {
            s = PathNames.fromBytes(path); // a byte that is not UTF-8 as U+DC80..U+DCFF
            string = s;
        }
        return s;
    }
}
