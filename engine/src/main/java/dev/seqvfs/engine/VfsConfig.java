package dev.seqvfs.engine;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValueType;
import dev.seqvfs.engine.sb.HeapPool;
import dev.seqvfs.engine.sb.SuperblockConfig;
import java.time.Duration;

/**
 * The settings of one SeqVFS instance, read from the {@code seqvfs} section of a Typesafe {@link
 * Config} (defaults in {@code reference.conf} of the config module).
 *
 * @param askTimeout how long a blocking call waits for an actor's reply ({@code EIO} after)
 * @param optimisticAttempts lock-free walk attempts before the ref-walk
 * @param rlimitNofile {@code RLIMIT_NOFILE} of new descriptor tables
 * @param tmpfs limits of tmpfs superblocks
 * @param rootMode permission bits of the root directory
 * @param rootUid owner of the root directory
 * @param rootGid group of the root directory
 * @param dispatcher config path of the dispatcher the engine's actors run on
 * @param anonSharedRoot whether anonymous inodes use the old shared pseudo-root (seed 000's
 *     "before")
 * @param mountProc whether a new instance mounts procfs at /proc
 * @param rootType the file-system type of the instance's root ({@code mount(2)} name, {@code tmpfs}
 *     by default)
 * @param rootSource the root mount's source ({@code mount(2)}'s {@code source}: for {@code
 *     persistfs} the data directory), or {@code null} for none
 * @param rootOptions the root mount's option string ({@code size=1m}), or empty
 * @param stackTraces whether an error a task throws to its caller carries the caller's stack
 */
