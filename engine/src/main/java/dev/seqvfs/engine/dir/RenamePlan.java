package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.notify.Fsnotify;
import dev.seqvfs.engine.sb.NamespaceLocks;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;

/**
 * The checks and the result of one {@code renameat2(2)}, computed as a pure function of the two
 * parent directories' snapshots, then published by {@link #publish}.
 *
 * <p>Used by {@link DirectoryActor} for a same-directory rename (both snapshots are the same) and
 * by the superblock's rename coordinator for a cross-directory rename (both parents' actors are
 * prepared and stashing, so the snapshots cannot change underneath, except that an empty target
 * parent may be killed by an {@code rmdir}, which {@link #publish} detects). The checks follow
 * {@code do_renameat2} and {@code vfs_rename} in {@code fs/namei.c}, in their order, so that the
 * errno of a call with several faults is the kernel's.
 */
public final class RenamePlan {
    final DirectoryInode oldDir;
    final DirectoryInode newDir;
    final DirSnapshot oldSnap;
    final DirSnapshot newSnap;
    final String oldName;
    final String newName;
    final int flags;
    final Inode source;
    final Inode target;
    final boolean noop;
    private DirSnapshot oldNext;
    private DirSnapshot newNext;
    private boolean published;

    /**
     * The whiteout {@code RENAME_WHITEOUT} binds at {@code oldName} ({@link #makeWhiteout}), or
     * {@code null}.
     */
    private Inode whiteout;

    private RenamePlan(
            DirectoryInode oldDir,
            DirSnapshot oldSnap,
            String oldName,
            DirectoryInode newDir,
            DirSnapshot newSnap,
            String newName,
            int flags,
            Inode source,
            Inode target,
            boolean noop) {
        this.oldDir = oldDir;
        this.newDir = newDir;
        this.oldSnap = oldSnap;
        this.newSnap = newSnap;
        this.oldName = oldName;
        this.newName = newName;
        this.flags = flags;
        this.source = source;
        this.target = target;
        this.noop = noop;
    }

    /**
     * {@return whether {@code flags} is a valid {@code renameat2(2)} flag set} Unknown bits, and
     * {@code RENAME_EXCHANGE} with {@code RENAME_NOREPLACE} or {@code RENAME_WHITEOUT}, are {@code
     * EINVAL} ({@code do_renameat2}, checked before any lookup).
     *
     * @param flags {@code RENAME_*} bits
     */
    public static boolean validFlags(int flags) {
        int known =
                OpenFlags.RENAME_NOREPLACE | OpenFlags.RENAME_EXCHANGE | OpenFlags.RENAME_WHITEOUT;
        if ((flags & ~known) != 0) {
            return false;
        }
        return (flags & OpenFlags.RENAME_EXCHANGE) == 0
                || (flags & (OpenFlags.RENAME_NOREPLACE | OpenFlags.RENAME_WHITEOUT)) == 0;
    }

    /**
     * For {@code RENAME_WHITEOUT}: makes the whiteout this rename leaves at the source name, a
     * character device of mode 0 and device number 0/0 owned by the caller (its group the source
     * parent's if that one is set-group-ID), as tmpfs's {@code shmem_whiteout} does, after the
     * checks of {@link #plan} and before {@link #publishEntries}, which binds it in the same
     * publication as the move (atomic: a walk sees the source name bound to the moved inode or to
     * the whiteout, never missing). Nothing for a no-op rename (the kernel returns before it) or
     * without the flag. A failed publication frees it.
     *
     * @param sb the superblock (charged one inode; numbers it)
     * @param cred who asks
     * @param now the time, in nanoseconds since the epoch
     * @throws VfsException {@code ENOTEMPTY} if the target is a non-empty directory (the kernel
     *     checks that first), {@code ENOSPC} if no inode is left; nothing changed then
     */
    public void makeWhiteout(dev.seqvfs.engine.sb.Superblock sb, Credentials cred, long now) {
        if (noop || (flags & OpenFlags.RENAME_WHITEOUT) == 0) {
            return;
        }
        if (target != null
                && isDir(target)
                && !((DirectoryInode) target).snapshotAcquire().isEmpty()) {
            throw err(Errno.ENOTEMPTY);
        }
        sb.chargeInode(Syscall.RENAME);
        try {
            InodeAttrs parent = oldDir.attrsAcquire();
            int gid = (parent.mode() & Mode.S_ISGID) != 0 ? parent.gid() : cred.gid();
            InodeAttrs a =
                    InodeAttrs.create(FileType.CHAR_DEVICE.ifmt(), 1, cred.uid(), gid, 0L, 0L, now);
            whiteout = sb.sop().newInode(sb, sb.allocInoBatch(1), a, oldDir, oldName, null);
        } catch (RuntimeException | OutOfMemoryError e) {
            sb.unchargeInode();
            throw e;
        }
    }

