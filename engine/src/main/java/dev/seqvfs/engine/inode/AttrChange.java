package dev.seqvfs.engine.inode;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.protocol.Xattr;

/**
 * An attribute change requested by {@code chmod(2)}, {@code chown(2)}, {@code utimensat(2)}, {@code
 * setxattr(2)} or {@code removexattr(2)}: immutable data that a directory actor (for a directory)
 * or the caller (for any other inode, by CAS) applies to the current {@link InodeAttrs}.
 *
 * <p>{@link #apply} is pure: it checks permission and returns the new attributes, or throws; it may
 * run more than once under CAS contention.
 */
public sealed interface AttrChange {
    /**
     * Computes the new attributes.
     *
     * @param cur the current attributes
     * @param cred who asks
     * @param now the current time, nanoseconds since the epoch
     * @param writable whether {@code cred} has write permission on the inode (for {@code
     *     UTIME_NOW})
     * @return the new attributes
     * @throws VfsException {@code EPERM} or {@code EACCES} as the call's man page says; nothing
     *     changes
     */
    InodeAttrs apply(InodeAttrs cur, Credentials cred, long now, boolean writable);

    /** {@return the system call's name, for error messages} */
    Syscall operation();

    /**
     * {@code chmod(2)}: set the permission bits. Only the owner or root may; a non-root caller who
     * is not in the file's group loses {@code S_ISGID}, on a directory too ({@code setattr_prepare}
     * in Linux 6.18).
     *
     * @param mode the new permission bits (type bits ignored)
     */
    record Chmod(int mode) implements AttrChange {
        @Override
        public InodeAttrs apply(InodeAttrs cur, Credentials cred, long now, boolean writable) {
            if (!Permission.ownerOrRoot(cur, cred)) {
                throw new VfsException(Errno.EPERM, operation(), null);
            }
            int perm = mode & Mode.PERMISSION_MASK;
            if (!cred.isRoot() && !cred.inGroup(cur.gid())) {
                perm &= ~Mode.S_ISGID;
            }
            return cur.withPermissions(perm, now);
        }

        @Override
        public Syscall operation() {
            return Syscall.CHMOD;
        }
    }

    /**
     * {@code chown(2)}: change owner and/or group; -1 leaves one unchanged. Only root may change
     * the owner; the owner may change the group to one of its own groups ({@code EPERM} otherwise).
     * On a non-directory {@code S_ISUID} is cleared, and {@code S_ISGID} too when group-execute is
     * set, even for root (Linux since 2.2.13).
     *
     * @param uid new owner or -1
     * @param gid new group or -1
     */
    record Chown(int uid, int gid) implements AttrChange {
        @Override
        public InodeAttrs apply(InodeAttrs cur, Credentials cred, long now, boolean writable) {
            int newUid = uid == -1 ? cur.uid() : uid;
            int newGid = gid == -1 ? cur.gid() : gid;
            if (!cred.isRoot()) {
                boolean owner = cred.uid() == cur.uid();
                if (uid != -1 && !(owner && uid == cur.uid())) {
                    throw new VfsException(Errno.EPERM, operation(), null);
                }
                if (gid != -1 && !(owner && (cred.inGroup(gid) || gid == cur.gid()))) {
                    throw new VfsException(Errno.EPERM, operation(), null);
                }
            }
            int perm = cur.permissions();
            if (cur.type() != FileType.DIRECTORY) {
                perm &= ~Mode.S_ISUID;
                if ((perm & 010) != 0) {
                    perm &= ~Mode.S_ISGID;
                }
            }
            return cur.withOwner(newUid, newGid, perm, now);
        }

        @Override
        public Syscall operation() {
            return Syscall.CHOWN;
        }
    }

