package dev.seqvfs.protocol;

/**
 * The file types of {@code inode(7)}, with their {@code S_IFMT} bits and the {@code d_type} value
 * that {@code getdents64(2)} reports.
 *
 * <p>Immutable; thread-safe.
 */
public enum FileType {
    /** {@code S_IFREG}, {@code DT_REG}. */
    REGULAR(Mode.S_IFREG, 8),
    /** {@code S_IFDIR}, {@code DT_DIR}. */
    DIRECTORY(Mode.S_IFDIR, 4),
    /** {@code S_IFLNK}, {@code DT_LNK}. */
    SYMLINK(Mode.S_IFLNK, 10),
    /** {@code S_IFIFO}, {@code DT_FIFO}. */
    FIFO(Mode.S_IFIFO, 1),
    /** {@code S_IFSOCK}, {@code DT_SOCK}. */
    SOCKET(Mode.S_IFSOCK, 12),
    /** {@code S_IFCHR}, {@code DT_CHR}. */
    CHAR_DEVICE(Mode.S_IFCHR, 2),
    /** {@code S_IFBLK}, {@code DT_BLK}. */
    BLOCK_DEVICE(Mode.S_IFBLK, 6);

    private final int ifmt;
    private final int dtype;

    FileType(int ifmt, int dtype) {
        this.ifmt = ifmt;
        this.dtype = dtype;
    }

    /** {@return the {@code S_IFMT} bits of this type (for example {@code 0040000})} */
    public int ifmt() {
        return ifmt;
    }

    /** {@return the {@code d_type} value {@code getdents64(2)} reports for this type} */
    public int dtype() {
        return dtype;
    }

    /**
     * Returns the type a mode's {@code S_IFMT} bits name.
     *
     * @param mode a full mode word
     * @return the type, or {@code null} when the bits name none
     */
    public static FileType ofMode(int mode) {
        switch (mode & Mode.S_IFMT) {
            case Mode.S_IFREG:
                return REGULAR;
            case Mode.S_IFDIR:
                return DIRECTORY;
            case Mode.S_IFLNK:
                return SYMLINK;
            case Mode.S_IFIFO:
                return FIFO;
            case Mode.S_IFSOCK:
                return SOCKET;
            case Mode.S_IFCHR:
                return CHAR_DEVICE;
            case Mode.S_IFBLK:
                return BLOCK_DEVICE;
            default:
                return null;
        }
    }
}
