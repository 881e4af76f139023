/**
 * Open files and descriptor tables: {@link dev.seqvfs.actors.fdtable.OpenFile}
 * ({@code struct file}), the immutable {@link dev.seqvfs.actors.fdtable.FdTable}
 * ({@code struct fdtable}) that {@code fget} reads without a lock, and the
 * {@link dev.seqvfs.actors.fdtable.FdTableActor} that is its only writer (seed 002:
 * allocation and install are one message).
 */
package dev.seqvfs.actors.fdtable;
