package dev.seqvfs.fuse;

import dev.seqvfs.engine.LockOwner;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.VfsException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.Flock;
import ru.serce.jnrfuse.struct.FuseContext;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.FuseOperations;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * The FUSE operations of a mounted engine: each libfuse 2 (high-level, path) callback becomes the
 * engine call of the same name, made by the {@link VfsTask} of the requesting process's credentials
 * ({@link Callers}), so the engine decides permissions, and its {@link VfsException}'s errno is
 * returned as {@code -errno}. Calls on an open file use the engine descriptor behind the FUSE file
 * handle ({@link Handles}); libfuse is told not to compute paths for them ({@code flag_nopath},
 * {@code flag_nullpath_ok}), so they also work on a file removed while open.
 *
 * <p>This is the only class that sees jnr-fuse's types for operations; {@link FuseMount} is the
 * front end's public face.
 *
 * <p><b>Concurrency.</b> The workers of {@link FuseLoop} (Java threads) call these methods, many at
 * once. The class holds no lock: its state is the concurrent maps of {@link Callers}, {@link
 * Handles} and the lock owners; every engine call is thread-safe. A blocking call ({@code
 * F_SETLKW}, a blocking {@code flock}) parks its worker; the loop starts another for the next
 * request.
 */
final class EngineFuseFs extends FuseStubFS {
    private static final Logger LOG = LoggerFactory.getLogger(EngineFuseFs.class);

    /** Open flags the kernel passes that the engine's {@code open} should see. */
    private static final int OPEN_FLAGS_KEPT =
            OpenFlags.O_ACCMODE
                    | OpenFlags.O_APPEND
                    | OpenFlags.O_NONBLOCK
                    | OpenFlags.O_DIRECTORY
                    | OpenFlags.O_NOFOLLOW
                    | OpenFlags.O_SYNC
                    | OpenFlags.O_DSYNC
                    | OpenFlags.O_EXCL
                    | OpenFlags.O_TRUNC;

    /** Entries asked of the engine per {@code getdents} inside one {@code readdir}. */
    private static final int DIRENTS_PER_CALL = 256;

    private static final int ENOENT = -Errno.ENOENT.number();
    private static final int EBADF = -Errno.EBADF.number();
    private static final int EIO = -Errno.EIO.number();

    private final Callers callers;
    private final Handles handles = new Handles();
    private final ConcurrentHashMap<Long, LockOwner> owners = new ConcurrentHashMap<>();
    private final Interrupts interrupts = new Interrupts("seqvfs-fuse");
    private final ThreadLocal<byte[]> buffers = ThreadLocal.withInitial(() -> new byte[128 * 1024]);

    EngineFuseFs(SeqVfs vfs) {
        this.callers = new Callers(vfs);
        // struct fuse_operations' bit field (flag_nullpath_ok:1, flag_nopath:1,
        // flag_utime_omit_ok:1): jnr-fuse models it as padding, so the bits are set here.
        // nullpath_ok + nopath: calls on an open file get no path (they use the handle), and work
        // on an unlinked file under hard_remove; utime_omit_ok: UTIME_NOW/UTIME_OMIT reach utimens.
        Pointer ops = Struct.getMemory(fuseOperations);
        ops.putByte(flagsOffset(fuseOperations.flag_nullpath_ok), (byte) 0b111);
    }

    /**
     * Returns the byte offset of the struct's flag bits (jnr's {@code Member.offset()} is not
     * public; reflection on a class-path library is allowed).
     */
    private static long flagsOffset(Object flags) {
        try {
            Class<?> member = Class.forName("jnr.ffi.Struct$Member");
            Method offset = member.getDeclaredMethod("offset");
            offset.setAccessible(true);
            return (Long) offset.invoke(flags);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot find fuse_operations' flag bits", e);
        }
    }

    /** Returns libfuse's operations table (the callbacks and flags of this file system). */
    FuseOperations operations() {
        return fuseOperations;
    }

