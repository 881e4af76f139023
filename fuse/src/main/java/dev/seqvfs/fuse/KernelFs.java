package dev.seqvfs.fuse;

import static dev.seqvfs.fuse.FuseAbi.align8;

import dev.seqvfs.engine.LockOwner;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file-system side of the kernel transport: each FUSE request ({@code fuse.h}'s opcodes,
 * inode-based as libfuse's low-level API) becomes the engine call of the same meaning, made
 * relative to the descriptor of the node it names ({@link Nodes}) by the engine task of the
 * requesting process's credentials ({@link Callers}: threads of one server task, so that they share
 * its descriptor table), so the engine's permission checks decide; its {@link VfsException}'s errno
 * is the reply's error. Calls that check no permission ({@code GETATTR}, {@code READ}, {@code
 * READLINK}, {@code STATFS}, {@code FORGET}, locks, releases) are made by the server task itself.
 *
 * <p>Node-relative forms used: {@code fstatat(parent, name)} for LOOKUP, {@code fstat(node)} for
 * GETATTR (a node with no name left too: a file removed while open, a removed working directory),
 * {@code fchmodat}/{@code fchownat}/{@code utimensat}/{@code *xattrat} with {@code AT_EMPTY_PATH}
 * for SETATTR and the extended attributes, {@code reopen(node)} for OPEN, OPENDIR and a truncate
 * without a file handle, {@code *at(parent, name)} for the namespace calls, with names as bytes
 * ({@link Filename}: any name that is not valid UTF-8 too).
 *
 * <p><b>Concurrency.</b> Called by every worker of the session at once. No lock here: the state is
 * in {@link Nodes}, {@link Handles}, the concurrent map of lock owners and {@link Waits}; every
 * engine call is thread-safe. A waiting call ({@code SETLKW}) parks its worker, interruptibly.
 */
final class KernelFs {
    private static final Logger LOG = LoggerFactory.getLogger(KernelFs.class);

    /** Open flags the kernel passes that the engine's open should see. */
    private static final int OPEN_FLAGS_KEPT =
            OpenFlags.O_ACCMODE
                    | OpenFlags.O_APPEND
                    | OpenFlags.O_NONBLOCK
                    | OpenFlags.O_SYNC
                    | OpenFlags.O_DSYNC
                    | OpenFlags.O_TRUNC
                    | OpenFlags.O_NOATIME;

    /**
     * {@code OFFSET_MAX}: a lock's end "to the end of the file" in {@code struct fuse_file_lock}.
     */
    private static final long OFFSET_MAX = Long.MAX_VALUE;

    private static final Filename EMPTY = Filename.of("");

    /** Linux's {@code ENOTTY} ("Inappropriate ioctl for device"), which {@link Errno} lacks. */
    private static final int ENOTTY = 25;

    /**
     * What the kernel may cache: names ({@code entryNanos}), attributes ({@code attrNanos}) and "no
     * such file" ({@code negativeNanos}) for so many nanoseconds, a file's pages across opens
     * ({@code keepCache}: {@code FOPEN_KEEP_CACHE}, else they are dropped at each open) and a
     * directory's entries across opens ({@code cacheDir}: {@code FOPEN_CACHE_DIR}). With {@code
     * noOpendir}, {@code OPENDIR} answers {@code ENOSYS}, which makes the kernel open directories
     * without asking ({@code FUSE_NO_OPENDIR_SUPPORT}: no {@code OPENDIR} or {@code RELEASEDIR} any
     * more, entries cached as with {@code cacheDir}) and read them with no handle: only where the
     * kernel checks an {@code opendir}'s permission itself ({@code default_permissions}).
     */
    record Cache(
            long entryNanos,
            long attrNanos,
            long negativeNanos,
            boolean keepCache,
            boolean cacheDir,
            boolean noOpendir) {
        /** No caching: every lookup and attribute read asks the engine. */
        static final Cache NONE = new Cache(0, 0, 0, false, false, false);
    }

    private final VfsTask server;
    private final Callers callers;
    private final Nodes nodes;
    private final Handles handles = new Handles();
    private final ConcurrentHashMap<Long, LockOwner> owners = new ConcurrentHashMap<>();
    private final Waits waits = new Waits();
    private final Cache timeouts;

    /**
     * Makes the file system of a session.
     *
     * @param server the server task: its descriptor table holds every node and file handle; this
     *     file system owns it ({@link #close})
     * @param timeouts what the kernel may cache, and for how long
     */
    KernelFs(VfsTask server, Cache timeouts) {
        this.server = server;
        this.callers = new Callers(server);
        this.nodes = new Nodes(server);
        this.timeouts = timeouts;
    }

