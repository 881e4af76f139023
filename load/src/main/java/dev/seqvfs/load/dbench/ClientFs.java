package dev.seqvfs.load.dbench;

import dev.seqvfs.protocol.VfsException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The file-system calls one replay client makes, the same for SeqVFS and for the host, so that both
 * replays do the same work: what dbench's local-file backend ({@code fileio.c}) calls, one method
 * per system call.
 *
 * <p>Calls that may wait for a message (open, close, the namespace changes, listing a directory,
 * which opens and closes it) return a {@link CompletableFuture}; calls that SeqVFS answers without
 * a message and without parking (read, write, stat, fstat, statfs, fsync, a non-waiting record
 * lock) return directly. Every failure is a {@link VfsException} with the Linux errno: thrown by
 * the direct calls, completing the future exceptionally for the others.
 *
 * <p>One instance per client; not thread-safe (a client runs one call at a time). It owns the
 * client's I/O buffer: reads land in it and writes send it (zeros, as dbench's {@code rw_buf}).
 *
 * @param <H> an open file (a descriptor number, a channel)
 */
public interface ClientFs<H> extends AutoCloseable {
    /**
     * Returns the prefix of every replayed path: {@code ""} for SeqVFS, the host directory
     * otherwise.
     */
    String base();

    /** {@code open(2)} with {@code O_*} flags of {@link dev.seqvfs.protocol.OpenFlags}. */
    CompletableFuture<H> open(String path, int flags, int mode);

    /** {@code close(2)}. */
    CompletableFuture<Void> close(H file);

    /** {@code pread(2)} of {@code len} bytes at {@code pos}; returns the bytes read. */
    int pread(H file, int len, long pos);

    /** {@code pwrite(2)} of {@code len} zero bytes at {@code pos}; returns the bytes written. */
    int pwrite(H file, int len, long pos);

    /** {@code stat(2)}, following symlinks. */
    FileInfo stat(String path);

    /** {@code fstat(2)}. */
    FileInfo fstat(H file);

    /** {@code statfs(2)}. */
    void statfs(String path);

    /** {@code fsync(2)}. */
    void fsync(H file);

    /**
     * {@code fcntl(F_SETLK)} of a write lock on {@code [start, start + len)} ({@code EAGAIN} on
     * conflict).
     */
    void lock(H file, long start, long len);

    /** {@code fcntl(F_SETLK)} of {@code F_UNLCK} on {@code [start, start + len)}. */
    void unlock(H file, long start, long len);

    /** {@code utime(2)}: sets access and modification times, in nanoseconds since the epoch. */
    CompletableFuture<Void> utimes(String path, long atimeNanos, long mtimeNanos);

    /** {@code mkdir(2)}. */
    CompletableFuture<Void> mkdir(String path, int mode);

    /** {@code rmdir(2)}. */
    CompletableFuture<Void> rmdir(String path);

    /** {@code unlink(2)}. */
    CompletableFuture<Void> unlink(String path);

    /** {@code rename(2)}. */
    CompletableFuture<Void> rename(String from, String to);

    /**
     * {@code opendir} + {@code readdir} to the end + {@code closedir}: the names, "." and ".."
     * included.
     */
    CompletableFuture<List<String>> list(String dir);

    /** Releases what the client holds (open files, its task). */
    @Override
    void close();

    /**
     * What the replay needs of a {@code struct stat}.
     *
     * @param directory whether it is a directory
     * @param atimeNanos last access, nanoseconds since the epoch
     * @param mtimeNanos last modification, nanoseconds since the epoch
     */
    record FileInfo(boolean directory, long atimeNanos, long mtimeNanos) {}
}
