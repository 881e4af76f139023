package dev.seqvfs.engine;

import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.inode.Inode;

/**
 * Damage that only a bug inside the engine could do, for tests of what reports it: lives in the
 * engine's package to reach its internals. Not thread-safe against calls on the same file.
 */
public final class FsckDamage {
    private FsckDamage() {}

    /**
     * Adds a hard link to the root directory's entry {@code name} without adding a name: its link
     * count then exceeds its names, which {@link Fsck} reports.
     *
     * @param vfs the engine
     * @param name a regular file in the root directory
     */
    public static void addLinkWithoutName(SeqVfs vfs, String name) {
        DirectoryInode root = vfs.namespace().rootMount().root();
        Inode file = root.snapshotAcquire().lookup(name).inode();
        file.addLink(vfs.clock().nowNanos());
    }
}
