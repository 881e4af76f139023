package dev.seqvfs.protocol;

/** {@code fallocate(2)} mode flags with Linux's values ({@code <linux/falloc.h>}). */
public final class Falloc {
    /** Do not change the file size. */
    public static final int FALLOC_FL_KEEP_SIZE = 0x01;

    /** Free the range; must be combined with {@link #FALLOC_FL_KEEP_SIZE}. */
    public static final int FALLOC_FL_PUNCH_HOLE = 0x02;

    private Falloc() {}
}
