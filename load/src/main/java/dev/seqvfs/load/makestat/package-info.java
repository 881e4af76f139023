/**
 * Seed 001's "empty make" ({@code seqvfs load makestat}): a real source tree (a directory or a zip)
 * imported into SeqVFS and onto the host's tmpfs, then stat'ed over and over.
 */
package dev.seqvfs.load.makestat;
