package dev.seqvfs.engine.fdtable;

/**
 * What an open file does beyond the generic calls ({@code struct file_operations}):
 * implemented by the engine for pipe ends, sockets and other anonymous files. Regular
 * files and directories use {@link #NONE}.
 *
 * <p>Implementations must be thread-safe and must not block in {@link #release}.
 */
public interface FileOps {
    /** No special behaviour. */
    FileOps NONE = new FileOps() { };

    /**
     * Called once, when the last descriptor of the open file description is closed
     * ({@code ->release}), before the inode's open count drops.
     */
    default void release(OpenFile file) {
    }
}
