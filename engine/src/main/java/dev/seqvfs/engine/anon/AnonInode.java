package dev.seqvfs.engine.anon;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeOperations;

/**
 * An inode of an anonymous file system: a pipe, a socket, or a generic anonymous file.
 * It lives exactly as long as it is open (no name keeps it alive), and its dentry is its
 * own parent, outside every directory.
 */
public final class AnonInode extends Inode {
    private final String kind;
    private final Object state;
    private volatile Dentry dentry;

    AnonInode(long ino, AnonFs owner, InodeAttrs attrs, String kind, Object state) {
        super(ino, owner, InodeOperations.GENERIC, attrs);
        this.kind = kind;
        this.state = state;
    }

    /** Returns the kind: {@code "pipe"}, {@code "socket"}, or an anon-inode name such as {@code "[eventfd]"}. */
    public String kind() {
        return kind;
    }

    /** Returns the object behind the file ({@code i_private}) ({@code Pipe}, socket end, ...). */
    public Object privateData() {
        return state;
    }

    /** Returns the disconnected dentry; set once, right after creation. */
    public Dentry dentry() {
        return dentry;
    }

    void setDentry(Dentry d) {
        dentry = d;
    }

    /** What {@code readlink("/proc/self/fd/N")} shows: {@code pipe:[ino]}, {@code socket:[ino]}, {@code anon_inode:[name]}. */
    public String linkName() {
        if (kind.startsWith("[")) {
            return "anon_inode:" + kind;
        }
        return kind + ":[" + ino() + "]";
    }

    /** Anonymous inodes are kept alive by opens only. */
    @Override
    protected boolean isLinked() {
        return false;
    }
}
