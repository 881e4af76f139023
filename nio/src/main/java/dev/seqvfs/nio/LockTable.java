package dev.seqvfs.nio;

import java.nio.channels.OverlappingFileLockException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The file locks held through one file system, by file ({@code dev}, {@code ino}): the JDK's {@code
 * FileLockTable}, which throws {@link OverlappingFileLockException} for a range that overlaps one
 * this JVM view already holds or waits for, since POSIX record locks are per process and would
 * otherwise be granted to the same owner twice. Guarded by its monitor (held for a few list
 * operations, never across an engine call).
 */
final class LockTable {
    private final Map<FileKey, List<SeqVfsFileLock>> held = new HashMap<>();

    synchronized void add(FileKey key, SeqVfsFileLock lock) {
        List<SeqVfsFileLock> l = held.computeIfAbsent(key, k -> new ArrayList<>());
        for (SeqVfsFileLock o : l) {
            if (o.overlaps(lock.position(), lock.size())) {
                throw new OverlappingFileLockException();
            }
        }
        l.add(lock);
    }

    synchronized void remove(FileKey key, SeqVfsFileLock lock) {
        List<SeqVfsFileLock> l = held.get(key);
        if (l != null) {
            l.remove(lock);
            if (l.isEmpty()) {
                held.remove(key);
            }
        }
    }

    /** Removes and returns the locks a closing channel holds. */
    synchronized List<SeqVfsFileLock> removeAll(FileKey key, SeqVfsFileChannel ch) {
        List<SeqVfsFileLock> out = new ArrayList<>();
        List<SeqVfsFileLock> l = held.get(key);
        if (l != null) {
            l.removeIf(
                    x -> {
                        if (x.channel() == ch) {
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
