package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.dir.DirJournal;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import org.apache.pekko.actor.typed.Behavior;

/**
 * What one file-system type does for its superblocks ({@code struct super_operations}, with {@code
 * alloc_inode} and the inode and file operations it installs): its {@code statfs} magic number, how
 * it instantiates the inodes its directories create, the operations those inodes get, the behavior
 * its directory actors run, {@code sync}, what a remount's options change ({@link #reconfigure},
 * Linux's {@code fs_context_operations.reconfigure}) and how {@code /proc/mounts} shows them
 * ({@link #showOptions}, {@code super_operations.show_options}).
 *
 * <p>The defaults are those of a memory-backed type such as tmpfs: generic inodes (whose regular
 * files keep their pages in a {@code FileData}), the generic {@link DirectoryActor}, and a {@code
 * sync} with nothing to write back. A persistent type overrides {@link #directoryBehavior} with an
 * event-sourced one and {@link #sync}.
 *
 * <p>Implementations are called from directory actors (instantiation), the superblock actor
 * (spawning directory actors) and any task ({@code statfs}, {@code sync}); they must be thread-safe
 * and must not block, except {@link #sync}, which may wait for write-back.
 */
public interface SuperOperations {
    /**
     * {@return the {@code f_type} that {@code statfs(2)} reports, for example {@link
     * StatFs#TMPFS_MAGIC}}
     */
    long magic();

    /** {@return the operations of the inodes this type instantiates ({@code i_op})} */
    default InodeOperations inodeOps() {
        return InodeOperations.GENERIC;
    }

    /**
     * {@return the operations files of {@code type} get when opened ({@code i_fop}): for a
     * directory, {@code getdents} and {@code lseek}; for a regular file, reads and writes of its
     * data} Named FIFOs and sockets ignore them (a FIFO's open attaches its pipe).
     *
     * @param type the file type
     */
    FileOperations fileOps(FileType type);

    /**
     * {@return whether {@code open(O_TMPFILE)} may make a nameless file in this type's directories
     * (its {@code ->tmpfile}); {@code EOPNOTSUPP} otherwise, as {@code open(2)} documents} The
     * default is {@code true} for a type whose directories the engine's actors change (tmpfs); a
     * type whose journal records files by their names (persistfs) says {@code false}.
     */
    default boolean tmpfile() {
        return true;
    }

    /**
     * Instantiates an inode that a directory of {@code sb} creates ({@code alloc_inode} and the
     * type's {@code ->create}/{@code ->mkdir}/{@code ->symlink}/{@code ->mknod}): the directory
     * actor has charged it and chosen its number and attributes. Called on the directory actor's
     * thread (for {@code open(O_TMPFILE)}'s nameless file, {@code parent} with no {@code name}, on
     * the opening thread); must not block.
     *
     * @param sb the superblock
     * @param ino its inode number
     * @param attrs its initial attributes; {@code attrs.type()} says what to make
     * @param parent the directory it is created in (for a directory, its parent link), or {@code
     *     null} for a superblock's root
     * @param name its name in {@code parent} (internal form), or {@code null} for a root
     * @param linkTarget the target of a symbolic link (internal form), else {@code null}
     * @return the new inode
     */
    default Inode newInode(
            Superblock sb,
            long ino,
            InodeAttrs attrs,
            DirectoryInode parent,
            String name,
            String linkTarget) {
        FileType type = attrs.type();
        switch (type) {
            case DIRECTORY:
                return new DirectoryInode(ino, sb, inodeOps(), fileOps(type), attrs, parent, name);
            case SYMLINK:
                return new SymlinkInode(ino, sb, inodeOps(), attrs, linkTarget);
            case REGULAR:
                return new RegularInode(ino, sb, inodeOps(), fileOps(type), attrs);
            default:
                return new SpecialInode(ino, sb, inodeOps(), fileOps(type), attrs);
        }
    }

    /**
     * {@return the behavior of the actor that will be the only writer of {@code dir}: the generic
     * {@link DirectoryActor} by default} Called by the superblock's actor when the directory's
     * first write arrives.
     *
     * @param dir the directory
     * @param sb the superblock
     */
    default Behavior<DirectoryActor.Command> directoryBehavior(DirectoryInode dir, Superblock sb) {
        return DirectoryActor.create(dir, sb);
    }

