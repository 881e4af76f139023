package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.tests.concurrency.LinearizabilityChecker.History;
import dev.seqvfs.tests.concurrency.NamespaceModel.State;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every namespace call is linearizable: histories of {@code open(O_CREAT | O_EXCL)}, {@code
 * unlink}, {@code rename} (same and cross directory) and {@code stat} recorded from several threads
 * are checked by {@link LinearizabilityChecker} against {@link NamespaceModel} (the sequential
 * behaviour of {@code open(2)}, {@code unlink(2)}, {@code rename(2)}, {@code stat(2)}).
 *
 * <p>Runs in rounds: every thread does a few random calls on a small set of names ({@link
 * NamespaceWorkload}), then all meet at a barrier, where the last to arrive reads the whole tree
 * (nothing runs then) and checks the round's history from the previous round's tree to this one.
 * Short rounds keep each check small. A failure prints the round's history (intervals in
 * microseconds) with the states it had to connect.
 *
 * <p>With directories moving, a call that resolves its parent by a walk and applies the change
 * later in that directory's actor used to take effect where its path no longer led ({@link
 * PathThenApplyRaceTest} is the minimal reproducer). Commands now carry a proof of their walk that
 * the writer checks when it applies them (see CONCURRENCY.md).
 */
class NamespaceLinearizabilityTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    /** Files renamed, created and removed in two fixed directories. */
    @Test
    void namespaceCalls_onFilesInFixedDirectories_areLinearizable() {
        rounds(NamespaceWorkload.flat(), 8);
    }

    /**
     * Files created, removed and renamed in one directory by every thread, so that its actor
     * applies them in batches ({@code DirQueue}: one publication per drained batch). A hook holds
     * one batch in four unpublished for 20 us ({@link WriterHooks#batchStaged}): a reply sent
     * before its batch is published shows as the caller's next call not seeing its own change, and
     * a batch published in part as another thread seeing half of it.
     */
    @Test
    void namespaceCalls_inOneSharedDirectory_appliedInBatches_areLinearizable() {
        EngineInternals.installRootHooks(
                fs.vfs(),
                new WriterHooks() {
                    @Override
                    public void batchStaged(Inode dir, int commands) {
                        if (ThreadLocalRandom.current().nextInt(4) == 0) {
                            LockSupport.parkNanos(20_000);
                        }
                    }
                });
        try {
            rounds(NamespaceWorkload.oneDirectory(), 8);
        } finally {
            EngineInternals.installRootHooks(fs.vfs(), null);
        }
        long[] batches = EngineInternals.rootDirBatches(fs.vfs(), "a");
        System.out.printf(
                "/a's batches: %d, of more than one command: %d%n", batches[0], batches[1]);
        assertTrue(batches[1] > 0, "no two commands ever shared a batch");
    }

    /** Files created, removed and renamed in and through directories that other calls move. */
    @Test
    void namespaceCalls_whileDirectoriesMove_areLinearizable() {
        rounds(NamespaceWorkload.tree(), 6);
    }

    private void rounds(NamespaceWorkload w, int opsPerThread) {
        VfsTask root = fs.root();
        w.setUp(root);
        int n = Stress.threads();
        History history = new History(n);
        State[] before = {NamespaceWorkload.observe(root)};
        String[] failure = new String[1];
        long[] rounds = new long[1];
        long[] ops = new long[1];
        boolean[] stop = new boolean[1];
        Stress.Control[] control = new Stress.Control[1];
        CyclicBarrier barrier =
                new CyclicBarrier(
                        n,
                        () -> {
                            if (history.size() > 0 && failure[0] == null) {
                                State after = NamespaceWorkload.observe(root);
                                failure[0] =
                                        LinearizabilityChecker.check(before[0], history, after);
                                rounds[0]++;
                                ops[0] += history.size();
                                history.clear();
                                w.replenish(root, after);
                                before[0] = NamespaceWorkload.observe(root);
                            }
                            stop[0] = failure[0] != null || !control[0].running();
                        });
        List<Stress.Worker> workers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int id = i;
            workers.add(
                    c -> {
                        control[0] = c;
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        try {
                            while (true) {
                                barrier.await();
                                if (stop[0]) {
                                    return;
                                }
                                for (int k = 0; k < opsPerThread; k++) {
                                    history.record(w.randomOp(t, id));
                                }
                            }
                        } catch (RuntimeException | Error e) {
                            barrier.reset(); // release the others instead of leaving them at the
                            // barrier
                            throw e;
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "linearizability (%d threads x %d ops per round): %d rounds, %d operations checked%n",
                n, opsPerThread, rounds[0], ops[0]);
        assertNull(failure[0]);
        assertTrue(rounds[0] >= 10, "too few rounds ran: " + rounds[0]);
    }
}
