package dev.seqvfs.fuse;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;

/**
 * Extended attributes through the mount: the one place that will call the engine's xattr calls once
 * the engine has them (the {@code java.nio} provider's issue adds {@code setxattr}, {@code
 * getxattr}, {@code listxattr}, {@code removexattr}). Until then every call answers {@code ENOTSUP}
 * ({@code EOPNOTSUPP}, 95), which is what Linux answers on a file system without xattr support:
 * {@code cp -a}, {@code tar --xattrs} and {@code stress-ng --xattr} treat it as "none".
 *
 * <p>Each method returns what the FUSE callback returns: a byte count or 0 on success, {@code
 * -errno} on failure. Stateless; thread-safe.
 */
final class Xattrs {
    private static final int ENOTSUP = -Errno.EOPNOTSUPP.number();

    private Xattrs() {}

    /**
     * {@code setxattr(2)} of {@code name} on {@code path} ({@code flags}: XATTR_CREATE/REPLACE).
     */
    static int set(VfsTask task, String path, String name, byte[] value, int flags) {
        return ENOTSUP;
    }

    /**
     * {@code getxattr(2)}: copies the value into {@code out} (when {@code out.length > 0}) and
     * returns its length in bytes.
     */
    static int get(VfsTask task, String path, String name, byte[] out) {
        return ENOTSUP;
    }

    /** {@code listxattr(2)}: the NUL-separated names into {@code out}; returns their length. */
    static int list(VfsTask task, String path, byte[] out) {
        return ENOTSUP;
    }

    /** {@code removexattr(2)} of {@code name} on {@code path}. */
    static int remove(VfsTask task, String path, String name) {
        return ENOTSUP;
    }
}