    /**
     * {@code utimensat(2)}: set access and modification times, each a {@link Timespec} (possibly
     * {@code UTIME_NOW} or {@code UTIME_OMIT}). Setting both to now needs ownership, root or write
     * permission ({@code EACCES}); anything else (an explicit time, or now with omit) needs
     * ownership or root ({@code EPERM}). Both omitted changes nothing, not even ctime.
     *
     * @param atime new access time
     * @param mtime new modification time
     */
    record SetTimes(Timespec atime, Timespec mtime) implements AttrChange {
        @Override
        public InodeAttrs apply(InodeAttrs cur, Credentials cred, long now, boolean writable) {
            if (atime.isOmit() && mtime.isOmit()) {
                return cur;
            }
            // Only "both now" is a plain touch that write permission allows; anything else,
            // UTIME_NOW with UTIME_OMIT included, sets times explicitly (vfs_utimes:
            // ATTR_TIMES_SET).
            boolean explicit = !(atime.isNow() && mtime.isNow());
            if (!Permission.ownerOrRoot(cur, cred)) {
                if (explicit) {
                    throw new VfsException(Errno.EPERM, operation(), null);
                }
                if (!writable) {
                    throw new VfsException(Errno.EACCES, operation(), null);
                }
            }
            long a = atime.isNow() ? now : atime.isOmit() ? cur.atime() : atime.toNanos();
            long m = mtime.isNow() ? now : mtime.isOmit() ? cur.mtime() : mtime.toNanos();
            return cur.withTimes(a, m, now);
        }

        @Override
        public Syscall operation() {
            return Syscall.UTIMENSAT;
        }
    }

    /**
     * {@code setxattr(2)}: sets one extended attribute, checked by {@link XattrRules#checkWrite};
     * with {@code XATTR_CREATE} an existing one is {@code EEXIST}, with {@code XATTR_REPLACE} a
     * missing one is {@code ENODATA}. Sets ctime. The value is copied in, so the caller may reuse
     * its array.
     */
    final class SetXattr implements AttrChange {
        private final String name;
        private final byte[] value;
        private final int flags;
        private final Syscall op;

        /**
         * Creates the change.
         *
         * @param name the full name, prefix included (already checked for length)
         * @param value the value (already checked for size)
         * @param flags {@code XATTR_CREATE}, {@code XATTR_REPLACE} or 0
         * @param op the call, for errors ({@code setxattr}, {@code lsetxattr}, {@code fsetxattr})
         */
        public SetXattr(String name, byte[] value, int flags, Syscall op) {
            this.name = name;
            this.value = value.clone();
            this.flags = flags;
            this.op = op;
        }

        @Override
        public InodeAttrs apply(InodeAttrs cur, Credentials cred, long now, boolean writable) {
            XattrRules.checkWrite(cur, cred, name, writable, op);
            boolean exists = cur.xattrs().contains(name);
            if ((flags & Xattr.XATTR_CREATE) != 0 && exists) {
                throw new VfsException(Errno.EEXIST, op, null);
            }
            if ((flags & Xattr.XATTR_REPLACE) != 0 && !exists) {
                throw new VfsException(Errno.ENODATA, op, null);
            }
            return cur.withXattrs(cur.xattrs().with(name, value), now);
        }

        @Override
        public Syscall operation() {
            return op;
        }
    }

    /**
     * {@code removexattr(2)}: removes one extended attribute, checked by {@link
     * XattrRules#checkWrite}; a missing one is {@code ENODATA}. Sets ctime.
     *
     * @param name the full name, prefix included
     * @param op the call, for errors
     */
    record RemoveXattr(String name, Syscall op) implements AttrChange {
        @Override
        public InodeAttrs apply(InodeAttrs cur, Credentials cred, long now, boolean writable) {
            XattrRules.checkWrite(cur, cred, name, writable, op);
            if (!cur.xattrs().contains(name)) {
                throw new VfsException(Errno.ENODATA, op, null);
            }
            return cur.withXattrs(cur.xattrs().without(name), now);
        }

        @Override
        public Syscall operation() {
            return op;
        }
    }
}
