package dev.seqvfs.fuse;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A SeqVFS instance mounted on the host through FUSE: every program on the host can use it, and
 * each of its requests is an engine call made with the requesting process's uid, gid and
 * supplementary groups. This class is the front end's whole public surface; no binding type appears
 * in it.
 *
 * <p>Two transports serve a mount, chosen by the option {@code transport=kernel|libfuse2} (or, when
 * the options name none, the system property {@code seqvfs.fuse.transport}; {@value
 * #DEFAULT_TRANSPORT} by default): {@code kernel}, this front end's own implementation of the FUSE
 * kernel protocol on {@code /dev/fuse} ({@link KernelMount}: inode-based, no libfuse), and {@code
 * libfuse2}, libfuse 2's high-level path API through jnr-fuse ({@link LibfuseMount}, with {@link
 * #FIXED_OPTIONS}).
 *
 * <p><b>Thread-safety.</b> {@link #mount} may be called from any thread; {@link #close} and {@link
 * #awaitUnmounted} may be called from any thread, concurrently; {@code close} is idempotent.
 */
public final class FuseMount implements AutoCloseable {
    /** The options every libfuse 2 mount gets, before the caller's ({@link LibfuseMount}). */
    public static final String FIXED_OPTIONS =
            "use_ino,hard_remove,big_writes,max_write=131072,entry_timeout=0,attr_timeout=0,"
                    + "negative_timeout=0,auto_cache,fsname=seqvfs,subtype=seqvfs";

    /**
     * The options with which the kernel caches what it saw ({@code seqvfs mount} gives them to a
     * mount of an instance of its own): names, attributes and "no such file" for 1 s (libfuse's
     * default timeouts), a file's pages and a directory's entries across opens ({@code
     * kernel_cache}, {@code cache_readdir}), and, because a cached path is walked without asking
     * the file system, the kernel's own permission checks on the attributes the engine reported
     * ({@code default_permissions}; the engine's checks follow). Correct when nothing but the mount
     * changes the instance: the kernel applies its own changes to its caches. An instance that JVM
     * code changes too needs {@link #mount}'s default, no caching.
     */
    public static final String CACHED_OPTIONS =
            "entry_timeout=1,attr_timeout=1,negative_timeout=1,default_permissions,kernel_cache,"
                    + "cache_readdir";

    /** The transport of a mount whose options and system properties name none. */
    public static final String DEFAULT_TRANSPORT = "kernel";

    /** How long {@link #close} waits for the transport to end after the unmount, in ms. */
    private static final long UNMOUNT_WAIT_MILLIS = 10_000;

    private static final String INSTALL =
            "install it: apt-get install fuse3 libfuse2 (Debian; not the old 'fuse' package)";

    /** What serves a mount: a transport's side of {@link FuseMount}'s methods. */
    interface Transport {
        /** {@return whether the mount is still served (no unmount yet)} */
        boolean isServing();

        /** {@return the files and directories the host has open through the mount now} */
        int openHandles();

        /**
         * Detaches the mount; lazily if it is busy.
         *
         * @return {@code true} if detached at once, {@code false} if busy (lazy) or ended already
         */
        boolean unmount();

        /**
         * Waits for the end of the serving, after which everything it held is closed.
         *
         * @return {@code true} if it ended within the time
         * @throws InterruptedException if the waiting thread is interrupted
         */
        boolean awaitUnmounted(long timeout, TimeUnit unit) throws InterruptedException;
    }

    private final Path mountPoint;
    private final Transport transport;
    private volatile boolean closed;

    private FuseMount(Path mountPoint, Transport transport) {
        this.mountPoint = mountPoint;
        this.transport = transport;
    }

    /**
     * Mounts {@code vfs} on {@code mountPoint} and returns once the mount is live; the transport
     * serves it on threads of its own until {@link #close} or an unmount from outside ({@code
     * umount}, {@code fusermount -u}). The instance stays the caller's: closing the mount does not
     * close it.
     *
     * @param vfs the instance to serve
     * @param mountPoint an existing, empty directory that is not a mount point
     * @param options extra mount options ({@code "ro"}, {@code "allow_other"}, {@code
     *     "transport=libfuse2"}), each one element or comma-separated
     * @return the live mount
     * @throws FuseMountException {@link FuseMountException.Reason#FUSE_MISSING} (no {@code
     *     /dev/fuse}, no {@code libfuse.so.2} for the libfuse transport, no {@code fusermount} for
     *     a non-root user), {@code NOT_A_DIRECTORY}, {@code BUSY} (already a mount point, or not
     *     empty), {@code NOT_PERMITTED}, {@code FAILED} (an unknown option or transport, or the
     *     mount refused; nothing is left mounted)
     */
    public static FuseMount mount(SeqVfs vfs, Path mountPoint, List<String> options)
            throws FuseMountException {
        Path mp = mountPoint.toAbsolutePath().normalize();
        List<String> rest = new ArrayList<>();
        String kind = System.getProperty("seqvfs.fuse.transport", DEFAULT_TRANSPORT);
        for (String group : options) {
            List<String> kept = new ArrayList<>();
            for (String o : group.split(",", -1)) {
                if (o.trim().startsWith("transport=")) {
                    kind = o.trim().substring("transport=".length());
                } else {
                    kept.add(o);
                }
            }
            rest.add(String.join(",", kept));
        }
        if (!kind.equals("kernel") && !kind.equals("libfuse2")) {
            throw new FuseMountException(
                    FuseMountException.Reason.FAILED,
                    "unknown transport " + kind + " (kernel or libfuse2)");
        }
        boolean kernel = kind.equals("kernel");
        check(mp, rest, kernel);
        Transport t =
                kernel
                        ? KernelMount.mount(vfs, mp, rest, isRoot())
                        : LibfuseMount.mount(vfs, mp, rest);
        return new FuseMount(mp, t);
    }

    /**
     * Returns the configuration an instance made for a mount should use, on top of {@code base}: no
     * procfs at {@code /proc} (the host has its own; a mount's root is then an empty tmpfs root, as
     * a fresh {@code mount -t tmpfs}), no stack trace per error (a host's programs make {@code
     * ENOENT} lookups by the thousand), and {@code RLIMIT_NOFILE} at 1,048,576, Linux's {@code
     * fs.nr_open} (every file the host has open through the mount is one descriptor of the engine
     * task of its caller's credentials).
     *
     * @param base the configuration to extend ({@code ConfigFactory.load()})
     * @return {@code base} with those three settings
     */
    public static Config engineConfig(Config base) {
        return ConfigFactory.parseString(
                        "seqvfs.proc.mount = off\n"
                                + "seqvfs.errors.stack-traces = off\n"
                                + "seqvfs.fd.rlimit-nofile = 1048576\n")
                .withFallback(base);
    }

    /** {@return the mount point (absolute)} */
    public Path mountPoint() {
        return mountPoint;
    }

    /** {@return whether the mount is still served (no unmount yet)} */
    public boolean isServing() {
        return transport.isServing();
    }

    /** {@return the number of files and directories the host has open through this mount now} */
    public int openHandles() {
        return transport.openHandles();
    }

    /** {@return the transport serving this mount: {@code kernel} or {@code libfuse2}} */
    public String transport() {
        return transport instanceof KernelMount ? "kernel" : "libfuse2";
    }

    /**
     * Waits until the mount ends (an unmount from outside, or {@link #close}).
     *
     * @param timeout the longest wait
     * @param unit its unit
     * @return {@code true} if the mount ended, {@code false} if the time ran out
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public boolean awaitUnmounted(long timeout, TimeUnit unit) throws InterruptedException {
        return transport.awaitUnmounted(timeout, unit);
    }

    /**
     * Asks the kernel to unmount and, if the mount is busy (a process has a file open or its
     * working directory there), detaches it lazily: the transport then serves the processes still
     * using it until their last file closes. Returns without waiting for the serving to end ({@link
     * #awaitUnmounted}).
     *
     * @return {@code true} if the mount was detached at once, {@code false} if it was busy (lazy)
     *     or had ended already
     */
    public boolean unmount() {
        return transport.unmount();
    }

    /**
     * Unmounts ({@link #unmount}) and waits up to 10 s for the serving to end; once it has, every
     * engine descriptor the host still held is closed and the per-credentials tasks are ended. The
     * instance itself stays open. Idempotent.
     *
     * @throws IllegalStateException if the mount was still served after 10 s (a lazily detached
     *     mount that a process still uses)
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            unmount();
        }
        try {
            if (!transport.awaitUnmounted(UNMOUNT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "the mount at "
                                + mountPoint
                                + " is still in use 10 s after its unmount (detached lazily)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- checks before mounting

    private static void check(Path mp, List<String> options, boolean kernel)
            throws FuseMountException {
        if (!Files.exists(Path.of("/dev/fuse"))) {
            throw new FuseMountException(
                    FuseMountException.Reason.FUSE_MISSING,
                    "no /dev/fuse: the kernel has no FUSE module loaded (modprobe fuse), or this"
                            + " container was started without the device");
        }
        boolean root = isRoot();
        String fusermount = kernel ? "fusermount3" : "fusermount";
        if (!root && !onPath(fusermount)) {
            throw new FuseMountException(
                    FuseMountException.Reason.FUSE_MISSING,
                    fusermount + " not found (a non-root mount needs it): " + INSTALL);
        }
        if (!Files.exists(mp)) {
            if (isMounted(mp)) {
                // stat fails with ENOTCONN: a FUSE mount whose server died (killed, crashed)
                throw new FuseMountException(
                        FuseMountException.Reason.BUSY,
                        mp
                                + ": a dead FUSE mount (its server is gone): unmount it first:"
                                + " umount "
                                + mp
                                + " (umount -l "
                                + mp
                                + " while a process still uses it)");
            }
            throw new FuseMountException(
                    FuseMountException.Reason.NOT_A_DIRECTORY, mp + ": no such directory");
        }
        if (!Files.isDirectory(mp)) {
            throw new FuseMountException(
                    FuseMountException.Reason.NOT_A_DIRECTORY, mp + ": not a directory");
        }
        if (isMounted(mp)) {
            throw new FuseMountException(
                    FuseMountException.Reason.BUSY,
                    mp + ": already a mount point (busy); unmount it first");
        }
        boolean nonempty = String.join(",", options).contains("nonempty");
        if (!nonempty) {
            try (DirectoryStream<Path> d = Files.newDirectoryStream(mp)) {
                if (d.iterator().hasNext()) {
                    throw new FuseMountException(
                            FuseMountException.Reason.BUSY,
                            mp
                                    + ": not empty (refused as libfuse does; -o nonempty mounts over it)");
                }
            } catch (IOException e) {
                throw new FuseMountException(
                        FuseMountException.Reason.NOT_PERMITTED, mp + ": cannot read: " + e);
            }
        }
        if (!root && !Files.isWritable(mp)) {
            throw new FuseMountException(
                    FuseMountException.Reason.NOT_PERMITTED,
                    mp
                            + ": not permitted (a non-root user mounts only on a directory it can write)");
        }
        if (!root && String.join(",", options).contains("allow_other") && !userAllowOther()) {
            throw new FuseMountException(
                    FuseMountException.Reason.NOT_PERMITTED,
                    "allow_other is not permitted: a non-root user needs user_allow_other in"
                            + " /etc/fuse.conf");
        }
    }

    /**
     * {@return whether this process runs as root (uid 0, from {@code /proc/self}'s owner)}: root
     * mounts without {@code fusermount} and may pass {@code allow_other}; {@code false} if that
     * cannot be read. Thread-safe.
     */
    public static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean userAllowOther() {
        try {
            for (String l : Files.readAllLines(Path.of("/etc/fuse.conf"))) {
                if (l.trim().equals("user_allow_other")) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private static boolean onPath(String cmd) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, cmd))) {
                return true;
            }
        }
        return false;
    }

    /** Returns whether {@code mp} is a mount point now ({@code /proc/self/mountinfo}). */
    static boolean isMounted(Path mp) {
        String want = escape(mp.toString());
        try {
            for (String line :
                    Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
                String[] f = line.split(" ", 6);
                if (f.length > 4 && f[4].equals(want)) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** The octal escapes of mountinfo ({@code \040} for a space, ...). */
    private static String escape(String p) {
        StringBuilder b = new StringBuilder();
        for (char c : p.toCharArray()) {
            if (c == ' ' || c == '\t' || c == '\n' || c == '\\') {
                b.append(String.format("\\%03o", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** Runs {@code cmd}, its output discarded; returns its exit status, -1 if it could not run. */
    static int run(String... cmd) {
        try {
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
