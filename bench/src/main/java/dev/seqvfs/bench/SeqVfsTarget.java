package dev.seqvfs.bench;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Mode;

/**
 * SeqVFS with its default configuration, called through one root {@link VfsTask} shared by
 * all benchmark threads (threads of one process) and the blocking API.
 */
final class SeqVfsTarget extends FsTarget<String> {
    private final SeqVfs vfs = SeqVfs.create();
    private final VfsTask task = vfs.newTask(Credentials.ROOT);

    @Override
    public String path(String absolute) {
        return absolute;
    }

    @Override
    public void mkdir(String dir) {
        task.mkdir(dir, 0755);
    }

    @Override
    public void create(String file) {
        task.mknod(file, Mode.S_IFREG | 0644, 0);
    }

    @Override
    public void unlink(String file) {
        task.unlink(file);
    }

    @Override
    public Object stat(String path) {
        return task.stat(path);
    }

    @Override
    public void rename(String from, String to) {
        task.rename(from, to);
    }

    @Override
    public String counters() {
        return "walkRetries=" + vfs.walkRetries() + " refWalks=" + vfs.refWalks();
    }

    @Override
    public void close() {
        task.close();
        vfs.close();
    }
}
