package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.mount.MountTable;
import dev.seqvfs.engine.walk.VfsPath;
import java.util.List;

/**
 * What a file-system type that shows tasks (procfs) may read of the instance: its tasks,
 * their descriptor tables and working directories, and the mount table. Implemented by the
 * engine; thread-safe, lock-free reads.
 */
public interface TaskRegistry {
    /** Returns the ids of live tasks, ascending. */
    List<Integer> pids();

    /** Returns the descriptor table of task {@code pid}, or {@code null} if there is none. */
    FdTable fdTable(int pid);

    /** Returns the working directory of task {@code pid}, or {@code null}. */
    VfsPath cwd(int pid);

    /** Returns the uid of task {@code pid}, or -1. */
    int uid(int pid);

    /** Returns the mount table. */
    MountTable mounts();

    /** Returns what {@code readlink} shows for an open file: its path, {@code pipe:[ino]}, ... */
    String describe(OpenFile f);
}
