package dev.seqvfs.engine.fs.proc;

import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.fs.MountContext;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockConfig;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;

/**
 * The {@code proc} file-system type ({@code proc_fs_type}): each mount is a fresh view of the
 * instance's tasks, descriptor tables and mounts ({@link ProcFs}). It takes no options ({@code
 * EINVAL} for any); its names are computed ({@link FileSystemType#FS_VIRTUAL}), so no task can
 * create, remove or rename one (the walk refuses: its directories have no actor). {@code statfs}
 * reports {@code PROC_SUPER_MAGIC} and no blocks or inodes, as Linux.
 *
 * <p>Immutable and thread-safe.
 */
public final class ProcType implements FileSystemType {
    /** The one instance, registered by default as {@code "proc"}. */
    public static final ProcType INSTANCE = new ProcType();

    private ProcType() {}

    @Override
    public String name() {
        return "proc";
    }

    @Override
    public int flags() {
        return FS_VIRTUAL;
    }

    @Override
    public Superblock mount(MountContext ctx) {
        if (ctx.data() != null && !ctx.data().isBlank()) {
            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
        }
        ProcFs proc = new ProcFs(ctx.tasks(), ctx.types());
        Superblock sb =
                ctx.newSuperblock(this, new Ops(proc), SuperblockConfig.UNLIMITED, 0555, 0, 0);
        proc.bind(sb);
        return sb;
    }

    /**
     * The superblock operations of one procfs mount: only its root is instantiated through them.
     */
    private static final class Ops implements SuperOperations {
        private final ProcFs proc;

        Ops(ProcFs proc) {
            this.proc = proc;
        }

        @Override
        public long magic() {
            return StatFs.PROC_SUPER_MAGIC;
        }

        @Override
        public boolean hasXattrs() {
            return false;
        }

        @Override
        public InodeOperations inodeOps() {
            return proc.rootOps();
        }

        @Override
        public FileOperations fileOps(FileType type) {
            return type == FileType.DIRECTORY
                    ? ProcFileOperations.DIRECTORY
                    : ProcFileOperations.FILE;
        }

        /** Makes the root; procfs directories have no actor, so nothing else is created here. */
        @Override
        public Inode newInode(
                Superblock sb,
                long ino,
                InodeAttrs attrs,
                DirectoryInode parent,
                String name,
                String linkTarget) {
            if (parent != null || attrs.type() != FileType.DIRECTORY) {
                throw new IllegalStateException("procfs instantiates only its root, not " + name);
            }
            return new DirectoryInode(
                    ino, sb, proc.rootOps(), ProcFileOperations.DIRECTORY, attrs, null, null);
        }

        @Override
        public StatFs statfs(Superblock sb, boolean mountReadOnly) {
            long flags = (sb.isReadOnly() || mountReadOnly) ? MountFlags.ST_RDONLY : 0;
            return new StatFs(
                    StatFs.PROC_SUPER_MAGIC, 4096, 0, 0, 0, 0, 0, sb.dev(), Limits.NAME_MAX, flags);
        }
    }
}
