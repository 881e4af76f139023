package dev.seqvfs.tests.concurrency;

import dev.seqvfs.protocol.Errno;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The sequential specification the {@link LinearizabilityChecker} checks histories against: a
 * namespace of directories and regular files reduced to what {@code open(2)} with {@code O_CREAT |
 * O_EXCL}, {@code unlink(2)}, {@code rename(2)} and {@code stat(2)} can observe, with the errno
 * each call returns in Linux for the cases the histories use.
 *
 * <h2>State</h2>
 *
 * An immutable map from normalized absolute path ({@code "/a/s/x"}, no {@code "."}, {@code ".."} or
 * symlinks) to {@link Node} (inode number, directory or not), holding every name but the root. Two
 * states are equal when the maps are equal, so inode identity is part of the state: a rename keeps
 * the inode number, a create introduces a new one.
 *
 * <h2>Operations and errors</h2>
 *
 * <ul>
 *   <li>every path's parent components must exist ({@code ENOENT}) and be directories ({@code
 *       ENOTDIR}); for {@code rename} the old path's parent is resolved first;
 *   <li>{@code create}: {@code EEXIST} if the name exists; on success the history supplies the
 *       inode number (nondeterministic in the model), which must be new to the state;
 *   <li>{@code unlink}: {@code ENOENT}, {@code EISDIR};
 *   <li>{@code stat}: {@code ENOENT}, else the inode number;
 *   <li>{@code rename}: {@code ENOENT} (no source); across directories {@code EINVAL} (a directory
 *       into itself or its subtree) then {@code ENOTEMPTY} (the target is an ancestor of the
 *       source); same inode: success, no change; {@code ENOTDIR} (directory over a non-directory),
 *       {@code EISDIR} (non-directory over a directory), {@code ENOTEMPTY} (non-empty target
 *       directory); else the source, with its subtree, replaces the target. This is the order of
 *       {@code do_renameat2} / {@code vfs_rename}.
 * </ul>
 *
 * <h2>Limits</h2>
 *
 * No permissions, links, symlinks, mounts, {@code RENAME_*} flags, trailing slashes or {@code
 * "."}/{@code ".."} in paths; directories are never created or removed by the checked operations
 * (only renamed or replaced). Every path in a history must be normalized.
 */
final class NamespaceModel {
    private NamespaceModel() {}

    /** The calls a history may contain. */
    enum Kind {
        CREATE,
        UNLINK,
        RENAME,
        STAT
    }

    /** One name's inode: its number and whether it is a directory. */
    record Node(long ino, boolean dir) {}

    /** One immutable state of the namespace. */
    static final class State {
        private final Map<String, Node> entries;
        private final int hash;

        State(Map<String, Node> entries) {
            this.entries = Collections.unmodifiableMap(new TreeMap<>(entries));
            this.hash = this.entries.hashCode();
        }

        Map<String, Node> entries() {
            return entries;
        }

        Node get(String path) {
            return entries.get(path);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof State s && s.hash == hash && s.entries.equals(entries);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("{");
            entries.forEach(
                    (p, n) ->
                            sb.append(sb.length() > 1 ? ", " : "")
                                    .append(p)
                                    .append(n.dir() ? "/" : "")
                                    .append('=')
                                    .append(n.ino()));
            return sb.append('}').toString();
        }
    }

    /** What an operation returned: an errno, or success with a value (an inode number, or 0). */
    record Result(Errno errno, long value) {
        static Result ok(long value) {
            return new Result(null, value);
        }

        static Result error(Errno e) {
            return new Result(e, 0);
        }

        @Override
        public String toString() {
            return errno == null ? (value == 0 ? "ok" : "ok:" + value) : errno.name();
        }
    }

