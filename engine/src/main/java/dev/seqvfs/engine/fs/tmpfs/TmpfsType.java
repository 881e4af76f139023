package dev.seqvfs.engine.fs.tmpfs;

import dev.seqvfs.engine.dir.DirectoryFileOperations;
import dev.seqvfs.engine.file.FileData;
import dev.seqvfs.engine.file.RegularFileOperations;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.MountContext;
import dev.seqvfs.engine.fs.SuperOperations;
import dev.seqvfs.engine.sb.HeapPool;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockConfig;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;

/**
 * The {@code tmpfs} file-system type ({@code shmem_fs_type}): a memory-backed superblock with the
 * options of {@code tmpfs(5)}, parsed as {@code shmem_parse_one} in Linux 6.18 does:
 *
 * <ul>
 *   <li>{@code size=BYTES}: a number as {@code memparse} reads it (decimal, {@code 0x} hex or
 *       {@code 0} octal, then an optional suffix {@code k}, {@code m}, {@code g}, {@code t}, {@code
 *       p} or {@code e}, either case, each a power of 1024), rounded <em>up</em> to whole 4096-byte
 *       pages ({@code DIV_ROUND_UP(size, PAGE_SIZE)}): {@code size=1k} is one page, {@code
 *       size=5000} two; {@code 0} for no limit; or {@code size=N%}, {@code N} percent of the "RAM",
 *       which for SeqVFS is the heap ({@link Runtime#maxMemory()}; see {@link
 *       HeapPool#percentOfRam}), also rounded up to pages;
 *   <li>{@code nr_blocks=PAGES}: the same limit in pages ({@code memparse}, at most {@code
 *       LONG_MAX});
 *   <li>{@code nr_inodes=N} ({@code memparse}: {@code nr_inodes=1k} is 1024; at most {@code
 *       ULONG_MAX / 1024}, as Linux's {@code BOGO_INODE_SIZE} bound); {@code 0} for no limit;
 *   <li>{@code mode=OCTAL} (of the root, masked with {@code 07777}, default {@code 1777}), {@code
 *       uid=N}, {@code gid=N} (decimal, default 0).
 * </ul>
 *
 * An unknown option, a missing or empty value, or a value with anything after the number is {@code
 * EINVAL}; empty options ({@code ",,"}) are skipped. Deviation: a value past {@code 2^63 - 1} bytes
 * is {@code EINVAL}, where Linux's {@code memparse} wraps silently.
 *
 * <p>Limits left out come from the instance's defaults, {@code seqvfs.tmpfs} in the configuration,
 * which are Linux's defaults with the heap for the RAM: {@code max-bytes = "50%"} (half of {@code
 * Runtime.maxMemory()}, rounded up to pages) and {@code max-inodes = "50%"} (half of the heap's
 * 4096-byte pages, as Linux's default {@code nr_inodes} is half the RAM's pages). A superblock with
 * a byte limit also charges its bytes to the JVM's {@link HeapPool} (half of {@code
 * Runtime.maxMemory()} for all tmpfs mounts of all instances together, as all tmpfs mounts of a
 * machine share its RAM): a write that does not fit in the pool is cut short, then fails with
 * {@code ENOSPC}, exactly as one that does not fit in its superblock, and {@code statfs}'s {@code
 * f_bfree} is the smaller of the two. {@code size=0} (no limit) leaves the superblock out of the
 * pool, as it leaves a Linux tmpfs unbounded: its data can run the heap out ({@code ENOMEM}).
 *
 * <p>A remount ({@code MS_REMOUNT}, {@code shmem_reconfigure}) takes the same options: {@code
 * size}, {@code nr_blocks} and {@code nr_inodes} change the limits, all or none ({@code EINVAL} if
 * a new limit is below what is in use, or if it limits what was mounted without a limit: "Cannot
 * retroactively limit"); {@code mode}, {@code uid} and {@code gid} are accepted and ignored. {@code
 * /proc/mounts} shows the options that differ from the defaults ({@code shmem_show_options}):
 * {@code size} in KiB ({@code size=1024k} for {@code size=1m}), {@code nr_inodes}, {@code mode} in
 * octal with at least three digits, {@code uid}, {@code gid}; checked against Linux 6.18 on a real
 * tmpfs.
 *
 * <p>Immutable and thread-safe.
 */
