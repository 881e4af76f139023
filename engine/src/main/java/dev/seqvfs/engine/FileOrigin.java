package dev.seqvfs.engine;

import dev.seqvfs.actors.dir.DirectoryInode;
import dev.seqvfs.actors.inode.Inode;
import dev.seqvfs.actors.mount.VfsMount;
import dev.seqvfs.engine.walk.DPath;
import dev.seqvfs.engine.walk.PathNames;

/**
 * Where a named file was opened from: the directory it was found in (through which mount)
 * and its name there, or the directory itself. {@code /proc/<pid>/fd/N} shows the path
 * computed from it when read: directories above follow renames; a renamed or unlinked
 * file keeps its name, unlinked ones with {@code " (deleted)"}, as Linux shows.
 *
 * @param mnt the mount
 * @param dir the parent directory, or the opened directory itself when {@code name} is null
 * @param name the file's name in {@code dir} (internal form), or {@code null}
 */
record FileOrigin(VfsMount mnt, DirectoryInode dir, String name) {
    /** Returns the path to show for {@code inode} (external form). */
    String display(Inode inode) {
        String p = DPath.of(mnt, dir, name);
        if (name != null && inode.attrsAcquire().nlink() == 0 && !p.endsWith(" (deleted)")) {
            p += " (deleted)";
        }
        return PathNames.toExternal(p);
    }
}
