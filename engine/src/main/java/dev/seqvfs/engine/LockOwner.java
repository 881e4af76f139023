package dev.seqvfs.engine;

/**
 * An owner of POSIX record locks that is not a task's descriptor table: what a server that takes
 * lock requests for others passes (Linux's {@code fl_owner_t} as FUSE's {@code lock_owner} or NFS's
 * lockd give it), for {@link VfsTask#fcntlLock(int, int, dev.seqvfs.protocol.Flock, LockOwner)}.
 * Owners are compared by identity: two requests with the same object are the same owner (its ranges
 * merge and never conflict with each other), two objects are two owners.
 *
 * <p>Immutable and stateless; thread-safe. Holding one costs nothing; the locks it owns live in the
 * files' lock tables until it unlocks them or the instance closes.
 */
public final class LockOwner {
    private final String name;

    /**
     * Makes a new owner.
     *
     * @param name a label for {@link #toString()} (a FUSE lock owner's number, say)
     */
    public LockOwner(String name) {
        this.name = name;
    }

    @Override
    public String toString() {
        return "LockOwner[" + name + "]";
    }
}
