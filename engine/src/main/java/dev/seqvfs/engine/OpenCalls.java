package dev.seqvfs.engine;

import dev.seqvfs.engine.anon.AnonFs;
import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.NamelessFile;
import dev.seqvfs.engine.fdtable.FdReply;
import dev.seqvfs.engine.fdtable.FdTableActor;
import dev.seqvfs.engine.fdtable.InstallClaim;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.IopFlags;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.notify.Fsnotify;
import dev.seqvfs.engine.pipe.Fifo;
import dev.seqvfs.engine.pipe.PipeEnd;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.walk.FileOrigin;
import dev.seqvfs.engine.walk.LastType;
import dev.seqvfs.engine.walk.Nameidata;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.engine.walk.WalkProof;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@code open}, {@code close}, {@code getdents} and {@code lseek}: the calls that make and use open
 * file descriptions. Follows {@code open(2)} ({@code do_filp_open}, {@code open_last_lookups},
 * {@code may_open} in {@code fs/namei.c}).
 */
final class OpenCalls {
    private static final int PATH_KEEP =
            OpenFlags.O_PATH | OpenFlags.O_DIRECTORY | OpenFlags.O_NOFOLLOW | OpenFlags.O_CLOEXEC;
    private static final int MAX_PIN_RETRIES = 100;

    private final TaskContext t;

    OpenCalls(TaskContext t) {
        this.t = t;
    }

    /**
     * What the walk found: an existing file (and where it was found), or a parent and a name to
     * create.
     */
    private record OpenTarget(
            VfsPath existing, VfsPath parent, String name, FileOrigin origin, WalkProof proof) {
        OpenTarget(VfsPath existing, VfsPath parent, String name, FileOrigin origin) {
            this(existing, parent, name, origin, null);
        }
    }

    private static FileOrigin originOf(Nameidata nd, VfsPath p) {
        DirectoryInode d = p.dir();
        if (d != null) {
            return new FileOrigin(p.mnt(), d, null);
        }
        return nd.originDir() == null
                ? null
                : new FileOrigin(
                        nd.originMnt(), nd.originDir(), nd.originName(), nd.originDentry());
    }

    /**
     * @param req {@code null} for the blocking {@code open}: every step runs on the calling thread,
     *     a FIFO open that must wait for the other side parks it; else the async twin's future:
     *     nothing blocks, the install must win its claim, and a FIFO open waiting for its partner
     *     is withdrawn when {@code req} is
     */
    CompletableFuture<Integer> openat(
            int dirfd, Filename path, int flags, int mode, OpenFuture req) {
        return openat(dirfd, path, flags, mode, req, false);
    }

    /**
     * {@code open(2)} of {@code /proc/self/fd/FD} ({@code proc_pid_fd(5)}): a new open file
     * description of the inode {@code fd} names, any descriptor, {@code O_PATH} ones included, made
     * with {@code flags} and checked as an open of that inode ({@code may_open}); no path is
     * walked. {@code O_CREAT} opens the existing inode ({@code EEXIST} with {@code O_EXCL}).
     */
    CompletableFuture<Integer> reopen(int fd, int flags, OpenFuture req) {
        if ((flags & (OpenFlags.O_CREAT | OpenFlags.O_EXCL))
                == (OpenFlags.O_CREAT | OpenFlags.O_EXCL)) {
            t.fget(fd, Syscall.OPEN);
            throw new VfsException(Errno.EEXIST, Syscall.OPEN, null);
        }
        return openat(fd, EMPTY, flags & ~OpenFlags.O_CREAT, 0, req, true);
    }

    private static final Filename EMPTY = Filename.of("");

