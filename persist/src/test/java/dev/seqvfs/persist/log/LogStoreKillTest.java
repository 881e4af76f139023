package dev.seqvfs.persist.log;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.seqvfs.persist.ChildKill;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The segment log under kills, below persistfs: a child JVM ({@link LogKillWorkload}) appends
 * random groups from four threads (forced and lazy, with small segments so that rolls and
 * compaction happen under the kills), the test kills it with SIGKILL at a random moment, opens the
 * log in this JVM (recovery: a torn tail is cut) and checks, for each thread, that what the log
 * holds of its keys is what a prefix of its appends made, a prefix that reaches at least its last
 * acknowledged forced append (and with it every lazy one before it): nothing acknowledged lost, no
 * group half applied, no append of a thread kept while an earlier one is lost. The log is then
 * closed cleanly and the next round goes on from it. {@code -Dseqvfs.logkill.rounds=N} (default 25,
 * 150 under {@code -Pstress}) sets the kill points, {@code -Dseqvfs.logkill.seed=S} the seed.
 */
class LogStoreKillTest {
    @TempDir Path dir;

    /** One thread's keys: rows and blocks of its inodes, and its metadata value. */
    private static final class State {
        final TreeMap<Long, byte[]> rows = new TreeMap<>();
        final TreeMap<Long, TreeMap<Long, byte[]>> blocks = new TreeMap<>();
        String meta;

        State copy() {
            State s = new State();
            s.rows.putAll(rows);
            blocks.forEach((k, v) -> s.blocks.put(k, new TreeMap<>(v)));
            s.meta = meta;
            return s;
        }

        void apply(List<LogContent.Op> ops) {
            for (LogContent.Op op : ops) {
                if (op instanceof LogContent.PutBlock b) {
                    blocks.computeIfAbsent(b.ino(), k -> new TreeMap<>()).put(b.idx(), b.data());
                } else if (op instanceof LogContent.PutRow r) {
                    rows.put(r.ino(), r.row());
                } else if (op instanceof LogContent.DeleteBlocks d) {
                    TreeMap<Long, byte[]> m = blocks.get(d.ino());
                    if (m != null) {
                        m.subMap(d.from(), d.to()).clear();
                    }
                } else if (op instanceof LogContent.DeleteInode d) {
                    rows.remove(d.ino());
                    blocks.remove(d.ino());
                } else {
                    meta = ((LogContent.PutMeta) op).value();
                }
            }
        }

        /** {@return a canonical text of the state (lengths and CRCs of the bytes)} */
        String text() {
            StringBuilder b = new StringBuilder();
            for (var e : rows.entrySet()) {
                b.append(" row ").append(e.getKey()).append('=').append(sum(e.getValue()));
            }
            for (var e : blocks.entrySet()) {
                for (var x : e.getValue().entrySet()) {
                    b.append(" block ")
                            .append(e.getKey())
                            .append('/')
                            .append(x.getKey())
                            .append('=')
                            .append(sum(x.getValue()));
                }
            }
            return b.append(" meta ").append(meta).toString();
        }

        private static String sum(byte[] v) {
            CRC32 c = new CRC32();
            c.update(v);
            return v.length + ":" + Long.toHexString(c.getValue());
        }
    }

    /** {@return thread {@code t}'s keys as the log holds them} */
    private static State read(SegmentLog log, int t) {
        State s = new State();
        for (int i = 0; i < LogKillWorkload.INODES; i++) {
            long ino = t * 1000L + i;
            byte[] row = log.content().row(ino);
            if (row != null) {
                s.rows.put(ino, row);
            }
            TreeMap<Long, byte[]> m = new TreeMap<>();
            log.content().blocks(ino, m::put);
            if (!m.isEmpty()) {
                s.blocks.put(ino, m);
            }
        }
        s.meta = log.content().meta("m" + t);
        return s;
    }

