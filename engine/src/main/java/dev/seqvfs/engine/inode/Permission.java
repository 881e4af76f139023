package dev.seqvfs.engine.inode;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Mode;

/**
 * The generic permission check of {@code path_resolution(7)} and {@code access(2)}: owner, group or
 * other class by the caller's ids, then the class's r/w/x bits; root (uid 0) passes read and write
 * checks always, directory search always, and execute of a non-directory when any execute bit is
 * set ({@code CAP_DAC_OVERRIDE}).
 *
 * <p>Stateless; thread-safe.
 */
public final class Permission {
    private Permission() {}

    /**
     * Checks {@code mask} against one attribute snapshot.
     *
     * @param a the inode's attributes
     * @param mask a combination of {@link Mode#R_OK}, {@link Mode#W_OK}, {@link Mode#X_OK}
     * @param cred who asks
     * @return whether every requested access is granted
     */
    public static boolean generic(InodeAttrs a, int mask, Credentials cred) {
        int mode = a.mode();
        if (cred.uid() == 0) {
            if ((mask & Mode.X_OK) == 0 || Mode.isDirectory(mode)) {
                return true;
            }
            return (mode & 0111) != 0;
        }
        int bits;
        if (cred.uid() == a.uid()) {
            bits = (mode >> 6) & 7;
        } else if (cred.inGroup(a.gid())) {
            bits = (mode >> 3) & 7;
        } else {
            bits = mode & 7;
        }
        return (mask & ~bits & 7) == 0;
    }

    /**
     * Checks {@code mask} on an inode, calling through its operations only when its {@code
     * iopFlags} say they override the check.
     *
     * @param inode the inode
     * @param mask {@code Mode.R_OK}, {@code Mode.W_OK} and {@code Mode.X_OK} bits, or-ed
     * @param cred who asks
     * @return whether access is granted
     */
    public static boolean check(Inode inode, int mask, Credentials cred) {
        if ((inode.iopFlags() & IopFlags.IOP_PERMISSION) != 0) {
            return inode.ops().permission(inode, mask, cred);
        }
        return generic(inode.attrsAcquire(), mask, cred);
    }

    /**
     * {@return whether {@code cred} may remove or rename {@code victim} out of a directory whose
     * attributes are {@code dir}: the sticky-bit rule of {@code unlink(2)}} Write and search
     * permission on the directory are checked separately.
     *
     * @param dir the directory's attributes
     * @param victim the attributes of the inode removed or renamed
     * @param cred who asks
     */
    public static boolean stickyAllows(InodeAttrs dir, InodeAttrs victim, Credentials cred) {
        if ((dir.mode() & Mode.S_ISVTX) == 0 || cred.uid() == 0) {
            return true;
        }
        return cred.uid() == victim.uid() || cred.uid() == dir.uid();
    }

    /**
     * {@return whether {@code cred} owns the inode or is root (the test of {@code chmod(2)}, {@code
     * utimensat(2)})}
     *
     * @param a the inode's attributes
     * @param cred who asks
     */
    public static boolean ownerOrRoot(InodeAttrs a, Credentials cred) {
        return cred.uid() == 0 || cred.uid() == a.uid();
    }
}