    /** {@return the open file and directory handles} */
    Handles handles() {
        return handles;
    }

    /** {@return the node table} */
    Nodes nodes() {
        return nodes;
    }

    /** {@return the waiting requests, for {@code INTERRUPT} and the session's end} */
    Waits waits() {
        return waits;
    }

    /**
     * Ends the file system's state after the session: every file handle and node descriptor is
     * closed, every caller's task ended, then the server task (which this file system owns).
     */
    void close() {
        try {
            handles.closeAll();
            nodes.closeAll();
            callers.closeAll();
        } finally {
            server.close();
        }
    }

    // ---------------------------------------------------------------- dispatch

    /**
     * Serves one request (not {@code INIT}, which the session answers) and sends its reply, if it
     * has one ({@code FORGET}, {@code BATCH_FORGET} and {@code INTERRUPT} have none).
     */
    void handle(Exchange x) {
        int op = x.opcode();
        switch (op) {
            case FuseAbi.FORGET:
                nodes.forget(x.nodeid(), x.argLong(0));
                return;
            case FuseAbi.BATCH_FORGET:
                batchForget(x);
                return;
            case FuseAbi.INTERRUPT:
                waits.interrupt(x.argLong(0));
                return;
            case FuseAbi.NOTIFY_REPLY:
                return;
            default:
                break;
        }
        try {
            serve(x, op);
        } catch (VfsException e) {
            x.replyError(e.errno().number());
        } catch (RuntimeException | Error e) {
            // every request that expects an answer gets one, or its caller waits for good
            LOG.warn("FUSE opcode {}: unexpected failure, answering EIO", op, e);
            x.replyError(
                    e instanceof OutOfMemoryError ? Errno.ENOMEM.number() : Errno.EIO.number());
        }
    }

    private void serve(Exchange x, int op) {
        switch (op) {
            case FuseAbi.LOOKUP -> lookup(x);
            case FuseAbi.GETATTR -> getattr(x);
            case FuseAbi.SETATTR -> setattr(x);
            case FuseAbi.READLINK -> readlink(x);
            case FuseAbi.SYMLINK -> symlink(x);
            case FuseAbi.MKNOD -> mknod(x);
            case FuseAbi.MKDIR -> mkdir(x);
            case FuseAbi.UNLINK -> unlink(x, 0);
            case FuseAbi.RMDIR -> unlink(x, OpenFlags.AT_REMOVEDIR);
            case FuseAbi.RENAME -> rename(x, 8, 0);
            case FuseAbi.RENAME2 -> rename(x, 16, x.argInt(8));
            case FuseAbi.LINK -> link(x);
            case FuseAbi.OPEN ->
                    open(
                            x,
                            x.argInt(0) & OPEN_FLAGS_KEPT,
                            timeouts.keepCache() ? FuseAbi.FOPEN_KEEP_CACHE : 0);
            case FuseAbi.OPENDIR -> {
                if (timeouts.noOpendir()) {
                    x.replyError(Errno.ENOSYS.number()); // zero-message opendir from now on
                    return;
                }
                open(
                        x,
                        OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY,
                        timeouts.cacheDir()
                                ? FuseAbi.FOPEN_KEEP_CACHE | FuseAbi.FOPEN_CACHE_DIR
                                : 0);
            }
            case FuseAbi.CREATE -> create(x);
            case FuseAbi.TMPFILE -> tmpfile(x);
            case FuseAbi.READ -> read(x);
            case FuseAbi.WRITE -> write(x);
            case FuseAbi.STATFS -> statfs(x);
            case FuseAbi.RELEASE, FuseAbi.RELEASEDIR -> release(x);
            case FuseAbi.FSYNC, FuseAbi.FSYNCDIR -> fsync(x);
            case FuseAbi.FLUSH -> flush(x);
            case FuseAbi.READDIR -> readdir(x);
            case FuseAbi.GETLK, FuseAbi.SETLK, FuseAbi.SETLKW -> lock(x, op);
            case FuseAbi.ACCESS -> access(x);
            case FuseAbi.FALLOCATE -> fallocate(x);
            case FuseAbi.LSEEK -> lseek(x);
            case FuseAbi.SETXATTR -> setxattr(x);
            case FuseAbi.GETXATTR -> getxattr(x);
            case FuseAbi.LISTXATTR -> listxattr(x);
            case FuseAbi.REMOVEXATTR -> removexattr(x);
            case FuseAbi.SYNCFS -> syncfs(x);
            case FuseAbi.DESTROY -> x.reply(0);
            case FuseAbi.IOCTL -> x.replyError(ENOTTY); // no ioctl of the engine's to offer
            default -> x.replyError(Errno.ENOSYS.number()); // POLL, BMAP, COPY_FILE_RANGE, ...
        }
    }

