package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.Syscall;

/**
 * Makes the inode of {@code open(O_TMPFILE)}: a regular file with no name (tmpfs's {@code
 * shmem_tmpfile}). It changes no directory, so it needs no directory's writer: the inode's charge
 * ({@link Superblock#chargeInode}) and its number ({@link Superblock#allocInoBatch}) are atomic,
 * and nothing else can reach the inode until its open file is installed. Its owner and bits are a
 * create's in {@code dir} ({@code inode_init_owner}). Thread-safe; stateless.
 */
public final class NamelessFile {
    private NamelessFile() {}

    /**
     * {@return a new regular inode of {@code sb} with a link count of 0, counted as removed until
     * it is freed or named ({@link Inode#madeNameless})}
     *
     * @param sb the superblock of {@code dir}
     * @param dir the directory it is made in (its group and set-group-ID bit)
     * @param perm the permission bits, umask applied ({@code 07777} at most)
     * @param cred who makes it
     * @param exclusive {@code O_EXCL}: it can never be linked
     * @throws dev.seqvfs.protocol.VfsException {@code ENOSPC} when the superblock has no inode
     *     left; nothing charged
     */
    public static Inode make(
            Superblock sb, DirectoryInode dir, int perm, Credentials cred, boolean exclusive) {
        InodeAttrs parent = dir.attrsAcquire();
        int gid = InitOwner.gid(parent, cred);
        int kept = InitOwner.perm(perm, FileType.REGULAR, parent, cred, gid);
        sb.chargeInode(Syscall.OPEN);
        Inode i;
        try {
            long ino = sb.allocInoBatch(1);
            InodeAttrs attrs =
                    InodeAttrs.create(Mode.S_IFREG | kept, 0, cred.uid(), gid, 0, 0, sb.now());
            i = sb.sop().newInode(sb, ino, attrs, dir, null, null);
        } catch (RuntimeException | OutOfMemoryError e) {
            sb.unchargeInode();
            throw e;
        }
        i.madeNameless(exclusive);
        return i;
    }
}
