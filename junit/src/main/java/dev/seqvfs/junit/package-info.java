/**
 * A JUnit 5 extension for tests of code that takes a {@code Path} or a {@code FileSystem}: {@link
 * dev.seqvfs.junit.SeqVfsExtension} injects a fresh SeqVFS file system per test, configured by
 * {@link dev.seqvfs.junit.TempSeqVfs}, and fails the test if the engine's invariant check finds a
 * problem afterwards. A client of {@code seqvfs-nio} and the engine's public API only.
 */
package dev.seqvfs.junit;
