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
        String linkTarget)
        implements CborSerializable {
    /** {@return the file type its {@code mode} names} */
    public FileType type() {
        return Objects.requireNonNull(FileType.ofMode(mode), "mode");
    }
}