    /**
     * @param emptyPath whether {@code path} is empty and names {@code dirfd} itself ({@link
     *     #reopen})
     */
    private CompletableFuture<Integer> openat(
            int dirfd, Filename path, int flags, int mode, OpenFuture req, boolean emptyPath) {
        if ((flags & TMPFILE_BIT) != 0) {
            return tmpfile(dirfd, path, flags, mode, req);
        }
        if ((flags & OpenFlags.O_PATH) != 0) {
            flags &= PATH_KEEP;
        } else {
            // force_o_largefile(): 64-bit open(2) files carry O_LARGEFILE (F_GETFL shows it)
            flags |= OpenFlags.O_LARGEFILE;
        }
        if ((flags & (OpenFlags.O_CREAT | OpenFlags.O_DIRECTORY))
                == (OpenFlags.O_CREAT | OpenFlags.O_DIRECTORY)) {
            throw new VfsException(Errno.EINVAL, Syscall.OPEN, path);
        }
        String ip = PathNames.toInternal(path, Syscall.OPEN);
        final int f = flags;
        t.alive(Syscall.OPEN);
        if (!ip.isEmpty()
                && ip.length() < Limits.PATH_MAX
                && t.files().tableAcquire().lowestFree(0) >= t.files().rlimitNofile()) {
            // do_sys_openat2 reserves the descriptor before the walk: a full table is EMFILE
            // whatever the path (after getname's ENOENT / ENAMETOOLONG). The table's actor
            // decides for real when it reserves or installs; this is the read-only early answer.
            throw new VfsException(Errno.EMFILE, Syscall.OPEN, path);
        }
        for (int attempt = 0; ; attempt++) {
            VfsPath start = t.startFor(dirfd, ip, Syscall.OPEN, path, emptyPath);
            OpenTarget target =
                    t.walk(start, ip, path, Syscall.OPEN, nd -> walkOpen(nd, f, emptyPath));
            if (target.existing() != null) {
                if (isFifo(target.existing(), f)) {
                    CompletableFuture<Integer> fd =
                            openFifo(target.existing(), f, path, req, target.origin());
                    if (fd != null) {
                        return fd;
                    }
                    continue;
                }
                if (truncates(target.existing(), f)) {
                    // Truncating changes the file: reserve the descriptor first, as for a create.
                    return withReservation(
                            req, path, res -> truncateAndInstall(res, target, f, path, req));
                }
                OpenFile file = openExisting(target.existing(), f, path);
                if (file != null) {
                    if (file.origin() == null) {
                        file.setOrigin(target.origin());
                    }
                    notifyOpen(file, false);
                    return install(file, f, path, req);
                }
            } else {
                if ((target.parent().inode().iopFlags() & IopFlags.IOP_MUTABLE_DIR) == 0
                        && !target.parent().mnt().superblock().isReadOnly()) {
                    // lookup_open: a computed directory's ->lookup of a missing name fails
                    // (procfs: ENOENT), before the create's EROFS; a read-only type's (hostfs)
                    // gives a negative dentry, so the create's EROFS.
                    throw new VfsException(Errno.ENOENT, Syscall.OPEN, path);
                }
                if (target.parent().mnt().isReadOnly()) {
                    throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
                }
                // Linux reserves the descriptor before it creates (get_unused_fd_flags): a
                // full table must fail the open with EMFILE before a new file exists.
                return withReservation(
                        req, path, res -> create(res, target, f, mode, path, ip, req));
            }
            if (attempt >= MAX_PIN_RETRIES) {
                throw new VfsException(Errno.ENOENT, Syscall.OPEN, path);
            }
        }
    }

    /** {@code __O_TMPFILE}: {@link OpenFlags#O_TMPFILE} without its {@code O_DIRECTORY} bit. */
    private static final int TMPFILE_BIT = OpenFlags.O_TMPFILE & ~OpenFlags.O_DIRECTORY;

