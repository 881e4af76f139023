package dev.seqvfs.engine;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirSnapshot;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.PathProof;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.inode.AttrChange;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.IopFlags;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.engine.notify.Fsnotify;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.PublishGate;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.walk.Nameidata;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;

/**
 * The attribute calls: {@code stat} family, {@code readlink}, {@code access}, {@code statfs}
 * (lock-free reads, no message), and {@code chmod}, {@code chown}, {@code utimensat}: by path, a
 * message that makes the change take effect only while the walk's {@link PathProof} holds (for a
 * directory, to its own actor, which owns its attributes; for any other inode, to the actor of the
 * directory it was found in, which checks the proof and applies the CAS in one handler), answered
 * {@code ESTALE} (walk again, {@link Revalidate}) when the path changed meanwhile; by descriptor, a
 * CAS (or the directory's actor) with no path to prove.
 */
final class AttrCalls {
    /** tmpfs's {@code BOGO_DIRENT_SIZE}: a directory's size is 20 bytes per entry plus two. */
    static final int BOGO_DIRENT_SIZE = 20;

    private final TaskContext t;

    AttrCalls(TaskContext t) {
        this.t = t;
    }

    /**
     * What a path-based attribute change found: the inode, a proof of the whole walk ({@code null}
     * without a walk: a descriptor), and, when the inode was found by a lookup of a name in a
     * directory with entries of its own, that directory and name (else {@code null}: a path ending
     * at a magic link or a computed lookup, which no rename moves).
     */
    record Found(VfsPath path, DirectoryInode parent, String name, PathProof proof, OpenFile file) {
        Found(VfsPath path, DirectoryInode parent, String name, PathProof proof) {
            this(path, parent, name, proof, null);
        }

        /**
         * {@return what descriptor {@code fd} names, for a change through it ({@code fchmod} and
         * friends): its inode, and the open file, through which the change is reported}
         *
         * @param t the task
         * @param fd the descriptor
         * @param op the call, for errors ({@code EBADF}, also for an {@code O_PATH} descriptor)
         */
        static Found byDescriptor(TaskContext t, int fd, Syscall op) {
            OpenFile f = t.fget(fd, op);
            if (f.isPath()) {
                throw new VfsException(Errno.EBADF, op, null);
            }
            return new Found(new VfsPath(f.mount(), f.inode()), null, null, null, f);
        }
    }

    /**
     * {@link #resolve} for a change: also where the final inode was found, and the walk's proof.
     */
    Found resolveForChange(int dirfd, Filename path, Syscall op, int flags) {
        String ip = PathNames.toInternal(path, op);
        boolean empty = (flags & OpenFlags.AT_EMPTY_PATH) != 0;
        int lf =
                ((flags & OpenFlags.AT_SYMLINK_NOFOLLOW) != 0 ? 0 : Nameidata.LOOKUP_FOLLOW)
                        | (empty ? Nameidata.LOOKUP_EMPTY : 0);
        return t.walk(
                t.startFor(dirfd, ip, op, path, empty),
                ip,
                path,
                op,
                nd -> {
                    VfsPath p = nd.walkFull(lf);
                    PathProof proof = nd.proof();
                    Dentry d = nd.originDentry();
                    boolean byLookup =
                            d != null && d.inode() == p.inode() && nd.originDir() != null;
                    return new Found(
                            p,
                            byLookup ? nd.originDir() : null,
                            byLookup ? nd.originName() : null,
                            proof);
                });
    }

    VfsPath resolve(int dirfd, Filename path, Syscall op, int flags, int lookupExtra) {
        String ip = PathNames.toInternal(path, op);
        boolean empty = (flags & OpenFlags.AT_EMPTY_PATH) != 0;
        int lf =
                ((flags & OpenFlags.AT_SYMLINK_NOFOLLOW) != 0 ? 0 : Nameidata.LOOKUP_FOLLOW)
                        | (empty ? Nameidata.LOOKUP_EMPTY : 0)
                        | lookupExtra;
        return t.walk(t.startFor(dirfd, ip, op, path, empty), ip, path, op, nd -> nd.walkFull(lf));
    }

