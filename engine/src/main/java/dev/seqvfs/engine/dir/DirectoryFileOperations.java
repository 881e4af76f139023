package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.notify.Fsnotify;
import dev.seqvfs.engine.walk.WalkContext;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Inotify;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The file operations of a directory whose entries are its published {@link DirSnapshot} ({@code
 * dcache_dir_ops}, {@code simple_dir_operations}): {@code getdents} returns entries of one snapshot
 * after a readdir cookie ({@link DirSnapshot#entriesAfter}); {@code lseek} takes {@code SEEK_SET}
 * and {@code SEEK_CUR} only ({@code dcache_dir_lseek}: a directory offset is a cookie); reads and
 * writes are {@code EISDIR}.
 *
 * <p>Stateless and thread-safe: one shared {@link #INSTANCE}; reads published snapshots only.
 */
public final class DirectoryFileOperations implements FileOperations {
    /** The one instance. */
    public static final DirectoryFileOperations INSTANCE = new DirectoryFileOperations();

    /**
     * The file operations of a directory whose entries its inode operations compute ({@code
     * InodeOperations#list}: procfs, hostfs): {@code getdents} lists them in cookie order after
     * {@code .} and {@code ..}. Stateless; thread-safe.
     */
    public static final FileOperations COMPUTED =
            new FileOperations() {
                @Override
                public List<DirEntry> iterate(
                        OpenFile f, WalkContext caller, long cookie, int max) {
                    DirectoryInode d = (DirectoryInode) f.inode();
                    return readdir(
                            d,
                            d.snapshotAcquire(),
                            cookie,
                            max,
                            (after, room) -> {
                                List<Dentry> out = new ArrayList<>();
                                for (Dentry e : d.ops().list(d, caller)) {
                                    if (e.cookie() > after && out.size() < room) {
                                        out.add(e);
                                    }
                                }
                                return out;
                            });
                }
            };

    private DirectoryFileOperations() {}

    @Override
    public List<DirEntry> iterate(OpenFile f, WalkContext caller, long cookie, int max) {
        DirectoryInode d = (DirectoryInode) f.inode();
        DirSnapshot snap = d.snapshotAcquire();
        return readdir(d, snap, cookie, max, snap::entriesAfter);
    }

    /**
     * {@code getdents} of a directory: {@code ENOENT} if it was removed ({@code IS_DEADDIR}), then
     * {@code .} and {@code ..} ({@code dir_emit_dots}), then {@code entriesAfter(cookie, room)}'s
     * entries; at most {@code max} in all, names in external form. For directory types with
     * computed entries too (procfs).
     *
     * @param d the directory
     * @param snap the snapshot to read {@code d}'s state from
     * @param cookie the readdir cookie to list after
     * @param max the most entries to return
     * @param entriesAfter the entries after a cookie, at most the given count, in cookie order
     * @return the entries, {@code .} and {@code ..} included; empty at the end
     */
    public static List<DirEntry> readdir(
            DirectoryInode d,
            DirSnapshot snap,
            long cookie,
            int max,
            BiFunction<Long, Integer, List<Dentry>> entriesAfter) {
        if (snap.isDead()) {
            throw new VfsException(Errno.ENOENT, Syscall.GETDENTS, null);
        }
        List<DirEntry> out = new ArrayList<>();
        if (cookie < DirSnapshot.COOKIE_DOT) {
            out.add(new DirEntry(".", d.ino(), FileType.DIRECTORY, DirSnapshot.COOKIE_DOT));
            cookie = DirSnapshot.COOKIE_DOT;
        }
        if (cookie < DirSnapshot.COOKIE_DOTDOT && out.size() < max) {
            DirLink l = d.linkAcquire();
            long pino = l == null ? d.ino() : l.parent().ino();
            out.add(new DirEntry("..", pino, FileType.DIRECTORY, DirSnapshot.COOKIE_DOTDOT));
            cookie = DirSnapshot.COOKIE_DOTDOT;
        }
        if (out.size() < max) {
            for (Dentry e : entriesAfter.apply(cookie, max - out.size())) {
                out.add(
                        new DirEntry(
                                PathNames.toExternal(e.name()),
                                e.inode().ino(),
                                e.inode().type(),
                                e.cookie()));
            }
        }
        return out;
    }

    @Override
    public long llseek(OpenFile f, long offset, int whence) {
        if (whence != 0 && whence != 1) {
            throw new VfsException(Errno.EINVAL, Syscall.LSEEK, null);
        }
        return FileOperations.super.llseek(f, offset, whence);
    }

    /**
     * {@code __fput}'s {@code fsnotify_close}: {@code IN_CLOSE_WRITE} if the file was open for
     * writing, else {@code IN_CLOSE_NOWRITE}, when its last reference goes.
     */
    @Override
    public void release(OpenFile f) {
        Fsnotify.file(f, f.writable() ? Inotify.IN_CLOSE_WRITE : Inotify.IN_CLOSE_NOWRITE);
    }
}
