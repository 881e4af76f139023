package dev.seqvfs.tests.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.function.Executable;

/**
 * Small helpers shared by the conformance suites: the errno a call fails with, file creation, and
 * directory listings. Stateless.
 */
final class Sys {
    private Sys() {}

    /** Asserts that {@code call} fails with a {@link VfsException} and returns its errno. */
    static Errno errno(Executable call) {
        return assertThrows(VfsException.class, call).errno();
    }

    /** Asserts that {@code call} fails with {@code expected}. */
    static void assertErrno(Errno expected, Executable call) {
        assertEquals(expected, errno(call));
    }

    /** Creates (or opens) a regular file with {@code mode} and closes it. */
    static void touch(VfsTask t, String path, int mode) {
        t.close(t.open(path, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, mode));
    }

    /** Creates a regular file with mode 0644 (before the umask). */
    static void touch(VfsTask t, String path) {
        touch(t, path, 0644);
    }

    /** Returns the names in a directory (without "." and ".."), sorted. */
    static SortedSet<String> names(VfsTask t, String dir) {
        return t.readdir(dir).stream()
                .map(DirEntry::name)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Returns the names of some entries, in order. */
    static List<String> namesOf(List<DirEntry> entries) {
        return entries.stream().map(DirEntry::name).collect(Collectors.toList());
    }

    /** Returns whether {@code path} exists (without following a final symlink). */
    static boolean exists(VfsTask t, String path) {
        try {
            t.lstat(path);
            return true;
        } catch (VfsException e) {
            if (e.errno() == Errno.ENOENT) {
                return false;
            }
            throw e;
        }
    }
}
