package dev.seqvfs.tests.concurrency;

import dev.seqvfs.tests.concurrency.NamespaceModel.Kind;
import dev.seqvfs.tests.concurrency.NamespaceModel.Result;
import dev.seqvfs.tests.concurrency.NamespaceModel.State;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides whether a recorded history of namespace calls is linearizable with respect to {@link
 * NamespaceModel}: a Wing &amp; Gong search with Lowe's memoization of visited configurations
 * ("Testing for linearizability", Lowe 2017; the approach of Knossos and Porcupine).
 *
 * <h2>Model of a history</h2>
 *
 * Each thread contributes its operations in program order, each with its invocation and response
 * times (from {@link System#nanoTime()} taken just before the call and just after it returned, so
 * the recorded interval contains the real one) and its result. Every operation has completed (no
 * pending calls). Operation {@code x} must precede {@code y} in any linearization if {@code
 * x.response < y.invocation}.
 *
 * <h2>Search</h2>
 *
 * Because each thread's operations are sequential, the set of linearized operations is always a
 * prefix of each thread's list, so a configuration is (one prefix length per thread, model state).
 * From a configuration, the next operation of thread {@code t} may be linearized if no other
 * thread's next operation responded before it was invoked, and if the model, applied to the state,
 * returns what the operation returned. Depth-first search over configurations, each visited once;
 * the history is linearizable iff some path linearizes every operation and ends in the expected
 * final state (when one is given: the state read from the file system once every thread had
 * stopped). The number of configurations is at most the product of (operations + 1) per thread
 * times the number of distinct states, so histories are checked in short rounds (a few operations
 * per thread).
 *
 * <h2>Limits</h2>
 *
 * Checks only what the model models (see {@link NamespaceModel}); it is sound (a history it rejects
 * has no linearization) provided the recorded intervals contain the real ones and the model is
 * right; it is complete only for the operations recorded. Not thread-safe: check histories after
 * the threads that recorded them have been joined.
 */
final class LinearizabilityChecker {
    private LinearizabilityChecker() {}

    /**
     * A sequential specification: the state after {@code op} applied to {@code state}, or {@code
     * null} if no sequential execution of it there returns what it returned.
     *
     * @param <S> the model's state: immutable, with value equality
     */
    interface Model<S> {
        S step(S state, Op op);
    }

    /** One completed call; {@code kind} is one of its model's call kinds. */
    record Op(
            int thread,
            Enum<?> kind,
            String a,
            String b,
            Result result,
            long invoked,
            long responded) {
        @Override
        public String toString() {
            String call =
                    kind instanceof Kind k
                            ? NamespaceModel.format(k, a, b)
                            : kind + "(" + a + (b == null ? "" : ", " + b) + ")";
            return "t" + thread + " " + call + " = " + result;
        }
    }

    /** The per-thread lists of one history; {@link #record} is called by the owning thread only. */
    static final class History {
        private final List<List<Op>> threads = new ArrayList<>();

        History(int threads) {
            for (int i = 0; i < threads; i++) {
                this.threads.add(new ArrayList<>());
            }
        }

        /** Adds an operation to its thread's list (call from that thread). */
        void record(Op op) {
            threads.get(op.thread()).add(op);
        }

        List<List<Op>> threads() {
            return threads;
        }

        /** Empties every thread's list (call while no thread records). */
        void clear() {
            for (List<Op> l : threads) {
                l.clear();
            }
        }

        int size() {
            int n = 0;
            for (List<Op> l : threads) {
                n += l.size();
            }
            return n;
        }

        /**
         * Returns the history as lines sorted by invocation, times in microseconds from the first.
         */
        String describe() {
            List<Op> all = new ArrayList<>();
            threads.forEach(all::addAll);
            all.sort(Comparator.comparingLong(Op::invoked));
            long t0 = all.isEmpty() ? 0 : all.get(0).invoked();
            StringBuilder sb = new StringBuilder();
            for (Op o : all) {
                sb.append(
                        String.format(
                                "  [%9.3f, %9.3f] us  %s%n",
                                (o.invoked() - t0) / 1000.0, (o.responded() - t0) / 1000.0, o));
            }
            return sb.toString();
        }
    }

    /**
     * Checks {@code history} from {@code initial}.
     *
     * @param expectedFinal the state every linearization must end in, or {@code null} for any
     * @return {@code null} if linearizable, else a description of the failure
     */
    static String check(State initial, History history, State expectedFinal) {
        return check(
                initial,
                history,
                expectedFinal,
                (st, x) -> NamespaceModel.step(st, (Kind) x.kind(), x.a(), x.b(), x.result()));
    }

    /**
     * Checks {@code history} from {@code initial} against {@code model}.
     *
     * @param expectedFinal the state every linearization must end in, or {@code null} for any
     * @return {@code null} if linearizable, else a description of the failure
     */
    static <S> String check(S initial, History history, S expectedFinal, Model<S> model) {
        List<List<Op>> threads = history.threads();
        Search<S> s = new Search<>(threads, expectedFinal, model);
        if (s.dfs(new int[threads.size()], initial)) {
            return null;
        }
        return "history not linearizable from "
                + initial
                + (expectedFinal == null ? "" : " to " + expectedFinal)
                + " (longest linearizable prefix: "
                + s.deepest
                + " of "
                + history.size()
                + " operations):\n"
                + history.describe();
    }

    private static final class Search<S> {
        private final List<List<Op>> threads;
        private final S expectedFinal;
        private final Model<S> model;
        private final Set<Config> visited = new HashSet<>();
        int deepest;

        Search(List<List<Op>> threads, S expectedFinal, Model<S> model) {
            this.threads = threads;
            this.expectedFinal = expectedFinal;
            this.model = model;
        }

        boolean dfs(int[] pos, S state) {
            if (!visited.add(new Config(pos.clone(), state))) {
                return false;
            }
            int done = 0;
            boolean all = true;
            for (int t = 0; t < pos.length; t++) {
                done += pos[t];
                all &= pos[t] == threads.get(t).size();
            }
            deepest = Math.max(deepest, done);
            if (all) {
                return expectedFinal == null || expectedFinal.equals(state);
            }
            for (int t = 0; t < pos.length; t++) {
                if (pos[t] == threads.get(t).size()) {
                    continue;
                }
                Op x = threads.get(t).get(pos[t]);
                if (!minimal(pos, t, x)) {
                    continue;
                }
                S next = model.step(state, x);
                if (next == null) {
                    continue;
                }
                pos[t]++;
                boolean ok = dfs(pos, next);
                pos[t]--;
                if (ok) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Returns whether no other thread's next operation responded before {@code x} was invoked.
         */
        private boolean minimal(int[] pos, int t, Op x) {
            for (int u = 0; u < pos.length; u++) {
                if (u != t
                        && pos[u] < threads.get(u).size()
                        && threads.get(u).get(pos[u]).responded() < x.invoked()) {
                    return false;
                }
            }
            return true;
        }
    }

    @SuppressWarnings("ArrayRecordComponent") // equals and hashCode below compare pos by content
    private record Config(int[] pos, Object state) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Config c && Arrays.equals(c.pos, pos) && c.state.equals(state);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(pos) + state.hashCode();
        }

        @Override
        public String toString() {
            return Arrays.toString(pos) + " " + state;
        }
    }
}
