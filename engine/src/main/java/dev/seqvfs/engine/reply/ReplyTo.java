package dev.seqvfs.engine.reply;

/**
 * The reply address a command carries: the {@link ReplyCollector.Pending} registry that holds the
 * caller's future and the id it was registered under. Replying completes that future directly, on
 * the replying actor's thread: no message, no temporary actor and no timer per request (Pekko's ask
 * pattern schedules a timeout per ask and keeps it until its deadline; a reply message to a
 * collector actor cost a second mailbox run per request).
 *
 * <p>Immutable; thread-safe; the reply should be an immutable record. The future's synchronous
 * dependent stages run inside {@link #tell}, so an actor replies as the last step of its handler,
 * after it has published what the reply reports.
 *
 * @param pending the registry that holds the caller's future
 * @param id the request id within that registry
 * @param <R> the reply type
 */
public record ReplyTo<R>(ReplyCollector.Pending pending, long id) {
    /**
     * Completes the caller's future with {@code reply} (a second reply is ignored). Never blocks.
     *
     * @param reply the reply
     */
    public void tell(R reply) {
        pending.complete(id, reply);
    }

    /**
     * Completes the caller's future with {@code reply} if it still waits. Never blocks.
     *
     * @param reply the reply
     * @return {@code false} if nobody took the reply (the request was already answered, timed out,
     *     or its collector stopped): a reply that hands over a resource must then be undone by the
     *     replier
     */
    public boolean tryTell(R reply) {
        return pending.complete(id, reply);
    }
}
