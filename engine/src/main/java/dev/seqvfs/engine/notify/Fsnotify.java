package dev.seqvfs.engine.notify;

import dev.seqvfs.engine.dir.DirLink;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.walk.FileOrigin;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Inotify;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the engine's writers call once they have applied a change ({@code <linux/fsnotify.h>}): each
 * method reads the watch array of the inode concerned and returns at once if it is {@code null}, so
 * an unwatched inode costs one acquire load. With watches, the event is queued on every watch's
 * group that asks for it, on the calling thread, before the method returns; a writer calls these in
 * the order it applies its changes, so each group sees one writer's changes in that order. An event
 * on a name goes first to the directory's watches (with the name), then to the inode's own
 * (without), as Linux's {@code fsnotify_handle_event}.
 *
 * <p>Thread-safe; never blocks beyond a group's monitor, which is held for the copy of one event.
 */
public final class Fsnotify {
    /** Rename cookies ({@code inotify_get_cookie}): unique per JVM, never 0. */
    private static final AtomicInteger COOKIES = new AtomicInteger();

    private Fsnotify() {}

    /** {@return a fresh cookie pairing an {@code IN_MOVED_FROM} with its {@code IN_MOVED_TO}} */
    public static int nextCookie() {
        int c;
        do {
            c = COOKIES.incrementAndGet();
        } while (c == 0);
        return c;
    }

    /**
     * Reports an event on {@code inode} itself, to its own watches (no name).
     *
     * @param inode the inode
     * @param mask one {@code IN_*} event bit; {@code IN_ISDIR} is added for a directory
     */
    public static void inode(Inode inode, int mask) {
        InotifyMark[] marks = inode.marksAcquire();
        if (marks != null) {
            send(marks, withIsdir(inode, mask), 0, null);
        }
    }

    /**
     * Reports an event on the entry {@code name} of directory {@code dir}, to the directory's
     * watches.
     *
     * @param dir the directory
     * @param mask one {@code IN_*} event bit, with {@code IN_ISDIR} if the entry is a directory
     * @param name the entry's name (internal form: one char per byte)
     * @param cookie the rename cookie, or 0
     */
    public static void entry(Inode dir, int mask, String name, int cookie) {
        InotifyMark[] marks = dir.marksAcquire();
        if (marks != null) {
            send(marks, mask, cookie, name);
        }
    }

    /**
     * Reports an event on a name and its inode: to {@code dir}'s watches with the name, then to the
     * inode's own ({@code fsnotify_parent} followed by the inode's).
     *
     * @param dir the directory the name is in, or {@code null}
     * @param name the name, or {@code null}
     * @param inode the inode it names
     * @param mask one {@code IN_*} event bit; {@code IN_ISDIR} is added for a directory
     */
    public static void child(Inode dir, String name, Inode inode, int mask) {
        int m = withIsdir(inode, mask);
        if (dir != null && name != null) {
            InotifyMark[] marks = dir.marksAcquire();
            if (marks != null) {
                boolean unlinked =
                        inode.type() != FileType.DIRECTORY && inode.attrsAcquire().nlink() == 0;
                for (InotifyMark k : marks) {
                    // IN_EXCL_UNLINK: no event on a child once unlinked (d_unlinked)
                    if ((k.mask & m & Inotify.IN_ALL_EVENTS) != 0
                            && !(unlinked && (k.mask & Inotify.IN_EXCL_UNLINK) != 0)) {
                        k.group.queue(k, m, 0, name);
                    }
                }
            }
        }
        InotifyMark[] marks = inode.marksAcquire();
        if (marks != null) {
            send(marks, m, 0, null);
        }
    }

    /**
     * Reports an event on an open file ({@code IN_MODIFY}, {@code IN_ACCESS}, {@code IN_OPEN},
     * {@code IN_CLOSE_*}, {@code IN_ATTRIB} by descriptor): to the directory it was opened in, with
     * the name it was opened by (for a directory: to its parent and name at the time of the event,
     * as Linux's {@code fsnotify_parent}), then to its inode. Anonymous files (pipes, sockets) are
     * never watched and cost one load of their inode's (null) watch array.
     *
     * @param f the open file
     * @param mask one {@code IN_*} event bit
     */
    public static void file(OpenFile f, int mask) {
        Inode inode = f.inode();
        if (inode instanceof DirectoryInode d) {
            directory(d, mask);
            return;
        }
        FileOrigin o = f.origin();
        Inode dir = o == null || o.name() == null ? null : o.dir();
        if (inode.marksAcquire() == null && (dir == null || dir.marksAcquire() == null)) {
            return;
        }
        child(dir, dir == null ? null : o.name(), inode, mask);
    }

    /**
     * Reports an event on a directory: to its parent's watches with its name as they are now (a
     * directory's dentry follows its renames: {@code fsnotify_parent} over {@code d_parent}), none
     * for a superblock's root, then to its own.
     *
     * @param d the directory
     * @param mask one {@code IN_*} event bit; {@code IN_ISDIR} is added
     */
    public static void directory(DirectoryInode d, int mask) {
        DirLink up = d.linkAcquire();
        if (up == null) {
            inode(d, mask);
        } else {
            child(up.parent(), up.name(), d, mask);
        }
    }

    /**
     * {@code fsnotify_inoderemove} and the marks' destruction: {@code inode} was freed (no link,
     * not open). Queues {@code IN_DELETE_SELF} (to watches asking for it) and then {@code
     * IN_IGNORED} on each watch, and removes them.
     *
     * @param inode the freed inode
     */
    public static void inodeGone(Inode inode) {
        InotifyMark[] marks = inode.marksAcquire();
        if (marks == null) {
            return;
        }
        send(marks, Inotify.IN_DELETE_SELF, 0, null);
        for (InotifyMark m : marks) {
            m.group.removeMark(m, true);
        }
        inode.owner().watchForgotten(inode);
    }

    /**
     * {@code fsnotify_unmount_inodes}: the superblock of {@code inodes} was shut down (its last
     * mount went). Each watch on them gets {@code IN_UNMOUNT} (with {@code IN_ISDIR} for a
     * directory), whatever its mask (inotify adds {@code FS_UNMOUNT} to every mark), then {@code
     * IN_IGNORED}, and is removed.
     *
     * @param inodes the watched inodes, in the order to report them
     */
    public static void unmounted(Iterable<Inode> inodes) {
        for (Inode inode : inodes) {
            InotifyMark[] marks = inode.marksAcquire();
            if (marks == null) {
                continue;
            }
            for (InotifyMark m : marks) {
                m.group.queue(m, withIsdir(inode, Inotify.IN_UNMOUNT), 0, null);
            }
            for (InotifyMark m : marks) {
                m.group.removeMark(m, true);
            }
        }
    }

    /**
     * {@return {@code mask} with {@code IN_ISDIR} if {@code inode} is a directory}
     *
     * @param inode the event's subject
     * @param mask the event bits
     */
    public static int withIsdir(Inode inode, int mask) {
        return inode.type() == FileType.DIRECTORY ? mask | Inotify.IN_ISDIR : mask;
    }

    private static void send(InotifyMark[] marks, int mask, int cookie, String name) {
        for (InotifyMark m : marks) {
            if ((m.mask & mask & Inotify.IN_ALL_EVENTS) != 0) {
                m.group.queue(m, mask, cookie, name);
            }
        }
    }
}
