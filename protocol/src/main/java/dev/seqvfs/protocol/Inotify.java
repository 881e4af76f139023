package dev.seqvfs.protocol;

/**
 * {@code inotify(7)} constants with Linux's values ({@code <linux/inotify.h>}), and the layout of
 * the {@code struct inotify_event} records a read of an inotify descriptor returns: {@code int wd,
 * uint32 mask, uint32 cookie, uint32 len}, little-endian, then {@code len} bytes of name, the name
 * followed by NULs up to a multiple of {@link #EVENT_SIZE} (Linux's {@code round_event_name_len}).
 */
public final class Inotify {
    /**
     * The size of the fixed part of one event record, in bytes ({@code sizeof(struct
     * inotify_event)}).
     */
    public static final int EVENT_SIZE = 16;

    /** File was accessed (read). */
    public static final int IN_ACCESS = 0x00000001;

    /** File was modified (written, truncated). */
    public static final int IN_MODIFY = 0x00000002;

    /** Metadata changed: permissions, owner, times, link count, extended attributes. */
    public static final int IN_ATTRIB = 0x00000004;

    /** A file opened for writing was closed. */
    public static final int IN_CLOSE_WRITE = 0x00000008;

    /** A file not opened for writing was closed. */
    public static final int IN_CLOSE_NOWRITE = 0x00000010;

    /** File was opened. */
    public static final int IN_OPEN = 0x00000020;

    /** A name was moved out of the watched directory (paired with {@link #IN_MOVED_TO}). */
    public static final int IN_MOVED_FROM = 0x00000040;

    /** A name was moved into the watched directory (paired with {@link #IN_MOVED_FROM}). */
    public static final int IN_MOVED_TO = 0x00000080;

    /** A name was created in the watched directory. */
    public static final int IN_CREATE = 0x00000100;

    /** A name was deleted from the watched directory. */
    public static final int IN_DELETE = 0x00000200;

    /** The watched inode itself was deleted (its last link went, and it is not open). */
    public static final int IN_DELETE_SELF = 0x00000400;

    /** The watched inode itself was moved (renamed). */
    public static final int IN_MOVE_SELF = 0x00000800;

    /** The file system of the watched inode was unmounted (never sent by SeqVFS yet). */
    public static final int IN_UNMOUNT = 0x00002000;

    /** The event queue overflowed; the event's watch descriptor is -1. */
    public static final int IN_Q_OVERFLOW = 0x00004000;

    /** The watch was removed (explicitly, or because its inode went). */
    public static final int IN_IGNORED = 0x00008000;

    /** Both close events. */
    public static final int IN_CLOSE = IN_CLOSE_WRITE | IN_CLOSE_NOWRITE;

    /** Both move events. */
    public static final int IN_MOVE = IN_MOVED_FROM | IN_MOVED_TO;

    /** Every event a watch may ask for. */
    public static final int IN_ALL_EVENTS = 0x00000fff;

    /** Watch only if the path is a directory ({@code ENOTDIR} otherwise). */
    public static final int IN_ONLYDIR = 0x01000000;

    /** Do not follow a final symbolic link. */
    public static final int IN_DONT_FOLLOW = 0x02000000;

    /**
     * Do not report events on names unlinked from a watched directory (accepted, no effect yet).
     */
    public static final int IN_EXCL_UNLINK = 0x04000000;

    /** Fail with {@code EEXIST} if the inode is already watched by this instance. */
    public static final int IN_MASK_CREATE = 0x10000000;

    /** Add the mask to an existing watch's instead of replacing it. */
    public static final int IN_MASK_ADD = 0x20000000;

    /** The event's subject is a directory. */
    public static final int IN_ISDIR = 0x40000000;

    /** Report one event, then remove the watch. */
    public static final int IN_ONESHOT = 0x80000000;

    /** {@code inotify_init1} flag: {@code O_NONBLOCK}. */
    public static final int IN_NONBLOCK = OpenFlags.O_NONBLOCK;

    /** {@code inotify_init1} flag: {@code O_CLOEXEC}. */
    public static final int IN_CLOEXEC = OpenFlags.O_CLOEXEC;

    /**
     * The default of {@code /proc/sys/fs/inotify/max_queued_events}: events queued on one instance
     * beyond which one {@link #IN_Q_OVERFLOW} is queued and further events are dropped.
     */
    public static final int MAX_QUEUED_EVENTS = 16384;

    private Inotify() {}
}