public final class TmpfsType implements FileSystemType {
    /** The one instance, registered by default as {@code "tmpfs"}. */
    public static final TmpfsType INSTANCE = new TmpfsType();

    /** The size of a page, in bytes: the unit {@code size=} rounds up to ({@code PAGE_SIZE}). */
    static final long PAGE = FileData.PAGE;

    /** {@code BOGO_INODE_SIZE}: Linux bounds {@code nr_inodes} by {@code ULONG_MAX} over it. */
    private static final long BOGO_INODE_SIZE = 1024;

    /** {@code ULONG_MAX / BOGO_INODE_SIZE} on a 64-bit kernel. */
    private static final long MAX_NR_INODES = Long.divideUnsigned(-1L, BOGO_INODE_SIZE);

    /** The root's mode that {@code /proc/mounts} does not show ({@code 0777 | S_ISVTX}). */
    private static final int DEFAULT_MODE = 01777;

    /**
     * The operations of a superblock built without options (for code that builds one directly, as
     * tests do): the root's defaults, no limits as the defaults.
     */
    private static final SuperOperations OPS =
            new Ops(SuperblockConfig.UNLIMITED, DEFAULT_MODE, 0, 0);

    private TmpfsType() {}

    /**
     * {@return the superblock operations of a tmpfs superblock built directly, without mount
     * options (as tests do)}
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
        SuperblockConfig defaults = ctx.defaultLimits();
        Options o = Options.parse(ctx.data(), ctx.target(), HeapPool.ramBytes());
        long maxInodes = o.inodes() < 0 ? defaults.maxInodes() : unlimitedIfZero(o.inodes());
        long maxBytes = o.bytes() < 0 ? defaults.maxBytes() : unlimitedIfZero(o.bytes());
        int mode = o.mode() < 0 ? ctx.defaultRootMode() : o.mode();
        int uid = o.uid() < 0 ? ctx.defaultRootUid() : o.uid();
        int gid = o.gid() < 0 ? ctx.defaultRootGid() : o.gid();
        SuperblockConfig limits =
                new SuperblockConfig(
                        maxInodes, maxBytes, defaults.blockSize(), defaults.inodeBatch());
        return ctx.newSuperblock(this, new Ops(defaults, mode, uid, gid), limits, mode, uid, gid);
    }

    private static long unlimitedIfZero(long v) {
        return v == 0 ? Long.MAX_VALUE : v;
    }

    /**
     * The superblock operations of one tmpfs superblock ({@code shmem_ops} with its {@code
     * shmem_sb_info}): generic inodes and directory actors, and the root's mode and owner as
     * mounted, for {@code /proc/mounts}.
     */
    private static final class Ops implements SuperOperations {
        private final SuperblockConfig defaults;
        private final int mode;
        private final int uid;
        private final int gid;

        Ops(SuperblockConfig defaults, int mode, int uid, int gid) {
            this.defaults = defaults;
            this.mode = mode;
            this.uid = uid;
            this.gid = gid;
        }

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

        /**
         * {@code shmem_reconfigure}: new limits (both or neither, {@code EINVAL} if one is below
         * the use or limits an unlimited superblock); {@code mode}, {@code uid}, {@code gid}
         * ignored.
         */
        @Override
        public Reconfiguration reconfigure(Superblock sb, String data, String target) {
            Options o = Options.parse(data, target, HeapPool.ramBytes());
            if (o.inodes() < 0 && o.bytes() < 0) {
                return Reconfiguration.NONE;
            }
            return s -> {
                SuperblockConfig cur = s.configAcquire();
                long inodes = o.inodes() < 0 ? -1 : unlimitedIfZero(o.inodes());
                long bytes = o.bytes() < 0 ? -1 : unlimitedIfZero(o.bytes());
                // "Cannot retroactively limit": an unlimited superblock has no record of its use
                // in Linux, so it may not become limited.
                boolean retro =
                        (bytes > 0 && bytes != Long.MAX_VALUE && cur.maxBytes() == Long.MAX_VALUE)
                                || (inodes > 0
                                        && inodes != Long.MAX_VALUE
                                        && cur.maxInodes() == Long.MAX_VALUE);
                if (retro || !s.tryReconfigureLimits(inodes, bytes)) {
                    throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                }
            };
        }

