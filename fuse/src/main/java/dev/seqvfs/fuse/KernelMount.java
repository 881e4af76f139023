package dev.seqvfs.fuse;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.MountFlags;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;
import jnr.posix.SpawnFileAction;

/**
 * A mount served over {@code /dev/fuse} by this JVM's own implementation of the FUSE kernel
 * protocol ({@link KernelSession}, {@link KernelFs}): no libfuse.
 *
 * <p><b>Mounting</b> ({@code fuse.rst}, "Mount options"; libfuse's {@code lib/mount.c} does the
 * same): as root, {@code open("/dev/fuse", O_RDWR)} and {@code mount(2)} of type {@code
 * fuse.seqvfs} with {@code fd=N,rootmode=40000,user_id=U,group_id=G} and the kernel options asked
 * for ({@code allow_other}, {@code default_permissions}, {@code max_read=N}); as another user,
 * {@code fusermount3 -o OPTIONS -- MOUNTPOINT} with {@code _FUSE_COMMFD} naming one end of a unix
 * socket pair, over which {@code fusermount3} sends the device descriptor it opened and mounted
 * ({@code SCM_RIGHTS}). Unmounting: {@code umount2(2)} as root ({@code MNT_DETACH} when busy),
 * {@code fusermount3 -u [-z]} otherwise.
 *
 * <p><b>Options</b> (the caller's {@code -o}): the mount flags {@code ro}, {@code rw}, {@code
 * [no]suid}, {@code [no]dev}, {@code [no]exec}, {@code [no]atime}, {@code [no]diratime}, {@code
 * [no]relatime}, {@code [no]strictatime}, {@code [no]lazytime}, {@code sync}, {@code async}, {@code
 * dirsync} ({@code nosuid,nodev} unless asked otherwise, as libfuse); the kernel's {@code
 * allow_other}, {@code default_permissions} and {@code max_read=N}; {@code fsname=} and {@code
 * subtype=} ({@code /proc/mounts}' source and type suffix, {@code seqvfs} by default); {@code
 * entry_timeout=S}, {@code attr_timeout=S}, {@code negative_timeout=S} (seconds, as libfuse's: how
 * long the kernel may cache names, attributes and "no such file", 0 by default); libfuse 2's {@code
 * use_ino}, {@code hard_remove}, {@code big_writes}, {@code max_write=N}, {@code auto_cache} and
 * {@code nonempty} are accepted and change nothing (this transport always behaves so); {@code
 * kernel_cache} (libfuse's name: a file's pages stay cached across opens) and {@code cache_readdir}
 * (libfuse 3's: a directory's entries too; with {@code default_permissions}, where the kernel
 * checks an {@code opendir} itself, directories are then opened without a request, {@link
 * KernelFs.Cache#noOpendir}). Any other option fails the mount.
 *
 * <p><b>Thread-safety.</b> {@link #mount} from any thread; {@link #unmount} and the waits from any
 * thread, concurrently.
 */
final class KernelMount implements FuseMount.Transport {
    /** How long {@link #mount} waits for the kernel's {@code INIT}, in milliseconds. */
    private static final long INIT_WAIT_MILLIS = 10_000;

    private static final long MS_DIRSYNC = 128;
    private static final long MS_LAZYTIME = 1L << 25;

    private static final Map<String, long[]> FLAGS =
            Map.ofEntries(
                    Map.entry("ro", new long[] {MountFlags.MS_RDONLY, 1}),
                    Map.entry("rw", new long[] {MountFlags.MS_RDONLY, 0}),
                    Map.entry("nosuid", new long[] {MountFlags.MS_NOSUID, 1}),
                    Map.entry("suid", new long[] {MountFlags.MS_NOSUID, 0}),
                    Map.entry("nodev", new long[] {MountFlags.MS_NODEV, 1}),
                    Map.entry("dev", new long[] {MountFlags.MS_NODEV, 0}),
                    Map.entry("noexec", new long[] {MountFlags.MS_NOEXEC, 1}),
                    Map.entry("exec", new long[] {MountFlags.MS_NOEXEC, 0}),
                    Map.entry("sync", new long[] {MountFlags.MS_SYNCHRONOUS, 1}),
                    Map.entry("async", new long[] {MountFlags.MS_SYNCHRONOUS, 0}),
                    Map.entry("noatime", new long[] {MountFlags.MS_NOATIME, 1}),
                    Map.entry("atime", new long[] {MountFlags.MS_NOATIME, 0}),
                    Map.entry("nodiratime", new long[] {MountFlags.MS_NODIRATIME, 1}),
                    Map.entry("diratime", new long[] {MountFlags.MS_NODIRATIME, 0}),
                    Map.entry("relatime", new long[] {MountFlags.MS_RELATIME, 1}),
                    Map.entry("norelatime", new long[] {MountFlags.MS_RELATIME, 0}),
                    Map.entry("strictatime", new long[] {MountFlags.MS_STRICTATIME, 1}),
                    Map.entry("nostrictatime", new long[] {MountFlags.MS_STRICTATIME, 0}),
                    Map.entry("lazytime", new long[] {MS_LAZYTIME, 1}),
                    Map.entry("nolazytime", new long[] {MS_LAZYTIME, 0}),
                    Map.entry("dirsync", new long[] {MS_DIRSYNC, 1}));

