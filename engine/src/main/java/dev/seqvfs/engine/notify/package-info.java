/**
 * Change notification, Linux's {@code fsnotify} with its {@code inotify} front: an {@link
 * InotifyGroup} is the file behind an inotify descriptor (its queue of events and its watches), an
 * {@link InotifyMark} is one watch on one inode, and {@link Fsnotify} is what the writers of the
 * engine call when they have applied a change. Events are queued on the writer's thread, in the
 * order it applies its changes; an inode without a watch costs one acquire load and a null check.
 */
package dev.seqvfs.engine.notify;