        @Override
        public String showOptions(Superblock sb) {
            SuperblockConfig c = sb.configAcquire();
            StringBuilder out = new StringBuilder();
            if (c.maxBytes() != defaults.maxBytes()) {
                long pages = c.maxBytes() == Long.MAX_VALUE ? 0 : c.maxBytes() / PAGE;
                out.append(",size=").append(pages * (PAGE / 1024)).append('k');
            }
            if (c.maxInodes() != defaults.maxInodes()) {
                out.append(",nr_inodes=")
                        .append(c.maxInodes() == Long.MAX_VALUE ? 0 : c.maxInodes());
            }
            if (mode != DEFAULT_MODE) {
                String m = Integer.toOctalString(mode);
                out.append(",mode=").append("000".substring(Math.min(3, m.length()))).append(m);
            }
            if (uid != 0) {
                out.append(",uid=").append(Integer.toUnsignedString(uid));
            }
            if (gid != 0) {
                out.append(",gid=").append(Integer.toUnsignedString(gid));
            }
            return out.toString();
        }
    }

    /**
     * tmpfs mount options, parsed; -1 for an option not given.
     *
     * @param bytes {@code size=} (or {@code nr_blocks=}) in bytes, whole pages; 0 for no limit
     * @param inodes {@code nr_inodes=}; 0 for no limit
     * @param mode permission bits of the root
     * @param uid owner of the root
     * @param gid group of the root
     */
    record Options(long bytes, long inodes, int mode, int uid, int gid) {
        /**
         * Parses an option string as {@code shmem_parse_one} does.
         *
         * @throws VfsException {@code EINVAL} for an unknown option or a bad value
         */
        static Options parse(String data, String target, long ramBytes) {
            long bytes = -1;
            long inodes = -1;
            int mode = -1;
            int uid = -1;
            int gid = -1;
            if (data != null) {
                for (String opt : data.split(",", -1)) {
                    if (opt.isEmpty()) {
                        continue; // an empty option is skipped, as vfs_parse_monolithic_sep does
                    }
                    int eq = opt.indexOf('=');
                    String key = eq < 0 ? opt : opt.substring(0, eq);
                    String value = eq < 0 ? null : opt.substring(eq + 1);
                    if (value == null || value.isEmpty()) {
                        // every tmpfs option SeqVFS takes needs a value (fs_param_is_string)
                        throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                    }
                    switch (key) {
                        case "size":
                            bytes = size(value, target, ramBytes);
                            break;
                        case "nr_blocks":
                            {
                                long pages = memparse(value, target);
                                if (pages > Long.MAX_VALUE / PAGE) {
                                    throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                                }
                                bytes = pages * PAGE;
                                break;
                            }
                        case "nr_inodes":
                            inodes = memparse(value, target);
                            if (Long.compareUnsigned(inodes, MAX_NR_INODES) > 0) {
                                throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                            }
                            break;
                        case "mode":
                            mode = (int) (parseUnsigned32(value, 8, target) & 07777);
                            break;
                        case "uid":
                            uid = id(parseUnsigned32(value, 0, target), target);
                            break;
                        case "gid":
                            gid = id(parseUnsigned32(value, 0, target), target);
                            break;
                        default:
                            throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                    }
                }
            }
            return new Options(bytes, inodes, mode, uid, gid);
        }

        /**
         * {@code size=}: {@code memparse}, then an optional {@code %} ({@link
         * HeapPool#percentOfRam}), then nothing; in bytes, rounded up to whole pages.
         */
        private static long size(String value, String target, long ramBytes) {
            if (!value.endsWith("%")) {
                return pagesOf(memparse(value, target), target) * PAGE;
            }
            long n = memparse(value.substring(0, value.length() - 1), target);
            try {
                return HeapPool.percentOfRam(n, ramBytes);
            } catch (ArithmeticException e) {
                throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
            }
        }

