package dev.seqvfs.load.dbench;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A replay client's calls on SeqVFS, through one {@link VfsTask} (a process of its own, with its
 * own descriptor table, as each dbench client is a process).
 *
 * <p>Calls that send a message use the task's {@code ...Async} twins and never block; {@code
 * pread}, {@code pwrite}, {@code stat}, {@code fstat}, {@code statfs}, {@code fsync} and {@code
 * F_SETLK} send none and do not park (a write holds its inode's write lock for the copy; no other
 * client writes the same file), so they are called directly. Record locks use {@code F_SETLK}, not
 * dbench's {@code F_SETLKW}: the caller is an actor and must not park, and no two clients share a
 * file, so there is never anything to wait for (a conflict would show as {@code
 * NT_STATUS_LOCK_NOT_GRANTED}).
 */
final class SeqVfsClientFs implements ClientFs<Integer> {
    private final VfsTask task;
    private final byte[] buf;

    SeqVfsClientFs(VfsTask task, int bufferBytes) {
        this.task = task;
        this.buf = new byte[bufferBytes];
    }

    @Override
    public String base() {
        return "";
    }

    @Override
    public CompletableFuture<Integer> open(String path, int flags, int mode) {
        return task.async().open(path, flags, mode);
    }

    @Override
    public CompletableFuture<Void> close(Integer fd) {
        return task.async().close(fd);
    }

    @Override
    public int pread(Integer fd, int len, long pos) {
        return task.pread(fd, buf, 0, len, pos);
    }

    @Override
    public int pwrite(Integer fd, int len, long pos) {
        return task.pwrite(fd, buf, 0, len, pos);
    }

    @Override
    public FileInfo stat(String path) {
        return info(task.stat(path));
    }

    @Override
    public FileInfo fstat(Integer fd) {
        return info(task.fstat(fd));
    }

    private static FileInfo info(Stat st) {
        return new FileInfo(st.isDirectory(), st.atimeNanos(), st.mtimeNanos());
    }

    @Override
    public void statfs(String path) {
        task.statfs(path);
    }

    @Override
    public void fsync(Integer fd) {
        task.fsync(fd);
    }

    @Override
    public void lock(Integer fd, long start, long len) {
        task.fcntlLock(
                fd, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, start, len, 0));
    }

    @Override
    public void unlock(Integer fd, long start, long len) {
        task.fcntlLock(
                fd, Fcntl.F_SETLK, new Flock(Flock.F_UNLCK, VfsTask.SEEK_SET, start, len, 0));
    }

    @Override
    public CompletableFuture<Void> utimes(String path, long atimeNanos, long mtimeNanos) {
        return task.async()
                .utimensat(
                        VfsTask.AT_FDCWD,
                        path,
                        Timespec.ofNanos(atimeNanos),
                        Timespec.ofNanos(mtimeNanos),
                        0);
    }

    @Override
    public CompletableFuture<Void> mkdir(String path, int mode) {
        return task.async().mkdir(path, mode);
    }

    @Override
    public CompletableFuture<Void> rmdir(String path) {
        return task.async().rmdir(path);
    }

    @Override
    public CompletableFuture<Void> unlink(String path) {
        return task.async().unlink(path);
    }

    @Override
    public CompletableFuture<Void> rename(String from, String to) {
        return task.async().rename(from, to);
    }

    @Override
    public CompletableFuture<List<String>> list(String dir) {
        return task.async()
                .open(dir, OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY, 0)
                .thenCompose(
                        fd -> {
                            List<String> names = new ArrayList<>();
                            try {
                                while (true) {
                                    List<DirEntry> chunk = task.getdents(fd, 128);
                                    if (chunk.isEmpty()) {
                                        break;
                                    }
                                    for (DirEntry e : chunk) {
                                        names.add(e.name());
                                    }
                                }
                            } catch (VfsException e) {
                                return task.async()
                                        .close(fd)
                                        .handle(
                                                (v, x) -> {
                                                    throw e;
                                                });
                            }
                            return task.async().close(fd).thenApply(v -> names);
                        });
    }

    @Override
    public void close() {
        task.close();
    }
}
