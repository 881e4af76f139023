package dev.seqvfs.engine.walk;

import dev.seqvfs.engine.dir.DirLink;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.mount.VfsMount;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * {@code d_path}: the absolute path of a directory (and optionally a final name in it), climbing
 * parent links and mounts to the namespace root, or to the root of the mount a lazy {@code umount}
 * detached it with ({@code prepend_path} stops at a mount without a parent; {@code d_path} shows
 * the path from there without a prefix: {@code /d} for {@code /m/d} once {@code /m} is detached).
 * Best effort, for display ({@code /proc/self/fd}, {@code /proc/mounts}): it reads published links
 * without validation, so a rename racing it may show either name. Internal form in, internal form
 * out. Thread-safe; stateless.
 */
public final class DPath {
    private DPath() {}

    /**
     * {@return the path of {@code dir} reached through {@code mnt}, with {@code name} appended when
     * not {@code null}; {@code " (deleted)"} is appended when the directory was removed}
     *
     * @param mnt the mount {@code dir} is reached through
     * @param dir the directory
     * @param name a name in {@code dir}, or {@code null}
     */
    public static String of(VfsMount mnt, Inode dir, String name) {
        Deque<String> parts = new ArrayDeque<>();
        if (name != null) {
            parts.push(name);
        }
        VfsMount m = mnt;
        Inode cur = dir;
        boolean deleted = dir instanceof DirectoryInode d && d.isDead();
        for (int guard = 0; guard < 10_000 && m != null; guard++) {
            if (cur == m.root()) {
                if (m.parent() == null || m.isDetached()) {
                    break; // the path within a detached mount, as d_path shows it
                }
                cur = m.mountpoint();
                m = m.parent();
                continue;
            }
            if (!(cur instanceof DirectoryInode d)) {
                break;
            }
            DirLink l = d.linkAcquire();
            if (l == null) {
                break;
            }
            parts.push(l.name());
            cur = l.parent();
        }
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            sb.append('/').append(p);
        }
        if (sb.length() == 0) {
            sb.append('/');
        }
        if (deleted) {
            sb.append(" (deleted)");
        }
        return sb.toString();
    }
}