        /** {@code DIV_ROUND_UP(size, PAGE_SIZE)}, {@code EINVAL} past a long's bytes. */
        private static long pagesOf(long size, String target) {
            long pages =
                    Long.divideUnsigned(size, PAGE)
                            + (Long.remainderUnsigned(size, PAGE) == 0 ? 0 : 1);
            if (pages > Long.MAX_VALUE / PAGE) {
                throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
            }
            return pages;
        }

        /**
         * {@code memparse} followed by {@code if (*rest) goto bad_value}: {@code simple_strtoull(s,
         * &rest, 0)} (a {@code 0x} prefix before a hex digit is base 16, a leading {@code 0} base
         * 8, else base 10; no sign, no spaces), then one optional suffix, {@code K M G T P E} in
         * either case, each multiplying by 1024 once more than the last; nothing may follow. The
         * value is unsigned; {@code EINVAL} where it does not fit in 64 bits.
         */
        static long memparse(String s, String target) {
            int i = 0;
            int base = 10;
            if (s.length() > 1 && s.charAt(0) == '0') {
                if ((s.charAt(1) == 'x' || s.charAt(1) == 'X')
                        && s.length() > 2
                        && Character.digit(s.charAt(2), 16) >= 0) {
                    base = 16;
                    i = 2;
                } else {
                    base = 8;
                }
            }
            long v = 0; // no digit at all reads as 0, as simple_strtoull ("size=k" is 0)
            while (i < s.length()) {
                char c = s.charAt(i);
                int d = c < 128 ? Character.digit(c, base) : -1;
                if (d < 0) {
                    break;
                }
                if (Long.compareUnsigned(v, Long.divideUnsigned(-1L, base)) > 0) {
                    throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                }
                long next = v * base + d;
                if (Long.compareUnsigned(next, v * base) < 0) {
                    throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                }
                v = next;
                i++;
            }
            if (i < s.length()) {
                int shift;
                switch (s.charAt(i)) {
                    case 'k', 'K' -> shift = 10;
                    case 'm', 'M' -> shift = 20;
                    case 'g', 'G' -> shift = 30;
                    case 't', 'T' -> shift = 40;
                    case 'p', 'P' -> shift = 50;
                    case 'e', 'E' -> shift = 60;
                    default -> throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                }
                if (i + 1 != s.length() || (v != 0 && Long.numberOfLeadingZeros(v) < shift)) {
                    throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                }
                v <<= shift;
            }
            return v;
        }

        /**
         * {@code fs_param_is_uid}/{@code gid}: a 32-bit number but {@code (uid_t) -1}, which is no
         * id ({@code uid_valid}).
         */
        private static int id(long v, String target) {
            if (v == 0xFFFF_FFFFL) {
                throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
            }
            return (int) v;
        }

        /**
         * {@code fs_param_is_u32} (and {@code u32oct}): {@code kstrtouint}, digits of {@code base}
         * only (base 0: a {@code 0x} prefix before a hex digit is hex, a leading {@code 0} octal,
         * else decimal; a leading {@code +} allowed, a trailing newline too), within 32 bits.
         */
        private static long parseUnsigned32(String s, int base, String target) {
            String t = s.startsWith("+") ? s.substring(1) : s;
            if (t.endsWith("\n")) {
                t = t.substring(0, t.length() - 1);
            }
            if (base == 0) {
                if (t.length() > 2
                        && t.charAt(0) == '0'
                        && (t.charAt(1) == 'x' || t.charAt(1) == 'X')
                        && Character.digit(t.charAt(2), 16) >= 0) {
                    base = 16;
                    t = t.substring(2);
                } else {
                    base = t.length() > 1 && t.charAt(0) == '0' ? 8 : 10;
                }
            }
            if (t.isEmpty()) {
                throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
            }
            long v = 0;
            for (int i = 0; i < t.length(); i++) {
                int d = t.charAt(i) < 128 ? Character.digit(t.charAt(i), base) : -1;
                if (d < 0) {
                    throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                }
                v = v * base + d;
                if (v > 0xFFFF_FFFFL) {
                    throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
                }
            }
            return v;
        }
    }
}
