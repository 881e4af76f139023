package dev.seqvfs.protocol;

/**
 * One record of {@code getdents64(2)}: a name in a directory, its inode number and type, and the
 * cookie ({@code d_off}) to pass back to continue the listing after it.
 *
 * <p>Cookies are stable: a listing resumed from a cookie returns every name that was in the
 * directory throughout, exactly once, whatever was created, removed or renamed meanwhile.
 * Immutable; thread-safe.
 *
 * @param name the entry's name (one path component, no slash)
 * @param ino inode number
 * @param type file type ({@code d_type})
 * @param cookie position after this entry, to pass to the next {@code getdents} call
 */
public record DirEntry(String name, long ino, FileType type, long cookie) {}
