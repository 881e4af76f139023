package dev.seqvfs.engine.anon;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;

/**
 * An inode of an anonymous file system: a pipe, a socket, or a generic anonymous file. It lives
 * exactly as long as it is open (no name keeps it alive), and its dentry is its own parent, outside
 * every directory, named as {@code readlink("/proc/self/fd/N")} shows it ({@code d_dname}: {@code
 * pipe:[ino]}, {@code socket:[ino]}, {@code anon_inode:[name]}).
 *
 * <h2>Concurrency</h2>
 *
 * {@code kind} is final; {@code dentry} is written once (volatile), right after creation and before
 * the inode is reachable by any other thread.
 */
public final class AnonInode extends Inode {
    private final String kind;
    private volatile Dentry dentry;

    /**
     * @param fileOps what an open through {@code /proc/<pid>/fd/N} does ({@code i_fop}): a pipe's
     *     reopen makes a new end; sockets and other anonymous files refuse it
     */
    AnonInode(long ino, AnonFs owner, InodeAttrs attrs, String kind, FileOperations fileOps) {
        super(ino, owner, InodeOperations.GENERIC, fileOps, attrs);
        this.kind = kind;
    }

    /**
     * {@return the kind: {@code "pipe"}, {@code "socket"}, or an anon-inode name such as {@code
     * "[eventfd]"}}
     */
    public String kind() {
        return kind;
    }

    /** {@return the disconnected dentry; set once, right after creation} */
    public Dentry dentry() {
        return dentry;
    }

    void setDentry(Dentry d) {
        dentry = d;
    }

    /**
     * What {@code readlink("/proc/self/fd/N")} shows: {@code pipe:[ino]}, {@code socket:[ino]},
     * {@code anon_inode:[name]}.
     *
     * @return the link text
     */
    public String linkName() {
        if (kind.startsWith("[")) {
            return "anon_inode:" + kind;
        }
        return kind + ":[" + ino() + "]";
    }

    @Override
    public boolean isAnonymous() {
        return true;
    }

    /** Anonymous inodes are kept alive by opens only. */
    @Override
    protected boolean isLinked() {
        return false;
    }
}
