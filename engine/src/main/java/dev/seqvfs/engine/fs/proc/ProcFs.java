package dev.seqvfs.engine.fs.proc;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.FileSystemTypes;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.fs.LinkJump;
import dev.seqvfs.engine.fs.TaskRegistry;
import dev.seqvfs.engine.inode.AttrChange;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeOwner;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.walk.DPath;
import dev.seqvfs.engine.walk.VfsPath;
import dev.seqvfs.engine.walk.WalkContext;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The inodes of one procfs superblock. Every inode is made on lookup from the task registry and
 * descriptor tables, which it reads without locking (published snapshots), so {@code /proc} costs
 * nothing until it is read. Directories list through their {@link InodeOperations#list}; files are
 * read-only text ({@link ProcFileOperations}).
 *
 * <p>Inode numbers are derived from what an inode shows (pid, descriptor, kind), so two lookups of
 * the same name give the same number. The files' contents are produced when they are looked up (a
 * snapshot at open time).
 */
final class ProcFs {
    private static final long INO_SELF = 2;
    private static final long INO_MOUNTS = 3;
    private static final long INO_FILESYSTEMS = 4;

    /**
     * What {@code /proc/mounts} points at, as on Linux ({@code proc_symlink("mounts", NULL,
     * "self/mounts")}).
     */
    private static final String MOUNTS_LINK = "self/mounts";

    private final TaskRegistry tasks;
    private final FileSystemTypes types;
    private InodeOwner owner;

    /** {@code /proc/filesystems}, made by {@link #bind}; read-only after it. */
    private RegularInode filesystems;

    /**
     * The inode operations of every entry under {@code /proc/<pid>}, the directory itself included:
     * {@code proc_setattr} refuses a mode change ({@code EPERM}); an owner or time change succeeds
     * but does not last (the next lookup makes the entry anew, as Linux's {@code pid_revalidate}
     * resets the owner).
     */
    private static final InodeOperations PID_ENTRY =
            new InodeOperations() {
                @Override
                public void setattr(Inode inode, AttrChange change) {
                    refusePidChmod(change);
                }
            };

    private static void refusePidChmod(AttrChange change) {
        if (change instanceof AttrChange.Chmod) {
            throw new VfsException(Errno.EPERM, Syscall.CHMOD, null);
        }
    }

    /** Creates the operations over {@code tasks}; {@link #bind} must follow before use. */
    ProcFs(TaskRegistry tasks, FileSystemTypes types) {
        this.tasks = tasks;
        this.types = types;
    }

    /** Returns the operations of the root directory (for the superblock). */
    InodeOperations rootOps() {
        return rootOps;
    }

    /**
     * Binds the superblock that accounts for proc inodes, and makes {@code /proc/filesystems}: one
     * inode for the life of the mount (a {@code proc_dir_entry}), so that a {@code chmod} or {@code
     * chown} of it lasts, as on Linux. The instance's types are fixed, so is its text.
     */
    void bind(InodeOwner sb) {
        this.owner = sb;
        this.filesystems =
                new RegularInode(
                        INO_FILESYSTEMS,
                        owner,
                        InodeOperations.GENERIC,
                        ProcFileOperations.ENTRY_FILE,
                        InodeAttrs.create(Mode.S_IFREG | 0444, 1, 0, 0, 0, 0, now()),
                        filesystemsText().getBytes(StandardCharsets.UTF_8));
    }

    private long now() {
        return owner.now();
    }

    private static long pidIno(int pid, int kind, long n) {
        return (1L << 40) | ((long) pid << 24) | ((long) kind << 20) | (n & 0xFFFFF);
    }

    private DirectoryInode dir(
            long ino, int perm, int uid, InodeOperations ops, DirectoryInode parent, String name) {
        return new DirectoryInode(
                ino,
                owner,
                ops,
                ProcFileOperations.DIRECTORY,
                InodeAttrs.create(Mode.S_IFDIR | perm, 2, uid, 0, 0, 0, now()),
                parent,
                name);
    }

