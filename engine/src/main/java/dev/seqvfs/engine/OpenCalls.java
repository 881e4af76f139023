package dev.seqvfs.engine;

import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.engine.anon.AnonFs;
import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fdtable.FdReply;
import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.FdTableActor;
import dev.seqvfs.engine.fdtable.InstallClaim;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.IopFlags;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.engine.pipe.Fifo;
import dev.seqvfs.engine.pipe.PipeEnd;
import dev.seqvfs.engine.walk.LastType;
import dev.seqvfs.engine.walk.Nameidata;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.engine.walk.FileOrigin;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.engine.walk.WalkProof;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import dev.seqvfs.engine.reply.ReplyTo;
import java.util.concurrent.CompletionException;

/**
 * {@code open}, {@code close}, {@code getdents} and {@code lseek}: the calls that make and
 * use open file descriptions. Follows {@code open(2)} ({@code do_filp_open},
 * {@code open_last_lookups}, {@code may_open} in {@code fs/namei.c}).
 */
final class OpenCalls {
    private static final int PATH_KEEP = OpenFlags.O_PATH | OpenFlags.O_DIRECTORY | OpenFlags.O_NOFOLLOW
            | OpenFlags.O_CLOEXEC;
    private static final int MAX_PIN_RETRIES = 100;

    private final TaskContext t;

    OpenCalls(TaskContext t) {
        this.t = t;
    }

    /** What the walk found: an existing file (and where it was found), or a parent and a name to create. */
    private record OpenTarget(VfsPath existing, VfsPath parent, String name, FileOrigin origin, WalkProof proof) {
        OpenTarget(VfsPath existing, VfsPath parent, String name, FileOrigin origin) {
            this(existing, parent, name, origin, null);
        }
    }

    private static FileOrigin originOf(Nameidata nd, VfsPath p) {
        DirectoryInode d = p.dir();
        if (d != null) {
            return new FileOrigin(p.mnt(), d, null);
        }
        return nd.originDir() == null ? null
                : new FileOrigin(nd.originMnt(), nd.originDir(), nd.originName(), nd.originDentry());
    }

    /**
     * @param req {@code null} for the blocking {@code open}: every step runs on the calling
     *        thread, a FIFO open that must wait for the other side parks it; else the async
     *        twin's future: nothing blocks, the install must win its claim, and a FIFO open
     *        waiting for its partner is withdrawn when {@code req} is
     */
    CompletableFuture<Integer> openat(int dirfd, Filename path, int flags, int mode, OpenFuture req) {
        if ((flags & OpenFlags.O_TMPFILE) == OpenFlags.O_TMPFILE) {
            throw new VfsException(Errno.EOPNOTSUPP, Syscall.OPEN, path);
        }
        if ((flags & OpenFlags.O_PATH) != 0) {
            flags &= PATH_KEEP;
        } else {
            // force_o_largefile(): 64-bit open(2) files carry O_LARGEFILE (F_GETFL shows it)
            flags |= OpenFlags.O_LARGEFILE;
        }
        if ((flags & (OpenFlags.O_CREAT | OpenFlags.O_DIRECTORY)) == (OpenFlags.O_CREAT | OpenFlags.O_DIRECTORY)) {
            throw new VfsException(Errno.EINVAL, Syscall.OPEN, path);
        }
        String ip = PathNames.toInternal(path, Syscall.OPEN);
        final int f = flags;
        for (int attempt = 0; ; attempt++) {
            VfsPath start = t.startFor(dirfd, ip, Syscall.OPEN, path, false);
            OpenTarget target = t.walk(start, ip, Syscall.OPEN, nd -> walkOpen(nd, f));
            if (target.existing() != null) {
                if (isFifo(target.existing(), f)) {
                    CompletableFuture<Integer> fd = openFifo(target.existing(), f, path, req, target.origin());
                    if (fd != null) {
                        return fd;
                    }
                    continue;
                }
                OpenFile file = openExisting(target.existing(), f, path);
                if (file != null) {
                    if (file.origin() == null) {
                        file.setOrigin(target.origin());
                    }
                    return install(file, f, path, req);
                }
            } else {
                if (target.parent().mnt().isReadOnly()) {
                    throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
                }
                if ((target.parent().inode().iopFlags() & IopFlags.IOP_MUTABLE_DIR) == 0) {
                    throw new VfsException(Errno.EACCES, Syscall.OPEN, path);
                }
                // Linux reserves the descriptor before it creates (get_unused_fd_flags): a
                // full table must not leave a new file behind. Checked on the published table;
                // a concurrent open filling the last slot meanwhile is the one race left.
                FdTable table = t.files().tableAcquire();
                if (table.lowestFree(0) >= t.files().rlimitNofile()) {
                    throw new VfsException(Errno.EMFILE, Syscall.OPEN, path);
                }
                int m = Mode.S_IFREG | (mode & ~t.umask() & 07777);
                boolean excl = (f & OpenFlags.O_EXCL) != 0;
                VfsPath parent = target.parent();
                CompletableFuture<DirReply> created = t.asker().askDir((DirectoryInode) parent.inode(),
                        (ReplyTo<DirReply> r) -> new DirectoryActor.Create(target.name(), m, 0, null, excl,
                                t.cred(), target.proof(), r));
                if (req == null) {
                    // The blocking open goes on on the calling thread (a FIFO found here parks it).
                    return afterCreate(t.asker().join(created, Syscall.OPEN, path), parent, target.name(), f, path, ip,
                            null);
                }
                return created.thenCompose(r -> afterCreate(r, parent, target.name(), f, path, ip, req));
            }
            if (attempt >= MAX_PIN_RETRIES) {
                throw new VfsException(Errno.ENOENT, Syscall.OPEN, path);
            }
        }
    }