    // ---------------------------------------------------------------- helpers

    /** {@return the engine task of the request's caller (its fsuid, fsgid and groups)} */
    private VfsTask caller(Exchange x) {
        return callers.task(x.uid(), x.gid(), x.pid());
    }

    /** {@return the node the request names} @throws VfsException {@code ESTALE} if unknown */
    private Nodes.Node node(Exchange x) {
        return node(x.nodeid());
    }

    private Nodes.Node node(long id) {
        Nodes.Node n = nodes.get(id);
        if (n == null) {
            throw new VfsException(Errno.ESTALE, null, null);
        }
        return n;
    }

    private Handles.Handle handle(long fh) {
        Handles.Handle h = handles.get(fh);
        if (h == null) {
            throw new VfsException(Errno.EBADF, null, null);
        }
        return h;
    }

    private static void putTimeout(Exchange x, int secOff, int nsecOff, long nanos) {
        x.putLong(secOff, nanos / 1_000_000_000L);
        x.putInt(nsecOff, (int) (nanos % 1_000_000_000L));
    }

    /** Puts {@code struct fuse_entry_out} of {@code n} at reply offset 0. */
    private void putEntry(Exchange x, Nodes.Node n, Stat st) {
        x.putLong(0, n.id);
        x.putLong(8, 0); // generation: node ids are never reused within a mount
        putTimeout(x, 16, 32, timeouts.entryNanos());
        putTimeout(x, 24, 36, timeouts.attrNanos());
        x.putAttr(40, st);
    }

    /**
     * Replies {@code struct fuse_entry_out} for {@code n}, which carries one lookup of it; if the
     * kernel did not take the reply, that lookup is given back.
     */
    private void replyEntry(Exchange x, Nodes.Node n, Stat st) {
        putEntry(x, n, st);
        if (!x.reply(FuseAbi.ENTRY_OUT)) {
            nodes.forget(n.id, 1);
        }
    }

    /**
     * Replies the entry of {@code name} in {@code parent} after the call that made it: its node
     * (one more lookup) and attributes.
     */
    private void replyNewEntry(Exchange x, VfsTask caller, Nodes.Node parent, Filename name) {
        Stat st = caller.fstatat(parent.fd, name, OpenFlags.AT_SYMLINK_NOFOLLOW);
        Nodes.Node n = nodes.lookup(caller, parent, name, st);
        replyEntry(x, n, n.ino == st.ino() ? st : server.fstat(n.fd));
    }

    private void replyAttr(Exchange x, Stat st) {
        putTimeout(x, 0, 8, timeouts.attrNanos());
        x.putInt(12, 0);
        x.putAttr(16, st);
        x.reply(FuseAbi.ATTR_OUT);
    }

    // ---------------------------------------------------------------- names

    private void lookup(Exchange x) {
        Nodes.Node parent = node(x);
        Filename name = x.name(0);
        VfsTask c = caller(x);
        Stat st;
        try {
            st = c.fstatat(parent.fd, name, OpenFlags.AT_SYMLINK_NOFOLLOW);
        } catch (VfsException e) {
            if (e.errno() == Errno.ENOENT && timeouts.negativeNanos() > 0) {
                // a negative entry the kernel may cache: node id 0 with a timeout
                x.zero(0, FuseAbi.ENTRY_OUT);
                putTimeout(x, 16, 32, timeouts.negativeNanos());
                x.reply(FuseAbi.ENTRY_OUT);
                return;
            }
            throw e;
        }
        Nodes.Node n = nodes.lookup(c, parent, name, st);
        replyEntry(x, n, n.ino == st.ino() ? st : server.fstat(n.fd));
    }

    private void batchForget(Exchange x) {
        int count = x.argInt(0);
        int max = (x.argLength() - 8) / 16;
        for (int i = 0; i < Math.min(count, max); i++) {
            nodes.forget(x.argLong(8 + 16 * i), x.argLong(16 + 16 * i));
        }
    }

