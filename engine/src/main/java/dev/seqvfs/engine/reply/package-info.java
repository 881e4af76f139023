/**
 * Request-reply without a temporary actor per request: commands carry a {@link
 * dev.seqvfs.engine.reply.ReplyTo} (a registry of waiting futures and a request id) whose {@code
 * tell} completes the waiting future directly; a {@link dev.seqvfs.engine.reply.ReplyCollector}
 * actor per registry fails overdue requests.
 */
package dev.seqvfs.engine.reply;
