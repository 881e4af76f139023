/**
 * The {@code java.nio.file} front end of SeqVFS: {@link dev.seqvfs.nio.SeqVfsFileSystemProvider}
 * (scheme {@code seqvfs}, registered through {@code META-INF/services}), {@link
 * dev.seqvfs.nio.SeqVfsFileSystem} (one engine seen through one task: its credentials, umask and
 * descriptor table) and {@link dev.seqvfs.nio.SeqVfsPath} (Unix paths as the JDK's Linux provider
 * has them).
 *
 * <p>Conventions for the whole package: it is a client of the engine's public API only ({@code
 * dev.seqvfs.engine.SeqVfs}, {@code VfsTask}, {@code dev.seqvfs.protocol}) and never reaches into
 * actors or snapshots (DESIGN.md, "Front ends"). Every engine failure becomes the exception the JDK
 * 17 Linux provider throws for the same errno, with the same reason string ({@code Errors}); the
 * oracle for every behaviour is the JDK's default provider on the host's tmpfs ({@code
 * NioDifferentialTest}). Every class is thread-safe unless its Javadoc says otherwise.
 */
package dev.seqvfs.nio;
