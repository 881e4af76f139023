package dev.seqvfs.engine.walk;

import dev.seqvfs.protocol.Credentials;

/**
 * What a walk needs from the task that asks: its root, its identity, and a handle that
 * procfs lookups may use to answer per-task names ({@code /proc/self}).
 */
public interface WalkContext {
    /** Returns the task's root directory (the walk never climbs above it with "..").  */
    VfsPath root();

    /** Returns the task's current directory. */
    VfsPath cwd();

    /** Returns the task's credentials. */
    Credentials cred();

    /** Returns the task's process id ({@code /proc/self} names it). */
    int pid();
}
