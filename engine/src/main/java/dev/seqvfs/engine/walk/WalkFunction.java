package dev.seqvfs.engine.walk;

/**
 * The reading part of a call: walks with a {@link Nameidata} and computes an answer from what it
 * read. It must be free of side effects (no message, no write to shared memory), because {@link
 * PathWalk} may run it several times and keeps only a validated run.
 *
 * @param <T> the answer
 */
@FunctionalInterface
public interface WalkFunction<T> {
    /**
     * Walks and answers; may throw {@link dev.seqvfs.protocol.VfsException}.
     *
     * @param nd the walk, for the call to look up and read through
     * @return the call's answer
     */
    T apply(Nameidata nd);
}
