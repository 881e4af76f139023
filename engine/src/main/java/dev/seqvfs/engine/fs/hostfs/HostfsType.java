package dev.seqvfs.engine.fs.hostfs;

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
import java.io.IOException;
import java.net.URI;
import java.nio.file.FileStore;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.spi.FileSystemProvider;
import java.util.Objects;

/**
 * The {@code hostfs} file-system type: a directory of the host, seen through a host {@link
 * FileSystemProvider}, mounted into the namespace ({@code mount(2)} of User-mode Linux's {@code
 * hostfs}, whose mount data names the host directory). The host directory is {@code mount(2)}'s
 * {@code source} (an absolute host path; {@code null}, {@code "none"} or {@code "hostfs"} mean the
 * host's {@code /}, as UML's hostfs with no data). The options are comma-separated: {@code ro}
 * (accepted: every hostfs superblock is read-only) and an absolute host path, UML's form, which
 * overrides the source. Any other option is {@code EINVAL}; a host path that is not a directory is
 * {@code ENOTDIR}, a missing one {@code ENOENT}.
 *
 * <p>Read-only: the superblock is born {@code SB_RDONLY}, as squashfs's, and stays so across a
 * remount ({@code squashfs_reconfigure} sets {@code SB_RDONLY} again), so every change through it
 * is {@code EROFS} and {@code /proc/mounts} says {@code ro}. Names and attributes are the host's,
 * looked up when a walk reaches them ({@link HostFs}); {@code statfs} is the host file store's
 * block counts with {@code HOSTFS_SUPER_MAGIC} and no inode counts.
 *
 * <p>The host provider: the one given to {@link #over}, else (for {@link #INSTANCE}) the JDK's
 * original default provider, as installed with {@link #useOriginalProvider} by a SeqVFS default
 * provider, else {@code FileSystems.getDefault().provider()} at the time of the mount.
 *
 * <p>Immutable and thread-safe.
 */
public final class HostfsType implements FileSystemType {
    /** {@code HOSTFS_SUPER_MAGIC} of Linux's {@code fs/hostfs}. */
    public static final long HOSTFS_SUPER_MAGIC = 0x00c0ffeeL;

    /** The one registered instance, over the host's original default provider. */
    public static final HostfsType INSTANCE = new HostfsType(null);

    /** The JDK's original default provider, once a SeqVFS default provider has replaced it. */
    private static volatile FileSystemProvider original;

    private final FileSystemProvider provider;

    private HostfsType(FileSystemProvider provider) {
        this.provider = provider;
    }

    /**
     * {@return a hostfs type (to register in place of {@link #INSTANCE}) that reaches the host
     * through {@code provider}}
     *
     * @param provider a provider of the host's files, for example the JDK's default provider
     */
    public static HostfsType over(FileSystemProvider provider) {
        return new HostfsType(Objects.requireNonNull(provider, "provider"));
    }

    /**
     * Records the JDK's original default provider, for {@link #INSTANCE} to use: called by a SeqVFS
     * provider installed as the JVM's default ({@code java.nio.file.spi.DefaultFileSystemProvider})
     * with the provider the JDK passes to its constructor, before anything is mounted. The first
     * call wins. Thread-safe.
     *
     * @param jdkDefault the JDK's own default provider
     */
    public static synchronized void useOriginalProvider(FileSystemProvider jdkDefault) {
        if (original == null) {
            original = Objects.requireNonNull(jdkDefault, "jdkDefault");
        }
    }

    private FileSystemProvider provider() {
        if (provider != null) {
            return provider;
        }
        FileSystemProvider o = original;
        return o != null ? o : FileSystems.getDefault().provider();
    }

    @Override
    public String name() {
        return "hostfs";
    }

    /**
     * {@return {@link #FS_VIRTUAL} and {@link #FS_RDONLY}: no task creates, removes or renames a
     * name through it, and it is read-only}
     */
    @Override
    public int flags() {
        return FS_VIRTUAL | FS_RDONLY;
    }

