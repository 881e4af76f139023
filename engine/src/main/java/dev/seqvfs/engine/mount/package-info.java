/**
 * Mounts: {@link dev.seqvfs.engine.mount.VfsMount} ({@code struct vfsmount}), the immutable {@link
 * dev.seqvfs.engine.mount.MountTable} the namespace publishes under the mount sequence lock, and
 * {@link dev.seqvfs.engine.mount.Namespace}, whose {@code mount(2)} and {@code umount2(2)} are its
 * writers.
 */
package dev.seqvfs.engine.mount;
