package dev.seqvfs.engine;

import com.typesafe.config.Config;
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
        String rootOptions,
        boolean stackTraces) {

    /** Reads the {@code seqvfs} section of {@code c}. */
    public static VfsConfig from(Config c) {
        Config s = c.getConfig("seqvfs");
        long maxInodes = s.getLong("tmpfs.max-inodes");
        long maxBytes = s.getBytes("tmpfs.max-bytes");
        SuperblockConfig tmpfs =
                new SuperblockConfig(
                        maxInodes <= 0 ? Long.MAX_VALUE : maxInodes,
                        maxBytes <= 0 ? Long.MAX_VALUE : maxBytes,
                        s.getInt("tmpfs.block-size"),
                        s.getInt("tmpfs.inode-batch"));
        return new VfsConfig(
                s.getDuration("ask-timeout"),
                s.getInt("walk.optimistic-attempts"),
                s.getInt("fd.rlimit-nofile"),
                tmpfs,
                Integer.parseInt(s.getString("root.mode"), 8),
                s.getInt("root.uid"),
                s.getInt("root.gid"),
                "seqvfs.dispatcher",
                s.getBoolean("anon.shared-root"),
                s.getBoolean("proc.mount"),
                s.getString("root.type"),
                s.getString("root.options"),
                s.getBoolean("errors.stack-traces"));
    }
}
