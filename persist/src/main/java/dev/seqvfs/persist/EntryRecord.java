package dev.seqvfs.persist;

import dev.seqvfs.protocol.FileType;
import java.util.Objects;

/**
 * What a directory's journal records of the inode one of its names binds: the inode number and the
 * attributes it had when the name was bound or last changed through this directory. Times are
 * nanoseconds since the epoch; {@code mode} holds the type and permission bits ({@code st_mode});
 * {@code linkTarget} is a symbolic link's target (internal form), else {@code null}.
 *
 * <p>Immutable; part of the event schema (version 1): fields may be added with defaults, never
 * renamed or removed.
 *
 * @param ino the inode number (never reused within one file system)
 * @param mode {@code st_mode}: type and permission bits
 * @param uid owner
 * @param gid group
 * @param rdev device number of a character or block device, else 0
 * @param atime last access, nanoseconds since the epoch
 * @param mtime last modification, nanoseconds since the epoch
 * @param ctime last status change, nanoseconds since the epoch
 * @param linkTarget a symbolic link's target, else {@code null}
 * @param xattrs its extended attributes, by name, or {@code null} for none (added in schema version
 *     2: an older record has none); a name that is not valid UTF-8 is kept as NUL followed by its
 *     bytes, one char per byte
 */
public record EntryRecord(
        long ino,
        int mode,
        int uid,
        int gid,
        long rdev,
        long atime,
        long mtime,
        long ctime,
        String linkTarget,
        @com.fasterxml.jackson.annotation.JsonInclude(
                        com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                java.util.SortedMap<String, byte[]> xattrs)
        implements CborSerializable {
    /**
     * A record without extended attributes.
     *
     * @param ino the inode number
     * @param mode {@code st_mode}: type and permission bits
     * @param uid owner
     * @param gid group
     * @param rdev device number of a character or block device, else 0
     * @param atime last access, nanoseconds since the epoch
     * @param mtime last modification, nanoseconds since the epoch
     * @param ctime last status change, nanoseconds since the epoch
     * @param linkTarget a symbolic link's target, else {@code null}
     */
    public EntryRecord(
            long ino,
            int mode,
            int uid,
            int gid,
            long rdev,
            long atime,
            long mtime,
            long ctime,
            String linkTarget) {
        this(ino, mode, uid, gid, rdev, atime, mtime, ctime, linkTarget, null);
    }

    /** {@return the extended attributes as the engine keeps them} */
    public dev.seqvfs.engine.inode.Xattrs engineXattrs() {
        dev.seqvfs.engine.inode.Xattrs x = dev.seqvfs.engine.inode.Xattrs.EMPTY;
        if (xattrs != null) {
            for (java.util.Map.Entry<String, byte[]> e : xattrs.entrySet()) {
                String n = e.getKey();
                if (n.startsWith(BYTES_MARK)) {
                    n = dev.seqvfs.protocol.PathNames.toExternal(n.substring(1));
                }
                x = x.with(n, e.getValue());
            }
        }
        return x;
    }

    /** {@return {@code x} as a record keeps it: by name, or {@code null} when empty} */
    static java.util.SortedMap<String, byte[]> of(dev.seqvfs.engine.inode.Xattrs x) {
        if (x.size() == 0) {
            return null;
        }
        java.util.SortedMap<String, byte[]> m = new java.util.TreeMap<>();
        for (String n : x.names()) {
            m.put(recordedName(n), x.get(n));
        }
        return java.util.Collections.unmodifiableSortedMap(m);
    }

    /**
     * Marks a recorded attribute name kept as its bytes, one char per byte ({@code
     * PathNames.toInternal}), because it is not valid UTF-8: as text it would hold lone surrogates
     * (surrogateescape), which CBOR's text strings cannot carry. No real name starts with NUL (a
     * name is a C string), so names recorded before the mark existed read as they did.
     */
    private static final String BYTES_MARK = "\0";

    /** {@return name {@code n} as a record keeps it: itself, or its bytes after the mark} */
    private static String recordedName(String n) {
        // only well-formed UTF-16 (no lone surrogate) encodes as UTF-8 text
        return java.nio.charset.StandardCharsets.UTF_8.newEncoder().canEncode(n)
                ? n
                : BYTES_MARK + dev.seqvfs.protocol.PathNames.toInternal(n, null);
    }

    /** {@return the file type its {@code mode} names} */
    public FileType type() {
        return Objects.requireNonNull(FileType.ofMode(mode), "mode");
    }
}
