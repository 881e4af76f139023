package dev.seqvfs.nio;

import dev.seqvfs.protocol.Stat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code Files.readAttributes(path, "view:a,b")} for the {@code basic}, {@code posix}, {@code
 * owner} and {@code unix} views, with the JDK's names ({@code unix:} adds {@code mode}, {@code
 * ino}, {@code dev}, {@code rdev}, {@code nlink}, {@code uid}, {@code gid}, {@code ctime}); an
 * unknown name is {@link IllegalArgumentException} "'name' not recognized". Stateless.
 */
final class AttributeMaps {
    private static final List<String> BASIC =
            List.of(
                    "lastModifiedTime",
                    "lastAccessTime",
                    "creationTime",
                    "size",
                    "isRegularFile",
                    "isDirectory",
                    "isSymbolicLink",
                    "isOther",
                    "fileKey");
    private static final List<String> POSIX = List.of("permissions", "owner", "group");
    private static final List<String> UNIX =
            List.of("mode", "ino", "dev", "rdev", "nlink", "uid", "gid", "ctime");

    private AttributeMaps() {}

    private static List<String> all(String view) {
        switch (view) {
            case "basic":
                return BASIC;
            case "owner":
                return List.of("owner");
            case "posix":
                return concat(BASIC, POSIX);
            default:
                return concat(concat(BASIC, POSIX), UNIX);
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        java.util.ArrayList<String> l = new java.util.ArrayList<>(a);
        l.addAll(b);
        return l;
    }

    static Map<String, Object> read(String view, String names, Stat st) {
        SeqVfsFileAttributes a = new SeqVfsFileAttributes(st);
        List<String> allowed = all(view);
        Map<String, Object> out = new HashMap<>();
        for (String n : names.split(",")) {
            if (n.equals("*")) {
                for (String x : allowed) {
                    out.put(x, value(x, a, st));
                }
            } else if (allowed.contains(n)) {
                out.put(n, value(n, a, st));
            } else {
                throw new IllegalArgumentException("'" + n + "' not recognized");
            }
        }
        return out;
    }

    private static Object value(String n, SeqVfsFileAttributes a, Stat st) {
        switch (n) {
            case "lastModifiedTime":
                return a.lastModifiedTime();
            case "lastAccessTime":
                return a.lastAccessTime();
            case "creationTime":
                return a.creationTime();
            case "size":
                return a.size();
            case "isRegularFile":
                return a.isRegularFile();
            case "isDirectory":
                return a.isDirectory();
            case "isSymbolicLink":
                return a.isSymbolicLink();
            case "isOther":
                return a.isOther();
            case "fileKey":
                return a.fileKey();
            case "permissions":
                return a.permissions();
            case "owner":
                return a.owner();
            case "group":
                return a.group();
            case "mode":
                return st.mode();
            case "ino":
                return st.ino();
            case "dev":
                return st.dev();
            case "rdev":
                return st.rdev();
            case "nlink":
                return (int) st.nlink();
            case "uid":
                return st.uid();
            case "gid":
                return st.gid();
            default:
                return SeqVfsFileAttributes.time(st.ctimeNanos());
        }
    }
}