    /** One thread's appends in one round: their operations and what the child said of them. */
    private static final class Appends {
        final List<String> ops = new ArrayList<>();
        final List<Character> status = new ArrayList<>(); // 'A' forced, 'L' written, '?' in flight
    }

    @Test
    void sigkillMidWrite_losesNoAcknowledgedAppend_andKeepsAPrefixOfEachThread() throws Exception {
        int rounds = Integer.getInteger("seqvfs.logkill.rounds", 25);
        long seed = Long.getLong("seqvfs.logkill.seed", System.nanoTime());
        Random r = new Random(seed);
        Path logDir = dir.resolve("log");
        Path out = dir.resolve("child.out");
        Path err = dir.resolve("child.err");
        State[] model = new State[LogKillWorkload.THREADS];
        for (int t = 0; t < model.length; t++) {
            model[t] = new State();
        }
        long acked = 0;
        for (int round = 1; round <= rounds; round++) {
            String where = "seed " + seed + ", round " + round;
            boolean ready =
                    ChildKill.killAtRandom(
                            LogKillWorkload.class,
                            out,
                            err,
                            r,
                            where,
                            logDir.toString(),
                            Integer.toString(round),
                            Long.toString(r.nextLong()));
            assertTrue(ready, () -> where + ": the child did not start:\n" + tail(err));
            // the lines are read once the child is dead; a line the kill cut short says nothing
            String text = Files.readString(out, StandardCharsets.UTF_8);
            text = text.substring(0, text.lastIndexOf('\n') + 1);
            Map<Integer, Appends> byThread = new HashMap<>();
            for (String l : text.split("\n")) {
                String[] f = l.split(" ", 4);
                if (f[0].equals("B") && f.length == 4) {
                    Appends a =
                            byThread.computeIfAbsent(Integer.parseInt(f[1]), k -> new Appends());
                    a.ops.add(f[3]);
                    a.status.add('?');
                } else if ((f[0].equals("A") || f[0].equals("L")) && f.length == 3) {
                    Appends a = byThread.get(Integer.parseInt(f[1]));
                    a.status.set(Integer.parseInt(f[2]), f[0].charAt(0));
                    acked += f[0].equals("A") ? 1 : 0;
                }
            }
            try (SegmentLog log = SegmentLog.open(logDir, LogKillWorkload.SETTINGS)) {
                for (int t = 0; t < LogKillWorkload.THREADS; t++) {
                    Appends a = byThread.getOrDefault(t, new Appends());
                    int certain = 0; // appends up to the last forced one acknowledged
                    for (int i = 0; i < a.status.size(); i++) {
                        if (a.status.get(i) == 'A') {
                            certain = i + 1;
                        }
                    }
                    State recovered = read(log, t);
                    State s = model[t].copy();
                    State match = null;
                    for (int j = 0; j <= a.ops.size(); j++) {
                        if (j > 0) {
                            s.apply(LogKillWorkload.decode(a.ops.get(j - 1), round, t, j - 1));
                        }
                        if (j >= certain && s.text().equals(recovered.text())) {
                            match = s;
                            break;
                        }
                    }
                    if (match == null) {
                        fail(
                                where
                                        + ", thread "
                                        + t
                                        + ": the log holds no prefix of the thread's "
                                        + a.ops.size()
                                        + " appends that reaches its "
                                        + certain
                                        + " acknowledged ones\n recovered:"
                                        + recovered.text()
                                        + "\n with all appends:"
                                        + s.text());
                    }
                    model[t] = match;
                }
            }
        }
        assertTrue(acked > rounds, "the workload acknowledged only " + acked + " appends");
        System.out.printf(
                "LogStoreKillTest: %d kill points, %d acknowledged forced appends, all recovered"
                        + " (seed %d)%n",
                rounds, acked, seed);
    }

    private static String tail(Path p) {
        try {
            String s = Files.readString(p);
            return s.substring(Math.max(0, s.length() - 4000));
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