    @Override
    public Superblock mount(MountContext ctx) {
        String dir = ctx.source();
        if (dir == null || dir.equals("none") || dir.equals("hostfs")) {
            dir = "/";
        }
        if (ctx.data() != null) {
            for (String opt : ctx.data().split(",", -1)) {
                if (opt.isEmpty() || opt.equals("ro")) {
                    continue;
                }
                if (opt.startsWith("/")) {
                    dir = opt;
                    continue;
                }
                throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
            }
        }
        if (!dir.startsWith("/")) {
            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, ctx.target());
        }
        FileSystemProvider p = provider();
        Path root = p.getFileSystem(URI.create("file:///")).getPath(dir);
        HostFs fs = new HostFs(p, root);
        HostFs.Attrs a;
        try {
            a = fs.hostAttrs(root.toRealPath());
        } catch (IOException e) {
            throw new VfsException(HostErrors.errno(e), Syscall.MOUNT, ctx.target());
        }
        if (a.attrs().type() != FileType.DIRECTORY) {
            throw new VfsException(Errno.ENOTDIR, Syscall.MOUNT, ctx.target());
        }
        Ops ops = new Ops(fs, a);
        Superblock sb =
                ctx.newSuperblock(
                        this,
                        ops,
                        SuperblockConfig.UNLIMITED,
                        a.attrs().permissions(),
                        a.attrs().uid(),
                        a.attrs().gid());
        fs.bind(sb);
        sb.bornReadOnly();
        return sb;
    }

    /** The superblock operations of one hostfs mount ({@code hostfs_sbops}). */
    static final class Ops implements SuperOperations {
        private final HostFs fs;
        private final HostFs.Attrs rootAttrs;

        Ops(HostFs fs, HostFs.Attrs rootAttrs) {
            this.fs = fs;
            this.rootAttrs = rootAttrs;
        }

        @Override
        public long magic() {
            return HOSTFS_SUPER_MAGIC;
        }

        @Override
        public boolean hasXattrs() {
            return false;
        }

        @Override
        public InodeOperations inodeOps() {
            return fs.dirOps(fs.root());
        }

        @Override
        public FileOperations fileOps(FileType type) {
            return type == FileType.DIRECTORY
                    ? HostFileOperations.DIRECTORY
                    : HostFileOperations.REGULAR;
        }

        /**
         * Makes the root, with the host directory's attributes and inode number (as {@code
         * hostfs_fill_super} reads the root's); the rest is made on lookup.
         */
        @Override
        public Inode newInode(
                Superblock sb,
                long ino,
                InodeAttrs attrs,
                DirectoryInode parent,
                String name,
                String linkTarget) {
            if (parent != null || attrs.type() != FileType.DIRECTORY) {
                throw new IllegalStateException("hostfs instantiates only its root, not " + name);
            }
            return new DirectoryInode(
                    rootAttrs.ino(),
                    sb,
                    fs.dirOps(fs.root()),
                    HostFileOperations.DIRECTORY,
                    rootAttrs.attrs(),
                    null,
                    null);
        }

        /** {@code hostfs_statfs}: the host's block counts, no inode counts; always read-only. */
        @Override
        public StatFs statfs(Superblock sb, boolean mountReadOnly) {
            long bs = 4096;
            long blocks = 0;
            long bfree = 0;
            long bavail = 0;
            try {
                FileStore store = fs.provider().getFileStore(fs.root());
                bs = Math.max(1, store.getBlockSize());
                blocks = store.getTotalSpace() / bs;
                bfree = store.getUnallocatedSpace() / bs;
                bavail = store.getUsableSpace() / bs;
            } catch (IOException | UnsupportedOperationException e) {
                // a host store that does not say: no blocks, as procfs
            }
            return new StatFs(
                    HOSTFS_SUPER_MAGIC,
                    (int) bs,
                    blocks,
                    bfree,
                    bavail,
                    0,
                    0,
                    sb.dev(),
                    Limits.NAME_MAX,
                    MountFlags.ST_RDONLY);
        }
    }
}
