package dev.seqvfs.engine.inode;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.protocol.Xattr;

/**
 * Who may read and write which extended attribute, as Linux 6.18's {@code xattr_permission} and
 * tmpfs's handlers decide: {@code trusted.*} is root's only ({@code CAP_SYS_ADMIN}: a write is
 * {@code EPERM}, a read {@code ENODATA}, and {@code listxattr} hides it); {@code user.*} exists
 * only on regular files and directories (elsewhere a write is {@code EPERM}, a read {@code
 * ENODATA}), and on a sticky directory only its owner or root may write one ({@code EPERM}); then
 * the inode's mode bits decide ({@code EACCES}); {@code security.*} is written by root only ({@code
 * cap_inode_setxattr}: {@code EPERM}); any other prefix ({@code system.*}, no prefix) is {@code
 * EOPNOTSUPP} and a bare prefix ({@code "user."}) {@code EINVAL}, both after the permission check
 * ({@code xattr_resolve_name}; SeqVFS has no POSIX ACLs). Pure functions; thread-safe.
 */
public final class XattrRules {
    private XattrRules() {}

    /**
     * Checks that {@code cred} may change {@code name} on an inode with attributes {@code cur}.
     *
     * @param cur the inode's attributes
     * @param cred who asks
     * @param name the full name
     * @param writable whether the mode bits grant {@code cred} write permission
     * @param op the call, for the error
     * @throws VfsException {@code EPERM}, {@code EACCES} or {@code EOPNOTSUPP} as above
     */
    public static void checkWrite(
            InodeAttrs cur, Credentials cred, String name, boolean writable, Syscall op) {
        if (name.startsWith(Xattr.TRUSTED_PREFIX)) {
            if (!cred.isRoot()) {
                throw new VfsException(Errno.EPERM, op, null);
            }
            return;
        }
        if (name.startsWith(Xattr.USER_PREFIX)) {
            FileType t = cur.type();
            if (t != FileType.REGULAR && t != FileType.DIRECTORY) {
                throw new VfsException(Errno.EPERM, op, null);
            }
            if (t == FileType.DIRECTORY
                    && (cur.mode() & Mode.S_ISVTX) != 0
                    && !Permission.ownerOrRoot(cur, cred)) {
                throw new VfsException(Errno.EPERM, op, null);
            }
        }
        if (!writable) {
            throw new VfsException(Errno.EACCES, op, null);
        }
        if (name.startsWith(Xattr.SECURITY_PREFIX) && !cred.isRoot()) {
            throw new VfsException(Errno.EPERM, op, null);
        }
        resolve(name, op);
    }

    /**
     * Checks that {@code cred} may read {@code name} on an inode with attributes {@code cur}.
     *
     * @param cur the inode's attributes
     * @param cred who asks
     * @param name the full name
     * @param readable whether the mode bits grant {@code cred} read permission
     * @param op the call, for the error
     * @throws VfsException {@code ENODATA}, {@code EACCES} or {@code EOPNOTSUPP} as above
     */
    public static void checkRead(
            InodeAttrs cur, Credentials cred, String name, boolean readable, Syscall op) {
        if (name.startsWith(Xattr.TRUSTED_PREFIX)) {
            if (!cred.isRoot()) {
                throw new VfsException(Errno.ENODATA, op, null);
            }
            return;
        }
        if (name.startsWith(Xattr.USER_PREFIX)) {
            FileType t = cur.type();
            if (t != FileType.REGULAR && t != FileType.DIRECTORY) {
                throw new VfsException(Errno.ENODATA, op, null);
            }
        }
        if (!readable) {
            throw new VfsException(Errno.EACCES, op, null);
        }
        resolve(name, op);
    }

    /**
     * {@return whether {@code listxattr} shows {@code name} to {@code cred}: all but {@code
     * trusted.*} for a caller other than root}
     *
     * @param name the full name
     * @param cred who asks
     */
    public static boolean visible(String name, Credentials cred) {
        return cred.isRoot() || !name.startsWith(Xattr.TRUSTED_PREFIX);
    }

    /**
     * Finds the namespace of {@code name} as {@code xattr_resolve_name} does.
     *
     * @param name the full name
     * @param op the call, for the error
     * @throws VfsException {@code EINVAL} for a bare prefix ({@code "user."}), {@code EOPNOTSUPP}
     *     for a namespace tmpfs has no handler for
     */
    public static void resolve(String name, Syscall op) {
        for (String p :
                new String[] {Xattr.USER_PREFIX, Xattr.TRUSTED_PREFIX, Xattr.SECURITY_PREFIX}) {
            if (name.startsWith(p)) {
                if (name.length() == p.length()) {
                    throw new VfsException(Errno.EINVAL, op, null);
                }
                return;
            }
        }
        throw new VfsException(Errno.EOPNOTSUPP, op, null);
    }
}
