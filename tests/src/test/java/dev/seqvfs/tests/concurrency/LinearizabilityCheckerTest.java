package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.tests.concurrency.LinearizabilityChecker.History;
import dev.seqvfs.tests.concurrency.LinearizabilityChecker.Op;
import dev.seqvfs.tests.concurrency.NamespaceModel.Kind;
import dev.seqvfs.tests.concurrency.NamespaceModel.Node;
import dev.seqvfs.tests.concurrency.NamespaceModel.Result;
import dev.seqvfs.tests.concurrency.NamespaceModel.State;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The linearizability checker itself: it accepts what the engine does sequentially (so the model
 * agrees with the engine on {@code open(2)}, {@code unlink(2)}, {@code rename(2)}, {@code stat(2)}
 * results), accepts concurrent histories that need reordering, and rejects hand-made histories that
 * no sequential order explains.
 *
 * <pre>
 * hand-made histories start from  /a/  /b/  /a/s/   (inodes 10, 11, 12)
 * </pre>
 */
class LinearizabilityCheckerTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    private static State start() {
        Map<String, Node> m = new HashMap<>();
        m.put("/a", new Node(10, true));
        m.put("/b", new Node(11, true));
        m.put("/a/s", new Node(12, true));
        return new State(m);
    }

    private static State with(State s, String path, long ino, boolean dir) {
        Map<String, Node> m = new HashMap<>(s.entries());
        m.put(path, new Node(ino, dir));
        return new State(m);
    }

    private static Op op(int thread, Kind k, String a, String b, Result r, long inv, long resp) {
        return new Op(thread, k, a, b, r, inv, resp);
    }

    private static History history(Op... ops) {
        int threads = 0;
        for (Op o : ops) {
            threads = Math.max(threads, o.thread() + 1);
        }
        History h = new History(threads);
        for (Op o : ops) {
            h.record(o);
        }
        return h;
    }

    @Test
    void check_sequentialEngineHistories_areAccepted() {
        for (NamespaceWorkload w :
                new NamespaceWorkload[] {NamespaceWorkload.flat(), NamespaceWorkload.tree()}) {
            VfsTask t = fs.root();
            State old = NamespaceWorkload.observe(t);
            old.entries().keySet().stream()
                    .sorted((x, y) -> y.length() - x.length())
                    .forEach(
                            q -> {
                                if (old.get(q).dir()) {
                                    t.rmdir(q);
                                } else {
                                    t.unlink(q);
                                }
                            });
            w.setUp(t);
            for (int round = 0; round < 40; round++) {
                State before = NamespaceWorkload.observe(t);
                History h = new History(1);
                for (int i = 0; i < 25; i++) {
                    h.record(w.randomOp(t, 0));
                }
                State after = NamespaceWorkload.observe(t);
                assertNull(
                        LinearizabilityChecker.check(before, h, after),
                        "the model disagrees with the engine on a sequential history");
                w.replenish(t, after);
            }
        }
    }

    @Test
    void check_overlappingCreateAndStat_isAccepted() {
        // stat sees the file before create has returned: linearize create first.
        History h =
                history(
                        op(0, Kind.CREATE, "/a/x", null, Result.ok(5), 0, 10),
                        op(1, Kind.STAT, "/a/x", null, Result.ok(5), 2, 3),
                        op(1, Kind.STAT, "/b/x", null, Result.error(Errno.ENOENT), 4, 5));
        assertNull(LinearizabilityChecker.check(start(), h, with(start(), "/a/x", 5, false)));
    }

    @Test
    void check_overlappingRenameSeenFromBothSides_isAccepted() {
        State s = with(start(), "/a/x", 5, false);
        History h =
                history(
                        op(0, Kind.RENAME, "/a/x", "/b/y", Result.ok(0), 0, 100),
                        op(1, Kind.STAT, "/a/x", null, Result.ok(5), 10, 20),
                        op(1, Kind.STAT, "/b/y", null, Result.ok(5), 30, 40),
                        op(2, Kind.STAT, "/a/x", null, Result.error(Errno.ENOENT), 50, 60));
        Map<String, Node> end = new HashMap<>(start().entries());
        end.put("/b/y", new Node(5, false));
        assertNull(LinearizabilityChecker.check(s, h, new State(end)));
    }

    @Test
    void check_staleReadAfterCreateReturned_isRejected() {
        History h =
                history(
                        op(0, Kind.CREATE, "/a/x", null, Result.ok(5), 0, 10),
                        op(1, Kind.STAT, "/a/x", null, Result.error(Errno.ENOENT), 20, 30));
        String why = LinearizabilityChecker.check(start(), h, with(start(), "/a/x", 5, false));
        assertNotNull(why);
        assertTrue(why.contains("stat(/a/x) = ENOENT"), why);
    }

    @Test
    void check_renameSeenAtBothNamesAtOnce_isRejected() {
        // After rename returned, one thread still sees the old name, another already saw the new
        // one.
        State s = with(start(), "/a/x", 5, false);
        History h =
                history(
                        op(0, Kind.RENAME, "/a/x", "/b/x", Result.ok(0), 0, 10),
                        op(1, Kind.STAT, "/b/x", null, Result.ok(5), 5, 8),
                        op(2, Kind.STAT, "/a/x", null, Result.ok(5), 20, 30));
        Map<String, Node> end = new HashMap<>(start().entries());
        end.put("/b/x", new Node(5, false));
        assertNotNull(LinearizabilityChecker.check(s, h, new State(end)));
    }

    @Test
    void check_createThroughDirectoryAlreadyMovedAway_isRejected() {
        // create(/a/s/x) succeeds, but /a/s had moved to /b/s and /b/s/x was seen absent
        // after the move and before the create returned.
        History h =
                history(
                        op(0, Kind.CREATE, "/a/s/x", null, Result.ok(7), 0, 100),
                        op(1, Kind.RENAME, "/a/s", "/b/s", Result.ok(0), 10, 20),
                        op(1, Kind.STAT, "/b/s/x", null, Result.error(Errno.ENOENT), 30, 40));
        Map<String, Node> end = new HashMap<>(start().entries());
        end.remove("/a/s");
        end.put("/b/s", new Node(12, true));
        end.put("/b/s/x", new Node(7, false));
        assertNotNull(LinearizabilityChecker.check(start(), h, new State(end)));
    }

    @Test
    void check_finalStateNoLinearizationReaches_isRejected() {
        History h = history(op(0, Kind.CREATE, "/a/x", null, Result.ok(5), 0, 10));
        assertNotNull(LinearizabilityChecker.check(start(), h, start()));
        assertNull(LinearizabilityChecker.check(start(), h, with(start(), "/a/x", 5, false)));
    }

    @Test
    void check_wrongErrno_isRejected() {
        // rename of a directory into its own subtree is EINVAL, not ENOENT.
        History h =
                history(op(0, Kind.RENAME, "/a/s", "/a/s/t", Result.error(Errno.ENOENT), 0, 10));
        assertNotNull(LinearizabilityChecker.check(start(), h, start()));
        History ok =
                history(op(0, Kind.RENAME, "/a/s", "/a/s/t", Result.error(Errno.EINVAL), 0, 10));
        assertEquals(null, LinearizabilityChecker.check(start(), ok, start()));
    }
}
