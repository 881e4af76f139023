package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code getcwd(3)} racing renames of the working directory's ancestors: the working directory is
 * never removed, so {@code getcwd} never fails, and it names the directory at one of the places it
 * had ({@code getcwd(3)}: {@code ENOENT} only if "the current working directory has been
 * unlinked").
 *
 * <pre>
 * /A/D/sub      the task's working directory is sub; D is renamed /A/D &lt;-&gt; /A/E
 * </pre>
 */
class GetcwdRenameRaceTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    /**
     * Regression: a same-directory rename publishes the parent's new snapshot before the moved
     * directory's new parent link, and getcwd took a name in the link that was not (yet) in the
     * parent for "removed", failing with ENOENT.
     */
    @Test
    void getcwd_whileAncestorRenamedInSameDirectory_neverFailsWithENOENT() {
        VfsTask root = fs.root();
        root.mkdir("/A", 0755);
        root.mkdir("/A/D", 0755);
        root.mkdir("/A/D/sub", 0755);
        Set<String> places = Set.of("/A/D/sub", "/A/E/sub");
        LongAdder calls = new LongAdder();
        long[] renames = new long[1];
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        Stress.Worker renamer =
                c -> {
                    VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                    while (c.running()) {
                        t.rename("/A/D", "/A/E");
                        t.rename("/A/E", "/A/D");
                        renames[0] += 2;
                    }
                };
        List<Stress.Worker> workers = new ArrayList<>(List.of(renamer));
        for (int i = 1; i < Stress.threads(); i++) {
            VfsTask t = fs.vfs().newTask(Credentials.ROOT);
            t.chdir("/A/D/sub");
            workers.add(c -> inSub(c, t, places, wrong, calls));
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "getcwd vs same-directory renames: %d renames, %d getcwd calls%n",
                renames[0], calls.sum());
        assertEquals(List.of(), List.copyOf(wrong));
        assertTrue(renames[0] >= 20 && calls.sum() >= 20, "the race did not run");
    }

    private static void inSub(
            Stress.Control c,
            VfsTask t,
            Set<String> places,
            ConcurrentLinkedQueue<String> wrong,
            LongAdder calls) {
        while (c.running() && wrong.size() < 10) {
            try {
                String cwd = t.getcwd();
                if (!places.contains(cwd)) {
                    wrong.add("getcwd() returned " + cwd);
                }
            } catch (VfsException e) {
                wrong.add("getcwd() failed with " + e.errno());
            }
            calls.increment();
        }
    }
}
