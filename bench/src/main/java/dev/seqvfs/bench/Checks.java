package dev.seqvfs.bench;

import dev.seqvfs.protocol.Stat;
import java.nio.file.attribute.BasicFileAttributes;

/** Sanity checks run in setup, so that a benchmark cannot measure an error path. */
final class Checks {
    private Checks() {}

    /** Fails unless {@code path} stats as a regular file on {@code target}. */
    static void regularFile(FsTarget<Object> target, Object path) throws Exception {
        Object st = target.stat(path);
        boolean regular =
                st instanceof Stat s
                        ? s.isRegular()
                        : st instanceof BasicFileAttributes a && a.isRegularFile();
        if (!regular) {
            throw new IllegalStateException(path + " is not a regular file: " + st);
        }
    }
}
