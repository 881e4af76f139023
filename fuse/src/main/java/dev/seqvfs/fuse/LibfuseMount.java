package dev.seqvfs.fuse;

import dev.seqvfs.engine.SeqVfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A mount served by libfuse 2's high-level (path) API through jnr-fuse ({@link EngineFuseFs}, run
 * by {@link FuseLoop}): the first transport, kept behind {@code -o transport=libfuse2}.
 *
 * <p>Mount options always given to libfuse ({@link FuseMount#FIXED_OPTIONS}): {@code use_ino} (the
 * engine's inode numbers), {@code hard_remove} (a file removed while open stays usable: the engine
 * keeps it, no {@code .fuse_hidden} file), {@code big_writes,max_write=131072} (128 KiB writes, not
 * 4 KiB), {@code entry_timeout=0,attr_timeout=0,negative_timeout=0} (the kernel caches no name and
 * no attribute), {@code auto_cache} (the kernel's page cache of a file is dropped at {@code open}
 * when its size or mtime changed), {@code fsname=seqvfs,subtype=seqvfs}. The caller's options
 * ({@code ro}, {@code allow_other}, ...) are passed after them.
 *
 * <p><b>Thread-safety.</b> {@link #mount} from any thread; the {@link FuseMount.Transport} methods
 * from any thread, concurrently.
 */
final class LibfuseMount implements FuseMount.Transport {
    /** How long {@link #mount} waits for the kernel to show the mount, in milliseconds. */
    private static final long MOUNT_WAIT_MILLIS = 10_000;

    private static final String INSTALL =
            "install it: apt-get install fuse3 libfuse2 (Debian; not the old 'fuse' package)";

    private final Path mountPoint;
    private final EngineFuseFs fs;
    private final Thread loop;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicReference<Throwable> loopFailure = new AtomicReference<>();
    private final List<String> options;

    private LibfuseMount(Path mountPoint, EngineFuseFs fs, List<String> options) {
        this.mountPoint = mountPoint;
        this.fs = fs;
        this.options = List.copyOf(options);
        this.loop = new Thread(this::serve, "seqvfs-fuse-" + mountPoint);
        this.loop.setDaemon(true);
    }

    /**
     * Mounts {@code vfs} on {@code mp} through libfuse and returns once the kernel shows the mount.
     *
     * @throws FuseMountException {@code FUSE_MISSING} (no {@code libfuse.so.2}), {@code FAILED}
     *     (libfuse refused; nothing is left mounted)
     */
    static LibfuseMount mount(SeqVfs vfs, Path mp, List<String> options) throws FuseMountException {
        EngineFuseFs fs;
        try {
            fs = new EngineFuseFs(vfs);
        } catch (LinkageError | RuntimeException e) {
            throw new FuseMountException(
                    FuseMountException.Reason.FUSE_MISSING,
                    "cannot load libfuse.so.2 (" + e.getMessage() + "): " + INSTALL);
        }
        LibfuseMount m = new LibfuseMount(mp, fs, options);
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
        args.add(FuseMount.FIXED_OPTIONS);
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
            if (FuseMount.isMounted(mountPoint)) {
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
                unmount();
                throw new FuseMountException(
                        FuseMountException.Reason.FAILED, "interrupted while mounting");
            }
        }
        unmount();
        throw new FuseMountException(
                FuseMountException.Reason.FAILED,
                "the mount at "
                        + mountPoint
                        + " did not appear within "
                        + MOUNT_WAIT_MILLIS
                        + " ms");
    }

    @Override
    public boolean isServing() {
        return ended.getCount() > 0;
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
        if (FuseMount.run("fusermount", "-u", mountPoint.toString()) == 0) {
            return true;
        }
        FuseMount.run("fusermount", "-u", "-z", mountPoint.toString());
        return false;
    }

    @Override
    public boolean awaitUnmounted(long timeout, TimeUnit unit) throws InterruptedException {
        return ended.await(timeout, unit);
    }
}
