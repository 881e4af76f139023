package dev.seqvfs.fuse;

/**
 * A mount that could not be made, with a one-line message that says why and what to do (the package
 * to install, the directory to pick) and the {@link Reason}.
 */
public final class FuseMountException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a mount failed. */
    public enum Reason {
        /** libfuse 2 ({@code libfuse.so.2}), {@code /dev/fuse} or {@code fusermount} is missing. */
        FUSE_MISSING,
        /** The mount point does not exist or is not a directory. */
        NOT_A_DIRECTORY,
        /** The mount point is already a mount point, or is not empty. */
        BUSY,
        /** The caller may not mount there (permissions, {@code allow_other} without root). */
        NOT_PERMITTED,
        /** libfuse refused the mount for another reason (its message is on stderr). */
        FAILED
    }

    /** Why the mount failed. */
    private final Reason reason;

    /**
     * Makes the exception.
     *
     * @param reason why the mount failed
     * @param message one line for the user
     */
    public FuseMountException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** {@return why the mount failed} */
    public Reason reason() {
        return reason;
    }
}
