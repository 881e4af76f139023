package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A walk never sees a cross-directory rename half published: the coordinator is parked between its
 * two snapshot stores ({@link WriterHooks#renameHalfPublished}: {@code /d2/x} is bound, {@code
 * /d1/x} still is), and a walker that first finds {@code /d2/x} must then not find {@code /d1/x} (x
 * in two places at once is no state {@code rename(2)} ever passes through). The directories a
 * rename changes have odd rename sequences meanwhile ({@code DirectoryInode#renameSeq}), so walks
 * through them wait for the rename to finish; a walk elsewhere ({@code /e/f}) does not.
 *
 * <pre>
 * /d1/x   directory, renamed to /d2/x
 * /d2/
 * /e/f    regular file, off the rename's directories
 * </pre>
 */
class HalfPublishedRenameTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    private static String stat(VfsTask t, String path) {
        try {
            t.stat(path);
            return "found";
        } catch (VfsException e) {
            return e.errno().name();
        }
    }

    @Test
    void walkersWaitForAHalfPublishedRename_andNeverSeeTheNameInBothParents() throws Exception {
        VfsTask root = fs.root();
        root.mkdir("/d1", 0755);
        root.mkdir("/d1/x", 0755);
        root.mkdir("/d2", 0755);
        root.mkdir("/e", 0755);
        root.mknod("/e/f", 0100644, 0);
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean(true);
        EngineInternals.installRootHooks(
                fs.vfs(),
                new WriterHooks() {
                    @Override
                    public void renameHalfPublished(Inode oldDir, Inode newDir) {
                        if (armed.compareAndSet(true, false)) {
                            parked.countDown();
                            try {
                                release.await(20, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }
                });
        try {
            CompletableFuture<Void> rename =
                    CompletableFuture.runAsync(
                            () -> fs.vfs().newTask(Credentials.ROOT).rename("/d1/x", "/d2/x"));
            assertTrue(parked.await(10, TimeUnit.SECONDS), "the rename never reached its hook");
            // A walk off the rename's directories goes on while it is half published.
            assertEquals("found", stat(root, "/e/f"));
            CompletableFuture<String> walker =
                    CompletableFuture.supplyAsync(
                            () -> {
                                VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                                String inNew = stat(t, "/d2/x");
                                String inOld = stat(t, "/d1/x");
                                return inNew + " " + inOld;
                            });
            Thread.sleep(200);
            assertFalse(walker.isDone(), "a walk through a half-published rename answered");
            release.countDown();
            rename.get(10, TimeUnit.SECONDS);
            assertEquals("found " + Errno.ENOENT.name(), walker.get(10, TimeUnit.SECONDS));
        } finally {
            release.countDown();
            EngineInternals.installRootHooks(fs.vfs(), null);
        }
    }
}
