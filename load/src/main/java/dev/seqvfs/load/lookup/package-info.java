/**
 * Seed 004's lookup workload ({@code seqvfs load lookup}): deep-path {@code stat} from the same and
 * from distinct working directories, and its scaling with the clients.
 */
package dev.seqvfs.load.lookup;
