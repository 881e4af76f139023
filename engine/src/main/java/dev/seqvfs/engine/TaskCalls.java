package dev.seqvfs.engine;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirLink;
import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockActor;
import dev.seqvfs.engine.walk.Nameidata;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;

/**
 * The calls on the task itself and on the namespace: {@code chdir}, {@code fchdir}, {@code getcwd},
 * {@code mount}, {@code umount2}.
 */
final class TaskCalls {
    private final TaskContext t;

    TaskCalls(TaskContext t) {
        this.t = t;
    }

    void chdir(Filename path) {
        String ip = PathNames.toInternal(path, Syscall.CHDIR);
        for (int attempt = 0; attempt < 100; attempt++) {
            VfsPath p =
                    t.walk(
                            t.startFor(VfsTask.AT_FDCWD, ip, Syscall.CHDIR, path, false),
                            ip,
                            Syscall.CHDIR,
                            nd ->
                                    nd.walkFull(
                                            Nameidata.LOOKUP_FOLLOW | Nameidata.LOOKUP_DIRECTORY));
            if (!Permission.check(p.inode(), Mode.X_OK, t.cred())) {
                throw new VfsException(Errno.EACCES, Syscall.CHDIR, path);
            }
            if (t.setCwd(p)) {
                return;
            }
        }
        throw new VfsException(Errno.ENOENT, Syscall.CHDIR, path);
    }

    void fchdir(int fd) {
        VfsPath p = t.fdPath(fd, Syscall.FCHDIR);
        if (p.dir() == null) {
            throw new VfsException(Errno.ENOTDIR, Syscall.FCHDIR, null);
        }
        if (!Permission.check(p.inode(), Mode.X_OK, t.cred())) {
            throw new VfsException(Errno.EACCES, Syscall.FCHDIR, null);
        }
        if (!t.setCwd(p)) {
            throw new VfsException(Errno.ENOENT, Syscall.FCHDIR, null);
        }
    }

    /**
     * {@code getcwd(2)}, the system call (not glibc's wrapper): climbs parent links and mounts from
     * the working directory to the task's root, recording each (parent, name) lookup so that the
     * path walk's validation makes the answer one consistent cut. {@code ENOENT} if the directory
     * was removed. A working directory the root cannot reach (inside a mount that a lazy {@code
     * umount} detached) is answered as Linux's {@code sys_getcwd} does ({@code fs/d_path.c}): the
     * path from the root of the detached mount it is in, prefixed with {@code "(unreachable)"}
     * ({@code "(unreachable)/d"} for {@code /m/d} once {@code /m} is detached, {@code
     * "(unreachable)/"} at that mount's root), so it never names the path the directory had;
     * glibc's {@code getcwd(3)} turns such an answer, which does not start with {@code /}, into
     * {@code ENOENT}.
     */
    String getcwd() {
        VfsPath cwd = t.cwd();
        VfsPath root = t.root();
        return t.walk(
                cwd,
                "",
                Syscall.GETCWD,
                nd -> {
                    if (cwd.dir() != null && cwd.dir().isDead()) {
                        throw nd.error(Errno.ENOENT);
                    }
                    Deque<String> names = new ArrayDeque<>();
                    boolean unreachable = false;
                    VfsMount mnt = cwd.mnt();
                    Inode cur = cwd.inode();
                    int guard = 0;
                    while (!(cur == root.inode() && mnt == root.mnt())) {
                        if (++guard > 100_000) {
                            throw nd.error(Errno.ELOOP);
                        }
                        if (cur == mnt.root()) {
                            if (mnt.parent() == null || mnt.isDetached()) {
                                // prepend_path reached a mount without a parent before the
                                // task's root: not reachable from it.
                                unreachable = true;
                                break;
                            }
                            cur = mnt.mountpoint();
                            mnt = mnt.parent();
                            continue;
                        }
                        DirectoryInode d = (DirectoryInode) cur;
                        DirLink l = nd.linkRecorded(d);
                        if (l == null) {
                            throw nd.error(Errno.ENOENT);
                        }
                        Dentry e = nd.lookupRecorded(l.parent(), l.name());
                        if (e == null || e.inode() != d) {
                            e = entryByInode(nd, l.parent(), d);
                            if (e == null) {
                                throw nd.error(Errno.ENOENT);
                            }
                        }
                        names.push(e.name());
                        cur = l.parent();
                    }
                    StringBuilder sb = new StringBuilder(unreachable ? "(unreachable)" : "");
                    for (String n : names) {
                        sb.append('/').append(n);
                    }
                    if (names.isEmpty()) {
                        sb.append('/');
                    }
                    if (sb.length() >= Limits.PATH_MAX) {
                        // getcwd(2): the path does not fit in a page.
                        throw nd.error(Errno.ENAMETOOLONG);
                    }
                    return PathNames.toExternal(sb.toString());
                });
    }

