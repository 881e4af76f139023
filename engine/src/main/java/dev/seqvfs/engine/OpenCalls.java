package dev.seqvfs.engine;

import dev.seqvfs.actors.dir.Dentry;
import dev.seqvfs.actors.dir.DirReply;
import dev.seqvfs.actors.dir.DirSnapshot;
import dev.seqvfs.actors.dir.DirectoryActor;
import dev.seqvfs.actors.dir.DirectoryInode;
import dev.seqvfs.actors.dir.DirLink;
import dev.seqvfs.actors.fdtable.FdReply;
import dev.seqvfs.actors.fdtable.FdTableActor;
import dev.seqvfs.actors.fdtable.OpenFile;
import dev.seqvfs.actors.inode.Inode;
import dev.seqvfs.actors.inode.IopFlags;
import dev.seqvfs.actors.inode.Permission;
import dev.seqvfs.engine.walk.LastType;
import dev.seqvfs.engine.walk.Nameidata;
import dev.seqvfs.engine.walk.PathNames;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * {@code open}, {@code close}, {@code getdents} and {@code lseek}: the calls that make and
 * use open file descriptions. Follows {@code open(2)} ({@code do_filp_open},
 * {@code open_last_lookups}, {@code may_open} in {@code fs/namei.c}).
 */
final class OpenCalls {
    private static final int PATH_KEEP = OpenFlags.O_PATH | OpenFlags.O_DIRECTORY | OpenFlags.O_NOFOLLOW
            | OpenFlags.O_CLOEXEC;
    private static final int MAX_PIN_RETRIES = 100;

    private final VfsTask t;

    OpenCalls(VfsTask t) {
        this.t = t;
    }

    /** What the walk found: an existing file, or a parent and a name to create. */
    private record OpenTarget(VfsPath existing, VfsPath parent, String name) {
    }

    CompletableFuture<Integer> openat(int dirfd, String path, int flags, int mode) {
        if ((flags & OpenFlags.O_TMPFILE) == OpenFlags.O_TMPFILE) {
            throw new VfsException(Errno.EOPNOTSUPP, "open", path);
        }
        if ((flags & OpenFlags.O_PATH) != 0) {
            flags &= PATH_KEEP;
        }
        if ((flags & (OpenFlags.O_CREAT | OpenFlags.O_DIRECTORY)) == (OpenFlags.O_CREAT | OpenFlags.O_DIRECTORY)) {
            throw new VfsException(Errno.EINVAL, "open", path);
        }
        String ip = PathNames.toInternal(path, "open");
        final int f = flags;
        for (int attempt = 0; ; attempt++) {
            VfsPath start = t.startFor(dirfd, ip, "open", path, false);
            OpenTarget target = t.walk(start, ip, "open", nd -> walkOpen(nd, f));
            if (target.existing() != null) {
                OpenFile file = openExisting(target.existing(), f, path);
                if (file != null) {
                    return install(file, f, path);
                }
            } else {
                if (target.parent().mnt().isReadOnly()) {
                    throw new VfsException(Errno.EROFS, "open", path);
                }
                int m = Mode.S_IFREG | (mode & ~t.umask() & 07777);
                boolean excl = (f & OpenFlags.O_EXCL) != 0;
                VfsPath parent = target.parent();
                return t.asker().askDir((DirectoryInode) parent.inode(),
                                (ActorRef<DirReply> r) -> new DirectoryActor.Create(target.name(), m, 0, null, excl,
                                        t.cred(), r))
                        .thenCompose(r -> {
                            Asker.check(r, "open", path, null);
                            OpenFile file = r.existed()
                                    ? openExisting(new VfsPath(parent.mnt(), r.inode()), f, path)
                                    : newOpenFile(new VfsPath(parent.mnt(), r.inode()), f, ip);
                            if (file == null) {
                                throw new VfsException(Errno.ENOENT, "open", path);
                            }
                            return install(file, f, path);
                        });
            }
            if (attempt >= MAX_PIN_RETRIES) {
                throw new VfsException(Errno.ENOENT, "open", path);
            }
        }
    }

