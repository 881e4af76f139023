package dev.seqvfs.protocol;

/**
 * Mode-word constants of {@code inode(7)} (octal, as in {@code <sys/stat.h>}) and the access-mode
 * bits of {@code access(2)}.
 */
public final class Mode {
    /** Bit mask for the file type bit field. */
    public static final int S_IFMT = 0170000;

    /** Socket. */
    public static final int S_IFSOCK = 0140000;

    /** Symbolic link. */
    public static final int S_IFLNK = 0120000;

    /** Regular file. */
    public static final int S_IFREG = 0100000;

    /** Block device. */
    public static final int S_IFBLK = 0060000;

    /** Directory. */
    public static final int S_IFDIR = 0040000;

    /** Character device. */
    public static final int S_IFCHR = 0020000;

    /** FIFO. */
    public static final int S_IFIFO = 0010000;

    /** Set-user-ID bit. */
    public static final int S_ISUID = 04000;

    /** Set-group-ID bit (on a directory: new entries inherit its group). */
    public static final int S_ISGID = 02000;

    /** Sticky bit (on a directory: restricted deletion, see {@code unlink(2)}). */
    public static final int S_ISVTX = 01000;

    /** The twelve permission bits, {@code 07777}. */
    public static final int PERMISSION_MASK = 07777;

    /** {@code access(2)}: existence only. */
    public static final int F_OK = 0;

    /** {@code access(2)}: execute or search. */
    public static final int X_OK = 1;

    /** {@code access(2)}: write. */
    public static final int W_OK = 2;

    /** {@code access(2)}: read. */
    public static final int R_OK = 4;

    private Mode() {}

    /**
     * {@return whether a mode's type bits name a directory}
     *
     * @param mode a mode with its type bits
     */
    public static boolean isDirectory(int mode) {
        return (mode & S_IFMT) == S_IFDIR;
    }

    /**
     * {@return whether a mode's type bits name a regular file}
     *
     * @param mode a mode with its type bits
     */
    public static boolean isRegular(int mode) {
        return (mode & S_IFMT) == S_IFREG;
    }

    /**
     * {@return whether a mode's type bits name a symbolic link}
     *
     * @param mode a mode with its type bits
     */
    public static boolean isSymlink(int mode) {
        return (mode & S_IFMT) == S_IFLNK;
    }

    /**
     * Formats a mode like {@code ls -l} does, for example {@code drwxr-xr-x}.
     *
     * @param mode a mode with its type bits
     * @return ten characters: the type ({@code ?} if unknown), then the {@code rwx} triplets with
     *     {@code s}, {@code S}, {@code t}, {@code T} for the set-id and sticky bits
     */
    public static String toString(int mode) {
        char[] c = new char[10];
        FileType t = FileType.ofMode(mode);
        c[0] =
                t == null
                        ? '?'
                        : switch (t) {
                            case REGULAR -> '-';
                            case DIRECTORY -> 'd';
                            case SYMLINK -> 'l';
                            case FIFO -> 'p';
                            case SOCKET -> 's';
                            case CHAR_DEVICE -> 'c';
                            case BLOCK_DEVICE -> 'b';
                        };
        String rwx = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            c[i + 1] = (mode & (0400 >> i)) != 0 ? rwx.charAt(i) : '-';
        }
        if ((mode & S_ISUID) != 0) {
            c[3] = c[3] == 'x' ? 's' : 'S';
        }
        if ((mode & S_ISGID) != 0) {
            c[6] = c[6] == 'x' ? 's' : 'S';
        }
        if ((mode & S_ISVTX) != 0) {
            c[9] = c[9] == 'x' ? 't' : 'T';
        }
        return new String(c);
    }
}