record VfsConfig(
        Duration askTimeout,
        int optimisticAttempts,
        int rlimitNofile,
        SuperblockConfig tmpfs,
        int rootMode,
        int rootUid,
        int rootGid,
        String dispatcher,
        boolean anonSharedRoot,
        boolean mountProc,
        String rootType,
        String rootSource,
        String rootOptions,
        boolean stackTraces) {

    /** Linux's default {@code fs.nr_open}: the most {@code RLIMIT_NOFILE} may be. */
    static final int NR_OPEN = 1 << 20;

    /** The page size sizes are rounded up to. */
    private static final long PAGE = 4096;

    /**
     * Reads the {@code seqvfs} section of {@code c}, checking every value against the range {@code
     * reference.conf} gives for it.
     *
     * @throws ConfigException.BadValue naming the key ({@code seqvfs.fd.rlimit-nofile}) and what it
     *     may be, for a value out of range or a combination that cannot work ({@code root.type =
     *     proc} with {@code proc.mount = on})
     * @throws ConfigException for a missing key or one of the wrong type
     */
    public static VfsConfig from(Config c) {
        return from(c, HeapPool.ramBytes());
    }

    /**
     * Reads the {@code seqvfs} section of {@code c} as {@link #from(Config)} does, with {@code
     * ramBytes} as the memory that percentages ({@code tmpfs.max-bytes = "50%"}) are of.
     *
     * @param c the configuration
     * @param ramBytes the "RAM" in bytes ({@code Runtime.maxMemory()} but in tests)
     * @throws ConfigException.BadValue for a value out of range (see {@link #from(Config)})
     */
    static VfsConfig from(Config c, long ramBytes) {
        Config s = c.getConfig("seqvfs");
        long maxInodes = inodes(s, "tmpfs.max-inodes", ramBytes);
        long maxBytes = bytes(s, "tmpfs.max-bytes", ramBytes);
        int blockSize = s.getInt("tmpfs.block-size");
        if (blockSize < 512 || blockSize > 65536 || Integer.bitCount(blockSize) != 1) {
            throw bad(
                    s,
                    "tmpfs.block-size",
                    "must be a power of two from 512 to 65536, not " + blockSize);
        }
        int inodeBatch = (int) within(s, "tmpfs.inode-batch", 1, 1 << 20);
        SuperblockConfig tmpfs =
                new SuperblockConfig(
                        maxInodes == 0 ? Long.MAX_VALUE : maxInodes,
                        maxBytes == 0 ? Long.MAX_VALUE : maxBytes,
                        blockSize,
                        inodeBatch);
        Duration askTimeout = s.getDuration("ask-timeout");
        if (askTimeout.isNegative() || askTimeout.isZero()) {
            throw bad(s, "ask-timeout", "must be a positive duration, not " + askTimeout);
        }
        String rootType = s.getString("root.type");
        boolean mountProc = s.getBoolean("proc.mount");
        if (rootType.equals("proc") && mountProc) {
            throw bad(
                    s,
                    "root.type",
                    "proc as the root cannot hold the /proc mount point: set seqvfs.proc.mount ="
                            + " off, or use tmpfs");
        }
        return new VfsConfig(
                askTimeout,
                (int) within(s, "walk.optimistic-attempts", 1, 1000),
                (int) within(s, "fd.rlimit-nofile", 0, NR_OPEN),
                tmpfs,
                rootMode(s),
                (int) within(s, "root.uid", 0, Integer.MAX_VALUE),
                (int) within(s, "root.gid", 0, Integer.MAX_VALUE),
                "seqvfs.dispatcher",
                s.getBoolean("anon.shared-root"),
                mountProc,
                rootType,
                s.getString("root.source").isEmpty() ? null : s.getString("root.source"),
                s.getString("root.options"),
                s.getBoolean("errors.stack-traces"));
    }

    /** {@code root.mode}: an octal string of permission bits, {@code "0"} to {@code "7777"}. */
    private static int rootMode(Config s) {
        String m = s.getString("root.mode");
        int mode;
        try {
            mode = Integer.parseInt(m, 8);
        } catch (NumberFormatException e) {
            mode = -1;
        }
        if (mode < 0 || mode > 07777 || m.startsWith("+")) {
            throw bad(
                    s,
                    "root.mode",
                    "must be octal permission bits from \"0\" to \"7777\", not \"" + m + "\"");
        }
        return mode;
    }

    /**
     * Reads a size in bytes at {@code path}: a number or HOCON's {@code 64m}, or {@code "N%"} of
     * {@code ramBytes} as {@code tmpfs(5)}'s {@code size=N%} ({@link HeapPool#percentOfRam});
     * rounded up to whole 4096-byte pages, as {@code size=} is; 0 for no limit.
     */
    private static long bytes(Config s, String path, long ramBytes) {
        Long n = percent(s, path);
        try {
            if (n != null) {
                return HeapPool.percentOfRam(n, ramBytes);
            }
            long b = s.getBytes(path);
            return b > Long.MAX_VALUE / PAGE * PAGE ? Long.MAX_VALUE : (b + PAGE - 1) / PAGE * PAGE;
        } catch (ArithmeticException | ConfigException.BadValue e) {
            throw bad(
                    s,
                    path,
                    "must be a size of at least 0 bytes (64m, 1g) or a percentage of the heap"
                            + " (\"50%\") below 2^63 bytes, not "
                            + s.getValue(path).render());
        }
    }

    /**
     * Reads an inode count at {@code path}: a number, at least 0, or {@code "N%"} of {@code
     * ramBytes}' 4096-byte pages ({@code "50%"}: half of them, as Linux's default {@code nr_inodes}
     * is half the RAM's pages; at least 1 for {@code N > 0}); 0 for no limit.
     */
    private static long inodes(Config s, String path, long ramBytes) {
        Long n = percent(s, path);
        if (n == null) {
            try {
                return atLeast(s, path, s.getLong(path), 0);
            } catch (ConfigException.WrongType e) {
                throw bad(s, path, "must be a number or \"N%\", not " + s.getValue(path).render());
            }
        }
        if (n == 0 || ramBytes == Long.MAX_VALUE) {
            return n == 0 ? 0 : Long.MAX_VALUE;
        }
        long pages = ramBytes / PAGE;
        if (n > Long.MAX_VALUE / Math.max(1, pages)) {
            throw bad(s, path, "must not exceed 2^63 - 1 inodes, not " + n + "%");
        }
        return Math.max(1, pages * n / 100);
    }

    /**
     * {@return {@code N} if the value at {@code path} is a string {@code "N%"} (a decimal {@code N}
     * of at least 0), else {@code null}}
     */
    private static Long percent(Config s, String path) {
        if (s.getValue(path).valueType() != ConfigValueType.STRING) {
            return null;
        }
        String v = s.getString(path).trim();
        if (!v.endsWith("%")) {
            return null;
        }
        String digits = v.substring(0, v.length() - 1).trim();
        if (digits.isEmpty() || !digits.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            throw bad(s, path, "must be a number or \"N%\" with a decimal N, not \"" + v + "\"");
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw bad(s, path, "must have a percentage below 2^63, not \"" + v + "\"");
        }
    }

    /** Reads an integer at {@code path}, checked to lie in {@code [min, max]}. */
    private static long within(Config s, String path, long min, long max) {
        long v = s.getLong(path);
        if (v < min || v > max) {
            throw bad(s, path, "must be an integer from " + min + " to " + max + ", not " + v);
        }
        return v;
    }

    private static long atLeast(Config s, String path, long v, long min) {
        if (v < min) {
            throw bad(s, path, "must be at least " + min + ", not " + v);
        }
        return v;
    }

    /**
     * {@return a {@link ConfigException.BadValue} for {@code seqvfs.<path>}, with where that value
     * was set and {@code why}}
     */
    static ConfigException.BadValue bad(Config s, String path, String why) {
        return new ConfigException.BadValue(s.getValue(path).origin(), "seqvfs." + path, why);
    }

    /** {@return {@link #bad(Config, String, String)} with {@code cause} as its cause} */
    static ConfigException.BadValue bad(Config s, String path, String why, Throwable cause) {
        return new ConfigException.BadValue(
                s.getValue(path).origin(), "seqvfs." + path, why, cause);
    }
}