    /** Returns the handles (for the mount's counters and its forced close). */
    Handles handles() {
        return handles;
    }

    /** Returns the per-credentials tasks. */
    Callers callers() {
        return callers;
    }

    // ---------------------------------------------------------------- helpers

    private int callerPid() {
        return (int) getContext().pid.longValue();
    }

    /** Ends the watchdog of waiting calls (the mount has ended). */
    void shutdown() {
        interrupts.shutdown();
    }

    private VfsTask caller() {
        FuseContext ctx = getContext();
        return callers.task(
                (int) ctx.uid.longValue(), (int) ctx.gid.longValue(), (int) ctx.pid.longValue());
    }

    private static int fail(RuntimeException e, String op) {
        if (e instanceof VfsException v) {
            return -v.errno().number();
        }
        if (e instanceof At.UndecodableName) {
            return -At.EILSEQ;
        }
        LOG.warn("FUSE {}: unexpected failure, answering EIO", op, e);
        return EIO;
    }

    /**
     * {@return whether {@code mode} is the mode of the regular file at {@code a} with only its
     * set-user-ID and set-group-ID bits taken away, and the caller may write the file} That is the
     * {@code chmod} the kernel's FUSE client sends before a write or truncate by a process that
     * does not own a set-id file ({@code file_remove_privs}; libfuse 2 has no {@code
     * handle_killpriv}, so the file system is asked). The caller's own {@code chmod} would be
     * {@code EPERM}, and the write would fail with it.
     */
    private static boolean dropsOnlySetIdBits(VfsTask t, At a, int mode) {
        int setId = Mode.S_ISUID | Mode.S_ISGID;
        try {
            Stat s = t.fstatat(a.dirfd(), a.path(), 0);
            int now = s.mode() & Mode.PERMISSION_MASK;
            if (!Mode.isRegular(s.mode()) || mode == now || (mode & ~now) != 0) {
                return false;
            }
            if ((now & ~setId) != (mode & ~setId)) {
                return false;
            }
            t.faccessat(a.dirfd(), a.path(), Mode.W_OK, OpenFlags.AT_EACCESS);
            return true;
        } catch (VfsException e) {
            return false; // not there, not searchable, not writable: the EPERM stands
        }
    }

    private static void fill(FileStat st, Stat s) {
        st.st_ino.set(s.ino());
        st.st_mode.set(s.mode());
        st.st_nlink.set(s.nlink());
        st.st_uid.set(s.uid());
        st.st_gid.set(s.gid());
        st.st_rdev.set(s.rdev());
        st.st_size.set(s.size());
        st.st_blksize.set(s.blksize());
        st.st_blocks.set(s.blocks());
        time(st.st_atim, s.atimeNanos());
        time(st.st_mtim, s.mtimeNanos());
        time(st.st_ctim, s.ctimeNanos());
    }

    private static void time(Timespec t, long nanos) {
        t.tv_sec.set(Math.floorDiv(nanos, 1_000_000_000L));
        t.tv_nsec.set(Math.floorMod(nanos, 1_000_000_000L));
    }

    private static dev.seqvfs.protocol.Timespec time(Timespec t) {
        return new dev.seqvfs.protocol.Timespec(t.tv_sec.get(), t.tv_nsec.longValue());
    }

    private byte[] buffer(long size) {
        byte[] b = buffers.get();
        if (b.length < size) {
            b = new byte[(int) size];
            buffers.set(b);
        }
        return b;
    }

    private int open(VfsTask t, String path, int flags, int mode, FuseFileInfo fi) {
        int fd;
        try (At a = At.of(t, path)) {
            fd = t.openat(a.dirfd(), a.path(), flags, mode);
        }
        fi.fh.set(handles.add(t, fd));
        return 0;
    }

    // ---------------------------------------------------------------- attributes

