package dev.seqvfs.engine;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.notify.InotifyGroup;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * The inotify calls ({@code inotify_init1(2)}, {@code inotify_add_watch(2)}, {@code
 * inotify_rm_watch(2)}), with the checks of Linux's {@code fs/notify/inotify/inotify_user.c} in its
 * order. The instance is an {@link InotifyGroup} behind an {@code anon_inode:inotify} descriptor;
 * reading it is {@code read(2)} on that descriptor. Lock-free apart from the group's monitor; no
 * message except the descriptor table's install.
 */
final class InotifyCalls {
    private static final int VALID_FLAGS =
            Inotify.IN_ALL_EVENTS
                    | Inotify.IN_ONLYDIR
                    | Inotify.IN_DONT_FOLLOW
                    | Inotify.IN_EXCL_UNLINK
                    | Inotify.IN_MASK_CREATE
                    | Inotify.IN_MASK_ADD
                    | Inotify.IN_ISDIR
                    | Inotify.IN_ONESHOT;

    private final TaskContext t;

    InotifyCalls(TaskContext t) {
        this.t = t;
    }

    /** {@code inotify_init1}: {@code EINVAL} for a flag other than the two. */
    CompletableFuture<Integer> init1(int flags) {
        if ((flags & ~(Inotify.IN_NONBLOCK | Inotify.IN_CLOEXEC)) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.INOTIFY_INIT1, null);
        }
        return t.anon.anonInodeGetFd(
                "inotify",
                new InotifyGroup(Inotify.MAX_QUEUED_EVENTS, t.vfs().shutdown()),
                OpenFlags.O_RDONLY | flags);
    }

    /** {@code inotify_add_watch}. */
    int addWatch(int fd, Filename path, int mask) {
        // inotify_add_watch: unknown bits, then no event, then IN_MASK_ADD with IN_MASK_CREATE
        if ((mask & ~VALID_FLAGS) != 0 || (mask & Inotify.IN_ALL_EVENTS) == 0) {
            throw new VfsException(Errno.EINVAL, Syscall.INOTIFY_ADD_WATCH, null);
        }
        if ((mask & Inotify.IN_MASK_ADD) != 0 && (mask & Inotify.IN_MASK_CREATE) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.INOTIFY_ADD_WATCH, null);
        }
        InotifyGroup g = group(fd, Syscall.INOTIFY_ADD_WATCH);
        int lookup = (mask & Inotify.IN_DONT_FOLLOW) != 0 ? OpenFlags.AT_SYMLINK_NOFOLLOW : 0;
        VfsPath p = t.attrs.resolve(OpenFlags.AT_FDCWD, path, Syscall.INOTIFY_ADD_WATCH, lookup, 0);
        Inode inode = p.inode();
        if ((mask & Inotify.IN_ONLYDIR) != 0 && inode.type() != FileType.DIRECTORY) {
            throw new VfsException(Errno.ENOTDIR, Syscall.INOTIFY_ADD_WATCH, null);
        }
        // inotify_find_inode: inode_permission(MAY_READ)
        if (!Permission.check(inode, Mode.R_OK, t.cred())) {
            throw new VfsException(Errno.EACCES, Syscall.INOTIFY_ADD_WATCH, null);
        }
        return g.addWatch(
                inode, mask & ~(Inotify.IN_ONLYDIR | Inotify.IN_DONT_FOLLOW | Inotify.IN_ISDIR));
    }

    /** {@code inotify_rm_watch}. */
    void rmWatch(int fd, int wd) {
        group(fd, Syscall.INOTIFY_RM_WATCH).rmWatch(wd);
    }

    /** The group behind {@code fd}: {@code EBADF} if not open, {@code EINVAL} if not inotify. */
    private InotifyGroup group(int fd, Syscall op) {
        return InotifyGroup.of(t.fget(fd, op), op);
    }
}