    /** libfuse 2 options that this transport's behaviour always has. */
    private static final List<String> COMPATIBLE =
            List.of("use_ino", "hard_remove", "big_writes", "auto_cache", "nonempty");

    /** The options as parsed: what goes to {@code mount(2)} or {@code fusermount3}. */
    record Options(
            long flags,
            List<String> kernel,
            List<String> flagNames,
            String fsname,
            String subtype,
            KernelFs.Cache cache) {}

    private final Path mountPoint;
    private final boolean root;
    private final KernelSession session;
    private final KernelFs fs;

    private KernelMount(Path mountPoint, boolean root, KernelSession session, KernelFs fs) {
        this.mountPoint = mountPoint;
        this.root = root;
        this.session = session;
        this.fs = fs;
    }

    /**
     * Parses the caller's options.
     *
     * @throws FuseMountException {@code FAILED} for an option not listed in the class comment, or a
     *     bad number
     */
    static Options parse(List<String> options) throws FuseMountException {
        long flags = MountFlags.MS_NOSUID | MountFlags.MS_NODEV;
        List<String> kernel = new ArrayList<>();
        List<String> names = new ArrayList<>();
        String fsname = "seqvfs";
        String subtype = "seqvfs";
        double entry = 0;
        double attr = 0;
        double negative = 0;
        boolean keepCache = false;
        boolean cacheDir = false;
        for (String group : options) {
            for (String raw : group.split(",", -1)) {
                String o = raw.trim();
                if (o.isEmpty() || COMPATIBLE.contains(o) || o.startsWith("max_write=")) {
                    continue;
                }
                if (o.equals("kernel_cache")) {
                    keepCache = true;
                    continue;
                }
                if (o.equals("cache_readdir")) {
                    cacheDir = true;
                    continue;
                }
                long[] f = FLAGS.get(o);
                if (f != null) {
                    flags = f[1] == 1 ? flags | f[0] : flags & ~f[0];
                    names.add(o);
                    continue;
                }
                int eq = o.indexOf('=');
                String key = eq < 0 ? o : o.substring(0, eq);
                String value = eq < 0 ? null : o.substring(eq + 1);
                try {
                    switch (key) {
                        case "allow_other", "default_permissions" -> {
                            if (value != null) {
                                throw bad(o);
                            }
                            kernel.add(o);
                        }
                        case "max_read" ->
                                kernel.add("max_read=" + Integer.parseUnsignedInt(value));
                        case "fsname" -> fsname = nonEmpty(value, o);
                        case "subtype" -> subtype = nonEmpty(value, o);
                        case "entry_timeout" -> entry = seconds(value, o);
                        case "attr_timeout" -> attr = seconds(value, o);
                        case "negative_timeout" -> negative = seconds(value, o);
                        default -> throw bad(o);
                    }
                } catch (NumberFormatException | NullPointerException e) {
                    throw bad(o);
                }
            }
        }
        return new Options(
                flags,
                List.copyOf(kernel),
                List.copyOf(names),
                fsname,
                subtype,
                new KernelFs.Cache(
                        nanos(entry),
                        nanos(attr),
                        nanos(negative),
                        keepCache,
                        cacheDir,
                        // the kernel checks an opendir's permission itself only then
                        cacheDir && kernel.contains("default_permissions")));
    }

    private static FuseMountException bad(String o) {
        return new FuseMountException(
                FuseMountException.Reason.FAILED, "unknown or malformed mount option: " + o);
    }

    private static String nonEmpty(String v, String o) throws FuseMountException {
        if (v == null || v.isEmpty() || v.contains(",")) {
            throw bad(o);
        }
        return v;
    }