    @Override
    public int getattr(String path, FileStat stat) {
        if (path == null) {
            return ENOENT;
        }
        try {
            VfsTask t = caller();
            try (At a = At.of(t, path)) {
                fill(stat, t.fstatat(a.dirfd(), a.path(), OpenFlags.AT_SYMLINK_NOFOLLOW));
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "getattr");
        }
    }

    @Override
    public int fgetattr(String path, FileStat stat, FuseFileInfo fi) {
        Handles.Handle h = handles.get(fi.fh.get());
        if (h == null) {
            return getattr(path, stat);
        }
        try {
            fill(stat, h.task().fstat(h.fd()));
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "fgetattr");
        }
    }

    @Override
    public int access(String path, int mask) {
        try {
            VfsTask t = caller();
            try (At a = At.of(t, path)) {
                t.faccessat(a.dirfd(), a.path(), mask, 0);
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "access");
        }
    }

    @Override
    public int chmod(String path, long mode) {
        if (path == null) {
            return ENOENT;
        }
        try {
            VfsTask t = caller();
            int m = (int) mode & Mode.PERMISSION_MASK;
            try (At a = At.of(t, path)) {
                try {
                    t.fchmodat(a.dirfd(), a.path(), m, 0);
                } catch (VfsException e) {
                    if (e.errno() != Errno.EPERM || !dropsOnlySetIdBits(t, a, m)) {
                        throw e;
                    }
                    // The kernel's clearing before a non-owner's write or truncate: answered
                    // as done and left to that write or truncate, which clears the bits in the
                    // engine itself (RegularInode's file_remove_privs). Nothing is changed with
                    // more privilege than the caller's: a chmod run as root here could land on
                    // another file renamed onto the path after this check.
                }
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "chmod");
        }
    }

    @Override
    public int chown(String path, long uid, long gid) {
        if (path == null) {
            return ENOENT;
        }
        try {
            VfsTask t = caller();
            try (At a = At.of(t, path)) {
                t.fchownat(
                        a.dirfd(), a.path(), (int) uid, (int) gid, OpenFlags.AT_SYMLINK_NOFOLLOW);
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "chown");
        }
    }

    @Override
    public int utimens(String path, Timespec[] timespec) {
        if (path == null) {
            return ENOENT;
        }
        try {
            VfsTask t = caller();
            try (At a = At.of(t, path)) {
                t.utimensat(
                        a.dirfd(),
                        a.path(),
                        time(timespec[0]),
                        time(timespec[1]),
                        OpenFlags.AT_SYMLINK_NOFOLLOW);
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "utimens");
        }
    }

    @Override
    public int truncate(String path, long size) {
        if (path == null) {
            return ENOENT;
        }
        try {
            VfsTask t = caller();
            try (At a = At.of(t, path)) {
                if (a.dirfd() == VfsTask.AT_FDCWD) {
                    t.truncate(a.path(), size);
                } else {
                    // no truncateat: open for writing (the permission truncate(2) needs), then
                    // ftruncate; the kernel sends truncate only for regular files
                    int fd = t.openat(a.dirfd(), a.path(), OpenFlags.O_WRONLY, 0);
                    try {
                        t.ftruncate(fd, size);
                    } finally {
                        t.close(fd);
                    }
                }
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "truncate");
        }
    }

    @Override
    public int ftruncate(String path, long size, FuseFileInfo fi) {
        Handles.Handle h = handles.get(fi.fh.get());
        if (h == null) {
            return truncate(path, size);
        }
        try {
            h.task().ftruncate(h.fd(), size);
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "ftruncate");
        }
    }

    @Override
    public int statfs(String path, Statvfs st) {
        try {
            StatFs s = caller().statfs("/");
            st.f_bsize.set(s.bsize());
            st.f_frsize.set(s.bsize());
            st.f_blocks.set(s.blocks());
            st.f_bfree.set(s.bfree());
            st.f_bavail.set(s.bavail());
            st.f_files.set(s.files());
            st.f_ffree.set(s.ffree());
            st.f_favail.set(s.ffree());
            st.f_fsid.set(s.fsid());
            st.f_namemax.set(s.namelen());
            st.f_flag.set((s.flags() & MountFlags.ST_RDONLY) != 0 ? Statvfs.ST_RDONLY : 0);
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "statfs");
        }
    }

    // ---------------------------------------------------------------- the namespace

    @Override
    public int readlink(String path, Pointer buf, long size) {
        try {
            VfsTask t = caller();
            byte[] target;
            try (At a = At.of(t, path)) {
                target = Filename.of(t.readlinkat(a.dirfd(), a.path())).bytes();
            }
            int n = (int) Math.min(target.length, size - 1);
            buf.put(0, target, 0, n);
            buf.putByte(n, (byte) 0);
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "readlink");
        }
    }

    @Override
    public int mknod(String path, long mode, long rdev) {
        try {
            VfsTask t = caller();
            try (At a = At.of(t, path)) {
                t.mknodat(a.dirfd(), a.path(), (int) mode, rdev);
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "mknod");
        }
    }

    @Override
    public int mkdir(String path, long mode) {
        try {
            VfsTask t = caller();
            try (At a = At.of(t, path)) {
                t.mkdirat(a.dirfd(), a.path(), (int) mode & Mode.PERMISSION_MASK);
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "mkdir");
        }
    }

    @Override
    public int unlink(String path) {
        try {
            VfsTask t = caller();
            try (At a = At.of(t, path)) {
                t.unlinkat(a.dirfd(), a.path(), 0);
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "unlink");
        }
    }

    @Override
    public int rmdir(String path) {
        try {
            VfsTask t = caller();
            try (At a = At.of(t, path)) {
                t.unlinkat(a.dirfd(), a.path(), OpenFlags.AT_REMOVEDIR);
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "rmdir");
        }
    }

    @Override
    public int symlink(String target, String linkpath) {
        try {
            VfsTask t = caller();
            At.checkName(target);
            try (At a = At.of(t, linkpath)) {
                t.symlinkat(target, a.dirfd(), a.path());
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "symlink");
        }
    }

    @Override
    public int rename(String oldpath, String newpath) {
        try {
            VfsTask t = caller();
            try (At o = At.of(t, oldpath);
                    At n = At.of(t, newpath)) {
                t.renameat2(o.dirfd(), o.path(), n.dirfd(), n.path(), 0);
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "rename");
        }
    }

    @Override
    public int link(String oldpath, String newpath) {
        try {
            VfsTask t = caller();
            try (At o = At.of(t, oldpath);
                    At n = At.of(t, newpath)) {
                t.linkat(o.dirfd(), o.path(), n.dirfd(), n.path(), 0);
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "link");
        }
    }

    // ---------------------------------------------------------------- open files

    @Override
    public int create(String path, long mode, FuseFileInfo fi) {
        try {
            int flags = (fi.flags.get() & OPEN_FLAGS_KEPT) | OpenFlags.O_CREAT;
            return open(caller(), path, flags, (int) mode & Mode.PERMISSION_MASK, fi);
        } catch (RuntimeException e) {
            return fail(e, "create");
        }
    }

    @Override
    public int open(String path, FuseFileInfo fi) {
        try {
            int flags = fi.flags.get() & OPEN_FLAGS_KEPT & ~OpenFlags.O_EXCL;
            return open(caller(), path, flags, 0, fi);
        } catch (RuntimeException e) {
            return fail(e, "open");
        }
    }

    @Override
    public int read(String path, Pointer buf, long size, long offset, FuseFileInfo fi) {
        Handles.Handle h = handles.get(fi.fh.get());
        if (h == null) {
            return EBADF;
        }
        try {
            byte[] b = buffer(size);
            int n = h.task().pread(h.fd(), b, 0, (int) size, offset);
            if (n > 0) {
                buf.put(0, b, 0, n);
            }
            return Math.max(n, 0);
        } catch (RuntimeException e) {
            return fail(e, "read");
        }
    }

    @Override
    public int write(String path, Pointer buf, long size, long offset, FuseFileInfo fi) {
        Handles.Handle h = handles.get(fi.fh.get());
        if (h == null) {
            return EBADF;
        }
        try {
            byte[] b = buffer(size);
            buf.get(0, b, 0, (int) size);
            return h.task().pwrite(h.fd(), b, 0, (int) size, offset);
        } catch (RuntimeException e) {
            return fail(e, "write");
        }
    }

    @Override
    public int flush(String path, FuseFileInfo fi) {
        // close(2) of one descriptor: libfuse itself then drops the closing process's POSIX
        // locks (an F_UNLCK through lock() with the closer's lock owner)
        return 0;
    }

    @Override
    public int release(String path, FuseFileInfo fi) {
        Handles.Handle h = handles.remove(fi.fh.get());
        if (h == null) {
            return EBADF;
        }
        try {
            unlockAll(h);
            h.task().close(h.fd());
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "release");
        }
    }

    @Override
    public int fsync(String path, int isdatasync, FuseFileInfo fi) {
        Handles.Handle h = handles.get(fi.fh.get());
        if (h == null) {
            return EBADF;
        }
        try {
            if (isdatasync != 0) {
                h.task().fdatasync(h.fd());
            } else {
                h.task().fsync(h.fd());
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "fsync");
        }
    }

    @Override
    public int fallocate(String path, int mode, long off, long length, FuseFileInfo fi) {
        Handles.Handle h = handles.get(fi.fh.get());
        if (h == null) {
            return EBADF;
        }
        try {
            h.task().fallocate(h.fd(), mode, off, length);
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "fallocate");
        }
    }

    @Override
    public int flock(String path, FuseFileInfo fi, int op) {
        Handles.Handle h = handles.get(fi.fh.get());
        if (h == null) {
            return EBADF;
        }
        boolean waits =
                (op & dev.seqvfs.protocol.Flock.LOCK_NB) == 0
                        && op != dev.seqvfs.protocol.Flock.LOCK_UN;
        try (Interrupts.Watch w = waits ? interrupts.watch(callerPid()) : null) {
            h.task().flock(h.fd(), op);
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "flock");
        }
    }

    /**
     * POSIX record locks, owned by the FUSE client's lock owner (the kernel's {@code files_struct}
     * of the calling process), one engine {@link LockOwner} per owner number: two host processes
     * conflict as on the host, even with the same credentials. libfuse unlocks the closing owner's
     * locks at each {@code flush} (a {@code close} on the host), which is POSIX's "a close drops
     * the process's locks on the file"; a handle's {@code release} also unlocks every owner that
     * locked through it (a forced unmount sends no {@code flush}).
     */
    @Override
    public int lock(String path, FuseFileInfo fi, int cmd, Flock fl) {
        Handles.Handle h = handles.get(fi.fh.get());
        if (h == null) {
            return EBADF;
        }
        try {
            LockOwner owner =
                    owners.computeIfAbsent(
                            fi.lock_owner.get(), n -> new LockOwner(Long.toHexString(n)));
            dev.seqvfs.protocol.Flock req =
                    new dev.seqvfs.protocol.Flock(
                            fl.l_type.get(),
                            fl.l_whence.get(),
                            fl.l_start.get(),
                            fl.l_len.get(),
                            (int) fl.l_pid.longValue());
            if (req.type() != dev.seqvfs.protocol.Flock.F_UNLCK && cmd != Fcntl.F_GETLK) {
                h.lockers().add(owner);
            }
            dev.seqvfs.protocol.Flock got;
            try (Interrupts.Watch w =
                    cmd == Fcntl.F_SETLKW ? interrupts.watch(callerPid()) : null) {
                got = h.task().fcntlLock(h.fd(), cmd, req, owner);
            }
            if (cmd == Fcntl.F_GETLK) {
                fl.l_type.set((short) got.type());
                fl.l_whence.set((short) got.whence());
                fl.l_start.set(got.start());
                fl.l_len.set(got.len());
                fl.l_pid.set(got.pid());
            }
            return 0;
        } catch (RuntimeException e) {
            return fail(e, "lock");
        }
    }

    /** Drops the POSIX locks of every owner that locked through {@code h} (at its release). */
    private static void unlockAll(Handles.Handle h) {
        for (LockOwner o : h.lockers()) {
            try {
                h.task()
                        .fcntlLock(
                                h.fd(),
                                Fcntl.F_SETLK,
                                new dev.seqvfs.protocol.Flock(
                                        dev.seqvfs.protocol.Flock.F_UNLCK, 0, 0, 0, 0),
                                o);
            } catch (RuntimeException e) {
                // the descriptor is going anyway; an owner without locks here is no error
            }
        }
    }

    // ---------------------------------------------------------------- directories

    @Override
    public int opendir(String path, FuseFileInfo fi) {
        try {
            return open(caller(), path, OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY, 0, fi);
        } catch (RuntimeException e) {
            return fail(e, "opendir");
        }
    }

    @Override
    public int readdir(String path, Pointer buf, FuseFillDir filler, long offset, FuseFileInfo fi) {
        Handles.Handle h = handles.get(fi.fh.get());
        if (h == null) {
            return EBADF;
        }
        try {
            VfsTask t = h.task();
            t.lseek(h.fd(), offset, VfsTask.SEEK_SET);
            FileStat st = new FileStat(Runtime.getSystemRuntime());
            Pointer stp = Struct.getMemory(st);
            while (true) {
                List<DirEntry> batch = t.getdents(h.fd(), DIRENTS_PER_CALL);
                if (batch.isEmpty()) {
                    return 0;
                }
                for (DirEntry e : batch) {
                    st.st_ino.set(e.ino());
                    st.st_mode.set(e.type() == null ? 0 : e.type().ifmt());
                    if (filler.apply(buf, name(e.name()), stp, e.cookie()) != 0) {
                        return 0; // the kernel's buffer is full: it asks again from this cookie
                    }
                }
            }
        } catch (RuntimeException e) {
            return fail(e, "readdir");
        }
    }

    private static ByteBuffer name(String name) {
        byte[] b = Filename.of(name).bytes();
        ByteBuffer buf = ByteBuffer.allocate(b.length + 1);
        buf.put(b).put((byte) 0).flip();
        return buf;
    }

    @Override
    public int releasedir(String path, FuseFileInfo fi) {
        return release(path, fi);
    }

    @Override
    public int fsyncdir(String path, FuseFileInfo fi) {
        return 0;
    }

    // ---------------------------------------------------------------- extended attributes

    @Override
    public int setxattr(String path, String name, Pointer value, long size, int flags) {
        if (At.undecodable(path, name)) {
            return -At.EILSEQ;
        }
        byte[] v = new byte[(int) size];
        if (size > 0) {
            value.get(0, v, 0, v.length);
        }
        return Xattrs.set(caller(), path, name, v, flags);
    }

    @Override
    public int getxattr(String path, String name, Pointer value, long size) {
        if (At.undecodable(path, name)) {
            return -At.EILSEQ;
        }
        byte[] out = new byte[(int) size];
        int n = Xattrs.get(caller(), path, name, out);
        if (n > 0 && size > 0) {
            value.put(0, out, 0, n);
        }
        return n;
    }

    @Override
    public int listxattr(String path, Pointer list, long size) {
        if (At.undecodable(path)) {
            return -At.EILSEQ;
        }
        byte[] out = new byte[(int) size];
        int n = Xattrs.list(caller(), path, out);
        if (n > 0 && size > 0) {
            list.put(0, out, 0, n);
        }
        return n;
    }

    @Override
    public int removexattr(String path, String name) {
        if (At.undecodable(path, name)) {
            return -At.EILSEQ;
        }
        return Xattrs.remove(caller(), path, name);
    }
}
