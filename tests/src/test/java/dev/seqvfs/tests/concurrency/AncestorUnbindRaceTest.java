package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A change applied in a directory must not take effect after a change in an ancestor unbound the
 * path its walk took: the bug class behind a {@link NamespaceLinearizabilityTest} failure seen in
 * CI, where {@code unlink("/b/s/x")} removed {@code x} from the directory after a same-directory
 * {@code rename("/b/s", "/b/t")} had returned and a {@code create("/b/t/x")} had seen {@code x}.
 *
 * <p>Each case holds the directory's batch after its proof check and before its publication ({@link
 * WriterHooks#batchStaged}), makes the change in the parent from another thread, and then lets the
 * batch go. Linearizable outcomes: the parent's change waits for the batch (the batch took effect
 * first, where its path still led), or the batch's command is refused and walks again. The
 * violation: the parent's change returns while the batch is held, and the batch then succeeds.
 * Cross-directory renames and mount changes close the publication gate for this ({@code
 * PublishGate}); so must every change that unbinds or rebinds a name a walk can pass through (a
 * directory or a symbolic link).
 */
class AncestorUnbindRaceTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    /** {@code rename("/b/s", "/b/t")} of the directory an unlink's batch is about to change. */
    @Test
    void unlinkHeldInItsBatch_whileItsDirectoryIsRenamedWithinItsParent_isLinearizable() {
        VfsTask root = fs.root();
        root.mkdir("/b", 0755);
        root.mkdir("/b/s", 0755);
        root.mknod("/b/s/x", Mode.S_IFREG | 0644, 0);
        race(root, "/b/s", "/b/s/x", t -> t.rename("/b/s", "/b/t"));
        assertTrue(root.stat("/b/t").ino() > 0);
        assertThrows(VfsException.class, () -> root.stat("/b/s"));
    }

    /** {@code unlink("/b/l")} of the symbolic link an unlink's walk followed. */
    @Test
    void unlinkHeldInItsBatch_whileTheSymlinkItsWalkFollowedIsRemoved_isLinearizable() {
        VfsTask root = fs.root();
        root.mkdir("/b", 0755);
        root.mkdir("/b/s", 0755);
        root.symlink("s", "/b/l");
        root.mknod("/b/s/x", Mode.S_IFREG | 0644, 0);
        race(root, "/b/s", "/b/l/x", t -> t.unlink("/b/l"));
    }

    /** {@code rename("/b/m", "/b/l")} of another symbolic link over the one the walk followed. */
    @Test
    void unlinkHeldInItsBatch_whileTheSymlinkItsWalkFollowedIsReplaced_isLinearizable() {
        VfsTask root = fs.root();
        root.mkdir("/b", 0755);
        root.mkdir("/b/s", 0755);
        root.mkdir("/b/u", 0755);
        root.symlink("s", "/b/l");
        root.symlink("u", "/b/m");
        root.mknod("/b/s/x", Mode.S_IFREG | 0644, 0);
        race(root, "/b/s", "/b/l/x", t -> t.rename("/b/m", "/b/l"));
    }

    /** {@code rmdir("/b/e")} of the empty directory an unlink's walk went through by "..". */
    @Test
    void unlinkHeldInItsBatch_whileADirectoryItsWalkLeftByDotDotIsRemoved_isLinearizable() {
        VfsTask root = fs.root();
        root.mkdir("/b", 0755);
        root.mkdir("/b/s", 0755);
        root.mkdir("/b/e", 0755);
        root.mknod("/b/s/x", Mode.S_IFREG | 0644, 0);
        race(root, "/b/s", "/b/e/../s/x", t -> t.rmdir("/b/e"));
    }

    /**
     * Holds the batch of directory {@code held} while {@code unlink(victim)} is in it, runs {@code
     * change} from another thread for up to 300 ms, then releases the batch and checks the outcome:
     * if the change returned while the batch was held, the unlink must not have succeeded.
     */
    private void race(VfsTask root, String held, String victim, Consumer<VfsTask> change) {
        long heldIno = root.stat(held).ino();
        CountDownLatch staged = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        EngineInternals.installRootHooks(
                fs.vfs(),
                new WriterHooks() {
                    @Override
                    public void batchStaged(Inode dir, int commands) {
                        if (dir.ino() == heldIno && staged.getCount() > 0) {
                            staged.countDown();
                            try {
                                release.await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }
                });
        try {
            CompletableFuture<Errno> unlink =
                    CompletableFuture.supplyAsync(
                            () -> {
                                VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                                try {
                                    t.unlink(victim);
                                    return null;
                                } catch (VfsException e) {
                                    return e.errno();
                                }
                            });
            assertTrue(await(staged), "the unlink's batch was never staged");
            CompletableFuture<Void> other =
                    CompletableFuture.runAsync(
                            () -> change.accept(fs.vfs().newTask(Credentials.ROOT)));
            boolean changedWhileHeld;
            try {
                other.get(300, TimeUnit.MILLISECONDS);
                changedWhileHeld = true;
            } catch (java.util.concurrent.TimeoutException e) {
                changedWhileHeld = false;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            release.countDown();
            Errno unlinked = unlink.join();
            other.join();
            assertFalse(
                    changedWhileHeld && unlinked == null,
                    "the parent's change returned while "
                            + victim
                            + "'s unlink was held unpublished, and that unlink then succeeded"
                            + " (it took effect where its path no longer led)");
            if (!changedWhileHeld) {
                assertEquals(null, unlinked, "the unlink, published first, must succeed");
            } else {
                assertEquals(Errno.ENOENT, unlinked);
            }
        } finally {
            release.countDown();
            EngineInternals.installRootHooks(fs.vfs(), null);
        }
    }

    private static boolean await(CountDownLatch l) {
        try {
            return l.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