    /**
     * Checks a rename and returns its plan.
     *
     * @param oldDir the source directory
     * @param oldSnap its snapshot
     * @param oldName the source name
     * @param newDir the target directory
     * @param newSnap its snapshot
     * @param newName the target name
     * @param flags {@code RENAME_NOREPLACE}, {@code RENAME_EXCHANGE}, {@code RENAME_WHITEOUT}, or 0
     *     ({@link #validFlags})
     * @param oldSlash whether the source path ended in a slash
     * @param newSlash whether the target path ended in a slash
     * @param cred who asks
     * @return the plan
     * @throws VfsException with the kernel's errno; nothing has changed
     */
    public static RenamePlan plan(
            DirectoryInode oldDir,
            DirSnapshot oldSnap,
            String oldName,
            DirectoryInode newDir,
            DirSnapshot newSnap,
            String newName,
            int flags,
            boolean oldSlash,
            boolean newSlash,
            Credentials cred) {
        boolean exchange = (flags & OpenFlags.RENAME_EXCHANGE) != 0;
        // Linux looks up the source (ENOENT in a removed directory, ENAMETOOLONG), then the
        // target, each by the file system's lookup.
        if (oldSnap.isDead()) {
            throw err(Errno.ENOENT);
        }
        if (oldName.length() > Limits.NAME_MAX) {
            throw err(Errno.ENAMETOOLONG);
        }
        Dentry src = oldSnap.lookup(oldName);
        if (src == null) {
            throw err(Errno.ENOENT);
        }
        if (newSnap.isDead()) {
            throw err(Errno.ENOENT);
        }
        if (newName.length() > Limits.NAME_MAX) {
            throw err(Errno.ENAMETOOLONG);
        }
        Dentry tgt = newSnap.lookup(newName);
        if ((flags & OpenFlags.RENAME_NOREPLACE) != 0 && tgt != null) {
            throw err(Errno.EEXIST);
        }
        if (exchange) {
            if (tgt == null) {
                throw err(Errno.ENOENT);
            }
            if (!isDir(tgt.inode()) && newSlash) {
                throw err(Errno.ENOTDIR);
            }
        }
        Inode source = src.inode();
        Inode target = tgt == null ? null : tgt.inode();
        boolean srcDir = isDir(source);
        if (!srcDir) {
            if (oldSlash || (!exchange && newSlash)) {
                throw err(Errno.ENOTDIR);
            }
        }
        if (oldDir != newDir) {
            if (srcDir && isAncestorOrSelf((DirectoryInode) source, newDir)) {
                throw err(Errno.EINVAL);
            }
            if (target != null
                    && isDir(target)
                    && isAncestorOrSelf((DirectoryInode) target, oldDir)) {
                throw err(exchange ? Errno.EINVAL : Errno.ENOTEMPTY);
            }
        }
        if (source == target) {
            return new RenamePlan(
                    oldDir, oldSnap, oldName, newDir, newSnap, newName, flags, source, target,
                    true);
        }
        mayDelete(oldDir, source, srcDir, cred);
        if (target == null) {
            if (!Permission.check(newDir, Mode.W_OK | Mode.X_OK, cred)) {
                throw err(Errno.EACCES);
            }
        } else {
            mayDelete(newDir, target, exchange ? isDir(target) : srcDir, cred);
        }
        if (oldDir != newDir) {
            if (srcDir && !Permission.check(source, Mode.W_OK, cred)) {
                throw err(Errno.EACCES);
            }
            if (exchange && isDir(target) && !Permission.check(target, Mode.W_OK, cred)) {
                throw err(Errno.EACCES);
            }
        }
        return new RenamePlan(
                oldDir, oldSnap, oldName, newDir, newSnap, newName, flags, source, target, false);
    }

