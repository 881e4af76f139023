package dev.seqvfs.nio;

import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The file locks held through one file system, by file ({@code dev}, {@code ino}), by its {@code
 * FileChannel}s and {@code AsynchronousFileChannel}s alike: the JDK's {@code FileLockTable}, which
 * throws {@link OverlappingFileLockException} for a range that overlaps one this JVM view already
 * holds or waits for, since POSIX record locks are per process and would otherwise be granted to
 * the same owner twice. Guarded by its monitor (held for a few list operations, never across an
 * engine call).
 */
final class LockTable {
    private final Map<FileKey, List<FileLock>> held = new HashMap<>();

    synchronized void add(FileKey key, FileLock lock) {
        List<FileLock> l = held.computeIfAbsent(key, k -> new ArrayList<>());
        for (FileLock o : l) {
            if (o.overlaps(lock.position(), lock.size())) {
                throw new OverlappingFileLockException();
            }
        }
        l.add(lock);
    }

    synchronized void remove(FileKey key, FileLock lock) {
        List<FileLock> l = held.get(key);
        if (l != null) {
            l.remove(lock);
            if (l.isEmpty()) {
                held.remove(key);
            }
        }
    }

    /** Removes and returns the locks a closing channel holds. */
    synchronized List<FileLock> removeAll(FileKey key, java.nio.channels.Channel ch) {
        List<FileLock> out = new ArrayList<>();
        List<FileLock> l = held.get(key);
        if (l != null) {
            l.removeIf(
                    x -> {
                        if (x.acquiredBy() == ch) {
                            out.add(x);
                            return true;
                        }
                        return false;
                    });
            if (l.isEmpty()) {
                held.remove(key);
            }
        }
        return out;
    }
}
