package dev.seqvfs.tests.differential;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;

/** SeqVFS's side: a fresh instance with one root task, umask 022, working directory "/". */
final class VfsSide implements Side {
    /** Descriptor {@code hostops} keeps the host's {@code /proc} open on ({@code PROC_FD}). */
    static final int PROC_FD = 1002;

    private final SeqVfs vfs;
    private final VfsTask task;
    private final Outcomes out = new Outcomes();

    /** An empty root, like the host sandbox: no /proc. */
    VfsSide() {
        this(false);
    }

    /**
     * With {@code proc}, procfs at {@code /proc} and a descriptor {@value #PROC_FD} open on it
     * ({@code O_RDONLY | O_DIRECTORY}), as {@code hostops} holds one on the host's {@code /proc};
     * without, an empty root.
     */
    VfsSide(boolean proc) {
        vfs =
                SeqVfs.create(
                        ConfigFactory.parseString("seqvfs.proc.mount = " + (proc ? "on" : "off")));
        task = vfs.newTask(Credentials.ROOT);
        if (proc) {
            int fd = task.open("/proc", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY, 0);
            task.dup2(fd, PROC_FD);
            task.close(fd);
        }
    }

    @Override
    public String name() {
        return "vfs";
    }

    @Override
    public String apply(Op op) {
        try {
            return call(op);
        } catch (VfsException e) {
            return Outcomes.errno(e.errno().number());
        } catch (RuntimeException e) {
            return "threw " + e;
        }
    }

    private String call(Op op) {
        switch (op.kind()) {
            case MKDIR:
                task.mkdirat(op.fd(), op.path(), op.a());
                return Outcomes.ok();
            case MKNOD:
                task.mknodat(op.fd(), op.path(), op.a(), 0);
                return Outcomes.ok();
            case SYMLINK:
                task.symlinkat(op.path2(), op.fd(), op.path());
                return Outcomes.ok();
            case LINK:
                task.linkat(op.fd(), op.path(), op.fd2(), op.path2(), op.flags());
                return Outcomes.ok();
            case UNLINK:
                task.unlinkat(op.fd(), op.path(), op.flags());
                return Outcomes.ok();
            case RENAME:
                task.renameat2(op.fd(), op.path(), op.fd2(), op.path2(), op.flags());
                return Outcomes.ok();
            case READLINK:
                return Outcomes.string(task.readlinkat(op.fd(), op.path()));
            case STAT:
                return stat(task.fstatat(op.fd(), op.path(), op.flags()));
            case OPEN:
                return Outcomes.number(task.openat(op.fd(), op.path(), op.flags(), op.a()));
            case CLOSE:
                task.close(op.fd());
                return Outcomes.ok();
            case FSTAT:
                return stat(task.fstat(op.fd()));
            case GETDENTS:
                return getdents(op.fd());
            case CHMOD:
                task.fchmodat(op.fd(), op.path(), op.a(), op.flags());
                return Outcomes.ok();
            case CHOWN:
                task.fchownat(op.fd(), op.path(), op.a(), op.b(), op.flags());
                return Outcomes.ok();
            case UTIMENS:
                Timespec[] ts = times(op.a());
                task.utimensat(op.fd(), op.path(), ts[0], ts[1], op.flags());
                return Outcomes.ok();
            case ACCESS:
                task.faccessat(op.fd(), op.path(), op.a(), op.flags());
                return Outcomes.ok();
            case CHDIR:
                task.chdir(op.path());
                return Outcomes.ok();
            case FCHDIR:
                task.fchdir(op.fd());
                return Outcomes.ok();
            case GETCWD:
                return Outcomes.string(task.getcwd());
            case UMASK:
                return Op.oct(task.umask(op.a()));
            default:
                throw new IllegalStateException(op.kind().name());
        }
    }

    private String stat(Stat s) {
        return out.stat(s.mode(), s.nlink(), s.uid(), s.gid(), s.size(), s.ino());
    }

    private String getdents(int fd) {
        task.lseek(fd, 0, VfsTask.SEEK_SET);
        List<Outcomes.Dirent> all = new ArrayList<>();
        while (true) {
            List<DirEntry> chunk = task.getdents(fd, 1000);
            if (chunk.isEmpty()) {
                return out.listing(all);
            }
            for (DirEntry e : chunk) {
                all.add(new Outcomes.Dirent(e.name(), e.type().dtype(), e.ino()));
            }
        }
    }

    private static Timespec[] times(int variant) {
        switch (variant) {
            case Op.TIMES_NULL:
                return new Timespec[] {null, null};
            case Op.TIMES_OMIT:
                return new Timespec[] {Timespec.OMIT, Timespec.OMIT};
            case Op.TIMES_NOW:
                return new Timespec[] {Timespec.NOW, Timespec.NOW};
            case Op.TIMES_EXPLICIT:
                return new Timespec[] {new Timespec(1, 0), new Timespec(2, 0)};
            default:
                return new Timespec[] {
                    new Timespec(0, 1_000_000_000L), new Timespec(0, 1_000_000_000L)
                };
        }
    }

    @Override
    public List<String> tree() {
        List<String> lines = new ArrayList<>();
        walk("/", new Outcomes(), lines);
        return lines;
    }

    private void walk(String path, Outcomes ids, List<String> lines) {
        Stat s = task.lstat(path);
        String target = s.isSymlink() ? task.readlink(path) : null;
        lines.add(
                Outcomes.treeLine(
                        path,
                        s.mode(),
                        s.nlink(),
                        s.uid(),
                        s.gid(),
                        s.size(),
                        target,
                        ids.inode(s.ino())));
        if (s.isDirectory()) {
            List<String> names = new ArrayList<>();
            for (DirEntry e : task.readdir(path)) {
                names.add(e.name());
            }
            names.sort(null);
            for (String n : names) {
                walk(path.equals("/") ? "/" + n : path + "/" + n, ids, lines);
            }
        }
    }

    /** Closes descriptors {@code 0..max} (ignoring the closed ones). */
    void closeAll(int max) {
        for (int fd = 0; fd <= max; fd++) {
            try {
                task.close(fd);
            } catch (VfsException e) {
                // not open
            }
        }
    }

    /** Returns Fsck's problems with the instance (open files must all be closed). */
    List<String> fsck() {
        return Fsck.check(vfs, true);
    }

    @Override
    public void close() {
        task.close();
        vfs.close();
    }
}
