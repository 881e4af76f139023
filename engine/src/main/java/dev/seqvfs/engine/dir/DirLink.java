package dev.seqvfs.engine.dir;

/**
 * Where a directory hangs: its parent and its name there. Immutable; replaced whole when the
 * directory is renamed. A superblock's root has none.
 *
 * @param parent the parent directory
 * @param name the directory's name in {@code parent}, internal form
 */
public record DirLink(DirectoryInode parent, String name) {}