    private static void mayDelete(
            DirectoryInode dir, Inode victim, boolean isDir, Credentials cred) {
        if (!Permission.check(dir, Mode.W_OK | Mode.X_OK, cred)) {
            throw err(Errno.EACCES);
        }
        if (!Permission.stickyAllows(dir.attrsAcquire(), victim.attrsAcquire(), cred)) {
            throw err(Errno.EPERM);
        }
        if (isDir) {
            if (!isDir(victim)) {
                throw err(Errno.ENOTDIR);
            }
        } else if (isDir(victim)) {
            throw err(Errno.EISDIR);
        }
    }

    /** Returns whether {@code a} is {@code d} or one of its ancestors, following parent links. */
    static boolean isAncestorOrSelf(DirectoryInode a, DirectoryInode d) {
        DirectoryInode cur = d;
        while (cur != null) {
            if (cur == a) {
                return true;
            }
            DirLink l = cur.linkAcquire();
            cur = l == null ? null : l.parent();
        }
        return false;
    }

    private static boolean isDir(Inode i) {
        return i.type() == FileType.DIRECTORY;
    }

    private static VfsException err(Errno e) {
        return new VfsException(e, Syscall.RENAME, null);
    }

    /** {@return the rename as a {@link RenameJournal} takes it} Meaningful once published. */
    public RenameJournal.Move move() {
        return new RenameJournal.Move(
                oldDir,
                oldName,
                newDir,
                newName,
                (flags & OpenFlags.RENAME_EXCHANGE) != 0,
                source,
                target,
                whiteout);
    }

    /**
     * {@return whether the rename is a successful no-op (both names are links to the same inode)}
     */
    public boolean isNoop() {
        return noop;
    }

    /**
     * Publishes the rename: kills a replaced directory (which must be empty and not a mountpoint),
     * publishes the target parent's snapshot, then the source parent's, then the moved directories'
     * parent links and the link counts and times. The caller holds the rename write lock for a
     * cross-directory rename; this method takes the mount read lock around the mountpoint checks
     * and the kill.
     *
     * @param locks the instance's rename and mount locks
     * @param now the time, in nanoseconds since the epoch
     * @throws VfsException {@code EBUSY} (a mountpoint), {@code ENOTEMPTY} (a replaced directory is
     *     not empty), {@code ENOENT} (the target parent was removed meanwhile); in every case
     *     nothing was published
     */
    public void publish(NamespaceLocks locks, long now) {
        publishEntries(locks);
        finish(now);
    }

    /**
     * Publishes what a path walk can observe: kills a replaced directory, CASes the target parent's
     * snapshot, then the source parent's, then the moved directories' parent links. For a
     * cross-directory rename the caller holds the rename write lock around exactly this, and
     * nothing more, so walks are held off as briefly as possible.
     *
     * @param locks the instance's rename and mount locks
     * @throws VfsException as {@link #publish}; nothing was published then
     */
    public void publishEntries(NamespaceLocks locks) {
        if (noop) {
            return;
        }
        try {
            publishEntriesOnce(locks);
        } catch (RuntimeException | Error e) {
            if (whiteout != null && !published) {
                whiteout.owner().inodeFreed(whiteout); // never bound: its inode is given back
                whiteout = null;
            }
            throw e;
        }
    }