    /**
     * Finds {@code d}'s entry in {@code parent} by inode and records its lookup. A same-directory
     * rename publishes the parent's snapshot before the moved directory's new link (outside the
     * rename lock), so the link's name can lag behind a directory that is still there under its new
     * name.
     *
     * @return the entry, or {@code null} if {@code parent} holds {@code d} under no name
     */
    private static Dentry entryByInode(Nameidata nd, DirectoryInode parent, DirectoryInode d) {
        for (int attempt = 0; attempt < 100; attempt++) {
            Dentry found = null;
            for (Dentry x : parent.snapshotAcquire().entries()) {
                if (x.inode() == d) {
                    found = x;
                    break;
                }
            }
            if (found == null) {
                return null;
            }
            Dentry e = nd.lookupRecorded(parent, found.name());
            if (e != null && e.inode() == d) {
                return e;
            }
        }
        return null;
    }

    CompletableFuture<Void> mount(
            Filename source, Filename target, String fstype, long flags, String data) {
        if (!t.cred().isRoot()) {
            throw new VfsException(Errno.EPERM, Syscall.MOUNT, target);
        }
        if ((flags & MountFlags.MS_REMOUNT) != 0) {
            VfsPath p = t.attrs().resolve(VfsTask.AT_FDCWD, target, Syscall.MOUNT, 0, 0);
            if (p.inode() != p.mnt().root()) {
                throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
            }
            boolean ro = (flags & MountFlags.MS_RDONLY) != 0;
            if ((flags & MountFlags.MS_BIND) != 0) {
                t.vfs().namespace().setMountFlags(p.mnt(), ro, mountFlags(flags, p.mnt()));
                return CompletableFuture.completedFuture(null);
            }
            Superblock sb = p.mnt().superblock();
            // do_remount: the options are parsed before anything changes (EINVAL first), then
            // reconfigure_super checks the writers (EBUSY) and applies them, all or nothing.
            String where = target == null ? null : target.toString();
            SuperOperations.Reconfiguration rc = sb.sop().reconfigure(sb, data, where);
            return t.asker()
                    .ask(
                            sb.actorAcquire(),
                            (ReplyTo<DirReply> r) -> new SuperblockActor.Remount(ro, rc, r))
                    .thenApply(
                            r -> {
                                Asker.check(r, Syscall.MOUNT, target, null);
                                // Like do_remount, a plain remount that succeeded sets the mount's
                                // flags too, so "remount,rw" also undoes the MS_RDONLY a mount was
                                // created with, and a remount without MS_NOSUID clears nosuid.
                                t.vfs()
                                        .namespace()
                                        .setMountFlags(p.mnt(), ro, mountFlags(flags, p.mnt()));
                                return null;
                            });
        }
        VfsPath where =
                t.attrs()
                        .resolve(
                                VfsTask.AT_FDCWD,
                                target,
                                Syscall.MOUNT,
                                0,
                                Nameidata.LOOKUP_DIRECTORY);
        DirectoryInode mp = (DirectoryInode) where.inode();
        if ((flags & MountFlags.MS_BIND) != 0) {
            VfsPath src = t.attrs().resolve(VfsTask.AT_FDCWD, source, Syscall.MOUNT, 0, 0);
            DirectoryInode sd = src.dir();
            if (sd == null) {
                // The target is a directory; Linux refuses a source of another type with
                // ENOTDIR (graft_tree). SeqVFS has no file bind mounts.
                throw new VfsException(Errno.ENOTDIR, Syscall.MOUNT, source, target);
            }
            // clone_mnt: the new mount takes the source mount's flags and source name.
            VfsMount from = src.mnt();
            t.vfs()
                    .namespace()
                    .attach(
                            where.mnt(),
                            mp,
                            from.superblock(),
                            sd,
                            from.mountReadOnly(),
                            from.flags(),
                            from.source());
            return CompletableFuture.completedFuture(null);
        }
        if (fstype == null) {
            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
        }
        FileSystemType type = t.vfs().fileSystemTypes().get(fstype);
        if (type == null) {
            throw new VfsException(Errno.ENODEV, Syscall.MOUNT, target);
        }
        Superblock sb = t.vfs().mount(type, source, target, flags, data, 01777, 0, 0);
        t.vfs()
                .namespace()
                .attach(
                        where.mnt(),
                        mp,
                        sb,
                        sb.root(),
                        (flags & MountFlags.MS_RDONLY) != 0,
                        mountFlags(flags, null),
                        source == null ? null : source.toString());
        return CompletableFuture.completedFuture(null);
    }

