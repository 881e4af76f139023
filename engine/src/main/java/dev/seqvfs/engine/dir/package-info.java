/**
 * Directories: the {@link dev.seqvfs.engine.dir.DirSnapshot} a walk reads, the {@link
 * dev.seqvfs.engine.dir.DirectoryInode} that publishes it, and the {@link
 * dev.seqvfs.engine.dir.DirectoryActor} that is its only writer.
 */
package dev.seqvfs.engine.dir;