    private static OpenTarget walkOpen(Nameidata nd, int flags) {
        boolean nofollow = (flags & OpenFlags.O_NOFOLLOW) != 0;
        if ((flags & OpenFlags.O_CREAT) == 0) {
            int lf = (nofollow ? 0 : Nameidata.LOOKUP_FOLLOW)
                    | ((flags & OpenFlags.O_DIRECTORY) != 0 ? Nameidata.LOOKUP_DIRECTORY : 0);
            VfsPath p = nd.walkFull(lf);
            if ((p.inode().iopFlags() & IopFlags.IOP_FOLLOW_LINK) != 0 && (flags & OpenFlags.O_PATH) == 0) {
                throw nd.error(Errno.ELOOP);
            }
            return new OpenTarget(p, null, null);
        }
        VfsPath parent = nd.walkParent();
        while (true) {
            if (nd.lastType() != LastType.NORM || nd.trailingSlash()) {
                throw nd.error(Errno.EISDIR);
            }
            Dentry d = nd.lookupLast();
            if (d == null) {
                return new OpenTarget(null, parent, nd.last());
            }
            if ((flags & OpenFlags.O_EXCL) != 0) {
                throw nd.error(Errno.EEXIST);
            }
            Inode i = d.inode();
            if ((i.iopFlags() & IopFlags.IOP_FOLLOW_LINK) != 0) {
                if (nofollow) {
                    throw nd.error(Errno.ELOOP);
                }
                parent = nd.followLast(i);
                continue;
            }
            return new OpenTarget(nd.stepIntoLast(i), null, null);
        }
    }