    private void symlink(Exchange x) {
        Nodes.Node parent = node(x);
        Filename name = x.name(0);
        Filename target = x.name(x.after(0));
        VfsTask c = caller(x);
        c.symlinkat(target, parent.fd, name);
        replyNewEntry(x, c, parent, name);
    }

    private void mknod(Exchange x) {
        Nodes.Node parent = node(x);
        int mode = x.argInt(0);
        long rdev = x.argInt(4) & 0xFFFF_FFFFL;
        Filename name = x.name(16);
        VfsTask c = caller(x);
        c.mknodat(parent.fd, name, mode, rdev);
        replyNewEntry(x, c, parent, name);
    }

    private void mkdir(Exchange x) {
        Nodes.Node parent = node(x);
        int mode = x.argInt(0) & Mode.PERMISSION_MASK;
        Filename name = x.name(8);
        VfsTask c = caller(x);
        c.mkdirat(parent.fd, name, mode);
        replyNewEntry(x, c, parent, name);
    }

    private void unlink(Exchange x, int flags) {
        Nodes.Node parent = node(x);
        caller(x).unlinkat(parent.fd, x.name(0), flags);
        x.reply(0);
    }

    private void rename(Exchange x, int namesAt, int flags) {
        Nodes.Node parent = node(x);
        Nodes.Node newParent = node(x.argLong(0));
        Filename from = x.name(namesAt);
        Filename to = x.name(x.after(namesAt));
        caller(x).renameat2(parent.fd, from, newParent.fd, to, flags);
        x.reply(0);
    }

    /**
     * {@code LINK}: a new name for the node's inode, whatever names it has now ({@code linkat(node,
     * "", ..., AT_EMPTY_PATH)}). Linux lets only a caller with {@code CAP_DAC_READ_SEARCH} link by
     * descriptor, and so does the engine (root); for another caller the front end checks what
     * {@code link(2)} checks of it, write and search permission on the new parent ({@code
     * may_create}), and the server task links (the kernel has checked {@code
     * fs.protected_hardlinks} itself, in {@code may_linkat}, before it sent the request).
     */
    private void link(Exchange x) {
        Nodes.Node newParent = node(x);
        Nodes.Node old = node(x.argLong(0));
        Filename name = x.name(8);
        VfsTask c = caller(x);
        if (c.cred().isRoot()) {
            c.linkat(old.fd, EMPTY, newParent.fd, name, OpenFlags.AT_EMPTY_PATH);
        } else {
            c.faccessat(
                    newParent.fd,
                    EMPTY,
                    Mode.W_OK | Mode.X_OK,
                    OpenFlags.AT_EMPTY_PATH | OpenFlags.AT_EACCESS);
            server.linkat(old.fd, EMPTY, newParent.fd, name, OpenFlags.AT_EMPTY_PATH);
        }
        Stat st = server.fstat(old.fd);
        Nodes.Node n = nodes.ofDescriptor(old.fd, st);
        replyEntry(x, n, st);
    }

    // ---------------------------------------------------------------- attributes

    private void getattr(Exchange x) {
        Nodes.Node n = node(x);
        int fd = n.fd;
        if ((x.argInt(0) & FuseAbi.GETATTR_FH) != 0) {
            Handles.Handle h = handles.get(x.argLong(8));
            if (h != null) {
                fd = h.fd();
            }
        }
        replyAttr(x, server.fstat(fd));
    }

