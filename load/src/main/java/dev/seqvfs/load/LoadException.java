package dev.seqvfs.load;

/**
 * A load test that cannot run or did not hold: bad input (a missing tree, a corrupt zip), or a
 * check that failed (a stat that disagrees with the source, a leaked inode). The command prints its
 * message on one line, without a stack trace, and exits with status 2 for bad input ({@link
 * #usage}) or 1 for a failed run.
 */
public final class LoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whether the input was bad (exit 2) rather than the run failing (exit 1). */
    private final boolean usage;

    /** Creates one with the message the user will read. */
    public LoadException(String message) {
        super(message);
        this.usage = false;
    }

    /** Creates one with the message the user will read and its cause. */
    public LoadException(String message, Throwable cause) {
        super(message, cause);
        this.usage = false;
    }

    private LoadException(String message, Throwable cause, boolean usage) {
        super(message, cause);
        this.usage = usage;
    }

    /**
     * Returns one for bad input (an option out of range, a missing input file, an output path that
     * cannot be written): the command exits with 2, as picocli does for a bad option.
     */
    public static LoadException usage(String message) {
        return new LoadException(message, null, true);
    }

    /** Like {@link #usage(String)}, with a cause. */
    public static LoadException usage(String message, Throwable cause) {
        return new LoadException(message, cause, true);
    }

    /** Returns whether this reports bad input (exit 2) rather than a failed run (exit 1). */
    public boolean isUsage() {
        return usage;
    }
}
