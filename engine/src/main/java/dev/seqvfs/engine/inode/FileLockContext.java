package dev.seqvfs.engine.inode;

/**
 * The release side of an inode's advisory locks, as descriptor tables and open files see
 * it ({@code locks_remove_file}, {@code locks_remove_posix}). Implemented by the engine's
 * lock table; thread-safe; never blocks beyond its own short monitor.
 */
public interface FileLockContext {
    /** Drops the {@code flock} lock of an open file description (its last descriptor closed). */
    void releaseFlock(Object owner);

    /** Drops every POSIX lock of a process (descriptor table) that closed a descriptor of this file. */
    void releasePosix(Object owner);
}
