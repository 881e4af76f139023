/**
 * Mounts: {@link dev.seqvfs.actors.mount.VfsMount} ({@code struct vfsmount}) and the
 * immutable {@link dev.seqvfs.actors.mount.MountTable} the namespace publishes under the
 * mount sequence lock.
 */
package dev.seqvfs.actors.mount;
