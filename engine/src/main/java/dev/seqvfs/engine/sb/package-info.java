/**
 * Superblocks: per-mount-source accounting (inode numbers, inode and byte limits), configuration,
 * and the {@link dev.seqvfs.engine.sb.SuperblockActor} that spawns directory actors and coordinates
 * cross-directory renames.
 */
package dev.seqvfs.engine.sb;
