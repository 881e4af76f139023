package dev.seqvfs.fuse;

import dev.seqvfs.engine.LockOwner;
import dev.seqvfs.engine.VfsTask;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * FUSE file handles ({@code fuse_file_info.fh}): each names one engine descriptor of one task, the
 * open file description an {@code open}, {@code create} or {@code opendir} made. Reads, writes,
 * {@code fstat}, {@code ftruncate}, {@code fsync}, locks and {@code readdir} go through it, so a
 * file removed while open keeps working ({@code hard_remove}: the engine keeps the inode while a
 * descriptor holds it), and {@code release} closes it.
 *
 * <p><b>Thread-safety.</b> Safe for concurrent use: a {@link ConcurrentHashMap} from handle number
 * to {@link Handle}; numbers come from an {@link AtomicLong} and are never reused within a mount.
 */
final class Handles {
    /**
     * One open file: the task whose descriptor table holds {@code fd}, and the lock owners that
     * took POSIX locks through it (a concurrent set).
     */
    record Handle(VfsTask task, int fd, Set<LockOwner> lockers) {}

    private final ConcurrentHashMap<Long, Handle> open = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong();

    /** Records {@code fd} of {@code task} and returns its new handle number (never 0). */
    long add(VfsTask task, int fd) {
        long fh = next.incrementAndGet();
        open.put(fh, new Handle(task, fd, ConcurrentHashMap.newKeySet()));
        return fh;
    }

    /** Returns the handle numbered {@code fh}, or {@code null} if there is none. */
    Handle get(long fh) {
        return open.get(fh);
    }

    /** Forgets handle {@code fh} and returns it, or {@code null} if there was none. */
    Handle remove(long fh) {
        return open.remove(fh);
    }

    /** Returns the number of handles open now. */
    int size() {
        return open.size();
    }

    /**
     * Closes every handle still open (an unmount with files still open: the kernel's forced end).
     */
    void closeAll() {
        for (Long fh : open.keySet()) {
            Handle h = open.remove(fh);
            if (h != null) {
                try {
                    h.task().close(h.fd());
                } catch (RuntimeException e) {
                    // the task may be gone already; nothing else holds the descriptor
                }
            }
        }
    }
}
