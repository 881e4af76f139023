package dev.seqvfs.engine.fs;

import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.mount.MountTable;
import dev.seqvfs.engine.walk.VfsPath;
import java.util.List;

/**
 * What a file-system type that shows tasks (procfs) may read of the instance: its tasks, their
 * descriptor tables and working directories, and the mount table. Implemented by the engine;
 * thread-safe, lock-free reads.
 */
public interface TaskRegistry {
    /** {@return the ids of live tasks, ascending} */
    List<Integer> pids();

    /**
     * {@return the descriptor table of task {@code pid}, or {@code null} if there is none}
     *
     * @param pid the task's process id
     */
    FdTable fdTable(int pid);

    /**
     * {@return the working directory of task {@code pid}, or {@code null}}
     *
     * @param pid the task's process id
     */
    VfsPath cwd(int pid);

    /**
     * {@return the uid of task {@code pid}, or -1}
     *
     * @param pid the task's process id
     */
    int uid(int pid);

    /** {@return the mount table} */
    MountTable mounts();

    /**
     * {@return what {@code readlink} shows for an open file: its path, {@code pipe:[ino]}, ..}
     *
     * @param f the open file
     */
    String describe(OpenFile f);
}