    /**
     * {@return the journal of {@code dir}'s changes, or {@code null} (the default: a memory-backed
     * type keeps nothing)} A persistent type returns one: the directory's actor then hands it every
     * change it publishes, one list per drained batch, and answers the batch's callers only once
     * the journal says the list is durable (see {@link DirJournal}). Called once per directory
     * actor, on its thread, when it starts; must not block.
     *
     * @param dir the directory
     * @param sb its superblock
     */
    default DirJournal journal(DirectoryInode dir, Superblock sb) {
        return null;
    }

    /**
     * {@return the journal of this superblock's cross-directory renames, or {@code null} (the
     * default)} A type whose directories journal apart ({@link #journal}) returns one: the rename
     * coordinator then hands it every cross-directory rename it publishes and answers the caller
     * only once the journal says the rename is durable in both parents (see {@link
     * dev.seqvfs.engine.dir.RenameJournal}). Called once, on the superblock actor's thread, when it
     * starts; must not block.
     *
     * @param sb the superblock
     */
    default dev.seqvfs.engine.dir.RenameJournal renameJournal(Superblock sb) {
        return null;
    }

    /**
     * {@return whether {@code rename(2)} may move a name from one directory to another of this
     * superblock} True by default. A type whose directories journal apart ({@link #journal}) and
     * that cannot make such a move atomic across both journals ({@link #renameJournal}) answers
     * {@code false}: the move is then {@code EXDEV}, which {@code mv} and {@code Files.move} answer
     * by copying, as across file systems. Must be constant; thread-safe.
     */
    default boolean renamesAcrossDirectories() {
        return true;
    }

    /**
     * {@code kill_sb}: the superblock's last mount is gone and every one of its directory actors
     * has stopped (their last changes handed to their journals). A persistent type stops its
     * journals here, after what they hold is written. Called once, on the superblock actor's
     * thread; must not block. The default does nothing.
     *
     * @param sb the superblock
     */
    default void kill(Superblock sb) {}