    /**
     * {@code may_open} and {@code O_TRUNC} on an existing inode.
     *
     * @return the open file (holding a mount pin), or {@code null} if the mount is being
     *         unmounted and the walk must be repeated
     */
    private OpenFile openExisting(VfsPath p, int flags, String path) {
        Inode i = p.inode();
        if ((flags & OpenFlags.O_PATH) != 0) {
            return newOpenFile(p, flags, null);
        }
        // Access mode 3 (O_ACCMODE) is Linux's "ioctl only" mode: it needs read and write
        // permission and allows neither (open(2), "File access mode").
        boolean ioctlOnly = (flags & OpenFlags.O_ACCMODE) == OpenFlags.O_ACCMODE;
        boolean write = OpenFlags.writable(flags) || ioctlOnly;
        boolean trunc = (flags & OpenFlags.O_TRUNC) != 0;
        FileType type = i.type();
        if (type == FileType.SYMLINK) {
            throw new VfsException(Errno.ELOOP, "open", path);
        }
        if (type == FileType.DIRECTORY) {
            if ((flags & OpenFlags.O_CREAT) != 0 || write || trunc) {
                throw new VfsException(Errno.EISDIR, "open", path);
            }
        }
        if ((flags & OpenFlags.O_DIRECTORY) != 0 && type != FileType.DIRECTORY) {
            throw new VfsException(Errno.ENOTDIR, "open", path);
        }
        boolean regular = type == FileType.REGULAR;
        if (trunc && regular && p.mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, "open", path);
        }
        if (write && regular && p.mnt().superblock().isReadOnly()) {
            // inode_permission refuses MAY_WRITE on a read-only superblock before it looks
            // at the mode bits; a read-only mount alone is checked later (EACCES first).
            throw new VfsException(Errno.EROFS, "open", path);
        }
        int mask = (OpenFlags.readable(flags) || ioctlOnly ? Mode.R_OK : 0) | (write || (trunc && regular) ? Mode.W_OK : 0);
        if (mask != 0 && !Permission.check(i, mask, t.cred())) {
            throw new VfsException(Errno.EACCES, "open", path);
        }
        if ((flags & OpenFlags.O_NOATIME) != 0 && !Permission.ownerOrRoot(i.attrsAcquire(), t.cred())) {
            throw new VfsException(Errno.EPERM, "open", path);
        }
        if (write && (regular || type == FileType.DIRECTORY) && p.mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, "open", path);
        }
        if (type == FileType.SOCKET) {
            // open(2): "ENXIO The file is a UNIX domain socket" (only O_PATH may open one).
            throw new VfsException(Errno.ENXIO, "open", path);
        }
        OpenFile file = newOpenFile(p, flags, null);
        if (file != null && trunc && regular) {
            long now = t.vfs().clock().nowNanos();
            i.updateAttrs(a -> a.size() == 0 ? a.withTimes(a.atime(), now, now) : a.withSize(0, 0, now));
        }
        return file;
    }

    private OpenFile newOpenFile(VfsPath p, int flags, String internalPath) {
        if (!p.mnt().tryPin()) {
            return null;
        }
        return new OpenFile(p.inode(), p.mnt(), internalPath, flags);
    }

    private CompletableFuture<Integer> install(OpenFile file, int flags, String path) {
        boolean cloexec = (flags & OpenFlags.O_CLOEXEC) != 0;
        return t.asker().ask(t.files().actor(),
                        (ActorRef<FdReply> r) -> new FdTableActor.Install(file, cloexec, 0, r))
                .thenApply(r -> {
                    if (r.error() != null) {
                        throw new VfsException(r.error(), "open", path);
                    }
                    return r.fd();
                });
    }

    CompletableFuture<Void> close(int fd) {
        return t.asker().ask(t.files().actor(), (ActorRef<FdReply> r) -> new FdTableActor.Close(fd, r))
                .thenApply(r -> {
                    if (r.error() != null) {
                        throw new VfsException(r.error(), "close", null);
                    }
                    return null;
                });
    }

    List<DirEntry> getdents(int fd, int max) {
        if (max <= 0) {
            throw new VfsException(Errno.EINVAL, "getdents", null);
        }
        OpenFile file = t.fget(fd, "getdents");
        if (file.isPath()) {
            throw new VfsException(Errno.EBADF, "getdents", null);
        }
        if (!(file.inode() instanceof DirectoryInode d)) {
            throw new VfsException(Errno.ENOTDIR, "getdents", null);
        }
        DirSnapshot snap = d.snapshotAcquire();
        if (snap.isDead()) {
            throw new VfsException(Errno.ENOENT, "getdents", null);
        }
        List<DirEntry> out = new ArrayList<>();
        synchronized (file) {
            long cookie = file.offset();
            if (cookie < DirSnapshot.COOKIE_DOT) {
                out.add(new DirEntry(".", d.ino(), FileType.DIRECTORY, DirSnapshot.COOKIE_DOT));
                cookie = DirSnapshot.COOKIE_DOT;
            }
            if (cookie < DirSnapshot.COOKIE_DOTDOT && out.size() < max) {
                DirLink l = d.linkAcquire();
                long pino = l == null ? d.ino() : l.parent().ino();
                out.add(new DirEntry("..", pino, FileType.DIRECTORY, DirSnapshot.COOKIE_DOTDOT));
                cookie = DirSnapshot.COOKIE_DOTDOT;
            }
            if (out.size() < max) {
                for (Dentry e : snap.entriesAfter(cookie, max - out.size())) {
                    out.add(new DirEntry(PathNames.toExternal(e.name()), e.inode().ino(), e.inode().type(),
                            e.cookie()));
                    cookie = e.cookie();
                }
            }
            file.setOffset(cookie);
        }
        return out;
    }

    long lseek(int fd, long offset, int whence) {
        OpenFile file = t.fget(fd, "lseek");
        if (file.isPath()) {
            throw new VfsException(Errno.EBADF, "lseek", null);
        }
        FileType type = file.inode().type();
        if (type == FileType.FIFO || type == FileType.SOCKET) {
            throw new VfsException(Errno.ESPIPE, "lseek", null);
        }
        synchronized (file) {
            long base;
            switch (whence) {
                case VfsTask.SEEK_SET:
                    base = 0;
                    break;
                case VfsTask.SEEK_CUR:
                    base = file.offset();
                    break;
                case VfsTask.SEEK_END:
                    if (file.inode().type() == FileType.DIRECTORY) {
                        // A directory offset is a readdir cookie; tmpfs (dcache_dir_lseek)
                        // accepts only SEEK_SET and SEEK_CUR.
                        throw new VfsException(Errno.EINVAL, "lseek", null);
                    }
                    base = file.inode().attrsAcquire().size();
                    break;
                default:
                    throw new VfsException(Errno.EINVAL, "lseek", null);
            }
            long pos = base + offset;
            if (pos < 0) {
                throw new VfsException(Errno.EINVAL, "lseek", null);
            }
            file.setOffset(pos);
            return pos;
        }
    }
}
