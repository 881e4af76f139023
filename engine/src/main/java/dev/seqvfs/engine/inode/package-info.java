/**
 * Inodes and their published attribute snapshots.
 *
 * <p>An {@link dev.seqvfs.engine.inode.Inode} is a long-lived identity (inode number, superblock,
 * type, {@code iopFlags}) holding an immutable {@link dev.seqvfs.engine.inode.InodeAttrs} snapshot
 * that is replaced whole by compare-and-set. Readers load the snapshot with acquire semantics and
 * never lock. See {@code CONCURRENCY.md} at the repository root for who writes each field.
 */
package dev.seqvfs.engine.inode;
