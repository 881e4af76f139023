package dev.seqvfs.engine.notify;

import dev.seqvfs.engine.inode.Inode;

/**
 * One inotify watch ({@code struct inotify_inode_mark}): an inode, the group it reports to, its
 * watch descriptor and the events it asks for.
 *
 * <h2>Concurrency</h2>
 *
 * {@code inode}, {@code group} and {@code wd} are final; {@code mask} is written under the group's
 * monitor and read by emitters without it (volatile): an emitter that reads an old mask queues or
 * skips one event that raced with the {@code inotify_add_watch} changing it, as on Linux.
 */
public final class InotifyMark {
    final Inode inode;
    final InotifyGroup group;
    final int wd;
    volatile int mask;

    InotifyMark(Inode inode, InotifyGroup group, int wd, int mask) {
        this.inode = inode;
        this.group = group;
        this.wd = wd;
        this.mask = mask;
    }

    /** {@return the watch descriptor} */
    public int wd() {
        return wd;
    }

    @Override
    public String toString() {
        return "InotifyMark[wd="
                + wd
                + ", "
                + inode
                + ", mask=0x"
                + Integer.toHexString(mask)
                + "]";
    }
}