    /**
     * {@code open(O_TMPFILE)} ({@code do_tmpfile}, {@code vfs_tmpfile}, tmpfs's {@code
     * shmem_tmpfile}): a regular file with no name in the directory {@code path} names, opened for
     * writing. It has a link count of 0, counts against the superblock's inodes and bytes as any
     * file does, and is freed at its last close unless {@code linkat} gave it a name first (with
     * {@code AT_EMPTY_PATH} on its descriptor, or through {@code /proc/self/fd/N} with {@code
     * AT_SYMLINK_FOLLOW}), which {@code O_EXCL} forbids ({@code ENOENT} then).
     *
     * <p>Errors in Linux's order: {@code EINVAL} ({@code O_CREAT} with it, or {@code O_DIRECTORY}
     * missing, or an access mode that cannot write), the walk's ({@code ENOENT}, {@code ENOTDIR}
     * for a non-directory or, with {@code O_NOFOLLOW}, a final link, ...), {@code EMFILE}, {@code
     * EROFS}, {@code EACCES} (write and search permission on the directory), {@code EOPNOTSUPP} (a
     * type without nameless files: procfs, hostfs, persistfs), {@code ENOSPC} (no inode left).
     */
    private CompletableFuture<Integer> tmpfile(
            int dirfd, Filename path, int flags, int mode, OpenFuture req) {
        if ((flags & (OpenFlags.O_TMPFILE | OpenFlags.O_CREAT)) != OpenFlags.O_TMPFILE
                || (flags & OpenFlags.O_PATH) != 0
                || !OpenFlags.writable(flags)) {
            throw new VfsException(Errno.EINVAL, Syscall.OPEN, path);
        }
        int f = flags | OpenFlags.O_LARGEFILE;
        VfsPath dir =
                t.attrs.resolve(
                        dirfd,
                        path,
                        Syscall.OPEN,
                        (f & OpenFlags.O_NOFOLLOW) != 0 ? OpenFlags.AT_SYMLINK_NOFOLLOW : 0,
                        Nameidata.LOOKUP_DIRECTORY);
        DirectoryInode d = (DirectoryInode) dir.inode();
        Superblock sb = dir.mnt().superblock();
        if (dir.mnt().isReadOnly() || sb.isReadOnly()) {
            throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
        }
        if (!Permission.check(d, Mode.W_OK | Mode.X_OK, t.cred())) {
            throw new VfsException(Errno.EACCES, Syscall.OPEN, path);
        }
        if ((d.iopFlags() & IopFlags.IOP_MUTABLE_DIR) == 0 || !sb.sop().tmpfile()) {
            throw new VfsException(Errno.EOPNOTSUPP, Syscall.OPEN, path);
        }
        return withReservation(
                req,
                path,
                res -> {
                    Runnable endHold = holdForWrite(sb, f, path);
                    OpenFile file;
                    try {
                        stopIfWithdrawn(req, path);
                        file = openNameless(dir, d, sb, f, mode, path);
                    } finally {
                        endHold.run(); // the file holds its own write access now, or failed
                    }
                    return res.install(
                            file,
                            (f & OpenFlags.O_CLOEXEC) != 0,
                            req == null ? null : req.claim(),
                            path);
                });
    }

    /**
     * Makes ({@link NamelessFile}) and opens {@link #tmpfile}'s inode, on a pin of the mount that
     * the open file takes over.
     */
    private OpenFile openNameless(
            VfsPath dir, DirectoryInode d, Superblock sb, int f, int mode, Filename path) {
        if (!dir.mnt().tryPin()) {
            throw new VfsException(Errno.ENOENT, Syscall.OPEN, path); // the mount went away
        }
        Inode i;
        try {
            i =
                    NamelessFile.make(
                            sb,
                            d,
                            mode & ~t.umask() & 07777,
                            t.cred(),
                            (f & OpenFlags.O_EXCL) != 0);
        } catch (RuntimeException | Error e) {
            dir.mnt().unpin();
            throw e;
        }
        OpenFile file = new OpenFile(i, dir.mnt(), null, f);
        file.setOrigin(new FileOrigin(dir.mnt(), d, "#" + i.ino()));
        takeWriteAccess(file, f, path);
        return file;
    }

    /**
     * Whether opening {@code p} with {@code flags} truncates it: a regular file with {@code
     * O_TRUNC}.
     */
    private static boolean truncates(VfsPath p, int flags) {
        return (flags & OpenFlags.O_TRUNC) != 0
                && (flags & OpenFlags.O_PATH) == 0
                && p.inode().type() == FileType.REGULAR;
    }

