package dev.seqvfs.actors.fdtable;

import dev.seqvfs.protocol.Errno;

/**
 * The reply of a descriptor-table command.
 *
 * @param error {@code null} on success
 * @param fd the descriptor installed or closed
 * @param file the open file it pointed at (for close), or {@code null}
 */
public record FdReply(Errno error, int fd, OpenFile file) {
    /** Success. */
    public static FdReply ok(int fd, OpenFile file) {
        return new FdReply(null, fd, file);
    }

    /** Failure. */
    public static FdReply error(Errno e) {
        return new FdReply(e, -1, null);
    }
}
