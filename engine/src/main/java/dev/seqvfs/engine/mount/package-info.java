/**
 * The mount namespace: the published {@link dev.seqvfs.actors.mount.MountTable}, and
 * {@code mount(2)} / {@code umount2(2)} as writers of it under the mount sequence lock.
 */
package dev.seqvfs.engine.mount;
