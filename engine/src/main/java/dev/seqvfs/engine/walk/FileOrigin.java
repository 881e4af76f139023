package dev.seqvfs.engine.walk;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.protocol.PathNames;
import java.util.concurrent.locks.StampedLock;

/**
 * Where a named file was opened from, for {@code /proc/<pid>/fd/N}: the directory it was found in
 * (through which mount) and the {@link Dentry} it was found through, or the directory itself. The
 * path is computed when read, as Linux's {@code d_path} of the file's dentry: directories above
 * follow their renames; the file follows the renames of the link it was opened through (with hard
 * links, that link only), by the forwarding references renames leave in the dentries they remove
 * ({@link Dentry#movedAcquire()}); once that link is unlinked (or replaced by a rename over it, or
 * its directory removed) the last path it had is shown with {@code " (deleted)"}. Checked against
 * the host ({@code proc_pid_readlink}, {@code d_path}; see {@code ProcTest}).
 *
 * <h2>Concurrency</h2>
 *
 * {@code mnt}, {@code startDir}, {@code startDentry} are final. {@code last} is a cache of a
 * binding found further along the forwarding chain (path compression, so repeated reads do not walk
 * a long chain again): written with release by readers, read with acquire; any value a reader
 * stores is a point of the same linear chain, so racing stores are harmless. A reader samples the
 * rename sequence ({@code tryOptimisticRead}) around its chain walk and repeats it, a few times at
 * most, when a cross-directory rename published meanwhile (that is the only writer with a window in
 * which a binding is removed before its twin is published); same-directory renames publish removal
 * and twin in one snapshot. Nothing here writes on the rename path.
 */
public final class FileOrigin {
    /** Chain-walk attempts before showing the last answer without a validated stamp. */
    private static final int ATTEMPTS = 4;

    /**
     * Longest chain followed in one read (a bound against a corrupt chain, not a limit in
     * practice).
     */
    private static final int MAX_HOPS = 1 << 24;

    private final VfsMount mnt;
    private final DirectoryInode startDir;
    private final String startName;
    private final Dentry startDentry;
    private volatile Dentry.Moved last;

    /**
     * @param mnt the mount
     * @param dir the parent directory, or the opened directory itself when {@code name} is null
     * @param name the file's name in {@code dir} (internal form), or {@code null}
     * @param dentry the dentry the file was found through in {@code dir}, or {@code null} when
     *     unknown (the name is then shown as it was, with {@code " (deleted)"} once the inode has
     *     no link left)
     */
    public FileOrigin(VfsMount mnt, DirectoryInode dir, String name, Dentry dentry) {
        this.mnt = mnt;
        this.startDir = dir;
        this.startName = name;
        this.startDentry = name == null ? null : dentry;
    }

    /**
     * An origin for a directory, or a file whose dentry is unknown.
     *
     * @param mnt the mount it was opened through
     * @param dir the directory it was found in
     * @param name its name there, or {@code null} for {@code dir} itself
     */
    public FileOrigin(VfsMount mnt, DirectoryInode dir, String name) {
        this(mnt, dir, name, null);
    }

    /**
     * {@return the directory the file was found in at its open (the opened directory itself when
     * {@link #name()} is {@code null})} Renames after the open are not followed here: inotify
     * reports a file's events to the directory and name it was opened by.
     */
    public DirectoryInode dir() {
        return startDir;
    }

    /** {@return the name the file was opened by in {@link #dir()}, or {@code null}} */
    public String name() {
        return startName;
    }

    /**
     * {@return the path to show for {@code inode} (external form)} Never blocks; allocates the
     * string.
     *
     * @param inode the inode
     */
    public String display(Inode inode) {
        if (startDentry == null) {
            String p = DPath.of(mnt, startDir, startName);
            if (startName != null
                    && inode.attrsAcquire().nlink() == 0
                    && !p.endsWith(" (deleted)")) {
                p += " (deleted)";
            }
            return PathNames.toExternal(p);
        }
        StampedLock renames = mnt.superblock().locks().rename;
        String shown = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            long stamp = renames.tryOptimisticRead();
            Dentry.Moved from = last;
            DirectoryInode dir = from == null ? startDir : from.dir();
            Dentry d = from == null ? startDentry : from.dentry();
            boolean deleted = false;
            for (int hop = 0; ; hop++) {
                if (dir.snapshotAcquire().lookup(d.name()) == d) {
                    break;
                }
                Dentry.Moved m = d.movedAcquire();
                if (m == null || hop >= MAX_HOPS) {
                    deleted = true;
                    break;
                }
                dir = m.dir();
                d = m.dentry();
            }
            String p = DPath.of(mnt, dir, d.name());
            if (deleted && !p.endsWith(" (deleted)")) {
                p += " (deleted)";
            }
            shown = p;
            if (stamp != 0 && renames.validate(stamp)) {
                if (d != (from == null ? startDentry : from.dentry())) {
                    last = new Dentry.Moved(dir, d);
                }
                break;
            }
        }
        return PathNames.toExternal(shown);
    }
}