    /**
     * {@code SETATTR}: each attribute the kernel asks to set, by the caller, on the node ({@code
     * AT_EMPTY_PATH}), so the engine's rules apply (owner or root for the mode, {@code chown}'s
     * rules and its clearing of set-id bits, write permission for a truncate, owner or write
     * permission for times). With {@code HANDLE_KILLPRIV_V2} the kernel leaves the clearing of
     * set-id bits to the file system: the engine's own write, truncate and {@code chown} do it as
     * the caller's credentials say. A request that sets none of mode, owner, size or times is a
     * {@code chown(path, -1, -1)}: it changes the ctime (and, as {@code chown(2)}, clears set-id
     * bits of a non-directory).
     */
    private void setattr(Exchange x) {
        Nodes.Node n = node(x);
        int valid = x.argInt(0);
        VfsTask c = caller(x);
        Handles.Handle h = (valid & FuseAbi.FATTR_FH) != 0 ? handles.get(x.argLong(8)) : null;
        if ((valid & FuseAbi.FATTR_MODE) != 0) {
            c.fchmodat(n.fd, EMPTY, x.argInt(68) & Mode.PERMISSION_MASK, OpenFlags.AT_EMPTY_PATH);
        }
        if ((valid & (FuseAbi.FATTR_UID | FuseAbi.FATTR_GID)) != 0) {
            int uid = (valid & FuseAbi.FATTR_UID) != 0 ? x.argInt(76) : -1;
            int gid = (valid & FuseAbi.FATTR_GID) != 0 ? x.argInt(80) : -1;
            c.fchownat(n.fd, EMPTY, uid, gid, OpenFlags.AT_EMPTY_PATH);
        }
        boolean size = (valid & FuseAbi.FATTR_SIZE) != 0;
        if (size) {
            long length = x.argLong(16);
            if (h != null) {
                c.ftruncate(h.fd(), length);
            } else {
                // truncate(2): write permission on the inode, as an open for writing checks it
                int fd = c.reopen(n.fd, OpenFlags.O_WRONLY | OpenFlags.O_CLOEXEC);
                try {
                    c.ftruncate(fd, length);
                } finally {
                    c.close(fd);
                }
            }
        }
        Timespec atime = time(x, valid, FuseAbi.FATTR_ATIME, FuseAbi.FATTR_ATIME_NOW, 32, 56);
        Timespec mtime = time(x, valid, FuseAbi.FATTR_MTIME, FuseAbi.FATTR_MTIME_NOW, 40, 60);
        boolean truncateTime = size && atime.isOmit() && mtime.isNow();
        if (!(atime.isOmit() && mtime.isOmit()) && !truncateTime) {
            // (a truncate's "mtime now" is the truncate's own: the engine sets it)
            c.utimensat(n.fd, EMPTY, atime, mtime, OpenFlags.AT_EMPTY_PATH);
        }
        int changes =
                FuseAbi.FATTR_MODE
                        | FuseAbi.FATTR_UID
                        | FuseAbi.FATTR_GID
                        | FuseAbi.FATTR_SIZE
                        | FuseAbi.FATTR_ATIME
                        | FuseAbi.FATTR_MTIME;
        if ((valid & changes) == 0) {
            c.fchownat(n.fd, EMPTY, -1, -1, OpenFlags.AT_EMPTY_PATH);
        }
        replyAttr(x, server.fstat(h != null ? h.fd() : n.fd));
    }

    private static Timespec time(
            Exchange x, int valid, int bit, int nowBit, int secOff, int nsecOff) {
        if ((valid & bit) == 0) {
            return Timespec.OMIT;
        }
        if ((valid & nowBit) != 0) {
            return Timespec.NOW;
        }
        return new Timespec(x.argLong(secOff), x.argInt(nsecOff) & 0xFFFF_FFFFL);
    }

    private void readlink(Exchange x) {
        Nodes.Node n = node(x);
        byte[] target = Filename.of(server.readlinkat(n.fd, EMPTY)).bytes();
        x.putBytes(0, target, 0, target.length);
        x.reply(target.length);
    }

    private void access(Exchange x) {
        Nodes.Node n = node(x);
        caller(x).faccessat(n.fd, EMPTY, x.argInt(0) & 7, OpenFlags.AT_EMPTY_PATH);
        x.reply(0);
    }

    private void statfs(Exchange x) {
        StatFs s = server.fstatfs(node(x).fd);
        x.putLong(0, s.blocks());
        x.putLong(8, s.bfree());
        x.putLong(16, s.bavail());
        x.putLong(24, s.files());
        x.putLong(32, s.ffree());
        x.putInt(40, s.bsize());
        x.putInt(44, s.namelen());
        x.putInt(48, s.bsize());
        x.zero(52, FuseAbi.STATFS_OUT - 52);
        x.reply(FuseAbi.STATFS_OUT);
    }

    private void syncfs(Exchange x) {
        server.syncfs(node(x).fd);
        x.reply(0);
    }

    // ---------------------------------------------------------------- open files

    /**
     * {@code OPEN} and {@code OPENDIR}: the caller reopens the node's inode ({@code
     * /proc/self/fd/N}), so the engine checks the open's permission; the new descriptor is the
     * handle. {@code O_TRUNC} truncates ({@code ATOMIC_O_TRUNC}).
     */
    private void open(Exchange x, int flags, int openFlags) {
        Nodes.Node n = node(x);
        int fd = caller(x).reopen(n.fd, flags | OpenFlags.O_CLOEXEC);
        long fh = handles.add(server, fd);
        x.putLong(0, fh);
        x.putInt(8, openFlags);
        x.putInt(12, 0);
        if (!x.reply(FuseAbi.OPEN_OUT)) {
            closeHandle(fh);
        }
    }

