/**
 * Anonymous inodes ({@code pipefs}, {@code sockfs}, {@code anon_inodefs}): pipes, sockets and other
 * files that live in no directory (seeds 000 and 003).
 *
 * <p>Creating and closing one touches no superblock actor, no shared reference count, no shared
 * list and no shared counter: inode numbers come from per-thread batches, counts are striped
 * ({@link java.util.concurrent.atomic.LongAdder}), and the dentry is its own parent, unhashed and
 * marked disconnected. The configuration switch {@code seqvfs.anon.shared-root = on} restores the
 * old layout (one shared pseudo-root with a shared reference count and child list, and shared
 * counters) so both can be measured in one run.
 */
package dev.seqvfs.engine.anon;
