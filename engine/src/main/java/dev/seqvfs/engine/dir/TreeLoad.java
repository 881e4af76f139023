package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.Syscall;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Fills the directories of a superblock that nothing has mounted yet with entries a persistent type
 * recovered from its journal (Linux's {@code fill_super} reading the disk): the inodes are the
 * type's own ({@link dev.seqvfs.engine.fs.SuperOperations#newInode}), made with their recovered
 * numbers and attributes.
 *
 * <p>Not thread-safe: called by the mounting thread before the superblock is published; what it
 * publishes (each directory's first snapshot, a release CAS) is seen by every thread that later
 * reaches the superblock.
 */
public final class TreeLoad {
    private TreeLoad() {}

    /** One entry to bind: a name and the inode it binds. */
    public record Entry(String name, Inode inode) {}

    /**
     * Binds {@code entries} in {@code dir}, whose snapshot must still be the empty one it was made
     * with, and sets {@code dir}'s link count to {@code 2} plus its subdirectories. Charges {@code
     * sb} an inode slot per name, as a create or link would; what an inode holds (a symbolic link's
     * target, a file's pages) is charged once per inode by the caller that made it, however many
     * names bind it.
     *
     * @param sb the superblock, not yet mounted
     * @param dir one of its directories, still empty
     * @param entries the names and their inodes
     * @throws IllegalStateException if {@code dir} was already filled
     * @throws dev.seqvfs.protocol.VfsException {@code ENOSPC} if the superblock's limits cannot
     *     hold the entries
     */
    public static void bind(Superblock sb, DirectoryInode dir, List<Entry> entries) {
        DirSnapshot base = dir.snapshotAcquire();
        DirSnapshot next = base;
        for (Entry e : entries) {
            sb.chargeInode(Syscall.MOUNT);
            next = next.with(e.name(), e.inode());
        }
        if (!dir.casSnapshot(base, next)) {
            throw new IllegalStateException(dir + " was filled twice");
        }
        long nlink = 2L + next.subdirs();
        dir.updateDirAttrs(a -> a.withNlink(nlink, a.ctime()));
    }

    /**
     * Replaces {@code dir}'s attributes (the root's, recovered), keeping its link count.
     *
     * @param dir the directory
     * @param change what to make of its attributes
     */
    public static void setDirAttrs(DirectoryInode dir, UnaryOperator<InodeAttrs> change) {
        dir.updateDirAttrs(
                a -> {
                    InodeAttrs c = change.apply(a);
                    return c.withNlink(a.nlink(), c.ctime());
                });
    }
}