    private void create(Exchange x) {
        Nodes.Node parent = node(x);
        int flags = x.argInt(0);
        int mode = x.argInt(4) & Mode.PERMISSION_MASK;
        Filename name = x.name(16);
        int f =
                (flags & (OPEN_FLAGS_KEPT | OpenFlags.O_EXCL))
                        | OpenFlags.O_CREAT
                        | OpenFlags.O_CLOEXEC;
        replyCreated(x, caller(x).openat(parent.fd, name, f, mode));
    }

    /**
     * {@code TMPFILE} ({@code open(2)} with {@code O_TMPFILE} in a directory of the mount, Linux
     * 6.3 on): the engine's own {@code O_TMPFILE} open in the node's directory, by the caller (so
     * its permission checks and its {@code O_EXCL}, which makes the file unlinkable, apply),
     * answered as {@code CREATE} is: the new node, with no name and a link count of 0, and its
     * handle. The request carries the same {@code fuse_create_in}; the name after it is the
     * kernel's placeholder ({@code "/"}) and is not read.
     */
    private void tmpfile(Exchange x) {
        Nodes.Node dir = node(x);
        int flags = x.argInt(0);
        int mode = x.argInt(4) & Mode.PERMISSION_MASK;
        int f =
                (flags & (OPEN_FLAGS_KEPT | OpenFlags.O_EXCL))
                        | OpenFlags.O_TMPFILE
                        | OpenFlags.O_CLOEXEC;
        replyCreated(x, caller(x).openat(dir.fd, ".", f, mode));
    }

    /**
     * Answers a {@code CREATE} or {@code TMPFILE} with the file the engine opened on {@code fd}:
     * its node ({@code fuse_entry_out}) and a handle ({@code fuse_open_out}); on any failure the
     * descriptor and the node are given back.
     */
    private void replyCreated(Exchange x, int fd) {
        long fh = handles.add(server, fd);
        Nodes.Node n;
        Stat st;
        try {
            st = server.fstat(fd);
            n = nodes.ofDescriptor(fd, st);
        } catch (RuntimeException e) {
            closeHandle(fh);
            throw e;
        }
        putEntry(x, n, st);
        x.putLong(FuseAbi.ENTRY_OUT, fh);
        x.putInt(FuseAbi.ENTRY_OUT + 8, timeouts.keepCache() ? FuseAbi.FOPEN_KEEP_CACHE : 0);
        x.putInt(FuseAbi.ENTRY_OUT + 12, 0);
        if (!x.reply(FuseAbi.ENTRY_OUT + FuseAbi.OPEN_OUT)) {
            nodes.forget(n.id, 1);
            closeHandle(fh);
        }
    }

    private void closeHandle(long fh) {
        Handles.Handle h = handles.remove(fh);
        if (h != null) {
            unlockAll(h);
            server.close(h.fd());
        }
    }

    private void read(Exchange x) {
        Handles.Handle h = handle(x.argLong(0));
        long offset = x.argLong(8);
        int size = Math.max(0, Math.min(x.argInt(16), x.data.length));
        // straight from the file's pages into the reply (no array between)
        int n = server.pread(h.fd(), x.readData(size), offset);
        x.reply(Math.max(n, 0));
    }

    /**
     * {@code WRITE}: by the caller, whose credentials decide whether the write clears set-id bits
     * ({@code HANDLE_KILLPRIV_V2}: the engine's own {@code file_remove_privs}).
     */
    private void write(Exchange x) {
        Handles.Handle h = handle(x.argLong(0));
        long offset = x.argLong(8);
        int size = x.argInt(16);
        if (size < 0 || size > x.data.length || size > x.argLength() - FuseAbi.WRITE_IN) {
            throw new VfsException(Errno.EINVAL, null, null);
        }
        x.in.get(FuseAbi.IN_HEADER + FuseAbi.WRITE_IN, x.data, 0, size);
        int n = caller(x).pwrite(h.fd(), x.data, 0, size, offset);
        x.putInt(0, n);
        x.putInt(4, 0);
        x.reply(8);
    }

    private void release(Exchange x) {
        closeHandle(x.argLong(0));
        x.reply(0);
    }