    /**
     * Runs the part of an open that changes something ({@code body}: create, truncate) with a
     * descriptor reserved first, as {@code do_sys_openat2} does before it walks: a full table fails
     * with {@code EMFILE} and changes nothing. {@code body} ends the reservation by installing into
     * it, or by releasing it; if it throws or its future fails before it installed, the reservation
     * is released here, so no path leaks one.
     *
     * <p>The asynchronous form returns a future of its own, completed from the reservation's and
     * {@code body}'s futures: cancelling it (a withdrawn open) skips no cleanup, and {@code body}
     * stops at its next step (an install under a withdrawn claim installs nothing and ends the
     * reservation).
     *
     * @param req {@code null} for the blocking open (every step on the calling thread)
     */
    private CompletableFuture<Integer> withReservation(
            OpenFuture req,
            Filename path,
            java.util.function.Function<FdReservation, CompletableFuture<Integer>> body) {
        if (req == null) {
            FdReservation res = FdReservation.reserveBlocking(t.asker(), t.files(), path);
            CompletableFuture<Integer> fd;
            try {
                fd = body.apply(res);
            } catch (RuntimeException | Error e) {
                res.release();
                throw e;
            }
            var unused =
                    fd.whenComplete(
                            (v, e) -> {
                                if (e != null) {
                                    res.release();
                                }
                            });
            return fd;
        }
        CompletableFuture<Integer> out = new CompletableFuture<>();
        var unused =
                FdReservation.reserve(t.asker(), t.files(), path)
                        .whenComplete(
                                (res, e) -> {
                                    if (e != null) {
                                        out.completeExceptionally(unwrap(e));
                                        return;
                                    }
                                    if (req.claim().isWithdrawn()) {
                                        res.release();
                                        out.completeExceptionally(
                                                new VfsException(Errno.EINTR, Syscall.OPEN, path));
                                        return;
                                    }
                                    CompletableFuture<Integer> fd;
                                    try {
                                        fd = body.apply(res);
                                    } catch (RuntimeException | Error x) {
                                        res.release();
                                        out.completeExceptionally(x);
                                        return;
                                    }
                                    var unusedInner =
                                            fd.whenComplete(
                                                    (v, x) -> {
                                                        if (x != null) {
                                                            res.release();
                                                            out.completeExceptionally(unwrap(x));
                                                        } else {
                                                            out.complete(v);
                                                        }
                                                    });
                                });
        return out;
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                ? e.getCause()
                : e;
    }

    /**
     * Fails a step of an asynchronous open that was withdrawn meanwhile: nothing more is changed.
     */
    private static void stopIfWithdrawn(OpenFuture req, Filename path) {
        if (req != null && req.claim().isWithdrawn()) {
            throw new VfsException(Errno.EINTR, Syscall.OPEN, path);
        }
    }

    /** {@code open(O_TRUNC)} of an existing regular file, into a reserved descriptor. */
    private CompletableFuture<Integer> truncateAndInstall(
            FdReservation res, OpenTarget target, int f, Filename path, OpenFuture req) {
        stopIfWithdrawn(req, path);
        OpenFile file = openExisting(target.existing(), f, path);
        if (file == null) {
            // The mount is being unmounted: walk again (Revalidate).
            throw new VfsException(Errno.ESTALE, Syscall.OPEN, path);
        }
        if (file.origin() == null) {
            file.setOrigin(target.origin());
        }
        notifyOpen(file, true);
        return res.install(
                file, (f & OpenFlags.O_CLOEXEC) != 0, req == null ? null : req.claim(), path);
    }

    /**
     * The events of a successful open, in Linux 6.18's order: {@code fsnotify_open} ({@code
     * IN_OPEN}, from {@code do_dentry_open}), then, for an {@code O_TRUNC} of an existing regular
     * file, {@code handle_truncate}'s {@code notify_change(ATTR_SIZE)}: {@code IN_MODIFY}, even
     * when the file was empty. A create reports its {@code IN_CREATE} first (the directory actor's)
     * and never truncates. Each goes to the directory the file was opened in, with its name, then
     * to the file's own watches.
     */
    private static void notifyOpen(OpenFile file, boolean truncated) {
        Fsnotify.file(file, Inotify.IN_OPEN);
        if (truncated) {
            Fsnotify.file(file, Inotify.IN_MODIFY);
        }
    }

