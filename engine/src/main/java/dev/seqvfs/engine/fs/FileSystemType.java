package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.VfsException;

/**
 * A file-system type ({@code struct file_system_type}): a name that {@code mount(2)}'s {@code
 * fstype} selects, flags, and {@link #mount}, which builds a superblock from the mount's options.
 * Registered in a {@link FileSystemTypes}; an instance's {@code /proc/filesystems} lists them.
 *
 * <p>Implementations are immutable and thread-safe; {@link #mount} may be called by any task at any
 * time and must not block. Source: {@code fs/filesystems.c}, {@code mount(2)}, {@code
 * include/linux/fs.h}.
 */
public interface FileSystemType {
    /**
     * The type needs a block device ({@code FS_REQUIRES_DEV}); no SeqVFS type does, so all are
     * {@code nodev}.
     */
    int FS_REQUIRES_DEV = 1;

    /**
     * The type's names are computed, not stored (procfs): no task can create, remove or rename an
     * entry. Conformance suites that build trees do not apply to it.
     */
    int FS_VIRTUAL = 1 << 16;

    /**
     * The type keeps what it holds across restarts (what {@code fsync} and {@code sync} make
     * durable).
     */
    int FS_DURABLE = 1 << 17;

    /**
     * The type can only be read: its superblocks are born {@code SB_RDONLY} and a remount keeps
     * them so ({@code squashfs}, {@code iso9660}; in SeqVFS {@code hostfs}). Conformance suites
     * that mount read-write do not apply to it.
     */
    int FS_RDONLY = 1 << 18;

    /** {@return the name {@code mount(2)} selects it by, for example {@code "tmpfs"}} */
    String name();

    /** {@return the {@code FS_*} flags} */
    int flags();

    /**
     * Builds a superblock for a new mount ({@code ->get_tree}): parses {@code ctx.data()} (the
     * comma-separated options) and makes the superblock with {@link MountContext#newSuperblock}.
     * The engine then starts its actor and attaches it.
     *
     * @param ctx the mount's arguments and the instance's defaults
     * @return the new superblock
     * @throws VfsException {@code EINVAL} for a bad option, with the mount point as the path
     */
    Superblock mount(MountContext ctx);
}