    private void fsync(Exchange x) {
        long fh = x.argLong(0);
        boolean data = (x.argInt(8) & FuseAbi.FSYNC_FDATASYNC) != 0;
        if (fh == 0 && x.opcode() == FuseAbi.FSYNCDIR && timeouts.noOpendir()) {
            // a directory opened without OPENDIR: fsync a description of the node's own
            int fd = directory(x);
            try {
                server.fsync(fd);
            } finally {
                server.close(fd);
            }
        } else {
            Handles.Handle h = handle(fh);
            if (data) {
                server.fdatasync(h.fd());
            } else {
                server.fsync(h.fd());
            }
        }
        x.reply(0);
    }

    /**
     * Opens the request's node for reading as a directory, by the server (a directory the kernel
     * opened without {@code OPENDIR}, {@link Cache#noOpendir}: it checked the permission itself).
     */
    private int directory(Exchange x) {
        return server.reopen(
                node(x).fd, OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY | OpenFlags.O_CLOEXEC);
    }

    /**
     * {@code FLUSH}, sent at each {@code close(2)} of a descriptor of the file: POSIX drops the
     * closing process's record locks on the file ({@code fcntl(2)}), here those of its lock owner.
     */
    private void flush(Exchange x) {
        Handles.Handle h = handle(x.argLong(0));
        LockOwner owner = owners.get(x.argLong(16));
        if (owner != null) {
            unlock(h, owner);
        }
        x.reply(0);
    }

    private void fallocate(Exchange x) {
        Handles.Handle h = handle(x.argLong(0));
        caller(x).fallocate(h.fd(), x.argInt(24), x.argLong(8), x.argLong(16));
        x.reply(0);
    }

    private void lseek(Exchange x) {
        Handles.Handle h = handle(x.argLong(0));
        long r = server.lseek(h.fd(), x.argLong(8), x.argInt(16));
        x.putLong(0, r);
        x.reply(8);
    }

    // ---------------------------------------------------------------- directories

    /**
     * {@code READDIR}: entries from the directory handle's offset (a cookie), as many as fit in the
     * kernel's buffer; each record's offset is the cookie after it, so the next request resumes
     * there and a listing resumed at an offset lists every name once.
     */
    private void readdir(Exchange x) {
        long fh = x.argLong(0);
        if (fh == 0 && timeouts.noOpendir()) {
            int fd = directory(x);
            try {
                readdir(x, fd);
            } finally {
                server.close(fd);
            }
        } else {
            readdir(x, handle(fh).fd());
        }
    }

    private void readdir(Exchange x, int fd) {
        long offset = x.argLong(8);
        int size = Math.min(x.argInt(16), x.out.capacity() - FuseAbi.OUT_HEADER);
        server.lseek(fd, offset, VfsTask.SEEK_SET);
        int pos = 0;
        fill:
        while (true) {
            List<DirEntry> batch = server.getdents(fd, Math.max(1, (size - pos) / 32 + 1));
            if (batch.isEmpty()) {
                break;
            }
            for (DirEntry e : batch) {
                byte[] name = Filename.of(e.name()).bytes();
                int rec = align8(FuseAbi.DIRENT + name.length);
                if (pos + rec > size) {
                    break fill;
                }
                x.putLong(pos, e.ino());
                x.putLong(pos + 8, e.cookie());
                x.putInt(pos + 16, name.length);
                x.putInt(pos + 20, e.type() == null ? 0 : e.type().ifmt() >>> 12);
                x.putBytes(pos + FuseAbi.DIRENT, name, 0, name.length);
                x.zero(pos + FuseAbi.DIRENT + name.length, rec - FuseAbi.DIRENT - name.length);
                pos += rec;
            }
        }
        x.reply(pos);
    }

    // ---------------------------------------------------------------- locks