    /**
     * {@return a stage that completes once what {@link #kill} started is done} A persistent type's
     * completes after its last write-back and the close of its store; {@link
     * dev.seqvfs.engine.SeqVfs#close} waits for it (bounded), so that a program that closes the
     * instance and exits loses nothing that the unmount writes back. The default, and a superblock
     * not yet killed, is already complete. Thread-safe.
     *
     * @param sb the superblock
     */
    default java.util.concurrent.CompletionStage<Void> killed(Superblock sb) {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /**
     * {@code evict_inode}: {@code inode} is gone for good (its last name removed and its last
     * descriptor closed, or its create undone); a persistent type forgets what it stored of it.
     * Called on the thread that freed it (an actor's, often); must not block. The default does
     * nothing.
     *
     * @param sb the superblock
     * @param inode the freed inode
     */
    default void evictInode(Superblock sb, Inode inode) {}

    /**
     * Linux's {@code ->dirty_inode}: {@code inode}'s attributes changed where no directory's
     * journal saw it, through a descriptor that names no parent ({@code fchmod}, {@code fchown},
     * {@code futimens}, {@code utimensat} or {@code fchownat} with an empty path), or a write
     * through a named FIFO moved its times ({@code pipe_write}'s {@code file_update_time}). A
     * durable type records that the inode must be written back. Called on the caller's thread after
     * the change is published; must not block, except that a type may write back before returning
     * on a synchronous mount, as it does for a write there. The default does nothing.
     *
     * @param sb the inode's superblock
     * @param inode the changed inode (not a live directory: its actor journals its own changes)
     */
    default void dirtyInode(Superblock sb, Inode inode) {}

    /**
     * An explicit attribute change through a descriptor ({@code fchmod}, {@code fchown}, {@code
     * futimens}, {@code fsetxattr}, the {@code AT_EMPTY_PATH} forms): what a FUSE server makes of
     * every {@code chmod}, {@code chown}, {@code touch} and {@code setfattr} by path. Called on the
     * caller's thread after the change is published; a durable type may write the inode back before
     * returning, so that the change is as durable as the same change by path. The default is {@link
     * #dirtyInode}.
     *
     * @param sb the inode's superblock
     * @param inode the changed inode (not a live directory)
     */
    default void attrsChanged(Superblock sb, Inode inode) {
        dirtyInode(sb, inode);
    }

    /**
     * Told that {@code sb} has now given inode numbers below {@code end} (a directory actor took a
     * batch of them): a persistent type keeps a durable high-water mark ahead of it, so a number is
     * never given twice across restarts. Called on the taking actor's thread, often; must be cheap
     * and must not block. The default does nothing.
     *
     * @param sb the superblock
     * @param end one past the highest number given
     */
    default void inodeNumbersGiven(Superblock sb, long end) {}

    /**
     * Answers {@code statfs(2)}: by default from the superblock's counters ({@link
     * Superblock#genericStatfs}) with this type's {@link #magic()}. Lock-free.
     *
     * @param sb the superblock
     * @param mountReadOnly whether the vfsmount it was reached through is read-only
     * @return the file system's statistics
     */
    default StatFs statfs(Superblock sb, boolean mountReadOnly) {
        return sb.genericStatfs(magic(), mountReadOnly);
    }

    /**
     * {@return whether this type stores extended attributes} True by default (tmpfs's {@code
     * user.}, {@code trusted.} and {@code security.} handlers); a type without xattr handlers
     * (procfs) answers {@code false}, and then {@code setxattr}, {@code getxattr} and {@code
     * removexattr} are {@code EOPNOTSUPP} and {@code listxattr} lists nothing, as Linux's {@code
     * xattr_resolve_name} with no handlers. Must be constant; thread-safe.
     */
    default boolean hasXattrs() {
        return true;
    }

    /**
     * {@code sync_fs}: makes everything written to {@code sb} durable. A memory-backed type has
     * nothing to write back; the default returns at once.
     *
     * @param sb the superblock
     */
    default void sync(Superblock sb) {}

    /**
     * What a remount's options change, checked and applied at once on the superblock's actor
     * ({@code reconfigure}, after {@code parse_param} accepted every option). Implementations are
     * immutable; {@link #apply} runs on the superblock's actor, inside a read-only remount's write
     * hold when there is one, and must not block.
     */
    @FunctionalInterface
    interface Reconfiguration {
        /** Changes nothing: a remount whose options ask for no change. */
        Reconfiguration NONE = sb -> {};

        /**
         * Checks the options against the superblock's state now and applies them, all or nothing.
         *
         * @param sb the superblock being remounted
         * @throws VfsException {@code EINVAL} if they do not fit its state now (a limit below what
         *     is in use); nothing changed then
         */
        void apply(Superblock sb);
    }

    /**
     * Parses the options of {@code mount(2)} with {@code MS_REMOUNT} (not {@code MS_BIND}): {@code
     * parse_monolithic} and {@code parse_param} of Linux's reconfiguration context. Called on the
     * remounting task's thread before anything changes, so a bad option fails with nothing changed
     * and before the read-only check ({@code EBUSY}). The default accepts no option: {@code null}
     * or blank data is no change, anything else {@code EINVAL} (procfs in SeqVFS takes none).
     * Thread-safe; must not block.
     *
     * @param sb the superblock being remounted
     * @param data the option string, or {@code null}
     * @param target the mount point, for the error (external form)
     * @return what the options change, applied later on the superblock's actor
     * @throws VfsException {@code EINVAL} for an option the type does not take or a bad value
     */
    default Reconfiguration reconfigure(Superblock sb, String data, String target) {
        if (data == null || data.isBlank()) {
            return Reconfiguration.NONE;
        }
        throw new VfsException(Errno.EINVAL, Syscall.MOUNT, target);
    }

    /**
     * Shows the superblock's options as {@code /proc/mounts} lists them after the mount flags
     * ({@code super_operations.show_options}): each option preceded by a comma, only those that
     * differ from the type's defaults, in the type's order; the empty string when there are none
     * (the default). Lock-free: reads what the superblock publishes; thread-safe.
     *
     * @param sb the superblock
     * @return the options, {@code ",size=64k,mode=700"} for example, or {@code ""}
     */
    default String showOptions(Superblock sb) {
        return "";
    }
}
