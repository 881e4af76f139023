package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.tests.concurrency.DirectoryRemovalRaceTest.Pairing;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The interleaving behind {@link DirectoryRemovalRaceTest}, forced: the writer that takes {@code x}
 * out of {@code D} is parked by a {@link WriterHooks} hook right after it published {@code D}'s
 * emptied entries and before it applies {@code D}'s link count; meanwhile a second task removes the
 * now empty {@code D} ({@code rmdir}, or a rename of an empty directory over it). Then the writer
 * goes on. Both calls succeed and {@code D} is freed: the parent's link-count change is a delta
 * applied to the current count, so the kill's two links and the child's one add up to zero in
 * either order (Linux: {@code drop_nlink} in {@code shmem_rmdir} and {@code simple_rename}).
 */
class DirectoryRemovalInterleavingTest {
    @RegisterExtension
    final VfsFixture fs = new VfsFixture("seqvfs.tmpfs.max-inodes = 1000").checkingEndState();

    @ParameterizedTest
    @EnumSource(Pairing.class)
    void parentRemovedWhileChildsWriterIsParked_parentIsFreed(Pairing p) throws Exception {
        VfsTask a = fs.root();
        VfsTask b = fs.vfs().newTask(Credentials.ROOT);
        a.mkdir("/E", 0755);
        long baseline = used(a);
        a.mkdir("/D", 0755);
        a.mkdir("/D/x", 0755);
        if (p.parentReplaced) {
            a.mkdir("/S", 0755);
        }
        long dIno = a.stat("/D").ino();
        AtomicBoolean armed = new AtomicBoolean(true);
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        EngineInternals.installRootHooks(
                fs.vfs(),
                new WriterHooks() {
                    @Override
                    public void entriesPublished(Inode dir) {
                        if (dir.ino() == dIno && armed.compareAndSet(true, false)) {
                            parked.countDown();
                            try {
                                release.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }
                });
        try {
            CompletableFuture<Void> childLeaves =
                    CompletableFuture.runAsync(
                            () -> {
                                if (p.childRenamed) {
                                    a.rename("/D/x", "/E/x");
                                } else {
                                    a.rmdir("/D/x");
                                }
                            });
            assertTrue(parked.await(10, TimeUnit.SECONDS), "the child's writer never parked");
            if (p.parentReplaced) {
                b.rename("/S", "/D");
            } else {
                b.rmdir("/D");
            }
            release.countDown();
            childLeaves.get(10, TimeUnit.SECONDS);
        } finally {
            release.countDown();
            EngineInternals.installRootHooks(fs.vfs(), null);
        }
        if (p.childRenamed) {
            a.rmdir("/E/x");
        }
        if (p.parentReplaced) {
            a.rmdir("/D");
        }
        assertEquals(baseline, used(a), "inode slots in use: the removed /D must be freed");
    }

    private static long used(VfsTask t) {
        StatFs s = t.statfs("/");
        return s.files() - s.ffree();
    }
}