    /**
     * {@code open(O_CREAT)} of a name the walk found absent: create it, open it, install it into
     * {@code res}.
     */
    private CompletableFuture<Integer> create(
            FdReservation res,
            OpenTarget target,
            int f,
            int mode,
            Filename path,
            String ip,
            OpenFuture req) {
        int m = Mode.S_IFREG | (mode & ~t.umask() & 07777);
        boolean excl = (f & OpenFlags.O_EXCL) != 0;
        VfsPath parent = target.parent();
        // open_last_lookups holds the mount for writing from before the create until the new
        // file holds its own write access, so a read-only remount cannot leave a created file
        // behind an open that then fails with EROFS.
        Runnable endHold = holdForWrite(parent.mnt().superblock(), f, path);
        try {
            CompletableFuture<DirReply> created =
                    t.asker()
                            .askDir(
                                    (DirectoryInode) parent.inode(),
                                    (ReplyTo<DirReply> r) ->
                                            new DirectoryActor.Create(
                                                    target.name(),
                                                    m,
                                                    0,
                                                    null,
                                                    excl,
                                                    t.cred(),
                                                    target.proof(),
                                                    r));
            if (req == null) {
                // The blocking open goes on on the calling thread (a FIFO found here parks it).
                try {
                    return afterCreate(
                            t.asker().join(created, Syscall.OPEN, path),
                            parent,
                            target.name(),
                            f,
                            path,
                            ip,
                            null,
                            res,
                            endHold);
                } finally {
                    endHold.run();
                }
            }
            // An internal stage: only withReservation's own future is exposed to a withdrawal.
            CompletableFuture<Integer> fd =
                    created.thenCompose(
                            r ->
                                    afterCreate(
                                            r,
                                            parent,
                                            target.name(),
                                            f,
                                            path,
                                            ip,
                                            req,
                                            res,
                                            endHold));
            var unused = fd.whenComplete((v, e) -> endHold.run());
            return fd;
        } catch (RuntimeException | Error e) {
            endHold.run();
            throw e;
        }
    }

    /**
     * For an {@code open(O_CREAT)} whose new file will be opened for writing: counts a writer of
     * {@code sb} now ({@code EROFS} if it is read-only) and returns what ends it, once however
     * often it runs; for other opens, a no-op.
     */
    private static Runnable holdForWrite(Superblock sb, int flags, Filename path) {
        if (!OpenFlags.writable(flags)) {
            return () -> {};
        }
        if (!sb.tryBeginWrite()) {
            throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
        }
        java.util.concurrent.atomic.AtomicBoolean ended =
                new java.util.concurrent.atomic.AtomicBoolean();
        return () -> {
            if (ended.compareAndSet(false, true)) {
                sb.endWrite();
            }
        };
    }

    /**
     * The rest of {@code open(O_CREAT)} once the directory created (or found) the name: open what
     * is there and install it into the reserved descriptor. The async form runs on whichever thread
     * completed the reply.
     */
    private CompletableFuture<Integer> afterCreate(
            DirReply r,
            VfsPath parent,
            String name,
            int f,
            Filename path,
            String ip,
            OpenFuture req,
            FdReservation res,
            Runnable endHold) {
        Asker.check(r, Syscall.OPEN, path, null);
        VfsPath found = new VfsPath(parent.mnt(), r.inode());
        FileOrigin origin =
                new FileOrigin(parent.mnt(), (DirectoryInode) parent.inode(), name, r.dentry());
        if (r.existed() && isFifo(found, f)) {
            // open(O_CREAT) of an existing FIFO: fifo_open, which may wait for the other side;
            // it installs on its own (nothing was changed that a full table must prevent).
            res.release();
            endHold.run();
            CompletableFuture<Integer> fd = openFifo(found, f, path, req, origin);
            if (fd == null) {
                throw new VfsException(Errno.ENOENT, Syscall.OPEN, path);
            }
            return fd;
        }
        stopIfWithdrawn(req, path);
        OpenFile file;
        try {
            file = r.existed() ? openExisting(found, f, path) : newOpenFile(found, f, ip);
        } finally {
            endHold.run(); // the file holds its own write access now, or failed
        }
        if (file == null) {
            throw new VfsException(Errno.ENOENT, Syscall.OPEN, path);
        }
        file.setOrigin(origin);
        notifyOpen(file, r.existed() && truncates(found, f));
        return res.install(
                file, (f & OpenFlags.O_CLOEXEC) != 0, req == null ? null : req.claim(), path);
    }

