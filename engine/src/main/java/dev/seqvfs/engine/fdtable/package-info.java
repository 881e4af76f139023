/**
 * Open files and descriptor tables: {@link dev.seqvfs.engine.fdtable.OpenFile} ({@code struct
 * file}), the immutable {@link dev.seqvfs.engine.fdtable.FdTable} ({@code struct fdtable}) that
 * {@code fget} reads without a lock, and the {@link dev.seqvfs.engine.fdtable.FdTableActor} that is
 * its only writer (seed 002: allocation and install are one message).
 */
package dev.seqvfs.engine.fdtable;
