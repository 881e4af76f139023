package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.mount.VfsMount;

/**
 * Where a "magic" link leads ({@code nd_jump_link} in {@code fs/namei.c}): not a path to resolve,
 * but a (mount, inode) to continue from. {@code /proc/<pid>/fd/N} jumps to the open file itself,
 * which may be unlinked or anonymous.
 *
 * @param mnt the mount, or {@code null} for an anonymous inode
 * @param inode the inode
 */
public record LinkJump(VfsMount mnt, Inode inode) {}
