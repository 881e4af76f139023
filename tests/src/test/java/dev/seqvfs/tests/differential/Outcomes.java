package dev.seqvfs.tests.differential;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The canonical text of call results, shared by both sides so that equal behaviour gives equal
 * strings. Inode numbers never appear: each side names inodes {@code #0, #1, ...} in the order it
 * first reports them, so two results name the same inode on one side exactly when they do on the
 * other (hard-link identity, rename identity) without comparing numbers.
 */
final class Outcomes {
    /** The result of an {@code open} the host refused to make because it would open a FIFO. */
    static final String SKIPPED = "skipped (would open a FIFO)";

    private final Map<Long, Integer> ids = new HashMap<>();

    /** Returns the canonical name of an inode number, assigning the next one on first sight. */
    String inode(long ino) {
        return "#" + ids.computeIfAbsent(ino, k -> ids.size());
    }

    static String ok() {
        return "0";
    }

    static String number(long v) {
        return Long.toString(v);
    }

    static String errno(int number) {
        Errno e = Errno.ofNumber(number);
        return e == null ? "errno " + number : e.name();
    }

    static String string(String s) {
        return Op.q(s);
    }

    /**
     * Formats the compared fields of a stat: type, permission bits, nlink, uid, gid, size, inode.
     */
    String stat(int mode, long nlink, int uid, int gid, long size, long ino) {
        return "{"
                + typeName(mode)
                + " "
                + Op.oct(mode & Mode.PERMISSION_MASK)
                + " nlink="
                + nlink
                + " uid="
                + uid
                + " gid="
                + gid
                + " size="
                + size
                + " "
                + inode(ino)
                + "}";
    }

    static String typeName(int mode) {
        FileType t = FileType.ofMode(mode);
        return t == null
                ? "type?" + Integer.toOctalString(mode & Mode.S_IFMT)
                : t.name().toLowerCase(Locale.ROOT);
    }

    /**
     * One directory entry; "." and ".." keep their names but ".." not its inode (the host's root
     * has a real parent).
     */
    record Dirent(String name, int dtype, long ino) {}

    /** Formats a whole listing, sorted by name (the order of getdents is not specified). */
    String listing(List<Dirent> entries) {
        List<Dirent> sorted = new ArrayList<>(entries);
        sorted.sort((x, y) -> x.name().compareTo(y.name()));
        List<String> out = new ArrayList<>();
        for (Dirent e : sorted) {
            String ino = e.name().equals("..") ? "" : " " + inode(e.ino());
            out.add(Op.q(e.name()) + " dt=" + e.dtype() + ino);
        }
        return out.toString();
    }

    /** One line of a tree listing. */
    static String treeLine(
            String path,
            int mode,
            long nlink,
            int uid,
            int gid,
            long size,
            String linkTarget,
            String id) {
        return path
                + " "
                + typeName(mode)
                + " "
                + Op.oct(mode & Mode.PERMISSION_MASK)
                + " nlink="
                + nlink
                + " uid="
                + uid
                + " gid="
                + gid
                + " size="
                + size
                + (linkTarget == null ? "" : " -> " + Op.q(linkTarget))
                + " "
                + id;
    }
}
