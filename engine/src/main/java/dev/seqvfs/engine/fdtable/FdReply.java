package dev.seqvfs.engine.fdtable;

import dev.seqvfs.protocol.Errno;

/**
 * The reply of a descriptor-table command.
 *
 * @param error {@code null} on success
 * @param fd the descriptor installed or closed (or a count, where the command says so)
 * @param file the open file it pointed at (for close), or {@code null}
 * @param fds the descriptors of an {@code InstallAll}, else {@code null}
 */
@SuppressWarnings("ArrayRecordComponent") // fds goes to the one caller; replies are never compared
public record FdReply(Errno error, int fd, OpenFile file, int[] fds) {
    /**
     * Success.
     *
     * @param fd the descriptor
     * @param file the open file, or {@code null}
     * @return a reply with no errno
     */
    public static FdReply ok(int fd, OpenFile file) {
        return new FdReply(null, fd, file, null);
    }

    /**
     * Success of an {@code InstallAll}.
     *
     * @param fds the descriptors installed, in order
     * @return a reply with no errno
     */
    public static FdReply okAll(int[] fds) {
        return new FdReply(null, fds[0], null, fds);
    }

    /**
     * Failure.
     *
     * @param e the errno
     * @return a failed reply
     */
    public static FdReply error(Errno e) {
        return new FdReply(e, -1, null, null);
    }
}
