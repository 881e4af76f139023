package dev.seqvfs.engine.walk;

import dev.seqvfs.protocol.Credentials;

/**
 * What a walk needs from the task that asks: its root, its identity, and a handle that procfs
 * lookups may use to answer per-task names ({@code /proc/self}).
 */
public interface WalkContext {
    /** {@return the task's root directory (the walk never climbs above it with "..")} */
    VfsPath root();

    /** {@return the task's current directory} */
    VfsPath cwd();

    /** {@return the task's credentials} */
    Credentials cred();

    /** {@return the task's process id ({@code /proc/self} names it)} */
    int pid();
}
