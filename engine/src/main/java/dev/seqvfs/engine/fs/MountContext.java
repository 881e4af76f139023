package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockConfig;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * What a {@link FileSystemType} gets to build a superblock ({@code struct fs_context}): the
 * request's source, flags and option string, the instance's default limits, a way to make a
 * superblock on the instance's device numbers, clock and namespace locks, and the instance's task
 * registry (for types that show tasks, as procfs does).
 *
 * <p>Valid for the one {@link FileSystemType#mount} call it is passed to; not thread-safe.
 */
public interface MountContext {
    /**
     * {@return {@code mount(2)}'s source argument (ignored by memory-backed types), or {@code
     * null}}
     */
    String source();

    /** {@return where the file system is being mounted, for error messages (external form)} */
    String target();

    /** {@return {@code mount(2)}'s {@code MS_*} flags} */
    long flags();

    /** {@return the option string ({@code size=1m,mode=755}), or {@code null} for none} */
    String data();

    /**
     * {@return the instance's default limits for a new superblock ({@code seqvfs.tmpfs} in the
     * configuration: by default half the heap and half its pages, as Linux's tmpfs takes half the
     * RAM)}
     */
    SuperblockConfig defaultLimits();

    /**
     * {@return the mode bits a new superblock's root gets unless the options say otherwise: {@code
     * 01777} for a {@code mount(2)}, {@code seqvfs.root.mode} for the instance's root}
     */
    int defaultRootMode();

    /**
     * {@return the owner a new superblock's root gets unless the options say otherwise (0, or
     * {@code seqvfs.root.uid})}
     */
    int defaultRootUid();

    /**
     * {@return the group a new superblock's root gets unless the options say otherwise (0, or
     * {@code seqvfs.root.gid})}
     */
    int defaultRootGid();

    /** {@return the instance's registered file-system types ({@code /proc/filesystems})} */
    FileSystemTypes types();

    /** {@return the instance's task registry, for types whose contents describe tasks} */
    TaskRegistry tasks();

    /**
     * {@return the actor system the instance's actors run in} A persistent type spawns its
     * journals' entities there (as system actors) and reads its journal plugins' configuration from
     * it.
     */
    ActorSystem<?> system();

    /**
     * {@return the instance's whole configuration} A type reads its own section here ({@code
     * seqvfs.<type>}), not from {@link #system()}'s settings: instances whose configurations differ
     * only inside {@code seqvfs} share one actor system, whose settings are the first one's.
     */
    com.typesafe.config.Config config();

    /**
     * Makes a superblock of {@code type} with an empty root directory: a fresh device number, the
     * instance's clock and rename/mount locks. Its actor is started by the engine after {@link
     * FileSystemType#mount} returns.
     *
     * @param type the file-system type
     * @param ops the type's superblock operations
     * @param limits its inode and byte limits
     * @param rootMode permission bits of its root directory
     * @param uid owner of its root directory
     * @param gid group of its root directory
     * @return the superblock, its actor not started
     */
    Superblock newSuperblock(
            FileSystemType type,
            SuperOperations ops,
            SuperblockConfig limits,
            int rootMode,
            int uid,
            int gid);
}
