package dev.seqvfs.fuse;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    /** Returns the host path of {@code rel} inside the mount. */
    Path path(String rel) {
        return dir.resolve(rel);
    }

    @Override
    public void close() {
        try {
            mount.close();
            assertEquals(0, mount.openHandles(), "handles left open after the unmount");
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
