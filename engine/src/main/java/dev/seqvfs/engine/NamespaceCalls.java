package dev.seqvfs.engine;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.RenamePlan;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.IopFlags;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockActor;
import dev.seqvfs.engine.walk.LastType;
import dev.seqvfs.engine.walk.Nameidata;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.engine.walk.WalkProof;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * The namespace-changing calls: {@code mkdir}, {@code mknod}, {@code symlink}, {@code link}, {@code
 * unlink}, {@code rmdir}, {@code rename}. Each walks without locks, checks what the kernel checks
 * before it takes the parent's lock (in the kernel's order), then sends one command to the parent
 * directory's actor (or, for a cross-directory rename, to the superblock's coordinator), which
 * checks the rest against the directory's current state and publishes.
 */
final class NamespaceCalls {
    private final TaskContext t;

    NamespaceCalls(TaskContext t) {
        this.t = t;
    }

    /** Where a new name goes: the parent and the final component. */
    record CreateTarget(VfsPath parent, String name, WalkProof proof) {
        DirectoryInode dir() {
            return (DirectoryInode) parent.inode();
        }
    }

    /**
     * The part of {@code filename_create} before the parent is locked: {@code EEXIST} for "." /
     * ".." / "/" and existing names, {@code ENOENT} for a trailing slash on a non-directory create,
     * then {@code EROFS}.
     */
    CreateTarget filenameCreate(
            int dirfd, String ip, Syscall op, CharSequence extPath, boolean wantDir) {
        VfsPath start = t.startFor(dirfd, ip, op, extPath, false);
        CreateTarget ct =
                t.walk(
                        start,
                        ip,
                        extPath,
                        op,
                        nd -> {
                            VfsPath parent = nd.walkParent();
                            if (nd.lastType() != LastType.NORM) {
                                throw nd.error(Errno.EEXIST);
                            }
                            Dentry d = nd.lookupLast();
                            if (d != null) {
                                throw nd.error(Errno.EEXIST);
                            }
                            if (!isMutable(parent.inode())
                                    && !parent.mnt().superblock().isReadOnly()) {
                                // A computed directory's ->lookup of a missing name fails (procfs:
                                // ENOENT) instead of giving a negative dentry to create on.
                                throw nd.error(Errno.ENOENT);
                            }
                            if (nd.trailingSlash() && !wantDir) {
                                throw nd.error(Errno.ENOENT);
                            }
                            return new CreateTarget(parent, nd.last(), nd.proof());
                        });
        if (ct.parent().mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, op, extPath);
        }
        requireMutable(ct.dir(), op, extPath);
        return ct;
    }

    /**
     * Refuses namespace changes in a directory whose entries are computed (procfs): such a
     * directory has no {@code ->mkdir}, {@code ->unlink}, ... so Linux's VFS answers {@code EPERM}
     * before any file-system code runs.
     */
    static void requireMutable(DirectoryInode dir, Syscall op, CharSequence path) {
        if (!isMutable(dir)) {
            throw new VfsException(Errno.EPERM, op, path);
        }
    }

    /** Whether {@code dir} stores its entries (has a directory actor), unlike procfs's. */
    static boolean isMutable(Inode dir) {
        return (dir.iopFlags() & IopFlags.IOP_MUTABLE_DIR) != 0;
    }

    /**
     * {@code do_unlinkat}/{@code do_rmdir} in a directory whose entries are computed (procfs), from
     * the lookup on: {@code ENOENT} for a missing name (its {@code ->lookup} fails), then {@code
     * may_delete} ({@code EPERM} if the directory is immutable, as {@code /proc/<pid>} is; {@code
     * EACCES} without write and search permission on it; {@code ENOTDIR} / {@code EISDIR} for the
     * wrong type), then {@code EPERM} (no {@code ->unlink}, no {@code ->rmdir}). Checked against
     * Linux 6.18's {@code /proc} ({@code ProcErrnoDifferentialTest}).
     */
    private void refuseRemoval(ParentTarget pt, boolean rmdir, Syscall op, CharSequence path) {
        Inode victim = pt.dir().ops().lookup(pt.dir(), pt.name(), t);
        if (victim == null) {
            throw new VfsException(Errno.ENOENT, op, path);
        }
        mayWriteComputed(pt.dir(), op, path);
        boolean isDir = victim.type() == FileType.DIRECTORY;
        if (rmdir && !isDir) {
            throw new VfsException(Errno.ENOTDIR, op, path);
        }
        if (!rmdir && isDir) {
            throw new VfsException(Errno.EISDIR, op, path);
        }
        throw new VfsException(Errno.EPERM, op, path);
    }

    /**
     * {@code do_renameat2} within a directory whose entries are computed (procfs), from the lookups
     * on: {@code ENOENT} if the source is missing, or the target (its {@code ->lookup} fails for a
     * new name too), {@code EEXIST} for {@code RENAME_NOREPLACE} onto an existing name, {@code
     * EACCES} without write and search permission, then {@code EPERM} (no {@code ->rename}).
     */
    private void refuseRename(
            ParentTarget from,
            ParentTarget to,
            int flags,
            CharSequence oldpath,
            CharSequence newpath) {
        Inode source = from.dir().ops().lookup(from.dir(), from.name(), t);
        if (source == null) {
            throw new VfsException(Errno.ENOENT, Syscall.RENAME, oldpath, newpath);
        }
        Inode target = to.dir().ops().lookup(to.dir(), to.name(), t);
        if (target == null) {
            throw new VfsException(Errno.ENOENT, Syscall.RENAME, oldpath, newpath);
        }
        if ((flags & OpenFlags.RENAME_NOREPLACE) != 0) {
            throw new VfsException(Errno.EEXIST, Syscall.RENAME, oldpath, newpath);
        }
        try {
            mayWriteComputed(from.dir(), Syscall.RENAME, oldpath);
            mayWriteComputed(to.dir(), Syscall.RENAME, oldpath);
        } catch (VfsException e) {
            throw new VfsException(e.errno(), Syscall.RENAME, oldpath, newpath);
        }
        throw new VfsException(Errno.EPERM, Syscall.RENAME, oldpath, newpath);
    }

    /**
     * {@code inode_permission(dir, MAY_WRITE | MAY_EXEC)} as {@code may_delete} makes it: {@code
     * EPERM} for an immutable directory, before the mode bits; {@code EACCES} without write and
     * search permission.
     */
    private void mayWriteComputed(Inode dir, Syscall op, CharSequence path) {
        if (dir.ops().immutable(dir)) {
            throw new VfsException(Errno.EPERM, op, path);
        }
        if (!Permission.check(dir, Mode.W_OK | Mode.X_OK, t.cred())) {
            throw new VfsException(Errno.EACCES, op, path);
        }
    }

    CompletableFuture<Void> mkdirat(int dirfd, Filename path, int mode) {
        String ip = PathNames.toInternal(path, Syscall.MKDIR);
        CreateTarget ct = filenameCreate(dirfd, ip, Syscall.MKDIR, path, true);
        int m = Mode.S_IFDIR | (mode & ~t.umask() & 01777);
        return create(ct, m, 0, null, Syscall.MKDIR, path);
    }

    CompletableFuture<Void> mknodat(int dirfd, Filename path, int mode, long dev) {
        int type = mode & Mode.S_IFMT;
        if (type == 0) {
            type = Mode.S_IFREG;
        }
        switch (type) {
            case Mode.S_IFREG:
            case Mode.S_IFIFO:
            case Mode.S_IFSOCK:
                break;
            case Mode.S_IFCHR:
            case Mode.S_IFBLK:
                break;
            case Mode.S_IFDIR:
                throw new VfsException(Errno.EPERM, Syscall.MKNOD, path);
            default:
                throw new VfsException(Errno.EINVAL, Syscall.MKNOD, path);
        }
        String ip = PathNames.toInternal(path, Syscall.MKNOD);
        CreateTarget ct = filenameCreate(dirfd, ip, Syscall.MKNOD, path, false);
        if ((type == Mode.S_IFCHR || type == Mode.S_IFBLK) && !t.cred().isRoot()) {
            // CAP_MKNOD is checked in vfs_mknod, after the lookup (EEXIST, ENOENT first).
            throw new VfsException(Errno.EPERM, Syscall.MKNOD, path);
        }
        int m = type | (mode & ~t.umask() & 07777);
        return create(
                ct,
                m,
                type == Mode.S_IFCHR || type == Mode.S_IFBLK ? dev : 0,
                null,
                Syscall.MKNOD,
                path);
    }

    CompletableFuture<Void> symlinkat(Filename target, int newdirfd, Filename linkpath) {
        String it = PathNames.toInternal(target, Syscall.SYMLINK);
        if (it.isEmpty()) {
            throw new VfsException(Errno.ENOENT, Syscall.SYMLINK, target, linkpath);
        }
        if (it.length() >= Limits.PATH_MAX) {
            throw new VfsException(Errno.ENAMETOOLONG, Syscall.SYMLINK, target, linkpath);
        }
        String ip = PathNames.toInternal(linkpath, Syscall.SYMLINK);
        CreateTarget ct = filenameCreate(newdirfd, ip, Syscall.SYMLINK, linkpath, false);
        return create(ct, Mode.S_IFLNK | 0777, 0, it, Syscall.SYMLINK, linkpath);
    }

    private CompletableFuture<Void> create(
            CreateTarget ct,
            int mode,
            long rdev,
            String linkTarget,
            Syscall op,
            CharSequence path) {
        return t.asker()
                .askDir(
                        ct.dir(),
                        (ReplyTo<DirReply> r) ->
                                new DirectoryActor.Create(
                                        ct.name(),
                                        mode,
                                        rdev,
                                        linkTarget,
                                        true,
                                        t.cred(),
                                        ct.proof(),
                                        r))
                .thenApply(
                        r -> {
                            Asker.check(r, op, path, null);
                            return null;
                        });
    }

    CompletableFuture<Void> linkat(
            int olddirfd, Filename oldpath, int newdirfd, Filename newpath, int flags) {
        if ((flags & ~(OpenFlags.AT_SYMLINK_FOLLOW | OpenFlags.AT_EMPTY_PATH)) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.LINK, oldpath, newpath);
        }
        String io = PathNames.toInternal(oldpath, Syscall.LINK);
        boolean empty = (flags & OpenFlags.AT_EMPTY_PATH) != 0;
        if (empty && io.isEmpty() && !t.cred().isRoot()) {
            throw new VfsException(Errno.ENOENT, Syscall.LINK, oldpath, newpath);
        }
        if (empty && io.isEmpty() && olddirfd != OpenFlags.AT_FDCWD) {
            // linkat(fd, "", AT_EMPTY_PATH) holds the descriptor's file for the call, as Linux's
            // fdget does: a close racing the link cannot free the inode it names (an O_TMPFILE
            // file with no name yet is freed by its last close)
            OpenFile held = t.fdget(olddirfd, Syscall.LINK);
            try {
                return TaskContext.fdputWhenDone(
                        held, linkResolved(olddirfd, oldpath, io, newdirfd, newpath, flags));
            } catch (RuntimeException | Error e) {
                TaskContext.fdput(held);
                throw e;
            }
        }
        return linkResolved(olddirfd, oldpath, io, newdirfd, newpath, flags);
    }

    private CompletableFuture<Void> linkResolved(
            int olddirfd, Filename oldpath, String io, int newdirfd, Filename newpath, int flags) {
        boolean empty = (flags & OpenFlags.AT_EMPTY_PATH) != 0;
        int lf =
                ((flags & OpenFlags.AT_SYMLINK_FOLLOW) != 0 ? Nameidata.LOOKUP_FOLLOW : 0)
                        | (empty ? Nameidata.LOOKUP_EMPTY : 0);
        WalkProof[] srcProof = new WalkProof[1];
        VfsPath src =
                t.walk(
                        t.startFor(olddirfd, io, Syscall.LINK, oldpath, empty),
                        io,
                        Syscall.LINK,
                        nd -> {
                            VfsPath p = nd.walkFull(lf);
                            srcProof[0] = nd.proof();
                            return p;
                        });
        String in = PathNames.toInternal(newpath, Syscall.LINK);
        CreateTarget ct = filenameCreate(newdirfd, in, Syscall.LINK, newpath, false);
        if (src.mnt() != ct.parent().mnt()) {
            throw new VfsException(Errno.EXDEV, Syscall.LINK, oldpath, newpath);
        }
        Inode target = src.inode();
        return t.asker()
                .askDir(
                        ct.dir(),
                        (ReplyTo<DirReply> r) ->
                                new DirectoryActor.Link(
                                        ct.name(),
                                        target,
                                        t.cred(),
                                        ct.proof().and(srcProof[0]),
                                        r))
                .thenApply(
                        r -> {
                            Asker.check(r, Syscall.LINK, oldpath, newpath);
                            return null;
                        });
    }

    /** The parent of a name to remove or rename, and what the final component was. */
    record ParentTarget(
            VfsPath parent, String name, LastType type, boolean trailingSlash, WalkProof proof) {
        DirectoryInode dir() {
            return (DirectoryInode) parent.inode();
        }
    }

    ParentTarget parentOf(int dirfd, String ip, Syscall op, CharSequence extPath) {
        VfsPath start = t.startFor(dirfd, ip, op, extPath, false);
        return t.walk(
                start,
                ip,
                extPath,
                op,
                nd -> {
                    VfsPath p = nd.walkParent();
                    return new ParentTarget(
                            p, nd.last(), nd.lastType(), nd.trailingSlash(), nd.proof());
                });
    }

    CompletableFuture<Void> unlinkat(int dirfd, Filename path, int flags) {
        if ((flags & ~OpenFlags.AT_REMOVEDIR) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.UNLINK, path);
        }
        boolean rmdir = (flags & OpenFlags.AT_REMOVEDIR) != 0;
        Syscall op = rmdir ? Syscall.RMDIR : Syscall.UNLINK;
        String ip = PathNames.toInternal(path, op);
        ParentTarget pt = parentOf(dirfd, ip, op, path);
        if (rmdir) {
            switch (pt.type()) {
                case DOT:
                    throw new VfsException(Errno.EINVAL, op, path);
                case DOTDOT:
                    throw new VfsException(Errno.ENOTEMPTY, op, path);
                case ROOT:
                    throw new VfsException(Errno.EBUSY, op, path);
                default:
                    break;
            }
        } else if (pt.type() != LastType.NORM) {
            throw new VfsException(Errno.EISDIR, op, path);
        }
        if (pt.parent().mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, op, path);
        }
        if (!isMutable(pt.dir())) {
            refuseRemoval(pt, rmdir, op, path);
        }
        return t.asker()
                .askDir(
                        pt.dir(),
                        (ReplyTo<DirReply> r) ->
                                new DirectoryActor.Unlink(
                                        pt.name(),
                                        rmdir,
                                        pt.trailingSlash(),
                                        t.cred(),
                                        pt.proof(),
                                        r))
                .thenApply(
                        r -> {
                            Asker.check(r, op, path, null);
                            return null;
                        });
    }

    CompletableFuture<Void> renameat2(
            int olddirfd, Filename oldpath, int newdirfd, Filename newpath, int flags) {
        if (!RenamePlan.validFlags(flags)) {
            throw new VfsException(Errno.EINVAL, Syscall.RENAME, oldpath, newpath);
        }
        String io = PathNames.toInternal(oldpath, Syscall.RENAME);
        String in = PathNames.toInternal(newpath, Syscall.RENAME);
        ParentTarget from = parentOf(olddirfd, io, Syscall.RENAME, oldpath);
        ParentTarget to = parentOf(newdirfd, in, Syscall.RENAME, newpath);
        if (from.parent().mnt() != to.parent().mnt()) {
            throw new VfsException(Errno.EXDEV, Syscall.RENAME, oldpath, newpath);
        }
        if (from.type() != LastType.NORM) {
            throw new VfsException(Errno.EBUSY, Syscall.RENAME, oldpath, newpath);
        }
        if (to.type() != LastType.NORM) {
            throw new VfsException(
                    (flags & OpenFlags.RENAME_NOREPLACE) != 0 ? Errno.EEXIST : Errno.EBUSY,
                    Syscall.RENAME,
                    oldpath,
                    newpath);
        }
        if (from.parent().mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, Syscall.RENAME, oldpath, newpath);
        }
        if (!isMutable(from.dir()) || !isMutable(to.dir())) {
            refuseRename(from, to, flags, oldpath, newpath);
        }
        CompletableFuture<DirReply> f;
        if (from.dir() == to.dir()) {
            f =
                    t.asker()
                            .askDir(
                                    from.dir(),
                                    (ReplyTo<DirReply> r) ->
                                            new DirectoryActor.Rename(
                                                    from.name(),
                                                    to.name(),
                                                    flags,
                                                    from.trailingSlash(),
                                                    to.trailingSlash(),
                                                    t.cred(),
                                                    from.proof().and(to.proof()),
                                                    r));
        } else {
            Superblock sb = (Superblock) from.dir().owner();
            if (!sb.sop().renamesAcrossDirectories()) {
                // a type whose directories journal apart (SuperOperations#renamesAcrossDirectories)
                throw new VfsException(Errno.EXDEV, Syscall.RENAME, oldpath, newpath);
            }
            f =
                    t.asker()
                            .ask(
                                    sb.actorAcquire(),
                                    (ReplyTo<DirReply> r) ->
                                            new SuperblockActor.CrossRename(
                                                    from.dir(),
                                                    from.name(),
                                                    to.dir(),
                                                    to.name(),
                                                    flags,
                                                    from.trailingSlash(),
                                                    to.trailingSlash(),
                                                    t.cred(),
                                                    from.proof().and(to.proof()),
                                                    r));
        }
        return f.thenApply(
                r -> {
                    Asker.check(r, Syscall.RENAME, oldpath, newpath);
                    return null;
                });
    }
}