    private void publishEntriesOnce(NamespaceLocks locks) {
        if (oldDir == newDir) {
            publishEntriesMarked(locks);
            return;
        }
        // A cross-directory rename: every directory it changes has an odd rename sequence from
        // before the first store to after the last, so that a walk whose check overlapped any of
        // them fails its validation (PathWalk); walks elsewhere read no line this writes.
        DirectoryInode src = isDir(source) ? (DirectoryInode) source : null;
        DirectoryInode tgt = target != null && isDir(target) ? (DirectoryInode) target : null;
        oldDir.renameWriteBegin();
        newDir.renameWriteBegin();
        if (src != null) {
            src.renameWriteBegin();
        }
        if (tgt != null) {
            tgt.renameWriteBegin();
        }
        try {
            publishEntriesMarked(locks);
        } finally {
            if (tgt != null) {
                tgt.renameWriteEnd();
            }
            if (src != null) {
                src.renameWriteEnd();
            }
            newDir.renameWriteEnd();
            oldDir.renameWriteEnd();
        }
    }

    /** {@link #publishEntries}, its directories already marked if it crosses directories. */
    private void publishEntriesMarked(NamespaceLocks locks) {
        boolean exchange = (flags & OpenFlags.RENAME_EXCHANGE) != 0;
        boolean same = oldDir == newDir;
        DirSnapshot oldNext;
        DirSnapshot newNext;
        // what the source name binds after: the exchanged inode, the whiteout, or nothing
        Inode left = exchange ? target : whiteout;
        if (same) {
            oldNext =
                    left != null
                            ? oldSnap.with(oldName, left).with(newName, source)
                            : oldSnap.without(oldName).with(newName, source);
            newNext = oldNext;
        } else {
            oldNext = left != null ? oldSnap.with(oldName, left) : oldSnap.without(oldName);
            newNext = newSnap.with(newName, source);
        }
        Inode victim = exchange ? null : target;
        long stamp = locks.mountReadLockSpin();
        try {
            if (isMountpoint(source) || isMountpoint(target)) {
                throw err(Errno.EBUSY);
            }
            if (victim != null && isDir(victim)) {
                DirectoryInode v = (DirectoryInode) victim;
                DirSnapshot vs = v.snapshotAcquire();
                if (vs.isEmpty() && !vs.isDead() && v.unjournaledAcquire()) {
                    throw err(Errno.ESTALE); // its last unlink is not journaled yet: walk again
                }
                if (!v.tryKill(vs)) {
                    throw err(Errno.ENOTEMPTY);
                }
            }
            // Forwarding references for /proc (Dentry's class comment): each removed binding
            // records where it went before the snapshot that removes it is published.
            Dentry srcGone = oldSnap.lookup(oldName);
            Dentry tgtGone = exchange ? newSnap.lookup(newName) : null;
            if (tgtGone != null) {
                tgtGone.publishMovedRelease(new Dentry.Moved(oldDir, oldNext.lookup(oldName)));
            }
            if (same) {
                srcGone.publishMovedRelease(new Dentry.Moved(newDir, newNext.lookup(newName)));
            }
            if (!newDir.casSnapshot(newSnap, newNext)) {
                // Only a kill can race a prepared directory; a non-empty one cannot be killed,
                // so there was no victim and nothing has been published.
                if (tgtGone != null) {
                    tgtGone.publishMovedRelease(null);
                }
                if (same) {
                    srcGone.publishMovedRelease(null);
                }
                throw err(Errno.ENOENT);
            }
            if (!same) {
                oldDir.owner().hooks().renameHalfPublished(oldDir, newDir);
                srcGone.publishMovedRelease(new Dentry.Moved(newDir, newNext.lookup(newName)));
                if (!oldDir.casSnapshot(oldSnap, oldNext)) {
                    throw new IllegalStateException(
                            "source parent " + oldDir + " changed while prepared");
                }
            }
            if (victim != null && !isDir(victim)) {
                // in the section that removed its name (ForkGenerations); freed by finish
                victim.dropLinksKeptForFree(1, newDir.owner().now());
            }
        } finally {
            locks.mount.unlockRead(stamp);
        }
        if (isDir(source)) {
            ((DirectoryInode) source).publishLinkRelease(new DirLink(newDir, newName));
        }
        if (exchange && isDir(target)) {
            ((DirectoryInode) target).publishLinkRelease(new DirLink(oldDir, oldName));
        }
        this.oldNext = oldNext;
        this.newNext = newNext;
        this.published = true;
    }