    private SymlinkInode link(long ino, int perm, int uid, InodeOperations ops) {
        return new SymlinkInode(
                ino,
                owner,
                ops,
                InodeAttrs.create(Mode.S_IFLNK | perm, 1, uid, 0, 0, 0, now()),
                "");
    }

    /** A text file of a {@code /proc/<pid>} directory. */
    private RegularInode file(long ino, int perm, int uid, String content) {
        return new RegularInode(
                ino,
                owner,
                PID_ENTRY,
                ProcFileOperations.FILE,
                InodeAttrs.create(Mode.S_IFREG | perm, 1, uid, 0, 0, 0, now()),
                content.getBytes(StandardCharsets.UTF_8));
    }

    private static int parseInt(String s) {
        if (s.isEmpty() || s.length() > 9) {
            return -1;
        }
        int v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9' || (i == 0 && c == '0' && s.length() > 1)) {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private final InodeOperations rootOps =
            new InodeOperations() {
                @Override
                public boolean hasLookup() {
                    return true;
                }

                @Override
                public Inode lookup(Inode dir, String name, WalkContext caller) {
                    switch (name) {
                        case "self":
                            return link(INO_SELF, 0777, 0, selfOps);
                        case "mounts":
                            return link(INO_MOUNTS, 0777, 0, mountsLinkOps);
                        case "filesystems":
                            return filesystems;
                        default:
                            int pid = parseInt(name);
                            if (pid < 0 || tasks.fdTable(pid) == null) {
                                return null;
                            }
                            return dir(
                                    pidIno(pid, 0, 0),
                                    0555,
                                    tasks.uid(pid),
                                    new PidOps(pid),
                                    (DirectoryInode) dir,
                                    name);
                    }
                }

                @Override
                public List<Dentry> list(Inode dir, WalkContext caller) {
                    List<Dentry> out = new ArrayList<>();
                    out.add(new Dentry("self", lookup(dir, "self", caller), 3, 0));
                    out.add(new Dentry("mounts", lookup(dir, "mounts", caller), 4, 0));
                    out.add(new Dentry("filesystems", lookup(dir, "filesystems", caller), 5, 0));
                    for (int pid : tasks.pids()) {
                        Inode d = lookup(dir, Integer.toString(pid), caller);
                        if (d != null) {
                            out.add(new Dentry(Integer.toString(pid), d, 5L + pid, 0));
                        }
                    }
                    return out;
                }
            };

    private final InodeOperations selfOps =
            new InodeOperations() {
                @Override
                public boolean hasGetLink() {
                    return true;
                }

                @Override
                public String getLink(Inode link, WalkContext caller) {
                    return Integer.toString(caller.pid());
                }
            };

    /** {@code /proc/mounts}: a plain symbolic link to {@code self/mounts}. */
    private final InodeOperations mountsLinkOps =
            new InodeOperations() {
                @Override
                public boolean hasGetLink() {
                    return true;
                }

                @Override
                public String getLink(Inode link, WalkContext caller) {
                    return MOUNTS_LINK;
                }
            };

    /**
     * {@code /proc/<pid>/mounts} ({@code show_vfsmnt} in {@code fs/proc_namespace.c}): one line per
     * mount, parents first: the source ({@code mnt_devname}, {@code none} when there was none), the
     * mount point, the type, then {@code ro} or {@code rw}, the per-mount flags ({@code nosuid},
     * {@code nodev}, {@code noexec}, {@code noatime}, {@code nodiratime}, {@code relatime}, in that
     * order) and the superblock's options as its type shows them ({@link
     * dev.seqvfs.engine.fs.SuperOperations#showOptions}), then {@code 0 0}. Spaces, tabs, newlines
     * and backslashes in the source and the mount point are written as octal escapes ({@code
     * \040}), as {@code mangle} does. Every task of an instance shares its one namespace and root,
     * so every pid shows the same table.
     */
    private String mountsText() {
        StringBuilder sb = new StringBuilder();
        for (VfsMount m : tasks.mounts().mounts()) {
            String where =
                    m.parent() == null
                            ? "/"
                            : PathNames.toExternal(DPath.of(m.parent(), m.mountpoint(), null));
            String type = m.superblock().typeName();
            mangle(sb, m.source());
            sb.append(' ');
            mangle(sb, where);
            sb.append(' ').append(type).append(' ').append(m.isReadOnly() ? "ro" : "rw");
            int f = m.flags();
            appendIf(sb, f, VfsMount.MNT_NOSUID, ",nosuid");
            appendIf(sb, f, VfsMount.MNT_NODEV, ",nodev");
            appendIf(sb, f, VfsMount.MNT_NOEXEC, ",noexec");
            appendIf(sb, f, VfsMount.MNT_NOATIME, ",noatime");
            appendIf(sb, f, VfsMount.MNT_NODIRATIME, ",nodiratime");
            appendIf(sb, f, VfsMount.MNT_RELATIME, ",relatime");
            sb.append(m.superblock().sop().showOptions(m.superblock()));
            sb.append(" 0 0\n");
        }
        return sb.toString();
    }

    private static void appendIf(StringBuilder sb, int flags, int flag, String text) {
        if ((flags & flag) != 0) {
            sb.append(text);
        }
    }

    /** {@code mangle}: {@code seq_escape} of {@code " \t\n\\"} as three-digit octal. */
    private static void mangle(StringBuilder sb, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\\') {
                sb.append('\\')
                        .append((char) ('0' + ((c >> 6) & 7)))
                        .append((char) ('0' + ((c >> 3) & 7)))
                        .append((char) ('0' + (c & 7)));
            } else {
                sb.append(c);
            }
        }
    }

    /**
     * {@code /proc/filesystems}: one line per registered type, {@code nodev} for those without a
     * device.
     */
    private String filesystemsText() {
        StringBuilder sb = new StringBuilder();
        for (FileSystemType t : types.all()) {
            sb.append((t.flags() & FileSystemType.FS_REQUIRES_DEV) != 0 ? "" : "nodev")
                    .append('\t')
                    .append(t.name())
                    .append('\n');
        }
        return sb.toString();
    }

    /**
     * {@code /proc/<pid>}: immutable, as {@code proc_pid_instantiate} makes it ({@code
     * S_IMMUTABLE}): a change of its attributes, {@code access(W_OK)}, and a removal or rename of
     * one of its entries fail with {@code EPERM}, for root too (Linux 6.18).
     */
    private final class PidOps implements InodeOperations {
        private final int pid;

        PidOps(int pid) {
            this.pid = pid;
        }

        @Override
        public boolean immutable(Inode inode) {
            return true;
        }

        @Override
        public boolean hasLookup() {
            return true;
        }

        @Override
        public Inode lookup(Inode dir, String name, WalkContext caller) {
            int uid = tasks.uid(pid);
            switch (name) {
                case "fd":
                    return ProcFs.this.dir(
                            pidIno(pid, 1, 0),
                            0500,
                            uid,
                            new FdDirOps(pid, false),
                            (DirectoryInode) dir,
                            name);
                case "fdinfo":
                    return ProcFs.this.dir(
                            pidIno(pid, 2, 0),
                            0500,
                            uid,
                            new FdDirOps(pid, true),
                            (DirectoryInode) dir,
                            name);
                case "cwd":
                    return link(pidIno(pid, 3, 0), 0777, uid, new CwdOps(pid));
                case "mounts":
                    return file(pidIno(pid, 6, 0), 0444, uid, mountsText());
                default:
                    return null;
            }
        }

        @Override
        public List<Dentry> list(Inode dir, WalkContext caller) {
            List<Dentry> out = new ArrayList<>();
            long c = 3;
            for (String n : new String[] {"cwd", "fd", "fdinfo", "mounts"}) {
                out.add(new Dentry(n, lookup(dir, n, caller), c++, 0));
            }
            return out;
        }
    }

    /** {@code /proc/<pid>/cwd}: a magic link to the task's working directory. */
    private final class CwdOps implements InodeOperations {
        private final int pid;

        CwdOps(int pid) {
            this.pid = pid;
        }

        @Override
        public boolean hasGetLink() {
            return true;
        }

        @Override
        public String getLink(Inode link, WalkContext caller) {
            VfsPath p = cwd();
            return DPath.of(p.mnt(), p.inode(), null);
        }

        @Override
        public LinkJump jump(Inode link, WalkContext caller) {
            VfsPath p = cwd();
            return new LinkJump(p.mnt(), p.inode());
        }

        private VfsPath cwd() {
            VfsPath p = tasks.cwd(pid);
            if (p == null) {
                throw new VfsException(Errno.ENOENT, Syscall.READLINK, null);
            }
            return p;
        }
    }

    /** {@code /proc/<pid>/fd} and {@code /proc/<pid>/fdinfo}. */
    private final class FdDirOps implements InodeOperations {
        private final int pid;
        private final boolean info;

        FdDirOps(int pid, boolean info) {
            this.pid = pid;
            this.info = info;
        }

        @Override
        public void setattr(Inode inode, AttrChange change) {
            refusePidChmod(change);
        }

        @Override
        public boolean hasLookup() {
            return true;
        }

        @Override
        public Inode lookup(Inode dir, String name, WalkContext caller) {
            int fd = parseInt(name);
            FdTable t = tasks.fdTable(pid);
            if (fd < 0 || t == null) {
                return null;
            }
            FdTable.Entry e = t.get(fd);
            if (e == null) {
                return null;
            }
            int uid = tasks.uid(pid);
            if (info) {
                OpenFile f = e.file();
                long pos;
                synchronized (f) {
                    pos = f.offset();
                }
                int flags = f.getFl() | (e.cloexec() ? OpenFlags.O_CLOEXEC : 0);
                String text =
                        "pos:\t"
                                + pos
                                + "\nflags:\t0"
                                + Integer.toOctalString(flags)
                                + "\nmnt_id:\t"
                                + (f.mount() == null ? 0 : f.mount().id())
                                + "\nino:\t"
                                + f.inode().ino()
                                + "\n";
                return file(pidIno(pid, 5, fd), 0400, uid, text);
            }
            int acc = e.file().accessMode() & OpenFlags.O_ACCMODE;
            int perm =
                    (e.file().isPath()
                                    ? 0
                                    : (acc == OpenFlags.O_WRONLY
                                            ? 0200
                                            : acc == OpenFlags.O_RDWR ? 0600 : 0400))
                            | 0100;
            return link(pidIno(pid, 4, fd), perm, uid, new FdLinkOps(pid, fd));
        }

        @Override
        public List<Dentry> list(Inode dir, WalkContext caller) {
            List<Dentry> out = new ArrayList<>();
            FdTable t = tasks.fdTable(pid);
            if (t == null) {
                return out;
            }
            for (int fd : t.openFds()) {
                Inode i = lookup(dir, Integer.toString(fd), caller);
                if (i != null) {
                    out.add(new Dentry(Integer.toString(fd), i, 3L + fd, 0));
                }
            }
            return out;
        }
    }

    /**
     * {@code /proc/<pid>/fd/N}: shows the file's path (or {@code pipe:[ino]}) and jumps to the
     * file.
     */
    private final class FdLinkOps implements InodeOperations {
        private final int pid;
        private final int fd;

        FdLinkOps(int pid, int fd) {
            this.pid = pid;
            this.fd = fd;
        }

        @Override
        public boolean hasGetLink() {
            return true;
        }

        private OpenFile file() {
            FdTable t = tasks.fdTable(pid);
            FdTable.Entry e = t == null ? null : t.get(fd);
            if (e == null) {
                throw new VfsException(Errno.ENOENT, Syscall.READLINK, null);
            }
            return e.file();
        }

        @Override
        public String getLink(Inode link, WalkContext caller) {
            return PathNames.toInternal(tasks.describe(file()), Syscall.READLINK);
        }

        @Override
        public LinkJump jump(Inode link, WalkContext caller) {
            OpenFile f = file();
            return new LinkJump(f.mount(), f.inode());
        }
    }
}
