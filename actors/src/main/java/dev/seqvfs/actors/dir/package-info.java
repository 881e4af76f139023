/**
 * Directories: the {@link dev.seqvfs.actors.dir.DirSnapshot} a walk reads, the
 * {@link dev.seqvfs.actors.dir.DirectoryInode} that publishes it, and the
 * {@link dev.seqvfs.actors.dir.DirectoryActor} that is its only writer.
 */
package dev.seqvfs.actors.dir;