    /**
     * After {@link #publishEntries}: the link counts and times (ctime of the moved inodes, the
     * replaced inode's links, the parents' mtime, ctime and link counts). Nothing a walk validates
     * depends on them, so they happen outside the rename lock.
     *
     * @param now the time, in nanoseconds since the epoch
     */
    public void finish(long now) {
        if (!published) {
            return;
        }
        boolean exchange = (flags & OpenFlags.RENAME_EXCHANGE) != 0;
        Inode victim = exchange ? null : target;
        notifyMoved(exchange, victim);
        source.touchCtime(now);
        if (exchange) {
            target.touchCtime(now);
        } else if (victim != null && isDir(victim)) {
            victim.dropLinks(2, now);
        } else if (victim != null) {
            victim.freeIfUnused(); // its link dropped where its name went (publishEntries)
        }
        DirectoryActor.afterEntriesChanged(oldDir, oldSnap, oldNext, now);
        if (oldDir != newDir) {
            DirectoryActor.afterEntriesChanged(newDir, newSnap, newNext, now);
        }
    }

    /**
     * {@code fsnotify_move}, by the writer that published the rename, before the replaced inode's
     * links drop: {@code IN_MOVED_FROM} in the old directory and {@code IN_MOVED_TO} in the new one
     * with one cookie, the replaced inode's {@code IN_ATTRIB} (its link count), then {@code
     * IN_MOVE_SELF} on the moved inode, in the host's order ({@code InotifyDifferentialTest}); an
     * exchange reports both moves.
     */
    private void notifyMoved(boolean exchange, Inode victim) {
        if (noop) {
            return;
        }
        Inode replaced = victim != null && !isDir(victim) ? victim : null;
        moved(oldDir, oldName, newDir, newName, source, replaced);
        if (exchange) {
            moved(newDir, newName, oldDir, oldName, target, null);
        }
    }

    private static void moved(
            Inode from, String fromName, Inode to, String toName, Inode what, Inode replaced) {
        if (replaced != null) {
            // a watch on the replaced inode only: nothing else to report, but its IN_ATTRIB
            if (from.marksAcquire() == null
                    && to.marksAcquire() == null
                    && what.marksAcquire() == null) {
                Fsnotify.inode(replaced, Inotify.IN_ATTRIB);
                return;
            }
        } else if (from.marksAcquire() == null
                && to.marksAcquire() == null
                && what.marksAcquire() == null) {
            return;
        }
        int cookie = Fsnotify.nextCookie();
        Fsnotify.entry(from, Fsnotify.withIsdir(what, Inotify.IN_MOVED_FROM), fromName, cookie);
        Fsnotify.entry(to, Fsnotify.withIsdir(what, Inotify.IN_MOVED_TO), toName, cookie);
        if (replaced != null) {
            Fsnotify.inode(replaced, Inotify.IN_ATTRIB);
        }
        Fsnotify.inode(what, Inotify.IN_MOVE_SELF);
    }

    private static boolean isMountpoint(Inode i) {
        return i instanceof DirectoryInode d && d.mountCount() > 0;
    }
}
