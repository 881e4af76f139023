package dev.seqvfs.engine;

import dev.seqvfs.engine.inode.AttrChange;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.inode.XattrRules;
import dev.seqvfs.engine.inode.Xattrs;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.protocol.Xattr;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The extended-attribute calls ({@code setxattr(2)}, {@code getxattr(2)}, {@code listxattr(2)},
 * {@code removexattr(2)} and their {@code l}- and {@code f}- forms), with Linux 6.18's checks in
 * its order: the arguments ({@code EINVAL} for unknown flags, {@code ERANGE} for an empty name or
 * one past {@link Xattr#XATTR_NAME_MAX} bytes, {@code E2BIG} for a value past {@link
 * Xattr#XATTR_SIZE_MAX}), then the lookup, then {@code EROFS}, then {@link XattrRules}.
 *
 * <p>The attributes are part of {@link InodeAttrs} and have its one writer: a set or remove is an
 * {@link AttrChange} applied as {@code chmod} applies its own ({@link AttrCalls#setAttrs}: a live
 * directory's actor, the actor of the directory a path's last name was found in, checking the
 * walk's proof, or a CAS for a descriptor). Reads load one attribute snapshot (acquire) after a
 * validated walk, lock-free and without a message.
 */
final class XattrCalls {
    private final TaskContext t;

    XattrCalls(TaskContext t) {
        this.t = t;
    }

    /** Checks a name as {@code setxattr_copy}/{@code import_xattr_name} do: {@code ERANGE}. */
    static void checkName(String name, Syscall op) {
        if (name == null) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
        int n = name.getBytes(StandardCharsets.UTF_8).length;
        if (n == 0 || n > Xattr.XATTR_NAME_MAX) {
            throw new VfsException(Errno.ERANGE, op, null);
        }
    }

    private static void checkSet(String name, byte[] value, int flags, Syscall op) {
        if ((flags & ~(Xattr.XATTR_CREATE | Xattr.XATTR_REPLACE)) != 0) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
        checkName(name, op);
        if (value == null) {
            throw new VfsException(Errno.EFAULT, op, null);
        }
        if (value.length > Xattr.XATTR_SIZE_MAX) {
            throw new VfsException(Errno.E2BIG, op, null);
        }
    }

    private static int lookupFlags(boolean follow) {
        return follow ? 0 : OpenFlags.AT_SYMLINK_NOFOLLOW;
    }

    private static boolean hasXattrs(VfsPath p) {
        return p.mnt() != null && p.mnt().superblock().sop().hasXattrs();
    }

    /**
     * Checks the {@code at_flags} of the {@code *xattrat} calls (Linux 6.13): {@code
     * AT_SYMLINK_NOFOLLOW} and {@code AT_EMPTY_PATH} only, else {@code EINVAL}.
     */
    private static void checkAtFlags(int atFlags, Syscall op) {
        if ((atFlags & ~(OpenFlags.AT_SYMLINK_NOFOLLOW | OpenFlags.AT_EMPTY_PATH)) != 0) {
            throw new VfsException(Errno.EINVAL, op, null);
        }
    }

    /** {@code setxattr}/{@code lsetxattr} by path. */
    CompletableFuture<Void> set(
            Filename path, boolean follow, String name, byte[] value, int flags, Syscall op) {
        return setAt(OpenFlags.AT_FDCWD, path, lookupFlags(follow), name, value, flags, op);
    }

    /** {@code setxattrat}: by a path relative to {@code dirfd}, or {@code dirfd} itself. */
    CompletableFuture<Void> setAt(
            int dirfd,
            Filename path,
            int atFlags,
            String name,
            byte[] value,
            int flags,
            Syscall op) {
        checkAtFlags(atFlags, op);
        checkSet(name, value, flags, op);
        AttrCalls.Found f = t.attrs.resolveForChange(dirfd, path, op, atFlags);
        return change(f, new AttrChange.SetXattr(name, value, flags, op), op, path);
    }

    /** {@code fsetxattr}. */
    CompletableFuture<Void> fset(int fd, String name, byte[] value, int flags) {
        checkSet(name, value, flags, Syscall.FSETXATTR);
        return change(
                AttrCalls.Found.byDescriptor(t, fd, Syscall.FSETXATTR),
                new AttrChange.SetXattr(name, value, flags, Syscall.FSETXATTR),
                Syscall.FSETXATTR,
                null);
    }

    /** {@code removexattr}/{@code lremovexattr} by path. */
    CompletableFuture<Void> remove(Filename path, boolean follow, String name, Syscall op) {
        return removeAt(OpenFlags.AT_FDCWD, path, lookupFlags(follow), name, op);
    }

    /** {@code removexattrat}. */
    CompletableFuture<Void> removeAt(
            int dirfd, Filename path, int atFlags, String name, Syscall op) {
        checkAtFlags(atFlags, op);
        checkName(name, op);
        AttrCalls.Found f = t.attrs.resolveForChange(dirfd, path, op, atFlags);
        return change(f, new AttrChange.RemoveXattr(name, op), op, path);
    }

    /** {@code fremovexattr}. */
    CompletableFuture<Void> fremove(int fd, String name) {
        checkName(name, Syscall.FREMOVEXATTR);
        return change(
                AttrCalls.Found.byDescriptor(t, fd, Syscall.FREMOVEXATTR),
                new AttrChange.RemoveXattr(name, Syscall.FREMOVEXATTR),
                Syscall.FREMOVEXATTR,
                null);
    }

    private CompletableFuture<Void> change(
            AttrCalls.Found f, AttrChange change, Syscall op, Filename path) {
        VfsPath p = f.path();
        if (p.mnt() != null && p.mnt().isReadOnly()) {
            throw new VfsException(Errno.EROFS, op, path);
        }
        if (!hasXattrs(p)) {
            throw new VfsException(Errno.EOPNOTSUPP, op, path);
        }
        return t.attrs.setAttrs(f, change, op, path);
    }

    /** {@code getxattr}/{@code lgetxattr} by path. */
    byte[] get(Filename path, boolean follow, String name, Syscall op) {
        return getAt(OpenFlags.AT_FDCWD, path, lookupFlags(follow), name, op);
    }

    /** {@code getxattrat}. */
    byte[] getAt(int dirfd, Filename path, int atFlags, String name, Syscall op) {
        checkAtFlags(atFlags, op);
        checkName(name, op);
        return get(t.attrs.resolve(dirfd, path, op, atFlags, 0), name, op);
    }

    /** {@code fgetxattr}. */
    byte[] fget(int fd, String name) {
        checkName(name, Syscall.FGETXATTR);
        return get(t.fileFdPath(fd, Syscall.FGETXATTR), name, Syscall.FGETXATTR);
    }

    private byte[] get(VfsPath p, String name, Syscall op) {
        Inode i = p.inode();
        InodeAttrs a = i.attrsAcquire();
        XattrRules.checkRead(a, t.cred(), name, Permission.check(i, Mode.R_OK, t.cred()), op);
        if (!hasXattrs(p)) {
            throw new VfsException(Errno.EOPNOTSUPP, op, null);
        }
        byte[] v = a.xattrs().get(name);
        if (v == null) {
            throw new VfsException(Errno.ENODATA, op, null);
        }
        return v;
    }

    /** {@code listxattr}/{@code llistxattr} by path. */
    List<String> list(Filename path, boolean follow, Syscall op) {
        return listAt(OpenFlags.AT_FDCWD, path, lookupFlags(follow), op);
    }

    /** {@code listxattrat}. */
    List<String> listAt(int dirfd, Filename path, int atFlags, Syscall op) {
        checkAtFlags(atFlags, op);
        return list(t.attrs.resolve(dirfd, path, op, atFlags, 0));
    }

    /** {@code flistxattr}. */
    List<String> flist(int fd) {
        return list(t.fileFdPath(fd, Syscall.FLISTXATTR));
    }

    private List<String> list(VfsPath p) {
        if (!hasXattrs(p)) {
            return List.of();
        }
        Xattrs x = p.inode().attrsAcquire().xattrs();
        List<String> out = new ArrayList<>(x.size());
        for (String n : x.names()) {
            if (XattrRules.visible(n, t.cred())) {
                out.add(n);
            }
        }
        return List.copyOf(out);
    }
}
