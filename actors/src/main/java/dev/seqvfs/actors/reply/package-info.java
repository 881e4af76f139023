/**
 * Request-reply without a temporary actor per request: commands carry a
 * {@link dev.seqvfs.actors.reply.ReplyTo} (a collector actor's reference and a request id),
 * and a {@link dev.seqvfs.actors.reply.ReplyCollector} completes the waiting future.
 */
package dev.seqvfs.actors.reply;
