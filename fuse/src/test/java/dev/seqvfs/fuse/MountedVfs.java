package dev.seqvfs.fuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A fresh SeqVFS instance mounted through FUSE on a fresh directory under {@code /tmp}, for one
 * test. {@link #close} unmounts, checks that nothing is left open (no handle, and the engine's
 * {@code Fsck} with every file closed), closes the instance and removes the directory.
 */
final class MountedVfs implements AutoCloseable {
    final SeqVfs vfs;
    final FuseMount mount;
    final Path dir;

    MountedVfs(String... options) {
        try {
            dir = Files.createTempDirectory("seqvfs-fuse-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        vfs = SeqVfs.create(FuseMount.engineConfig(ConfigFactory.load()));
        try {
            mount = FuseMount.mount(vfs, dir, List.of(options));
        } catch (FuseMountException e) {
            vfs.close();
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * Removes everything in the mount through the host ({@code rm -rf}), then checks that the
     * engine holds nothing but the root: one inode and no data, so a program's run through the
     * mount left no inode behind once its names are gone.
     */
    void removeAllAndCheckEmpty() throws IOException, InterruptedException {
        HostTools.Result rm = HostTools.sh(dir, 120, "rm -rf ./* ./.[!.]* ./..?*");
        assertEquals(0, rm.exit(), rm.output());
        dev.seqvfs.engine.VfsTask t = vfs.newTask(dev.seqvfs.protocol.Credentials.ROOT);
        // the kernel releases a closed file's handle asynchronously: wait for the last release
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (mount.openHandles() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, mount.openHandles(), "files still open through the mount");
        // the kernel forgets a removed inode's node asynchronously too (FORGET), and the node
        // holds the inode until then: wait for the count to settle
        dev.seqvfs.protocol.StatFs s = t.statfs("/");
        while (s.files() - s.ffree() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
            s = t.statfs("/");
        }
        assertEquals(1, s.files() - s.ffree(), "inodes in use besides the root");
        assertEquals(s.blocks(), s.bfree(), "blocks in use");
        t.close();
    }

    private static boolean joined(Thread t) {
        try {
            t.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    /** Returns the host path of {@code rel} inside the mount. */
    Path path(String rel) {
        return dir.resolve(rel);
    }

    @Override
    public void close() {
        try {
            mount.close();
            assertEquals(0, mount.openHandles(), "handles left open after the unmount");
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("seqvfs-fuse-") && joined(t) && t.isAlive()) {
                    fail("libfuse's loop thread is still alive after the unmount: " + t);
                }
            }
            assertEquals(List.of(), Fsck.check(vfs, true), "engine state after the unmount");
        } finally {
            vfs.close();
            try {
                Files.deleteIfExists(dir);
            } catch (IOException e) {
                // still busy: left for the next boot's /tmp cleaning
            }
        }
    }
}
