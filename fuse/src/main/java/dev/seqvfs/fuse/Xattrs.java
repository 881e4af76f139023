package dev.seqvfs.fuse;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Extended attributes through the mount: the engine's own calls ({@code lsetxattr}, {@code
 * lgetxattr}, {@code llistxattr}, {@code lremovexattr}; xattr(7)). The {@code l-} forms, because a
 * FUSE request's path names the very inode the kernel resolved: a host {@code setxattr} on a
 * symbolic link reaches here with the target's path, an {@code lsetxattr} with the link's. The
 * engine decides permissions and namespaces ({@code user.} on regular files and directories, {@code
 * trusted.} for root, {@code EOPNOTSUPP} for unknown ones), as tmpfs does.
 *
 * <p>Size probes work as {@code getxattr(2)} and {@code listxattr(2)} say: a buffer of 0 bytes asks
 * for the size, a buffer too small is {@code ERANGE}.
 *
 * <p>Each method returns what the FUSE callback returns: a byte count or 0 on success, {@code
 * -errno} on failure. Stateless; thread-safe.
 */
final class Xattrs {
    private static final int ERANGE = -Errno.ERANGE.number();
    private static final int EIO = -Errno.EIO.number();

    private Xattrs() {}

    /**
     * {@code setxattr(2)} of {@code name} on {@code path} ({@code flags}: XATTR_CREATE/REPLACE).
     */
    static int set(VfsTask task, String path, String name, byte[] value, int flags) {
        try {
            task.lsetxattr(path, name, value, flags);
            return 0;
        } catch (RuntimeException e) {
            return fail(e);
        }
    }

    /**
     * {@code getxattr(2)}: copies the value into {@code out} (when {@code out.length > 0}) and
     * returns its length in bytes; {@code -ERANGE} if {@code out} is too small.
     */
    static int get(VfsTask task, String path, String name, byte[] out) {
        try {
            byte[] v = task.lgetxattr(path, name);
            return copy(v, out);
        } catch (RuntimeException e) {
            return fail(e);
        }
    }

    /**
     * {@code listxattr(2)}: the names, each followed by a NUL, into {@code out}; returns their
     * length; {@code -ERANGE} if {@code out} is too small.
     */
    static int list(VfsTask task, String path, byte[] out) {
        try {
            List<String> names = task.llistxattr(path);
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (String n : names) {
                b.writeBytes(n.getBytes(StandardCharsets.UTF_8));
                b.write(0);
            }
            return copy(b.toByteArray(), out);
        } catch (RuntimeException e) {
            return fail(e);
        }
    }

    /** {@code removexattr(2)} of {@code name} on {@code path}. */
    static int remove(VfsTask task, String path, String name) {
        try {
            task.lremovexattr(path, name);
            return 0;
        } catch (RuntimeException e) {
            return fail(e);
        }
    }

    private static int copy(byte[] v, byte[] out) {
        if (out.length == 0) {
            return v.length;
        }
        if (out.length < v.length) {
            return ERANGE;
        }
        System.arraycopy(v, 0, out, 0, v.length);
        return v.length;
    }

    private static int fail(RuntimeException e) {
        return e instanceof VfsException v ? -v.errno().number() : EIO;
    }
}
