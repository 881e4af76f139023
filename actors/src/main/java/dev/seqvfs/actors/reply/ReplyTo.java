package dev.seqvfs.actors.reply;

import org.apache.pekko.actor.typed.ActorRef;

/**
 * The reply address a command carries: a {@link ReplyCollector}'s reference and the id the
 * caller registered its future under. Replying is one message to the collector, which
 * completes that future: no temporary actor and no timer per request, unlike Pekko's ask
 * pattern (which schedules a timeout per ask and keeps it until its deadline).
 *
 * <p>Immutable; thread-safe; the reply should be an immutable record.
 *
 * @param collector the collector that holds the caller's future
 * @param id the request id within that collector
 * @param <R> the reply type
 */
public record ReplyTo<R>(ActorRef<ReplyCollector.Command> collector, long id) {
    /** Sends the reply. Never blocks. */
    public void tell(R reply) {
        collector.tell(new ReplyCollector.Reply(id, reply));
    }
}