    /**
     * The per-mount flags of {@code mount(2)}'s {@code flags} ({@code path_mount}): {@code
     * MNT_NOSUID}, {@code MNT_NODEV}, {@code MNT_NOEXEC}, {@code MNT_NODIRATIME}, and the atime
     * mode: {@code MNT_RELATIME} unless {@code MS_NOATIME} ({@code MNT_NOATIME}) or {@code
     * MS_STRICTATIME} (neither); a remount that names no atime flag keeps the mount's.
     *
     * @param flags the {@code MS_*} flags
     * @param remounted the mount a remount changes, or {@code null} for a new mount
     */
    static int mountFlags(long flags, VfsMount remounted) {
        int m = (flags & MountFlags.MS_NOATIME) == 0 ? VfsMount.MNT_RELATIME : 0;
        if ((flags & MountFlags.MS_NOSUID) != 0) {
            m |= VfsMount.MNT_NOSUID;
        }
        if ((flags & MountFlags.MS_NODEV) != 0) {
            m |= VfsMount.MNT_NODEV;
        }
        if ((flags & MountFlags.MS_NOEXEC) != 0) {
            m |= VfsMount.MNT_NOEXEC;
        }
        if ((flags & MountFlags.MS_NOATIME) != 0) {
            m |= VfsMount.MNT_NOATIME;
        }
        if ((flags & MountFlags.MS_NODIRATIME) != 0) {
            m |= VfsMount.MNT_NODIRATIME;
        }
        if ((flags & MountFlags.MS_STRICTATIME) != 0) {
            m &= ~(VfsMount.MNT_RELATIME | VfsMount.MNT_NOATIME);
        }
        long atimeFlags =
                MountFlags.MS_NOATIME
                        | MountFlags.MS_NODIRATIME
                        | MountFlags.MS_RELATIME
                        | MountFlags.MS_STRICTATIME;
        if (remounted != null && (flags & atimeFlags) == 0) {
            // "The default atime for remount is preservation"
            m &= ~VfsMount.MNT_ATIME_MASK;
            m |= remounted.flags() & VfsMount.MNT_ATIME_MASK;
        }
        return m;
    }

    void umount2(Filename target, int flags) {
        if (!t.cred().isRoot()) {
            throw new VfsException(Errno.EPERM, Syscall.UMOUNT, target);
        }
        if ((flags & ~(MountFlags.MNT_FORCE | MountFlags.MNT_DETACH | MountFlags.UMOUNT_NOFOLLOW))
                != 0) {
            throw new VfsException(Errno.EINVAL, Syscall.UMOUNT, target);
        }
        int at = (flags & MountFlags.UMOUNT_NOFOLLOW) != 0 ? OpenFlags.AT_SYMLINK_NOFOLLOW : 0;
        VfsPath p = t.attrs().resolve(VfsTask.AT_FDCWD, target, Syscall.UMOUNT, at, 0);
        if (p.inode() != p.mnt().root()) {
            throw new VfsException(Errno.EINVAL, Syscall.UMOUNT, target);
        }
        try {
            t.vfs().namespace().detach(p.mnt(), flags);
        } catch (VfsException e) {
            throw e.withContext(Syscall.UMOUNT, target, null);
        }
    }
}
