package dev.seqvfs.tests.differential;

import static dev.seqvfs.protocol.OpenFlags.AT_FDCWD;
import static dev.seqvfs.protocol.OpenFlags.AT_REMOVEDIR;
import static dev.seqvfs.protocol.OpenFlags.AT_SYMLINK_NOFOLLOW;

import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import java.util.ArrayList;
import java.util.List;

/**
 * One namespace call of a differential sequence, with its arguments as the C caller passes them
 * (paths as strings, descriptors and flags as Linux numbers).
 *
 * <p>{@link #toString()} prints the call as Java source using the static factories below (for
 * example {@code renameat2(AT_FDCWD, "a/", 3, "b", RENAME_NOREPLACE)}), so that a shrunk failing
 * sequence can be pasted into {@link DifferentialRegressionTest} as it is.
 *
 * @param kind which call
 * @param fd the (first) descriptor argument: dirfd, or the fd of close/fstat/getdents/fchdir
 * @param path the (first) path
 * @param fd2 the second dirfd (link, rename)
 * @param path2 the second path (link, rename) or the target of a symlink
 * @param flags the call's flags word
 * @param a mode, uid, access mode, umask, or the utimensat times variant
 * @param b gid (chown)
 */
public record Op(Kind kind, int fd, String path, int fd2, String path2, int flags, int a, int b) {

    /** The calls the differential test makes. */
    public enum Kind {
        MKDIR,
        MKNOD,
        SYMLINK,
        LINK,
        UNLINK,
        RENAME,
        READLINK,
        STAT,
        OPEN,
        CLOSE,
        FSTAT,
        GETDENTS,
        CHMOD,
        CHOWN,
        UTIMENS,
        ACCESS,
        CHDIR,
        FCHDIR,
        GETCWD,
        UMASK
    }

    /** {@code utimensat} times: {@code NULL} (both now). */
    public static final int TIMES_NULL = 0;

    /** {@code utimensat} times: both {@code UTIME_OMIT}. */
    public static final int TIMES_OMIT = 1;

    /** {@code utimensat} times: both {@code UTIME_NOW}. */
    public static final int TIMES_NOW = 2;

    /** {@code utimensat} times: explicit, atime 1 s and mtime 2 s after the epoch. */
    public static final int TIMES_EXPLICIT = 3;

    /** {@code utimensat} times: {@code tv_nsec} of 10^9, which is {@code EINVAL}. */
    public static final int TIMES_BAD_NSEC = 4;

    // ------------------------------------------------------------------ factories

    public static Op mkdir(String path, int mode) {
        return mkdirat(AT_FDCWD, path, mode);
    }

    public static Op mkdirat(int dirfd, String path, int mode) {
        return new Op(Kind.MKDIR, dirfd, path, 0, null, 0, mode, 0);
    }

    public static Op mknod(String path, int mode) {
        return mknodat(AT_FDCWD, path, mode);
    }

    public static Op mknodat(int dirfd, String path, int mode) {
        return new Op(Kind.MKNOD, dirfd, path, 0, null, 0, mode, 0);
    }

    public static Op symlink(String target, String linkpath) {
        return symlinkat(target, AT_FDCWD, linkpath);
    }

    public static Op symlinkat(String target, int newdirfd, String linkpath) {
        return new Op(Kind.SYMLINK, newdirfd, linkpath, 0, target, 0, 0, 0);
    }

