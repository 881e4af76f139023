/**
 * Load tests that drive an embedded SeqVFS through its asynchronous API from Pekko actors (no
 * client thread blocks), and the same workloads against the host for comparison.
 *
 * <p>The plumbing every workload shares: {@link dev.seqvfs.load.Clients} runs the clients (actors
 * on the async twins for calls that send a message; plain threads for {@code stat}, which never
 * sends one, and for the host's blocking calls), {@link dev.seqvfs.load.Meter} counts ops and
 * records latencies (HdrHistogram), {@link dev.seqvfs.load.Session} prints progress and the summary
 * and handles Ctrl-C, {@link dev.seqvfs.load.JsonReport} and {@link dev.seqvfs.load.Charts} write
 * the files.
 */
package dev.seqvfs.load;