    private static double seconds(String v, String o) throws FuseMountException {
        double d = Double.parseDouble(v);
        if (!(d >= 0) || d > 1e9) {
            throw bad(o);
        }
        return d;
    }

    private static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    /**
     * Mounts {@code vfs} on {@code mp} and returns once the kernel's {@code INIT} is answered.
     *
     * @param vfs the instance to serve
     * @param mp the mount point, checked by {@link FuseMount} already
     * @param options the caller's options (the class comment lists them)
     * @param root whether this process runs as root ({@code mount(2)} itself) or not ({@code
     *     fusermount3})
     * @return the live mount
     * @throws FuseMountException {@code FAILED} (a bad option, the kernel's or {@code
     *     fusermount3}'s refusal, no {@code INIT} within 10 s), {@code NOT_PERMITTED}, {@code
     *     FUSE_MISSING}, {@code BUSY}; nothing stays mounted or open then
     */
    static KernelMount mount(SeqVfs vfs, Path mp, List<String> options, boolean root)
            throws FuseMountException {
        Options o = parse(options);
        try {
            Libc.c();
        } catch (LinkageError | RuntimeException e) {
            throw new FuseMountException(
                    FuseMountException.Reason.FUSE_MISSING,
                    "cannot load the C library through jnr-ffi (" + e.getMessage() + ")");
        }
        VfsTask server = vfs.newTask(Credentials.ROOT);
        KernelFs fs;
        try {
            server.umask(0);
            fs = new KernelFs(server, o.cache());
        } catch (RuntimeException e) {
            server.close();
            throw new FuseMountException(
                    FuseMountException.Reason.FAILED, "cannot serve the instance: " + e);
        }
        int device;
        try {
            device = root ? mountSys(mp, o) : mountFusermount(mp, o);
        } catch (FuseMountException | RuntimeException e) {
            fs.close();
            throw e;
        }
        KernelSession session = new KernelSession(device, fs, "seqvfs-fuse-" + mp);
        KernelMount m = new KernelMount(mp, root, session, fs);
        session.start();
        try {
            if (!session.initialized().await(INIT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                m.unmount();
                throw new FuseMountException(
                        FuseMountException.Reason.FAILED,
                        "the kernel sent no INIT within " + INIT_WAIT_MILLIS + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            m.unmount();
            throw new FuseMountException(
                    FuseMountException.Reason.FAILED, "interrupted while mounting");
        }
        return m;
    }

    /** {@code mount(2)} as root; returns the device descriptor. */
    private static int mountSys(Path mp, Options o) throws FuseMountException {
        Libc.C c = Libc.c();
        int dev = c.open("/dev/fuse", Libc.O_RDWR | Libc.O_CLOEXEC);
        if (dev < 0) {
            int e = Libc.errno();
            throw new FuseMountException(
                    e == Libc.EPERM || e == 13
                            ? FuseMountException.Reason.NOT_PERMITTED
                            : FuseMountException.Reason.FUSE_MISSING,
                    "cannot open /dev/fuse: errno " + e);
        }
        StringBuilder data =
                new StringBuilder()
                        .append("fd=")
                        .append(dev)
                        .append(",rootmode=40000,user_id=")
                        .append(Integer.toUnsignedString(c.getuid()))
                        .append(",group_id=")
                        .append(Integer.toUnsignedString(c.getgid()));
        for (String k : o.kernel()) {
            data.append(',').append(k);
        }
        int r =
                c.mount(
                        o.fsname(),
                        mp.toString(),
                        "fuse." + o.subtype(),
                        o.flags(),
                        data.toString());
        if (r != 0) {
            int e = Libc.errno();
            c.close(dev);
            throw new FuseMountException(
                    e == Libc.EPERM
                            ? FuseMountException.Reason.NOT_PERMITTED
                            : e == Libc.EBUSY
                                    ? FuseMountException.Reason.BUSY
                                    : e == Libc.ENODEV
                                            ? FuseMountException.Reason.FUSE_MISSING
                                            : FuseMountException.Reason.FAILED,
                    "mount(2) of " + mp + " failed: errno " + e);
        }
        return dev;
    }

    /**
     * {@code fusermount3} for a user that is not root: it opens {@code /dev/fuse}, mounts, and
     * sends the descriptor over the socket named by {@code _FUSE_COMMFD}.
     */
    private static int mountFusermount(Path mp, Options o) throws FuseMountException {
        Libc.C c = Libc.c();
        int[] sv = new int[2];
        if (c.socketpair(Libc.AF_UNIX, Libc.SOCK_STREAM, 0, sv) != 0) {
            throw new FuseMountException(
                    FuseMountException.Reason.FAILED, "socketpair failed: errno " + Libc.errno());
        }
        List<String> opts = new ArrayList<>(o.flagNames());
        opts.addAll(o.kernel());
        opts.add("fsname=" + o.fsname());
        opts.add("subtype=" + o.subtype());
        List<String> env = new ArrayList<>();
        env.add("_FUSE_COMMFD=" + sv[0]);
        System.getenv().forEach((k, v) -> env.add(k + "=" + v));
        POSIX posix = POSIXFactory.getNativePOSIX();
        long pid =
                posix.posix_spawnp(
                        "fusermount3",
                        List.of(SpawnFileAction.close(sv[1])),
                        List.of("fusermount3", "-o", String.join(",", opts), "--", mp.toString()),
                        env);
        c.close(sv[0]);
        if (pid <= 0) {
            c.close(sv[1]);
            throw new FuseMountException(
                    FuseMountException.Reason.FUSE_MISSING,
                    "cannot run fusermount3: install it: apt-get install fuse3");
        }
        int fd;
        try {
            fd = receiveFd(sv[1]);
        } finally {
            c.close(sv[1]);
            int[] status = new int[1];
            posix.waitpid(pid, status, 0);
        }
        if (fd < 0) {
            throw new FuseMountException(
                    FuseMountException.Reason.FAILED,
                    "fusermount3 could not mount " + mp + " (its message, if any, is above)");
        }
        c.fcntl(fd, Libc.F_SETFD, Libc.FD_CLOEXEC);
        return fd;
    }

    /**
     * {@code recvmsg(2)} of one byte with one descriptor in {@code SCM_RIGHTS}; -1 at the end of
     * the stream or on failure. {@code struct msghdr} (56 bytes), {@code struct iovec} (16) and a
     * {@code cmsghdr} of one {@code int} ({@code CMSG_SPACE(4)}, 24) on LP64 Linux.
     */
    private static int receiveFd(int sock) {
        ByteBuffer msg = Libc.direct(56);
        ByteBuffer iov = Libc.direct(16);
        ByteBuffer one = Libc.direct(8);
        ByteBuffer control = Libc.direct(24);
        iov.putLong(0, Libc.address(one).address());
        iov.putLong(8, 1);
        msg.putLong(16, Libc.address(iov).address());
        msg.putLong(24, 1);
        msg.putLong(32, Libc.address(control).address());
        msg.putLong(40, 24);
        long n;
        do {
            n = Libc.c().recvmsg(sock, Libc.address(msg), 0);
        } while (n < 0 && Libc.errno() == Libc.EINTR);
        if (n <= 0 || msg.getLong(40) < 20) {
            return -1;
        }
        if (control.getInt(8) != Libc.SOL_SOCKET || control.getInt(12) != Libc.SCM_RIGHTS) {
            return -1;
        }
        return control.getInt(16);
    }

    // ---------------------------------------------------------------- FuseMount.Transport

    @Override
    public boolean isServing() {
        return session.ended().getCount() > 0;
    }

    @Override
    public int openHandles() {
        return fs.handles().size();
    }

    @Override
    public boolean unmount() {
        if (!isServing()) {
            return false;
        }
        if (root) {
            Libc.C c = Libc.c();
            if (c.umount2(mountPoint.toString(), 0) == 0) {
                return true;
            }
            if (Libc.errno() == Libc.EBUSY) {
                c.umount2(mountPoint.toString(), Libc.MNT_DETACH);
            }
            return false;
        }
        if (FuseMount.run("fusermount3", "-u", mountPoint.toString()) == 0) {
            return true;
        }
        FuseMount.run("fusermount3", "-u", "-z", mountPoint.toString());
        return false;
    }

    @Override
    public boolean awaitUnmounted(long timeout, TimeUnit unit) throws InterruptedException {
        return session.ended().await(timeout, unit);
    }

    /** {@return the number of live nodes (the root included): for tests} */
    int liveNodes() {
        return fs.nodes().size();
    }

    /** {@return the INIT flags agreed with the kernel} */
    int initFlags() {
        return session.flags();
    }

    @Override
    public String toString() {
        return "kernel FUSE mount at "
                + mountPoint
                + " ("
                + (root ? "mount(2)" : "fusermount3")
                + ")";
    }
}