    public static Op link(String oldpath, String newpath) {
        return linkat(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
    }

    public static Op linkat(int olddirfd, String oldpath, int newdirfd, String newpath, int flags) {
        return new Op(Kind.LINK, olddirfd, oldpath, newdirfd, newpath, flags, 0, 0);
    }

    public static Op unlink(String path) {
        return unlinkat(AT_FDCWD, path, 0);
    }

    public static Op rmdir(String path) {
        return unlinkat(AT_FDCWD, path, AT_REMOVEDIR);
    }

    public static Op unlinkat(int dirfd, String path, int flags) {
        return new Op(Kind.UNLINK, dirfd, path, 0, null, flags, 0, 0);
    }

    public static Op rename(String oldpath, String newpath) {
        return renameat2(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
    }

    public static Op renameat2(
            int olddirfd, String oldpath, int newdirfd, String newpath, int flags) {
        return new Op(Kind.RENAME, olddirfd, oldpath, newdirfd, newpath, flags, 0, 0);
    }

    public static Op readlink(String path) {
        return readlinkat(AT_FDCWD, path);
    }

    public static Op readlinkat(int dirfd, String path) {
        return new Op(Kind.READLINK, dirfd, path, 0, null, 0, 0, 0);
    }

    public static Op stat(String path) {
        return fstatat(AT_FDCWD, path, 0);
    }

    public static Op lstat(String path) {
        return fstatat(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW);
    }

    public static Op fstatat(int dirfd, String path, int flags) {
        return new Op(Kind.STAT, dirfd, path, 0, null, flags, 0, 0);
    }

    public static Op open(String path, int flags, int mode) {
        return openat(AT_FDCWD, path, flags, mode);
    }

    public static Op openat(int dirfd, String path, int flags, int mode) {
        return new Op(Kind.OPEN, dirfd, path, 0, null, flags, mode, 0);
    }

    public static Op close(int fd) {
        return new Op(Kind.CLOSE, fd, null, 0, null, 0, 0, 0);
    }

    public static Op fstat(int fd) {
        return new Op(Kind.FSTAT, fd, null, 0, null, 0, 0, 0);
    }

    /** {@code lseek(fd, 0, SEEK_SET)}, then {@code getdents64} to the end of the directory. */
    public static Op getdents(int fd) {
        return new Op(Kind.GETDENTS, fd, null, 0, null, 0, 0, 0);
    }

    public static Op chmod(String path, int mode) {
        return fchmodat(AT_FDCWD, path, mode, 0);
    }

    public static Op fchmodat(int dirfd, String path, int mode, int flags) {
        return new Op(Kind.CHMOD, dirfd, path, 0, null, flags, mode, 0);
    }

    public static Op chown(String path, int uid, int gid) {
        return fchownat(AT_FDCWD, path, uid, gid, 0);
    }

    public static Op lchown(String path, int uid, int gid) {
        return fchownat(AT_FDCWD, path, uid, gid, AT_SYMLINK_NOFOLLOW);
    }

    public static Op fchownat(int dirfd, String path, int uid, int gid, int flags) {
        return new Op(Kind.CHOWN, dirfd, path, 0, null, flags, uid, gid);
    }

    /** {@code utimensat}; {@code times} is one of the {@code TIMES_*} variants. */
    public static Op utimensat(int dirfd, String path, int times, int flags) {
        return new Op(Kind.UTIMENS, dirfd, path, 0, null, flags, times, 0);
    }

    public static Op access(String path, int mode) {
        return faccessat(AT_FDCWD, path, mode, 0);
    }

    public static Op faccessat(int dirfd, String path, int mode, int flags) {
        return new Op(Kind.ACCESS, dirfd, path, 0, null, flags, mode, 0);
    }

    public static Op chdir(String path) {
        return new Op(Kind.CHDIR, 0, path, 0, null, 0, 0, 0);
    }

    public static Op fchdir(int fd) {
        return new Op(Kind.FCHDIR, fd, null, 0, null, 0, 0, 0);
    }

    public static Op getcwd() {
        return new Op(Kind.GETCWD, 0, null, 0, null, 0, 0, 0);
    }

    public static Op umask(int mask) {
        return new Op(Kind.UMASK, 0, null, 0, null, 0, mask, 0);
    }

    // ------------------------------------------------------------------ rendering

    /** Returns whether the call's descriptor argument is a dirfd ({@code AT_FDCWD} allowed). */
    boolean usesDirfd() {
        switch (kind) {
            case CLOSE:
            case FSTAT:
            case GETDENTS:
            case FCHDIR:
            case CHDIR:
            case GETCWD:
            case UMASK:
                return false;
            default:
                return true;
        }
    }

    @Override
    public String toString() {
        String p = q(path);
        String p2 = q(path2);
        String d = fd(fd);
        String d2 = fd(fd2);
        boolean cwd = fd == AT_FDCWD;
        switch (kind) {
            case MKDIR:
                return cwd ? call("mkdir", p, oct(a)) : call("mkdirat", d, p, oct(a));
            case MKNOD:
                return cwd ? call("mknod", p, nodeMode(a)) : call("mknodat", d, p, nodeMode(a));
            case SYMLINK:
                return cwd ? call("symlink", p2, p) : call("symlinkat", p2, d, p);
            case LINK:
                return cwd && fd2 == AT_FDCWD && flags == 0
                        ? call("link", p, p2)
                        : call("linkat", d, p, d2, p2, atFlags(flags));
            case UNLINK:
                if (cwd && flags == 0) {
                    return call("unlink", p);
                }
                return cwd && flags == AT_REMOVEDIR
                        ? call("rmdir", p)
                        : call("unlinkat", d, p, atFlags(flags));
            case RENAME:
                return cwd && fd2 == AT_FDCWD && flags == 0
                        ? call("rename", p, p2)
                        : call("renameat2", d, p, d2, p2, renameFlags(flags));
            case READLINK:
                return cwd ? call("readlink", p) : call("readlinkat", d, p);
            case STAT:
                if (cwd && flags == 0) {
                    return call("stat", p);
                }
                return cwd && flags == AT_SYMLINK_NOFOLLOW
                        ? call("lstat", p)
                        : call("fstatat", d, p, atFlags(flags));
            case OPEN:
                return cwd
                        ? call("open", p, openFlags(flags), oct(a))
                        : call("openat", d, p, openFlags(flags), oct(a));
            case CLOSE:
                return call("close", Integer.toString(fd));
            case FSTAT:
                return call("fstat", Integer.toString(fd));
            case GETDENTS:
                return call("getdents", Integer.toString(fd));
            case CHMOD:
                return cwd && flags == 0
                        ? call("chmod", p, oct(a))
                        : call("fchmodat", d, p, oct(a), atFlags(flags));
            case CHOWN:
                if (cwd && flags == 0) {
                    return call("chown", p, Integer.toString(a), Integer.toString(b));
                }
                return cwd && flags == AT_SYMLINK_NOFOLLOW
                        ? call("lchown", p, Integer.toString(a), Integer.toString(b))
                        : call(
                                "fchownat",
                                d,
                                p,
                                Integer.toString(a),
                                Integer.toString(b),
                                atFlags(flags));
            case UTIMENS:
                return call("utimensat", d, p, timesName(a), atFlags(flags));
            case ACCESS:
                return cwd && flags == 0
                        ? call("access", p, accessMode(a))
                        : call("faccessat", d, p, accessMode(a), atFlags(flags));
            case CHDIR:
                return call("chdir", p);
            case FCHDIR:
                return call("fchdir", Integer.toString(fd));
            case GETCWD:
                return call("getcwd");
            case UMASK:
                return call("umask", oct(a));
            default:
                throw new IllegalStateException(kind.name());
        }
    }

    private static String call(String name, String... args) {
        return name + "(" + String.join(", ", args) + ")";
    }

    private static String fd(int fd) {
        return fd == AT_FDCWD ? "AT_FDCWD" : Integer.toString(fd);
    }

    static String oct(int v) {
        return v == 0 ? "0" : "0" + Integer.toOctalString(v);
    }

    private static String nodeMode(int mode) {
        String type;
        switch (mode & Mode.S_IFMT) {
            case 0:
                return oct(mode);
            case Mode.S_IFREG:
                type = "S_IFREG";
                break;
            case Mode.S_IFIFO:
                type = "S_IFIFO";
                break;
            case Mode.S_IFSOCK:
                type = "S_IFSOCK";
                break;
            case Mode.S_IFDIR:
                type = "S_IFDIR";
                break;
            default:
                return oct(mode);
        }
        return type + " | " + oct(mode & Mode.PERMISSION_MASK);
    }

    private static String flagNames(int flags, int[] bits, String[] names, String zero) {
        List<String> out = new ArrayList<>();
        int rest = flags;
        for (int i = 0; i < bits.length; i++) {
            if ((rest & bits[i]) == bits[i] && bits[i] != 0) {
                out.add(names[i]);
                rest &= ~bits[i];
            }
        }
        if (rest != 0) {
            out.add("0x" + Integer.toHexString(rest));
        }
        return out.isEmpty() ? zero : String.join(" | ", out);
    }

    private static String atFlags(int flags) {
        return flagNames(
                flags,
                new int[] {
                    AT_SYMLINK_NOFOLLOW,
                    AT_REMOVEDIR,
                    OpenFlags.AT_SYMLINK_FOLLOW,
                    OpenFlags.AT_EMPTY_PATH
                },
                new String[] {
                    "AT_SYMLINK_NOFOLLOW", "AT_REMOVEDIR", "AT_SYMLINK_FOLLOW", "AT_EMPTY_PATH"
                },
                "0");
    }

    private static String renameFlags(int flags) {
        return flagNames(
                flags,
                new int[] {
                    OpenFlags.RENAME_NOREPLACE, OpenFlags.RENAME_EXCHANGE, OpenFlags.RENAME_WHITEOUT
                },
                new String[] {"RENAME_NOREPLACE", "RENAME_EXCHANGE", "RENAME_WHITEOUT"},
                "0");
    }

    static String openFlags(int flags) {
        String acc;
        switch (flags & OpenFlags.O_ACCMODE) {
            case OpenFlags.O_RDONLY:
                acc = "O_RDONLY";
                break;
            case OpenFlags.O_WRONLY:
                acc = "O_WRONLY";
                break;
            case OpenFlags.O_RDWR:
                acc = "O_RDWR";
                break;
            default:
                acc = "O_ACCMODE";
                break;
        }
        String rest =
                flagNames(
                        flags & ~OpenFlags.O_ACCMODE,
                        new int[] {
                            OpenFlags.O_CREAT,
                            OpenFlags.O_EXCL,
                            OpenFlags.O_TRUNC,
                            OpenFlags.O_APPEND,
                            OpenFlags.O_DIRECTORY,
                            OpenFlags.O_NOFOLLOW,
                            OpenFlags.O_PATH,
                            OpenFlags.O_CLOEXEC
                        },
                        new String[] {
                            "O_CREAT",
                            "O_EXCL",
                            "O_TRUNC",
                            "O_APPEND",
                            "O_DIRECTORY",
                            "O_NOFOLLOW",
                            "O_PATH",
                            "O_CLOEXEC"
                        },
                        null);
        return rest == null ? acc : acc + " | " + rest;
    }

    private static String accessMode(int mode) {
        if (mode == Mode.F_OK) {
            return "F_OK";
        }
        return flagNames(
                mode,
                new int[] {Mode.R_OK, Mode.W_OK, Mode.X_OK},
                new String[] {"R_OK", "W_OK", "X_OK"},
                "F_OK");
    }

    private static String timesName(int v) {
        switch (v) {
            case TIMES_NULL:
                return "TIMES_NULL";
            case TIMES_OMIT:
                return "TIMES_OMIT";
            case TIMES_NOW:
                return "TIMES_NOW";
            case TIMES_EXPLICIT:
                return "TIMES_EXPLICIT";
            case TIMES_BAD_NSEC:
                return "TIMES_BAD_NSEC";
            default:
                return Integer.toString(v);
        }
    }

    /**
     * Quotes a string as a Java literal; runs of 16 or more of one character, or of {@code "./"},
     * print as {@code "x".repeat(n)} so that long names stay readable.
     */
    static String q(String s) {
        if (s == null) {
            return "null";
        }
        List<String> parts = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        int i = 0;
        while (i < s.length()) {
            int run = 1;
            while (i + run < s.length() && s.charAt(i + run) == s.charAt(i)) {
                run++;
            }
            int pairs = 0;
            while (s.startsWith("./", i + 2 * pairs)) {
                pairs++;
            }
            if (run >= 16 || pairs >= 16) {
                if (lit.length() > 0) {
                    parts.add("\"" + lit + "\"");
                    lit.setLength(0);
                }
                if (run >= 16) {
                    parts.add("\"" + escape(s.charAt(i)) + "\".repeat(" + run + ")");
                    i += run;
                } else {
                    parts.add("\"./\".repeat(" + pairs + ")");
                    i += 2 * pairs;
                }
                continue;
            }
            lit.append(escape(s.charAt(i)));
            i++;
        }
        if (lit.length() > 0 || parts.isEmpty()) {
            parts.add("\"" + lit + "\"");
        }
        return String.join(" + ", parts);
    }

    private static String escape(char c) {
        if (c == '"' || c == '\\') {
            return "\\" + c;
        }
        if (c < 0x20 || c > 0x7e) {
            return String.format("\\u%04x", (int) c);
        }
        return String.valueOf(c);
    }
}
