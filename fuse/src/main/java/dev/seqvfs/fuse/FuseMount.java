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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A SeqVFS instance mounted on the host through FUSE: every program on the host can use it, and
 * each of its requests is an engine call made with the requesting process's uid, gid and
 * supplementary groups. The binding is jnr-fuse over libfuse 2's multi-threaded high-level API;
 * this class is the front end's whole public surface, and no binding type appears in it.
 *
 * <p>Mount options always given to libfuse ({@link #FIXED_OPTIONS}): {@code use_ino} (the engine's
 * inode numbers), {@code hard_remove} (a file removed while open stays usable: the engine keeps it,
 * no {@code .fuse_hidden} file), {@code big_writes,max_write=131072} (128 KiB writes, not 4 KiB),
 * {@code entry_timeout=0,attr_timeout=0,negative_timeout=0} (the kernel caches no name and no
 * attribute: every lookup and {@code stat} asks the engine, so a change made inside the JVM, or
 * through another mount of the same instance, is seen at once), {@code auto_cache} (the kernel's
 * page cache of a file is dropped at {@code open} when its size or mtime changed), {@code
 * fsname=seqvfs,subtype=seqvfs} ({@code /proc/mounts} shows {@code seqvfs ... fuse.seqvfs}). The
 * caller's options ({@code ro}, {@code allow_other}, ...) are passed after them.
 *
 * <p><b>Thread-safety.</b> {@link #mount} may be called from any thread; {@link #close} and {@link
 * #awaitUnmounted} may be called from any thread, concurrently; {@code close} is idempotent.
 */
public final class FuseMount implements AutoCloseable {
    /** The options every mount gets, before the caller's (see the class comment). */
    public static final String FIXED_OPTIONS =
            "use_ino,hard_remove,big_writes,max_write=131072,entry_timeout=0,attr_timeout=0,"
                    + "negative_timeout=0,auto_cache,fsname=seqvfs,subtype=seqvfs";

    /** How long {@link #mount} waits for the kernel to show the mount, in milliseconds. */
    private static final long MOUNT_WAIT_MILLIS = 10_000;

    /** How long {@link #close} waits for libfuse's loop to end after the unmount, in ms. */
    private static final long UNMOUNT_WAIT_MILLIS = 10_000;

    private static final String INSTALL =
            "install it: apt-get install fuse3 libfuse2 (Debian; not the old 'fuse' package)";

    private final Path mountPoint;
    private final EngineFuseFs fs;
    private final Thread loop;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicReference<Throwable> loopFailure = new AtomicReference<>();
    private final List<String> options;
    private volatile boolean closed;

    private FuseMount(Path mountPoint, EngineFuseFs fs, List<String> options) {
        this.mountPoint = mountPoint;
        this.fs = fs;
        this.options = List.copyOf(options);
        this.loop = new Thread(this::serve, "seqvfs-fuse-" + mountPoint);
        this.loop.setDaemon(true);
    }

    /**
     * Mounts {@code vfs} on {@code mountPoint} and returns once the kernel shows the mount; libfuse
     * serves it on its own threads until {@link #close} or an unmount from outside ({@code umount},
     * {@code fusermount -u}). The instance stays the caller's: closing the mount does not close it.
     *
     * @param vfs the instance to serve
     * @param mountPoint an existing, empty directory that is not a mount point
     * @param options extra libfuse/kernel mount options ({@code "ro"}, {@code "allow_other"}), each
     *     one element or comma-separated
     * @return the live mount
     * @throws FuseMountException {@link FuseMountException.Reason#FUSE_MISSING} (no {@code
     *     libfuse.so.2}, no {@code /dev/fuse}, no {@code fusermount} for a non-root user), {@code
     *     NOT_A_DIRECTORY}, {@code BUSY} (already a mount point, or not empty), {@code
     *     NOT_PERMITTED}, {@code FAILED} (libfuse refused; nothing is left mounted)
     */
    public static FuseMount mount(SeqVfs vfs, Path mountPoint, List<String> options)
            throws FuseMountException {
        Path mp = mountPoint.toAbsolutePath().normalize();
        check(mp, options);
        EngineFuseFs fs;
        try {
            fs = new EngineFuseFs(vfs);
        } catch (LinkageError | RuntimeException e) {
            throw new FuseMountException(
                    FuseMountException.Reason.FUSE_MISSING,
                    "cannot load libfuse.so.2 (" + e.getMessage() + "): " + INSTALL);
        }
        FuseMount m = new FuseMount(mp, fs, options);
        m.loop.start();
        m.awaitMounted();
        return m;
    }

    private void serve() {
        List<String> args = new ArrayList<>();
        args.add("seqvfs");
        args.add("-f");
        args.add(mountPoint.toString());
        args.add("-o");
        args.add(FIXED_OPTIONS);
        for (String o : options) {
            if (!o.isBlank()) {
                args.add("-o");
                args.add(o.trim());
            }
        }
        try {
            int status =
                    new FuseLoop(fs.operations(), args.toArray(new String[0]), loop.getName())
                            .run();
            if (status != 0) {
                loopFailure.set(new IllegalStateException("fuse_setup failed"));
            }
        } catch (Throwable t) { // the loop's end, whatever it was, must be recorded
            loopFailure.set(t);
        } finally {
            fs.shutdown();
            fs.handles().closeAll();
            fs.callers().closeAll();
            ended.countDown();
        }
    }

    private void awaitMounted() throws FuseMountException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MOUNT_WAIT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (isMounted(mountPoint)) {
                return;
            }
            try {
                if (ended.await(20, TimeUnit.MILLISECONDS)) {
                    Throwable t = loopFailure.get();
                    throw new FuseMountException(
                            FuseMountException.Reason.FAILED,
                            "libfuse could not mount "
                                    + mountPoint
                                    + (t == null ? "" : " (" + t.getMessage() + ")")
                                    + "; its own message, if any, is above");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new FuseMountException(
                        FuseMountException.Reason.FAILED, "interrupted while mounting");
            }
        }
        close();
        throw new FuseMountException(
                FuseMountException.Reason.FAILED,
                "the mount at "
                        + mountPoint
                        + " did not appear within "
                        + MOUNT_WAIT_MILLIS
                        + " ms");
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

    /** {@return whether libfuse is still serving (no unmount yet)} */
    public boolean isServing() {
        return ended.getCount() > 0;
    }

    /** {@return the number of files and directories the host has open through this mount now} */
    public int openHandles() {
        return fs.handles().size();
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
        return ended.await(timeout, unit);
    }

    /**
     * Asks the kernel to unmount ({@code fusermount -u}) and, if the mount is busy (a process has a
     * file open or its working directory there), detaches it lazily ({@code fusermount -u -z}):
     * libfuse then serves the processes still using it until their last file closes. Returns
     * without waiting for libfuse's loop to end ({@link #awaitUnmounted}).
     *
     * @return {@code true} if the mount was detached at once, {@code false} if it was busy (lazy)
     *     or had ended already
     */
    public boolean unmount() {
        if (!isServing()) {
            return false;
        }
        if (run("fusermount", "-u", mountPoint.toString()) == 0) {
            return true;
        }
        run("fusermount", "-u", "-z", mountPoint.toString());
        return false;
    }

    /**
     * Unmounts ({@link #unmount}) and waits up to 10 s for libfuse's loop to end; once it has,
     * every engine descriptor the host still held is closed and the per-credentials tasks are
     * ended. The instance itself stays open. Idempotent.
     *
     * @throws IllegalStateException if libfuse's loop was still serving after 10 s (a lazily
     *     detached mount that a process still uses)
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            unmount();
        }
        try {
            if (!ended.await(UNMOUNT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
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

    private static void check(Path mp, List<String> options) throws FuseMountException {
        if (!Files.exists(Path.of("/dev/fuse"))) {
            throw new FuseMountException(
                    FuseMountException.Reason.FUSE_MISSING,
                    "no /dev/fuse: the kernel has no FUSE module loaded (modprobe fuse), or this"
                            + " container was started without the device");
        }
        boolean root = isRoot();
        if (!root && !onPath("fusermount")) {
            throw new FuseMountException(
                    FuseMountException.Reason.FUSE_MISSING,
                    "fusermount not found (a non-root mount needs it): " + INSTALL);
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
                            mp + ": not empty (libfuse refuses; -o nonempty mounts over it)");
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

    private static int run(String... cmd) {
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