    /**
     * The rest of {@code open(O_CREAT)} once the directory created (or found) the name: open
     * what is there. The async form runs on whichever thread completed the reply.
     */
    private CompletableFuture<Integer> afterCreate(DirReply r, VfsPath parent, String name, int f, Filename path,
                                                   String ip, OpenFuture req) {
        Asker.check(r, Syscall.OPEN, path, null);
        VfsPath found = new VfsPath(parent.mnt(), r.inode());
        FileOrigin origin = new FileOrigin(parent.mnt(), (DirectoryInode) parent.inode(), name, r.dentry());
        if (r.existed() && isFifo(found, f)) {
            // open(O_CREAT) of an existing FIFO: fifo_open.
            CompletableFuture<Integer> fd = openFifo(found, f, path, req, origin);
            if (fd == null) {
                throw new VfsException(Errno.ENOENT, Syscall.OPEN, path);
            }
            return fd;
        }
        OpenFile file = r.existed() ? openExisting(found, f, path) : newOpenFile(found, f, ip);
        if (file == null) {
            throw new VfsException(Errno.ENOENT, Syscall.OPEN, path);
        }
        file.setOrigin(origin);
        return install(file, f, path, req);
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
            return new OpenTarget(p, null, null, nd.jumped() ? null : originOf(nd, p));
        }
        VfsPath parent = nd.walkParent();
        while (true) {
            if (nd.lastType() != LastType.NORM) {
                // "/", "." or "..": an existing directory, so do_open says EEXIST for O_EXCL.
                throw nd.error((flags & OpenFlags.O_EXCL) != 0 ? Errno.EEXIST : Errno.EISDIR);
            }
            if (nd.trailingSlash()) {
                throw nd.error(Errno.EISDIR);
            }
            Dentry d = nd.lookupLast();
            if (d == null) {
                return new OpenTarget(null, parent, nd.last(), null, nd.proof());
            }
            if ((flags & OpenFlags.O_EXCL) != 0) {
                throw nd.error(Errno.EEXIST);
            }
            Inode i = d.inode();
            if ((i.iopFlags() & IopFlags.IOP_FOLLOW_LINK) != 0) {
                if (nofollow) {
                    // may_create_in_sticky runs before may_open's ELOOP for the link itself.
                    mayCreateInSticky((DirectoryInode) parent.inode(), i, nd);
                    throw nd.error(Errno.ELOOP);
                }
                parent = nd.followLast(i);
                if (nd.jumped() && nd.lastType() == LastType.ROOT) {
                    return new OpenTarget(nd.current(), null, null, null);
                }
                continue;
            }
            boolean dir = i.type() == FileType.DIRECTORY;
            if (!dir) {
                mayCreateInSticky((DirectoryInode) parent.inode(), i, nd);
            }
            VfsPath found = nd.stepIntoLast(i);
            boolean computed = (parent.inode().iopFlags() & IopFlags.IOP_CUSTOM_LOOKUP) != 0;
            return new OpenTarget(found, null, null, dir ? originOf(nd, found)
                    : new FileOrigin(parent.mnt(), (DirectoryInode) parent.inode(), nd.last(), computed ? null : d));
        }
    }

    /**
     * {@code may_create_in_sticky} of {@code fs/namei.c}: {@code open(O_CREAT)} of an
     * existing file in a sticky, world-writable directory fails with {@code EACCES} (even
     * for root) unless the file belongs to the directory's owner or to the caller. Regular
     * files and FIFOs are exempt while {@code fs.protected_regular} and
     * {@code fs.protected_fifos} are 0, the values SeqVFS models.
     */
    private static void mayCreateInSticky(DirectoryInode dir, Inode inode, Nameidata nd) {
        InodeAttrs d = dir.attrsAcquire();
        if ((d.mode() & Mode.S_ISVTX) == 0) {
            return;
        }
        FileType type = inode.type();
        if (type == FileType.REGULAR || type == FileType.FIFO) {
            return;
        }
        int owner = inode.attrsAcquire().uid();
        if (owner == d.uid() || owner == nd.cred().uid()) {
            return;
        }
        if ((d.mode() & 0002) != 0) {
            throw nd.error(Errno.EACCES);
        }
    }

    /** A named FIFO opened for I/O: {@code fifo_open} attaches its pipe (an anonymous pipe reopens through its inode's operations). */
    private static boolean isFifo(VfsPath p, int flags) {
        Inode i = p.inode();
        return i.type() == FileType.FIFO && !i.isAnonymous() && (flags & OpenFlags.O_PATH) == 0;
    }

    /**
     * {@code may_open}, then {@code fifo_open} ({@link Fifo}), then install.
     *
     * @param req {@code null}: park the calling thread while waiting for the other side;
     *        else complete the returned future when it opens, and withdraw the waiting open
     *        if {@code req} is withdrawn
     * @return the descriptor's future, or {@code null} if the mount is being unmounted and
     *         the walk must be repeated
     */
    @SuppressWarnings("FutureReturnValueIgnored") // handle(...) nests a future that thenCompose(f -> f) flattens at once
    private CompletableFuture<Integer> openFifo(VfsPath p, int flags, Filename path, OpenFuture req,
                                                FileOrigin origin) {
        mayOpen(p, flags, path);
        if (!p.mnt().tryPin()) {
            return null;
        }
        SpecialInode fifo = (SpecialInode) p.inode();
        if (req == null) {
            PipeEnd end;
            try {
                end = Fifo.open(fifo, flags);
            } catch (VfsException e) {
                p.mnt().unpin();
                throw e.withContext(Syscall.OPEN, path, null);
            }
            OpenFile file = new OpenFile(fifo, p.mnt(), null, flags, end, null);
            file.setOrigin(origin);
            return install(file, flags, path, null);
        }
        CompletableFuture<PipeEnd> opened = Fifo.openAsync(fifo, flags);
        req.onWithdraw(() -> opened.cancel(false));
        return opened.handle((end, e) -> {
            if (e != null) {
                p.mnt().unpin();
                Throwable c = e instanceof CompletionException && e.getCause() != null
                        ? e.getCause() : e;
                throw c instanceof VfsException v ? v.withContext(Syscall.OPEN, path, null)
                        : new CompletionException(c);
            }
            OpenFile file = new OpenFile(fifo, p.mnt(), null, flags, end, null);
            file.setOrigin(origin);
            // Installed from this stage, not a dependent one: a withdrawal cancels the
            // dependents, and a skipped stage would leak the file (the claim decides instead).
            return install(file, flags, path, req);
        }).thenCompose(fd -> fd);
    }

    /**
     * {@code may_open} and {@code O_TRUNC} on an existing inode.
     *
     * @return the open file (holding a mount pin), or {@code null} if the mount is being
     *         unmounted and the walk must be repeated
     */
    private OpenFile openExisting(VfsPath p, int flags, Filename path) {
        Inode i = p.inode();
        if ((flags & OpenFlags.O_PATH) != 0) {
            return newOpenFile(p, flags, null);
        }
        if (!i.isAnonymous()) {
            // An anonymous inode reopened through /proc/<pid>/fd/N: its ->open decides.
            mayOpen(p, flags, path);
        }
        if (!p.mnt().tryPin()) {
            return null;
        }
        FileOperations ops;
        try {
            ops = i.fileOps().open(i, flags);
        } catch (VfsException e) {
            p.mnt().unpin();
            throw e.withContext(Syscall.OPEN, path, null);
        }
        OpenFile file = new OpenFile(i, p.mnt(), null, flags, ops, AnonFs.dentryOf(i));
        if ((flags & OpenFlags.O_TRUNC) != 0 && i.type() == FileType.REGULAR) {
            try {
                i.fileOps().truncate(i, 0, t.cred(), Syscall.OPEN);
            } catch (VfsException e) {
                file.release();
                throw e.withContext(Syscall.OPEN, path, null);
            }
        }
        return file;
    }


    /**
     * {@code may_open}: the checks of an open of an existing, non-{@code O_PATH} inode
     * before anything is held, in the kernel's order.
     *
     * @throws VfsException {@code ELOOP}, {@code EISDIR}, {@code ENOTDIR}, {@code EROFS},
     *         {@code EACCES}, {@code EPERM} ({@code O_NOATIME}), {@code ENXIO} (a socket)
     */
    private void mayOpen(VfsPath p, int flags, Filename path) {
        Inode i = p.inode();
        // Access mode 3 (O_ACCMODE) is Linux's "ioctl only" mode: it needs read and write
        // permission and allows neither (open(2), "File access mode").
        boolean ioctlOnly = (flags & OpenFlags.O_ACCMODE) == OpenFlags.O_ACCMODE;
        boolean write = OpenFlags.writable(flags) || ioctlOnly;
        boolean trunc = (flags & OpenFlags.O_TRUNC) != 0;
        FileType type = i.type();
        if (type == FileType.SYMLINK) {
            throw new VfsException(Errno.ELOOP, Syscall.OPEN, path);
        }
        if (type == FileType.DIRECTORY) {
            if ((flags & OpenFlags.O_CREAT) != 0 || write || trunc) {
                throw new VfsException(Errno.EISDIR, Syscall.OPEN, path);
            }
        }
        if ((flags & OpenFlags.O_DIRECTORY) != 0 && type != FileType.DIRECTORY) {
            throw new VfsException(Errno.ENOTDIR, Syscall.OPEN, path);
        }
        boolean regular = type == FileType.REGULAR;
        if (trunc && regular && p.mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
        }
        if (write && regular && p.mnt().superblock().isReadOnly()) {
            // inode_permission refuses MAY_WRITE on a read-only superblock before it looks
            // at the mode bits; a read-only mount alone is checked later (EACCES first).
            throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
        }
        int mask = (OpenFlags.readable(flags) || ioctlOnly ? Mode.R_OK : 0) | (write || (trunc && regular) ? Mode.W_OK : 0);
        if (mask != 0 && !Permission.check(i, mask, t.cred())) {
            throw new VfsException(Errno.EACCES, Syscall.OPEN, path);
        }
        if ((flags & OpenFlags.O_NOATIME) != 0 && !Permission.ownerOrRoot(i.attrsAcquire(), t.cred())) {
            throw new VfsException(Errno.EPERM, Syscall.OPEN, path);
        }
        if (write && (regular || type == FileType.DIRECTORY) && p.mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
        }
        if (type == FileType.SOCKET) {
            // open(2): "ENXIO The file is a UNIX domain socket" (only O_PATH may open one).
            throw new VfsException(Errno.ENXIO, Syscall.OPEN, path);
        }
    }

    private OpenFile newOpenFile(VfsPath p, int flags, String internalPath) {
        if (!p.mnt().tryPin()) {
            return null;
        }
        return new OpenFile(p.inode(), p.mnt(), internalPath, flags);
    }

    /**
     * Installs {@code file} on the lowest free descriptor; under {@code req}'s claim, so a
     * withdrawn async open installs nothing (the table actor then releases {@code file}).
     */
    private CompletableFuture<Integer> install(OpenFile file, int flags, Filename path, OpenFuture req) {
        boolean cloexec = (flags & OpenFlags.O_CLOEXEC) != 0;
        InstallClaim claim = req == null ? null : req.claim();
        return t.asker().ask(t.files().actor(),
                        (ReplyTo<FdReply> r) -> new FdTableActor.Install(file, cloexec, 0, r, claim))
                .thenApply(r -> {
                    if (r.error() != null) {
                        throw new VfsException(r.error(), Syscall.OPEN, path);
                    }
                    return r.fd();
                });
    }

    CompletableFuture<Void> close(int fd) {
        return closeRequest(fd).thenApply(r -> {
            closed(r);
            return null;
        });
    }

    /**
     * {@code close(2)} for a blocking caller: the closed file is released on this thread
     * after the reply, not in a dependent stage that would run on the thread serving the
     * table (where it would lengthen every other caller's wait).
     */
    void closeBlocking(int fd) {
        CompletableFuture<FdReply> f = closeRequest(fd);
        FdReply r;
        try {
            r = t.asker().join(f, Syscall.CLOSE, null);
        } catch (VfsException e) {
            // Gave up waiting (EIO, EINTR): whenever the reply comes, drop its file.
            var unused = f.thenAccept(late -> {
                if (late.file() != null) {
                    FdTableActor.dropClosed(t.files(), late.file());
                }
            });
            throw e;
        }
        closed(r);
    }

    /** Asks the table to remove {@code fd}; the reply carries the closed file (see {@link FdTableActor.Close}). */
    private CompletableFuture<FdReply> closeRequest(int fd) {
        return t.asker().ask(t.files().actor(), (ReplyTo<FdReply> r) -> new FdTableActor.Close(fd, r));
    }

    /** Drops the file a {@link FdTableActor.Close} handed over, or raises its error. */
    private void closed(FdReply r) {
        if (r.error() != null) {
            throw new VfsException(r.error(), Syscall.CLOSE, null);
        }
        FdTableActor.dropClosed(t.files(), r.file());
    }

    List<DirEntry> getdents(int fd, int max) {
        if (max <= 0) {
            throw new VfsException(Errno.EINVAL, Syscall.GETDENTS, null);
        }
        OpenFile file = t.fget(fd, Syscall.GETDENTS);
        if (file.isPath()) {
            throw new VfsException(Errno.EBADF, Syscall.GETDENTS, null);
        }
        synchronized (file) {
            List<DirEntry> out = file.ops().iterate(file, t, file.offset(), max);
            if (!out.isEmpty()) {
                file.setOffset(out.get(out.size() - 1).cookie());
            }
            return out;
        }
    }

    long lseek(int fd, long offset, int whence) {
        OpenFile file = t.fget(fd, Syscall.LSEEK);
        if (file.isPath()) {
            throw new VfsException(Errno.EBADF, Syscall.LSEEK, null);
        }
        if (whence < VfsTask.SEEK_SET || whence > VfsTask.SEEK_HOLE) {
            // ksys_lseek: whence past SEEK_MAX is EINVAL before the file's ->llseek runs
            throw new VfsException(Errno.EINVAL, Syscall.LSEEK, null);
        }
        synchronized (file) {
            return file.ops().llseek(file, offset, whence);
        }
    }
}
