package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The smallest reproducer of the violation {@link NamespaceLinearizabilityTest} finds: a
 * namespace-changing call resolves its parent directories by walks that each hold at their own
 * instant, then applies the change in the directories it found, so a rename of an ancestor in
 * between makes the call take effect where its paths never both led ({@code rename(2)}, SeqVFS's
 * "every operation appears to take effect at one instant").
 *
 * <pre>
 * /A/D/f        one thread renames /A/D -&gt; /A/E -&gt; /A/D ...
 * </pre>
 *
 * Another thread calls {@code rename("/A/D/f", "/A/E/f")}. At no instant do both {@code /A/D} and
 * {@code /A/E} exist, so every sequential execution fails with {@code ENOENT} (source or target
 * parent missing); a success means the two parent walks saw D under both names and the rename ran
 * as a same-directory no-op in D. Linux's {@code do_renameat2} resolves the two parents separately
 * too.
 */
class PathThenApplyRaceTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    @Test
    void rename_betweenOldAndNewNameOfDirectoryBeingRenamed_alwaysFailsWithENOENT() {
        VfsTask root = fs.root();
        root.mkdir("/A", 0755);
        root.mkdir("/A/D", 0755);
        root.mknod("/A/D/f", Mode.S_IFREG | 0644, 0);
        long[] renames = new long[1];
        LongAdder calls = new LongAdder();
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        List<Stress.Worker> workers = new ArrayList<>();
        workers.add(
                c -> {
                    VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                    while (c.running()) {
                        t.rename("/A/D", "/A/E");
                        t.rename("/A/E", "/A/D");
                        renames[0] += 2;
                    }
                });
        for (int i = 0; i < Stress.threads() - 1; i++) {
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        while (c.running() && violations.size() < 5) {
                            String[] pair =
                                    (calls.sum() & 1) == 0
                                            ? new String[] {"/A/D/f", "/A/E/f"}
                                            : new String[] {"/A/E/f", "/A/D/f"};
                            try {
                                t.rename(pair[0], pair[1]);
                                violations.add(
                                        "rename(" + pair[0] + ", " + pair[1] + ") succeeded");
                            } catch (VfsException e) {
                                if (e.errno() != Errno.ENOENT) {
                                    violations.add(
                                            "rename("
                                                    + pair[0]
                                                    + ", "
                                                    + pair[1]
                                                    + ") failed with "
                                                    + e.errno());
                                }
                            }
                            calls.increment();
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "rename across a renaming directory: %d directory renames, %d calls%n",
                renames[0], calls.sum());
        assertEquals(List.of(), List.copyOf(violations));
        assertTrue(renames[0] >= 20 && calls.sum() >= 20, "the race did not run");
    }
}
