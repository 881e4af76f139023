/**
 * {@code seqvfs load dbench}: replays a dbench client loadfile ({@code client.txt}) on an embedded
 * SeqVFS, each client a Pekko Typed actor in its own directory {@code /clients/clientN}, driving
 * the engine only through its asynchronous calls; and, for comparison, the same replay on the
 * host's tmpfs through {@code java.nio}, and the real {@code dbench} binary.
 *
 * <p>Pieces: {@link dev.seqvfs.load.dbench.Loadfile} parses the file into {@link
 * dev.seqvfs.load.dbench.LoadOp}s; {@link dev.seqvfs.load.dbench.DbenchClient} runs one line the
 * way dbench's local-file backend does, on a {@link dev.seqvfs.load.dbench.ClientFs} (SeqVFS or
 * host), and maps the result to an {@link dev.seqvfs.load.dbench.NtStatus}; {@link
 * dev.seqvfs.load.dbench.ClientActor} and {@link dev.seqvfs.load.dbench.ReplayGuardian} drive the
 * clients; {@link dev.seqvfs.load.dbench.DbenchRunner} runs a replay and prints progress; {@link
 * dev.seqvfs.load.dbench.DbenchReport} prints the table.
 */
package dev.seqvfs.load.dbench;
