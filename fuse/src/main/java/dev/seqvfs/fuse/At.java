package dev.seqvfs.fuse;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.OpenFlags;

/**
 * A path that libfuse built, as a directory descriptor and a path relative to it, each under {@code
 * PATH_MAX} bytes, for the engine's {@code *at} calls.
 *
 * <p>Why: the kernel checks {@code PATH_MAX} on the path a program passes ({@code
 * path_resolution(7)}: a relative path of up to 4,095 bytes is fine wherever the working directory
 * is), but libfuse's high-level API hands the file system the absolute path from the mount's root,
 * which the mount's own prefix can push past {@code PATH_MAX}. The engine would answer {@code
 * ENAMETOOLONG} for a call the host allows (the {@code 03.t} case of each of pjdfstest's call
 * directories). A path of {@code PATH_MAX} bytes or more is therefore cut at a {@code /} under the
 * limit: its head is opened {@code O_PATH | O_DIRECTORY} by the same caller (so the walk checks
 * search permission on every directory, as the kernel's walk of the whole path would), repeatedly
 * if the rest is still too long, and the call runs on the tail relative to that descriptor. A
 * shorter path (almost every call) is used as it is, with {@link VfsTask#AT_FDCWD}.
 *
 * <p>Not thread-safe (one per call, on the calling worker); {@link #close()} closes the descriptor
 * it opened, if any.
 */
final class At implements AutoCloseable {
    private final VfsTask task;
    private final int dirfd;
    private final CharSequence path;

    private At(VfsTask task, int dirfd, CharSequence path) {
        this.task = task;
        this.dirfd = dirfd;
        this.path = path;
    }

    /**
     * Splits {@code path} for {@code task}'s {@code *at} calls.
     *
     * @param task the caller's task; it opens the head directory, if one is needed
     * @param path an absolute path from libfuse
     * @return the descriptor and the rest; close it after the call
     * @throws dev.seqvfs.protocol.VfsException as the caller's walk of the head fails ({@code
     *     EACCES}, {@code ENOENT}, {@code ENOTDIR}, ...)
     */
    static At of(VfsTask task, String path) {
        checkName(path);
        if (path.length() * 3 < Limits.PATH_MAX) {
            return new At(task, VfsTask.AT_FDCWD, path); // under the limit in any encoding
        }
        String rest = Filename.of(path).internal(); // one char per byte
        if (rest.length() < Limits.PATH_MAX) {
            return new At(task, VfsTask.AT_FDCWD, path);
        }
        int fd = VfsTask.AT_FDCWD;
        try {
            while (rest.length() >= Limits.PATH_MAX) {
                int cut = rest.lastIndexOf('/', Limits.PATH_MAX - 2);
                if (cut <= 0) {
                    break; // no cut under the limit: let the engine say ENAMETOOLONG
                }
                int next =
                        task.openat(
                                fd,
                                Filename.ofInternal(rest.substring(0, cut)),
                                OpenFlags.O_PATH | OpenFlags.O_DIRECTORY,
                                0);
                if (fd != VfsTask.AT_FDCWD) {
                    task.close(fd);
                }
                fd = next;
                rest = rest.substring(cut + 1);
            }
            return new At(task, fd, Filename.ofInternal(rest));
        } catch (RuntimeException e) {
            if (fd != VfsTask.AT_FDCWD) {
                task.close(fd);
            }
            throw e;
        }
    }

    /** Linux's {@code EILSEQ}: "Invalid or incomplete multibyte or wide character". */
    static final int EILSEQ = 84;

    /**
     * A name or path that jnr-fuse could not decode: it decodes the kernel's bytes as UTF-8 and
     * puts U+FFFD in place of every byte that is not, so {@code caf\xe9} and {@code caf\xe8} both
     * arrive as {@code caf\uFFFD} and would be one file. Every call given such a text answers
     * {@code EILSEQ} instead, and changes nothing. A valid name that contains U+FFFD itself (the
     * bytes {@code EF BF BD}) is refused alike: the two cannot be told apart here.
     */
    static final class UndecodableName extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UndecodableName() {
            super("a name that is not valid UTF-8", null, false, false);
        }
    }

    /**
     * Refuses a text that jnr-fuse decoded with replacements.
     *
     * @param text a path, a name or a symbolic link's target from libfuse
     * @throws UndecodableName if it contains U+FFFD
     */
    static void checkName(String text) {
        if (undecodable(text)) {
            throw new UndecodableName();
        }
    }

    /**
     * {@return whether any of {@code texts} (null ones skipped) is one jnr-fuse decoded with
     * replacements (contains U+FFFD)}
     */
    static boolean undecodable(String... texts) {
        for (String t : texts) {
            if (t != null && t.indexOf('\uFFFD') >= 0) {
                return true;
            }
        }
        return false;
    }

    /** {@return the directory descriptor the path is relative to, or {@link VfsTask#AT_FDCWD}} */
    int dirfd() {
        return dirfd;
    }

    /** {@return the path, relative to {@link #dirfd()} when that is a descriptor} */
    CharSequence path() {
        return path;
    }

    /** Closes the head's descriptor, if this opened one. */
    @Override
    public void close() {
        if (dirfd != VfsTask.AT_FDCWD) {
            task.close(dirfd);
        }
    }
}
