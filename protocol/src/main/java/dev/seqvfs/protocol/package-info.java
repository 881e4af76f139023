/**
 * The contract every layer shares: {@link dev.seqvfs.protocol.Errno} and {@link
 * dev.seqvfs.protocol.VfsException}, {@link dev.seqvfs.protocol.Stat} and {@link
 * dev.seqvfs.protocol.StatFs}, the mode, open, at- and rename-flag constants with their Linux
 * values, and {@link dev.seqvfs.protocol.Credentials}.
 *
 * <p>Everything here is immutable and thread-safe. Numeric constants carry the values of Linux on
 * x86-64 (see {@code open(2)}, {@code inode(7)}, {@code errno(3)}), so that a program written
 * against the kernel reads the same here.
 */
package dev.seqvfs.protocol;