    /**
     * {@code GETLK}, {@code SETLK}, {@code SETLKW}: POSIX record locks owned by the kernel's lock
     * owner (one engine {@link LockOwner} per owner number, so two host processes conflict as on
     * the host), or, with {@code FUSE_LK_FLOCK}, a {@code flock(2)} of the handle's open file
     * description. A waiting request is interrupted by the kernel's {@code INTERRUPT} ({@link
     * Waits}): it answers {@code EINTR} having changed nothing.
     */
    private void lock(Exchange x, int op) {
        Handles.Handle h = handle(x.argLong(0));
        long ownerId = x.argLong(8);
        long start = x.argLong(16);
        long end = x.argLong(24);
        int type = x.argInt(32);
        int pid = x.argInt(36);
        int lkFlags = x.argInt(40);
        if ((lkFlags & FuseAbi.LK_FLOCK) != 0 && op != FuseAbi.GETLK) {
            int how =
                    type == Flock.F_UNLCK
                            ? Flock.LOCK_UN
                            : type == Flock.F_RDLCK ? Flock.LOCK_SH : Flock.LOCK_EX;
            if (op == FuseAbi.SETLK && how != Flock.LOCK_UN) {
                how |= Flock.LOCK_NB;
            }
            try (Waits.Wait w = op == FuseAbi.SETLKW ? waits.begin(x.unique()) : null) {
                server.flock(h.fd(), how);
            }
            x.reply(0);
            return;
        }
        LockOwner owner = owners.computeIfAbsent(ownerId, k -> new LockOwner(Long.toHexString(k)));
        long len = end == OFFSET_MAX ? 0 : end - start + 1;
        Flock req = new Flock(type, VfsTask.SEEK_SET, start, len, pid);
        int cmd =
                op == FuseAbi.GETLK
                        ? Fcntl.F_GETLK
                        : op == FuseAbi.SETLK ? Fcntl.F_SETLK : Fcntl.F_SETLKW;
        if (type != Flock.F_UNLCK && cmd != Fcntl.F_GETLK) {
            h.lockers().add(owner);
        }
        Flock got;
        try (Waits.Wait w = cmd == Fcntl.F_SETLKW ? waits.begin(x.unique()) : null) {
            got = server.fcntlLock(h.fd(), cmd, req, owner);
        }
        if (cmd != Fcntl.F_GETLK) {
            x.reply(0);
            return;
        }
        x.putLong(0, got.start());
        x.putLong(8, got.len() == 0 ? OFFSET_MAX : got.start() + got.len() - 1);
        x.putInt(16, got.type());
        x.putInt(20, got.pid());
        x.reply(24);
    }

    /** Drops {@code owner}'s POSIX locks on the file of {@code h}. */
    private void unlock(Handles.Handle h, LockOwner owner) {
        try {
            server.fcntlLock(h.fd(), Fcntl.F_SETLK, new Flock(Flock.F_UNLCK, 0, 0, 0, 0), owner);
        } catch (RuntimeException e) {
            // an owner without locks on the file, or the file going: nothing to drop
        }
    }

    /** Drops the POSIX locks of every owner that locked through {@code h} (at its release). */
    private void unlockAll(Handles.Handle h) {
        for (LockOwner o : h.lockers()) {
            unlock(h, o);
        }
    }

    // ---------------------------------------------------------------- extended attributes

    private void setxattr(Exchange x) {
        Nodes.Node n = node(x);
        int size = x.argInt(0);
        int flags = x.argInt(4);
        String name = x.text(8);
        int valueAt = FuseAbi.IN_HEADER + x.after(8);
        if (size < 0 || valueAt + size > x.length) {
            throw new VfsException(Errno.EINVAL, null, null);
        }
        byte[] value = new byte[size];
        x.in.get(valueAt, value);
        caller(x).setxattrat(n.fd, EMPTY, OpenFlags.AT_EMPTY_PATH, name, value, flags);
        x.reply(0);
    }

    private void getxattr(Exchange x) {
        Nodes.Node n = node(x);
        int size = x.argInt(0);
        byte[] v = caller(x).getxattrat(n.fd, EMPTY, OpenFlags.AT_EMPTY_PATH, x.text(8));
        replySized(x, size, v);
    }

    private void listxattr(Exchange x) {
        Nodes.Node n = node(x);
        int size = x.argInt(0);
        List<String> names = caller(x).listxattrat(n.fd, EMPTY, OpenFlags.AT_EMPTY_PATH);
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (String name : names) {
            b.writeBytes(Exchange.bytesOf(name));
            b.write(0);
        }
        replySized(x, size, b.toByteArray());
    }

    /**
     * Replies a value as {@code getxattr(2)} and {@code listxattr(2)} return one: a size of 0 asks
     * for the length ({@code struct fuse_getxattr_out}), a buffer too small is {@code ERANGE}.
     */
    private static void replySized(Exchange x, int size, byte[] v) {
        if (size == 0) {
            x.putInt(0, v.length);
            x.putInt(4, 0);
            x.reply(8);
        } else if (v.length > size) {
            x.replyError(Errno.ERANGE.number());
        } else {
            x.putBytes(0, v, 0, v.length);
            x.reply(v.length);
        }
    }

    private void removexattr(Exchange x) {
        Nodes.Node n = node(x);
        caller(x).removexattrat(n.fd, EMPTY, OpenFlags.AT_EMPTY_PATH, x.text(0));
        x.reply(0);
    }
}
