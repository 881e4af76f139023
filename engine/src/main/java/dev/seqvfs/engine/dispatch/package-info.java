/**
 * Pekko dispatcher plumbing: an executor that runs an idle actor's mailbox on the thread that sends
 * to it, so an embedding thread's blocking ask costs a method call rather than a thread hand-off.
 *
 * <p>{@link dev.seqvfs.engine.dispatch.CallingThreadExecutorConfigurator} is named by the {@code
 * seqvfs.dispatcher} block in {@code seqvfs-dispatcher.conf}; {@link
 * dev.seqvfs.engine.dispatch.CallingThreadExecutor} documents the concurrency argument (why the
 * actor stays the single writer of its state) and the rules callers must keep: no {@code tell}
 * while holding a lock an actor may take, and no blocking wait inside a handler for another actor
 * on the same dispatcher.
 */
package dev.seqvfs.engine.dispatch;
