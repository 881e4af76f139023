package dev.seqvfs.load;

/**
 * A load test that cannot run or did not hold: bad input (a missing tree, a corrupt zip),
 * or a check that failed (a stat that disagrees with the source, a leaked inode). The
 * command prints its message, without a stack trace, and exits with status 1.
 */
public final class LoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates one with the message the user will read. */
    public LoadException(String message) {
        super(message);
    }

    /** Creates one with the message the user will read and its cause. */
    public LoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
