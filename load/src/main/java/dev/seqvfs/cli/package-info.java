/** The {@code seqvfs} command line (picocli): {@code seqvfs load <workload> ...}. */
package dev.seqvfs.cli;
