package dev.seqvfs.bench;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;

/**
 * SeqVFS with its default configuration, called through one root {@link VfsTask} shared by all
 * benchmark threads (threads of one process) and the blocking API. Paths are {@link Filename}s made
 * once in setup, as the other targets' {@code Path}s are.
 */
final class SeqVfsTarget extends FsTarget<Filename> {
    private final SeqVfs vfs = SeqVfs.create();
    private final VfsTask task = vfs.newTask(Credentials.ROOT);

    @Override
    public Filename path(String absolute) {
        return Filename.of(absolute);
    }

    @Override
    public void mkdir(Filename dir) {
        task.mkdir(dir, 0755);
    }

    @Override
    public void create(Filename file) {
        task.mknod(file, Mode.S_IFREG | 0644, 0);
    }

    @Override
    public void unlink(Filename file) {
        task.unlink(file);
    }

    @Override
    public Object stat(Filename path) {
        return task.stat(path);
    }

    @Override
    public void rename(Filename from, Filename to) {
        task.rename(from, to);
    }

    @Override
    public Object openData(Filename file) {
        return task.open(file, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
    }

    @Override
    public void pwrite(Object file, byte[] buf, long off) {
        int fd = (Integer) file;
        for (int done = 0; done < buf.length; ) {
            done += task.pwrite(fd, buf, done, buf.length - done, off + done);
        }
    }

    @Override
    public int pread(Object file, byte[] buf, long off) {
        return task.pread((Integer) file, buf, 0, buf.length, off);
    }

    @Override
    public void ftruncate(Object file, long size) {
        task.ftruncate((Integer) file, size);
    }

    @Override
    public void closeData(Object file) {
        task.close((Integer) file);
    }

    @Override
    public String counters() {
        return "walkRetries="
                + vfs.walkRetries()
                + " refWalks="
                + vfs.refWalks()
                + " dataReadRetries="
                + vfs.dataReadRetries()
                + " stableReads="
                + vfs.dataStableReads();
    }

    @Override
    public void close() {
        task.close();
        vfs.close();
    }
}