    Stat fstatat(int dirfd, Filename path, int flags) {
        if ((flags & ~(OpenFlags.AT_SYMLINK_NOFOLLOW | OpenFlags.AT_EMPTY_PATH | 0x800)) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.STAT, path);
        }
        String ip = PathNames.toInternal(path, Syscall.STAT);
        boolean empty = (flags & OpenFlags.AT_EMPTY_PATH) != 0;
        int lf =
                ((flags & OpenFlags.AT_SYMLINK_NOFOLLOW) != 0 ? 0 : Nameidata.LOOKUP_FOLLOW)
                        | (empty ? Nameidata.LOOKUP_EMPTY : 0);
        // The attributes are read inside the validated walk, so that the path and what it
        // names hold at one instant (stat("/t/n/..") never shows t without n's link).
        return t.walk(
                t.startFor(dirfd, ip, Syscall.STAT, path, empty),
                ip,
                path,
                Syscall.STAT,
                nd -> {
                    Stat st = stat(nd.walkFull(lf).inode());
                    nd.readAfterWalk();
                    return st;
                });
    }

    /**
     * Builds a {@link Stat} from one attribute snapshot (and, for a directory, its entry count).
     */
    static Stat stat(Inode i) {
        InodeAttrs a = i.attrsAcquire();
        long size = a.size();
        long nlink = a.nlink();
        DirectoryInode d = i.type() == FileType.DIRECTORY ? (DirectoryInode) i : null;
        if (d != null && (d.iopFlags() & IopFlags.IOP_CUSTOM_LOOKUP) == 0) {
            // (a computed directory's, procfs's or hostfs's, are its type's, in its attributes)
            // A directory's link count and size come from the snapshot that holds its
            // entries, published in the same store: they always agree with its entries.
            DirSnapshot s = d.snapshotAcquire();
            size = (2L + s.size()) * BOGO_DIRENT_SIZE;
            // A removed directory is killed before its parent drops the entry, and its
            // attributes' link count drops after: until then it still counts as linked.
            nlink = s.isDead() ? a.nlink() : 2L + s.subdirs();
        }
        return new Stat(
                i.owner().dev(),
                i.ino(),
                a.mode(),
                nlink,
                a.uid(),
                a.gid(),
                a.rdev(),
                size,
                i.owner().blockSize(),
                a.blocks(),
                a.atime(),
                a.mtime(),
                a.ctime());
    }

    String readlinkat(int dirfd, Filename path) {
        Inode i =
                resolve(
                                dirfd,
                                path,
                                Syscall.READLINK,
                                OpenFlags.AT_SYMLINK_NOFOLLOW | OpenFlags.AT_EMPTY_PATH,
                                0)
                        .inode();
        if ((i.iopFlags() & IopFlags.IOP_FOLLOW_LINK) == 0) {
            // An empty path names the descriptor (or the cwd); Linux answers ENOENT, not
            // EINVAL, when that is not a symlink (do_readlinkat).
            throw new VfsException(
                    path != null && path.isEmpty() ? Errno.ENOENT : Errno.EINVAL,
                    Syscall.READLINK,
                    path);
        }
        String target =
                (i.iopFlags() & IopFlags.IOP_CUSTOM_LINK) != 0
                        ? i.ops().getLink(i, t)
                        : ((SymlinkInode) i).target();
        return target;
    }

    void faccessat(int dirfd, Filename path, int mode, int flags) {
        if ((mode & ~(Mode.R_OK | Mode.W_OK | Mode.X_OK)) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.ACCESS, path);
        }
        if ((flags
                        & ~(OpenFlags.AT_EACCESS
                                | OpenFlags.AT_SYMLINK_NOFOLLOW
                                | OpenFlags.AT_EMPTY_PATH))
                != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.ACCESS, path);
        }
        VfsPath p = resolve(dirfd, path, Syscall.ACCESS, flags & ~OpenFlags.AT_EACCESS, 0);
        if (mode == Mode.F_OK) {
            return;
        }
        FileType type = p.inode().type();
        boolean writableType =
                type == FileType.REGULAR || type == FileType.DIRECTORY || type == FileType.SYMLINK;
        if ((mode & Mode.W_OK) != 0 && writableType && p.mnt().superblock().isReadOnly()) {
            // inode_permission: a read-only superblock is EROFS before the mode bits count.
            throw new VfsException(Errno.EROFS, Syscall.ACCESS, path);
        }
        if ((mode & Mode.W_OK) != 0 && p.inode().ops().immutable(p.inode())) {
            // inode_permission: "Nobody gets write access to an immutable file."
            throw new VfsException(Errno.EPERM, Syscall.ACCESS, path);
        }
        if (!Permission.check(p.inode(), mode, t.cred())) {
            throw new VfsException(Errno.EACCES, Syscall.ACCESS, path);
        }
        if ((mode & Mode.W_OK) != 0 && p.mnt().isReadOnly() && writableType) {
            throw new VfsException(Errno.EROFS, Syscall.ACCESS, path);
        }
    }

    StatFs statfs(VfsPath p) {
        Superblock sb = p.mnt().superblock();
        return sb.statfs(p.mnt().mountReadOnly());
    }

    CompletableFuture<Void> fchmodat(int dirfd, Filename path, int mode, int flags) {
        if ((flags & ~(OpenFlags.AT_SYMLINK_NOFOLLOW | OpenFlags.AT_EMPTY_PATH)) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.CHMOD, path);
        }
        Found f = resolveForChange(dirfd, path, Syscall.CHMOD, flags);
        if (f.path().inode().type() == FileType.SYMLINK) {
            throw new VfsException(Errno.EOPNOTSUPP, Syscall.CHMOD, path);
        }
        return setAttrs(f, new AttrChange.Chmod(mode), Syscall.CHMOD, path);
    }

    CompletableFuture<Void> fchownat(int dirfd, Filename path, int uid, int gid, int flags) {
        if ((flags & ~(OpenFlags.AT_SYMLINK_NOFOLLOW | OpenFlags.AT_EMPTY_PATH)) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.CHOWN, path);
        }
        return setAttrs(
                resolveForChange(dirfd, path, Syscall.CHOWN, flags),
                new AttrChange.Chown(uid, gid),
                Syscall.CHOWN,
                path);
    }

    CompletableFuture<Void> utimensat(
            int dirfd, Filename path, Timespec atime, Timespec mtime, int flags) {
        Timespec a = atime == null ? Timespec.NOW : atime;
        Timespec m = mtime == null ? Timespec.NOW : mtime;
        if (a.isOmit() && m.isOmit()) {
            // "Nothing to do, we must not even check the path" (sys_utimensat).
            return CompletableFuture.completedFuture(null);
        }
        if ((flags & ~(OpenFlags.AT_SYMLINK_NOFOLLOW | OpenFlags.AT_EMPTY_PATH)) != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.UTIMENSAT, path);
        }
        Found f;
        if (path == null) {
            if (dirfd == OpenFlags.AT_FDCWD) {
                throw new VfsException(Errno.EFAULT, Syscall.UTIMENSAT, null);
            }
            if (flags != 0) {
                throw new VfsException(Errno.EINVAL, Syscall.UTIMENSAT, null);
            }
            f = Found.byDescriptor(t, dirfd, Syscall.UTIMENSAT);
        } else {
            f = resolveForChange(dirfd, path, Syscall.UTIMENSAT, flags);
        }
        if (!a.isValid() || !m.isValid()) {
            // Checked after the lookup, as vfs_utimes does: a bad path wins over a bad time.
            throw new VfsException(Errno.EINVAL, Syscall.UTIMENSAT, path);
        }
        return setAttrs(f, new AttrChange.SetTimes(a, m), Syscall.UTIMENSAT, path);
    }

    /**
     * Applies an attribute change to an inode reached without a path (a descriptor): {@code EROFS}
     * on a read-only mount, then by message for a live directory (its actor owns its attributes) or
     * by CAS for anything else (a removed directory has no writer left, and Linux still lets its
     * attributes change).
     */
    CompletableFuture<Void> setAttrs(VfsPath p, AttrChange change, Syscall op, Filename path) {
        return setAttrs(new Found(p, null, null, null), change, op, path);
    }

    /**
     * Applies an attribute change to what a walk found: {@code EROFS} on a read-only mount; then,
     * for a live directory, by message to its actor with the walk's proof; for another inode found
     * by a lookup, by message to that directory's actor ({@link DirectoryActor.SetChildAttrs}),
     * which applies the CAS only while the proof holds; else (no path to prove) by CAS here. A
     * stale proof fails the returned future with {@code ESTALE}, for {@link Revalidate} to walk
     * again.
     */
    CompletableFuture<Void> setAttrs(Found f, AttrChange change, Syscall op, Filename path) {
        VfsPath p = f.path();
        if (p.mnt() != null && p.mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, op, path);
        }
        Inode i = p.inode();
        if (i.ops().immutable(i)) {
            // notify_change: an immutable inode's attributes never change.
            throw new VfsException(Errno.EPERM, op, path);
        }
        try {
            i.ops().setattr(i, change);
        } catch (VfsException e) {
            throw e.withContext(op, path, null);
        }
        if (i.actorOwnsAttrs()) {
            PathProof proof = f.proof() == null ? PathProof.NONE : f.proof();
            return t.asker()
                    .askDir(
                            (DirectoryInode) i,
                            (ReplyTo<DirReply> r) ->
                                    new DirectoryActor.SetAttrs(change, t.cred(), proof, r))
                    .thenApply(
                            r -> {
                                Asker.check(r, op, path, null);
                                return null;
                            });
        }
        if (f.parent() != null && f.parent().actorOwnsAttrs()) {
            return t.asker()
                    .askDir(
                            f.parent(),
                            (ReplyTo<DirReply> r) ->
                                    new DirectoryActor.SetChildAttrs(
                                            f.name(), i, change, t.cred(), f.proof(), r))
                    .thenApply(
                            r -> {
                                Asker.check(r, op, path, null);
                                return null;
                            });
        }
        // notify_change under mnt_want_write: a read-only remount is EBUSY meanwhile.
        Superblock sb = p.mnt() == null ? null : p.mnt().superblock();
        if (sb != null && !sb.tryBeginWrite()) {
            throw new VfsException(Errno.EROFS, op, path);
        }
        try {
            long now = t.vfs().clock().nowNanos();
            boolean writable = Permission.check(i, Mode.W_OK, t.cred());
            // Inside the publication gate, as a directory actor's SetChildAttrs: a fork's cut
            // (VfsFork) then orders this change with every other one.
            PublishGate gate = t.vfs().locks().publish;
            int g = gate.enter();
            try {
                i.setattr(change, t.cred(), now, writable);
            } finally {
                gate.exit(g);
            }
            if (sb != null) {
                sb.sop().attrsChanged(sb, i);
            }
            // fsnotify_change / fsnotify_xattr: to the directory the file is in (with its name)
            // and to the inode
            if (f.file() != null) {
                Fsnotify.file(f.file(), Inotify.IN_ATTRIB);
            } else {
                Fsnotify.child(f.parent(), f.name(), i, Inotify.IN_ATTRIB);
            }
        } catch (VfsException e) {
            throw e.withContext(op, path, null);
        } finally {
            if (sb != null) {
                sb.endWrite();
            }
        }
        return CompletableFuture.completedFuture(null);
    }
}
