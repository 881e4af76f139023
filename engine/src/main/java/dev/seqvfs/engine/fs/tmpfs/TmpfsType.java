package dev.seqvfs.engine.fs.tmpfs;

import dev.seqvfs.engine.dir.DirectoryFileOperations;
import dev.seqvfs.engine.file.RegularFileOperations;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.MountContext;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockConfig;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.Locale;

/**
 * The {@code tmpfs} file-system type ({@code shmem_fs_type}): a memory-backed superblock with the
 * options of {@code tmpfs(5)}: {@code size=BYTES[k|m|g]} (0 for no limit), {@code
 * nr_inodes=N[k|m|g]} (0 for no limit), {@code mode=OCTAL} (of the root, default {@code 1777}),
 * {@code uid=N}, {@code gid=N} (default 0); an unknown option or a bad value is {@code EINVAL}.
 * Limits left out come from the instance's defaults ({@code seqvfs.tmpfs} in the configuration).
 *
 * <p>Immutable and thread-safe.
 */
public final class TmpfsType implements FileSystemType {
    /** The one instance, registered by default as {@code "tmpfs"}. */
    public static final TmpfsType INSTANCE = new TmpfsType();

    /**
     * The superblock operations every tmpfs superblock shares: generic inodes and directory actors.
     */
    private static final SuperOperations OPS =
            new SuperOperations() {
                @Override
                public long magic() {
                    return StatFs.TMPFS_MAGIC;
                }

                @Override
                public FileOperations fileOps(FileType type) {
                    switch (type) {
                        case REGULAR:
                            return RegularFileOperations.INSTANCE;
                        case DIRECTORY:
                            return DirectoryFileOperations.INSTANCE;
                        default:
                            return FileOperations.NONE;
                    }
                }
            };

    private TmpfsType() {}

    /**
     * {@return the superblock operations every tmpfs superblock shares (for code that builds one
     * directly, as tests do)}
     */
    public static SuperOperations superOperations() {
        return OPS;
    }

    @Override
    public String name() {
        return "tmpfs";
    }

    @Override
    public int flags() {
        return 0;
    }

    @Override
    public Superblock mount(MountContext ctx) {
        Options o = Options.parse(ctx, ctx.defaultLimits());
        return ctx.newSuperblock(this, OPS, o.limits(), o.mode(), o.uid(), o.gid());
    }

    /**
     * tmpfs mount options, parsed.
     *
     * @param limits the superblock's inode and byte limits
     * @param mode permission bits of the root
     * @param uid owner of the root
     * @param gid group of the root
     */
    record Options(SuperblockConfig limits, int mode, int uid, int gid) {
        static Options parse(MountContext ctx, SuperblockConfig defaults) {
            String data = ctx.data();
            String target = ctx.target();
            long maxBytes = defaults.maxBytes();
            long maxInodes = defaults.maxInodes();
            int mode = ctx.defaultRootMode();
            int uid = ctx.defaultRootUid();
            int gid = ctx.defaultRootGid();
            if (data != null && !data.isBlank()) {
                for (String opt : data.split(",", -1)) {
                    if (opt.isEmpty()) {
                        continue; // an empty option is skipped, as shmem_parse_options does
                    }
                    String[] kv = opt.split("=", 2);
                    try {
                        switch (kv[0].trim()) {
                            case "size":
                                maxBytes = parseSize(kv[1]);
                                break;
                            case "nr_inodes":
                                maxInodes = parseSize(kv[1]);
                                break;
                            case "mode":
                                mode = Integer.parseInt(kv[1].trim(), 8);
                                break;
                            case "uid":
                                uid = Integer.parseInt(kv[1].trim());
                                break;
                            case "gid":
                                gid = Integer.parseInt(kv[1].trim());
                                break;
                            default:
                                throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                        }
                    } catch (VfsException e) {
                        throw e;
                    } catch (RuntimeException e) {
                        throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                    }
                }
            }
            return new Options(
                    new SuperblockConfig(
                            maxInodes <= 0 ? Long.MAX_VALUE : maxInodes,
                            maxBytes <= 0 ? Long.MAX_VALUE : maxBytes,
                            defaults.blockSize(),
                            defaults.inodeBatch()),
                    mode,
                    uid,
                    gid);
        }

        private static long parseSize(String s) {
            s = s.trim().toLowerCase(Locale.ROOT);
            long mul = 1;
            char c = s.charAt(s.length() - 1);
            if (c == 'k' || c == 'm' || c == 'g') {
                mul = c == 'k' ? 1024L : c == 'm' ? 1024L * 1024 : 1024L * 1024 * 1024;
                s = s.substring(0, s.length() - 1);
            }
            long v = Math.multiplyExact(Long.parseLong(s), mul);
            if (v < 0) {
                throw new NumberFormatException("negative size " + s);
            }
            return v;
        }
    }
}