    /**
     * Applies {@code kind(a, b)} to {@code s} and checks it against what it returned.
     *
     * @return the state after the operation, or {@code null} if no sequential execution of the
     *     operation on {@code s} returns {@code got}
     */
    static State step(State s, Kind kind, String a, String b, Result got) {
        switch (kind) {
            case STAT:
                {
                    Errno e = parentError(s, a);
                    Node n = s.get(a);
                    Result want =
                            e != null
                                    ? Result.error(e)
                                    : n == null ? Result.error(Errno.ENOENT) : Result.ok(n.ino());
                    return want.equals(got) ? s : null;
                }
            case CREATE:
                {
                    Errno e = parentError(s, a);
                    if (e == null && s.get(a) != null) {
                        e = Errno.EEXIST;
                    }
                    if (e != null) {
                        return Result.error(e).equals(got) ? s : null;
                    }
                    if (got.errno() != null || inoInUse(s, got.value())) {
                        return null;
                    }
                    Map<String, Node> m = new TreeMap<>(s.entries());
                    m.put(a, new Node(got.value(), false));
                    return new State(m);
                }
            case UNLINK:
                {
                    Errno e = parentError(s, a);
                    Node n = s.get(a);
                    if (e == null && n == null) {
                        e = Errno.ENOENT;
                    }
                    if (e == null && n.dir()) {
                        e = Errno.EISDIR;
                    }
                    if (e != null) {
                        return Result.error(e).equals(got) ? s : null;
                    }
                    if (!got.equals(Result.ok(0))) {
                        return null;
                    }
                    Map<String, Node> m = new TreeMap<>(s.entries());
                    m.remove(a);
                    return new State(m);
                }
            case RENAME:
                {
                    Errno e = renameError(s, a, b);
                    if (e != null) {
                        return Result.error(e).equals(got) ? s : null;
                    }
                    if (!got.equals(Result.ok(0))) {
                        return null;
                    }
                    return a.equals(b) ? s : move(s, a, b);
                }
            default:
                throw new IllegalArgumentException(kind.toString());
        }
    }

    private static Errno renameError(State s, String a, String b) {
        Errno e = parentError(s, a);
        if (e == null) {
            e = parentError(s, b);
        }
        if (e != null) {
            return e;
        }
        Node src = s.get(a);
        if (src == null) {
            return Errno.ENOENT;
        }
        Node tgt = s.get(b);
        String pa = parent(a);
        String pb = parent(b);
        if (!pa.equals(pb)) {
            if (src.dir() && isSelfOrBelow(pb, a)) {
                return Errno.EINVAL;
            }
            if (tgt != null && tgt.dir() && isSelfOrBelow(pa, b)) {
                return Errno.ENOTEMPTY;
            }
        }
        if (a.equals(b)) {
            return null;
        }
        if (tgt != null) {
            if (src.dir() && !tgt.dir()) {
                return Errno.ENOTDIR;
            }
            if (!src.dir() && tgt.dir()) {
                return Errno.EISDIR;
            }
            if (tgt.dir() && hasChildren(s, b)) {
                return Errno.ENOTEMPTY;
            }
        }
        return null;
    }

    private static State move(State s, String a, String b) {
        Map<String, Node> m = new TreeMap<>();
        for (Map.Entry<String, Node> en : s.entries().entrySet()) {
            String p = en.getKey();
            if (p.equals(b)) {
                continue;
            }
            if (p.equals(a)) {
                m.put(b, en.getValue());
            } else if (p.startsWith(a + "/")) {
                m.put(b + p.substring(a.length()), en.getValue());
            } else {
                m.put(p, en.getValue());
            }
        }
        return new State(m);
    }

    /**
     * Returns the errno of resolving {@code path}'s parent, or {@code null} if it is a directory.
     */
    static Errno parentError(State s, String path) {
        int i = 0;
        while (true) {
            int next = path.indexOf('/', i + 1);
            if (next < 0) {
                return null;
            }
            Node n = s.get(path.substring(0, next));
            if (n == null) {
                return Errno.ENOENT;
            }
            if (!n.dir()) {
                return Errno.ENOTDIR;
            }
            i = next;
        }
    }

    static String parent(String path) {
        int i = path.lastIndexOf('/');
        return i == 0 ? "/" : path.substring(0, i);
    }

    private static boolean isSelfOrBelow(String p, String dir) {
        return p.equals(dir) || p.startsWith(dir + "/");
    }

    private static boolean hasChildren(State s, String dir) {
        for (String p : s.entries().keySet()) {
            if (p.startsWith(dir + "/")) {
                return true;
            }
        }
        return false;
    }

    private static boolean inoInUse(State s, long ino) {
        for (Node n : s.entries().values()) {
            if (n.ino() == ino) {
                return true;
            }
        }
        return false;
    }

    /** Formats an operation for reports. */
    static String format(Kind kind, String a, String b) {
        return kind.name().toLowerCase(Locale.ROOT) + "(" + a + (b == null ? "" : ", " + b) + ")";
    }
}
