/**
 * {@code persistfs}: the persistent file-system type. Directories journal their changes as events
 * of Pekko Persistence entities ({@link dev.seqvfs.persist.DirectoryEntity}) on an embedded H2
 * database ({@link dev.seqvfs.persist.PersistStore}); mounting recovers the tree ({@link
 * dev.seqvfs.persist.PersistfsType}). Registered with the engine through {@link
 * java.util.ServiceLoader}: a SeqVFS instance with this artifact on its class path can mount it.
 */
package dev.seqvfs.persist;