    private static OpenTarget walkOpen(Nameidata nd, int flags, boolean emptyPath) {
        boolean nofollow = (flags & OpenFlags.O_NOFOLLOW) != 0;
        if ((flags & OpenFlags.O_CREAT) == 0) {
            int lf =
                    (nofollow ? 0 : Nameidata.LOOKUP_FOLLOW)
                            | ((flags & OpenFlags.O_DIRECTORY) != 0
                                    ? Nameidata.LOOKUP_DIRECTORY
                                    : 0)
                            | (emptyPath ? Nameidata.LOOKUP_EMPTY : 0);
            VfsPath p = nd.walkFull(lf);
            if (emptyPath
                    && (flags & OpenFlags.O_DIRECTORY) != 0
                    && (p.inode().iopFlags() & IopFlags.IOP_LOOKUP) == 0) {
                // do_open: O_DIRECTORY on what is not a directory (no walk checked it here)
                throw nd.error(Errno.ENOTDIR);
            }
            if ((p.inode().iopFlags() & IopFlags.IOP_FOLLOW_LINK) != 0
                    && (flags & OpenFlags.O_PATH) == 0) {
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
            return new OpenTarget(
                    found,
                    null,
                    null,
                    dir
                            ? originOf(nd, found)
                            : new FileOrigin(
                                    parent.mnt(),
                                    (DirectoryInode) parent.inode(),
                                    nd.last(),
                                    computed ? null : d));
        }
    }

    /**
     * {@code may_create_in_sticky} of {@code fs/namei.c}: {@code open(O_CREAT)} of an existing file
     * in a sticky, world-writable directory fails with {@code EACCES} (even for root) unless the
     * file belongs to the directory's owner or to the caller. Regular files and FIFOs are exempt
     * while {@code fs.protected_regular} and {@code fs.protected_fifos} are 0, the values SeqVFS
     * models.
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

    /**
     * A named FIFO opened for I/O: {@code fifo_open} attaches its pipe (an anonymous pipe reopens
     * through its inode's operations).
     */
    private static boolean isFifo(VfsPath p, int flags) {
        Inode i = p.inode();
        return i.type() == FileType.FIFO && !i.isAnonymous() && (flags & OpenFlags.O_PATH) == 0;
    }

    /**
     * {@code may_open}, then {@code fifo_open} ({@link Fifo}), then install.
     *
     * @param req {@code null}: park the calling thread while waiting for the other side; else
     *     complete the returned future when it opens, and withdraw the waiting open if {@code req}
     *     is withdrawn
     * @return the descriptor's future, or {@code null} if the mount is being unmounted and the walk
     *     must be repeated
     */
    @SuppressWarnings(
            "FutureReturnValueIgnored") // handle(...) nests a future that thenCompose(f -> f)
    // flattens at once
    private CompletableFuture<Integer> openFifo(
            VfsPath p, int flags, Filename path, OpenFuture req, FileOrigin origin) {
        mayOpen(p, flags, path);
        if (!p.mnt().tryPin()) {
            return null;
        }
        SpecialInode fifo = (SpecialInode) p.inode();
        if (req == null) {
            PipeEnd end;
            try {
                end = Fifo.open(fifo, flags, t.vfs().shutdown());
            } catch (VfsException e) {
                p.mnt().unpin();
                throw e.withContext(Syscall.OPEN, path, null);
            }
            OpenFile file = new OpenFile(fifo, p.mnt(), null, flags, end, null);
            file.setOrigin(origin);
            return install(file, flags, path, null);
        }
        CompletableFuture<PipeEnd> opened = Fifo.openAsync(fifo, flags, t.vfs().shutdown());
        req.onWithdraw(() -> opened.cancel(false));
        return opened.handle(
                        (end, e) -> {
                            if (e != null) {
                                p.mnt().unpin();
                                Throwable c =
                                        e instanceof CompletionException && e.getCause() != null
                                                ? e.getCause()
                                                : e;
                                throw c instanceof VfsException v
                                        ? v.withContext(Syscall.OPEN, path, null)
                                        : new CompletionException(c);
                            }
                            OpenFile file = new OpenFile(fifo, p.mnt(), null, flags, end, null);
                            file.setOrigin(origin);
                            // Installed from this stage, not a dependent one: a withdrawal cancels
                            // the
                            // dependents, and a skipped stage would leak the file (the claim
                            // decides instead).
                            return install(file, flags, path, req);
                        })
                .thenCompose(fd -> fd);
    }

    /**
     * {@code may_open} and {@code O_TRUNC} on an existing inode.
     *
     * @return the open file (holding a mount pin), or {@code null} if the mount is being unmounted
     *     and the walk must be repeated
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
        takeWriteAccess(file, flags, path);
        if ((flags & OpenFlags.O_TRUNC) != 0 && i.type() == FileType.REGULAR) {
            // handle_truncate runs as a writer of the mount (do_open's mnt_want_write), even
            // for O_RDONLY: a read-only remount cannot slip in after the EROFS checks.
            Superblock sb = p.mnt().superblock();
            if (!sb.tryBeginWrite()) {
                file.release();
                throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
            }
            try {
                i.fileOps().truncate(i, 0, t.cred(), Syscall.OPEN);
            } catch (VfsException e) {
                file.release();
                throw e.withContext(Syscall.OPEN, path, null);
            } finally {
                sb.endWrite();
            }
        }
        return file;
    }

    /**
     * A regular file opened for writing holds write access to its superblock until its last close
     * ({@code do_dentry_open}, {@link OpenFile#tryGetWriteAccess}): a read-only remount is {@code
     * EBUSY} meanwhile. Special files (FIFOs, devices, sockets) take none, as Linux's {@code
     * special_file} test, nor do anonymous inodes (no superblock of theirs is ever remounted).
     *
     * @throws VfsException {@code EROFS} if the superblock went read-only since the open's checks
     *     ({@code file} is released)
     */
    private static void takeWriteAccess(OpenFile file, int flags, Filename path) {
        if (OpenFlags.writable(flags)
                && file.inode().type() == FileType.REGULAR
                && !file.inode().isAnonymous()
                && file.mount() != null
                && !file.tryGetWriteAccess()) {
            file.release();
            throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
        }
    }

    /**
     * {@code may_open}: the checks of an open of an existing, non-{@code O_PATH} inode before
     * anything is held, in the kernel's order.
     *
     * @throws VfsException {@code ELOOP}, {@code EISDIR}, {@code ENOTDIR}, {@code EROFS}, {@code
     *     EACCES} (also a device node on a {@code nodev} mount), {@code EPERM} ({@code O_NOATIME}),
     *     {@code ENXIO} (a socket; a device node: no device exists behind it)
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
        boolean device = type == FileType.CHAR_DEVICE || type == FileType.BLOCK_DEVICE;
        if (device && (p.mnt().flags() & VfsMount.MNT_NODEV) != 0) {
            throw new VfsException(Errno.EACCES, Syscall.OPEN, path); // may_open_dev
        }
        if (trunc && regular && p.mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
        }
        if (write && regular && p.mnt().superblock().isReadOnly()) {
            // inode_permission refuses MAY_WRITE on a read-only superblock before it looks
            // at the mode bits; a read-only mount alone is checked later (EACCES first).
            throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
        }
        int mask =
                (OpenFlags.readable(flags) || ioctlOnly ? Mode.R_OK : 0)
                        | (write || (trunc && regular) ? Mode.W_OK : 0);
        if (mask != 0 && !Permission.check(i, mask, t.cred())) {
            throw new VfsException(Errno.EACCES, Syscall.OPEN, path);
        }
        if ((flags & OpenFlags.O_NOATIME) != 0
                && !Permission.ownerOrRoot(i.attrsAcquire(), t.cred())) {
            throw new VfsException(Errno.EPERM, Syscall.OPEN, path);
        }
        if (write && (regular || type == FileType.DIRECTORY) && p.mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, Syscall.OPEN, path);
        }
        if (type == FileType.SOCKET) {
            // open(2): "ENXIO The file is a UNIX domain socket" (only O_PATH may open one).
            throw new VfsException(Errno.ENXIO, Syscall.OPEN, path);
        }
        if (device) {
            // open(2): "ENXIO The file is a device special file and no corresponding device
            // exists": the engine has no device drivers (chrdev_open, blkdev_open), so every
            // device node, a RENAME_WHITEOUT's whiteout (0/0) among them, is one without a device
            throw new VfsException(Errno.ENXIO, Syscall.OPEN, path);
        }
    }

    private OpenFile newOpenFile(VfsPath p, int flags, String internalPath) {
        if (!p.mnt().tryPin()) {
            return null;
        }
        OpenFile file = new OpenFile(p.inode(), p.mnt(), internalPath, flags);
        takeWriteAccess(
                file, flags, internalPath == null ? null : Filename.ofInternal(internalPath));
        return file;
    }

    /**
     * Installs {@code file} on the lowest free descriptor; under {@code req}'s claim, so a
     * withdrawn async open installs nothing (the table actor then releases {@code file}).
     */
    private CompletableFuture<Integer> install(
            OpenFile file, int flags, Filename path, OpenFuture req) {
        boolean cloexec = (flags & OpenFlags.O_CLOEXEC) != 0;
        InstallClaim claim = req == null ? null : req.claim();
        return t.asker()
                .ask(
                        t.files().commands(),
                        (ReplyTo<FdReply> r) ->
                                new FdTableActor.Install(file, cloexec, 0, r, claim))
                .thenApply(
                        r -> {
                            if (r.error() != null) {
                                throw new VfsException(r.error(), Syscall.OPEN, path);
                            }
                            return r.fd();
                        });
    }

    CompletableFuture<Void> close(int fd) {
        return closeRequest(fd)
                .thenApply(
                        r -> {
                            closed(r);
                            return null;
                        });
    }

    /**
     * {@code close(2)} for a blocking caller: the closed file is released on this thread after the
     * reply, not in a dependent stage that would run on the thread serving the table (where it
     * would lengthen every other caller's wait).
     */
    void closeBlocking(int fd) {
        CompletableFuture<FdReply> f = closeRequest(fd);
        FdReply r;
        try {
            r = t.asker().join(f, Syscall.CLOSE, null);
        } catch (VfsException e) {
            // Gave up waiting (EIO, EINTR): whenever the reply comes, drop its file.
            var unused =
                    f.thenAccept(
                            late -> {
                                if (late.file() != null) {
                                    FdTableActor.dropClosed(t.files(), late.file());
                                }
                            });
            throw e;
        }
        closed(r);
    }

    /**
     * Asks the table to remove {@code fd}; the reply carries the closed file (see {@link
     * FdTableActor.Close}).
     */
    private CompletableFuture<FdReply> closeRequest(int fd) {
        return t.asker()
                .ask(t.files().commands(), (ReplyTo<FdReply> r) -> new FdTableActor.Close(fd, r));
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
        OpenFile file = t.fdget(fd, Syscall.GETDENTS);
        try {
            if (file.isPath()) {
                throw new VfsException(Errno.EBADF, Syscall.GETDENTS, null);
            }
            synchronized (file) {
                List<DirEntry> out = file.ops().iterate(file, t, file.offset(), max);
                if (!out.isEmpty()) {
                    file.setOffset(out.get(out.size() - 1).cookie());
                }
                // iterate_dir: fsnotify_access after every iteration that ran, the last one
                // (empty, at the end) included
                Fsnotify.file(file, Inotify.IN_ACCESS);
                return out;
            }
        } finally {
            TaskContext.fdput(file);
        }
    }

    long lseek(int fd, long offset, int whence) {
        OpenFile file = t.fdget(fd, Syscall.LSEEK);
        try {
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
        } finally {
            TaskContext.fdput(file);
        }
    }
}
