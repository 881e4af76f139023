package dev.seqvfs.persist.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.Config;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.persist.PersistfsType;
import dev.seqvfs.persist.PostgresTestServer;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Crash consistency of persistfs: a child JVM runs random namespace calls and fsync'd writes on a
 * data directory and reports each acknowledged one; the test kills it with SIGKILL at a random
 * moment, recovers the tree in this JVM and checks that it is exactly what the acknowledged calls
 * made (plus, or not, the one call in flight), with every fsync'd content, and that fsck finds
 * nothing. The rounds continue on the same data directory, so each recovery starts from the last.
 * {@code -Dseqvfs.crash.rounds=N} (default 20) sets the number of kill points.
 */
class PersistfsCrashTest {
    @TempDir Path data;

    /** The PostgreSQL schema of a {@code postgresql} mode, else {@code null}. */
    private String schema;

    @AfterEach
    void dropSchema() throws java.sql.SQLException {
        if (schema != null) {
            PostgresTestServer.dropSchema(schema);
        }
    }

    /**
     * {@return the mount options of a run in {@code mode} on data directory {@code data}} {@code
     * dirsync}, {@code async}: the embedded H2 store; {@code postgresql}, {@code postgresql-async}:
     * PostgreSQL, in schema {@code schema}.
     */
    static String options(Path data, String mode, String schema) {
        String async = mode.endsWith("async") ? ",async" : "";
        if (mode.startsWith("postgresql")) {
            return PostgresTestServer.options(schema, async.isEmpty() ? "" : "async");
        }
        return (mode.equals("h2") ? "store=h2," : "") + "data_dir=" + data.toAbsolutePath() + async;
    }

    /**
     * Once per namespace mode, {@code dirsync} (the default: a call is acknowledged when it
     * returns) and {@code async} (a call is acknowledged after the {@code sync} that follows it:
     * until then it may be lost, and the kill often lands between the two), on the embedded store
     * (the segment log) and on PostgreSQL (half the kill points, at least 10; skipped without a
     * server, as {@link PostgresTestServer} says), and {@code dirsync} on the H2 store ({@code h2}:
     * a quarter of the kill points, at least 5).
     */
    @ParameterizedTest
    @ValueSource(strings = {"dirsync", "async", "h2", "postgresql", "postgresql-async"})
    void sigkillAtRandomMoments_losesNoAcknowledgedCall_andLeavesAConsistentTree(String mode)
            throws Exception {
        int rounds = Integer.getInteger("seqvfs.crash.rounds", 20);
        if (mode.startsWith("postgresql")) {
            schema = PostgresTestServer.newSchema();
            rounds = Math.max(10, rounds / 2);
        } else if (mode.equals("h2")) {
            rounds = Math.max(5, rounds / 4); // the H2 store, kept as an option: dirsync only
        }
        long seed = Long.getLong("seqvfs.crash.seed", System.nanoTime());
        Random r = new Random(seed);
        CrashModel model = new CrashModel();
        List<String> history = new ArrayList<>();
        int acked = 0;
        for (int round = 0; round < rounds; round++) {
            String where = mode + ", seed " + seed + ", round " + round;
            // the child's standard output goes to a file, read whole once it is dead: a pipe's
            // reader may lose the last lines of a killed process (the JDK drains and closes the
            // pipe when the process exits, racing the reader), which then look unacknowledged
            Path outFile = data.resolveSibling(data.getFileName() + ".child.out");
            Process p =
                    new ProcessBuilder(
                                    Path.of(System.getProperty("java.home"), "bin", "java")
                                            .toString(),
                                    "-Xmx256m",
                                    "-cp",
                                    System.getProperty("java.class.path"),
                                    CrashWorkload.class.getName(),
                                    data.toString(),
                                    Long.toString(r.nextLong() & 0xffffL),
                                    mode,
                                    String.valueOf(schema))
                            .redirectError(
                                    data.resolveSibling(data.getFileName() + ".child.err").toFile())
                            .redirectOutput(outFile.toFile())
                            .start();
            try (Writer w =
                    new java.io.OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
                for (String h : history) {
                    w.write(h);
                    w.write('\n');
                }
                w.write('\n');
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            List<String> lines = childLines(outFile);
            while (!lines.contains("READY") && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(5);
                lines = childLines(outFile);
            }
            lines = lines.contains("READY") ? lines : childLines(outFile);
            List<String> started = lines;
            assertTrue(
                    started.contains("READY"),
                    () -> {
                        try {
                            String err =
                                    java.nio.file.Files.readString(
                                            data.resolveSibling(data.getFileName() + ".child.err"));
                            return where
                                    + ": the child did not start: "
                                    + started
                                    + "\n"
                                    + err.substring(Math.max(0, err.length() - 4000));
                        } catch (java.io.IOException e) {
                            return where + ": the child did not start: " + started;
                        }
                    });
            Thread.sleep(50 + r.nextInt(700));
            p.destroyForcibly(); // SIGKILL
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), where + ": the child outlived SIGKILL");
            lines = childLines(outFile);
            String pending = null;
            CrashModel expected = model.copy();
            for (String l : lines) {
                if (l.startsWith("FAIL")) {
                    fail(where + ": a call failed in the child: " + l);
                } else if (l.startsWith("BEGIN\t")) {
                    pending = l.substring(6);
                } else if (l.equals("ACK")) {
                    expected.apply(pending);
                    history.add(pending);
                    acked++;
                    pending = null;
                }
            }
            CrashModel withPending = null;
            if (pending != null) {
                withPending = expected.copy();
                withPending.apply(pending);
            }
            // a create in flight may also show as an empty file: its name is durable when the
            // open returns, its content only at the fsync that follows
            CrashModel createdEmpty = null;
            String emptyCreate = null;
            if (pending != null && pending.startsWith("create\t")) {
                String[] f = pending.split("\t");
                emptyCreate = "create\t" + f[1] + "\t0\t0";
                createdEmpty = expected.copy();
                createdEmpty.apply(emptyCreate);
            }
            Map<String, CrashModel.Node> actual = recover(where, mode);
            if (actual.equals(expected.nodes())) {
                model = expected;
            } else if (withPending != null && actual.equals(withPending.nodes())) {
                model = withPending;
                history.add(pending);
            } else if (createdEmpty != null && actual.equals(createdEmpty.nodes())) {
                model = createdEmpty;
                history.add(emptyCreate);
            } else {
                fail(
                        where
                                + ": recovered tree differs\n expected "
                                + expected.nodes()
                                + (pending == null ? "" : "\n or with " + pending)
                                + "\n recovered "
                                + actual);
            }
        }
        System.out.printf(
                "persistfs crash test (%s): %d kill points, %d acknowledged calls, all recovered"
                        + " (seed %d)%n",
                mode, rounds, acked, seed);
        assertTrue(acked > rounds, "the workload acknowledged only " + acked + " calls");
    }

    /** Mounts the data directory in this JVM (an actor system of its own), reads the tree, fsck. */
    private Map<String, CrashModel.Node> recover(String where, String mode) throws Exception {
        Config c =
                com.typesafe.config.ConfigFactory.parseMap(
                                Map.of(
                                        "seqvfs.root.options",
                                        // recovered on a default (dirsync) mount of the store
                                        options(
                                                data,
                                                mode.startsWith("postgresql")
                                                        ? "postgresql"
                                                        : "dirsync",
                                                schema)))
                        .withFallback(PersistfsType.rootConfig(data));
        ActorSystem<Void> sys = ActorSystem.create(Behaviors.empty(), "crash-check", c);
        try {
            try (SeqVfs vfs = SeqVfs.create(sys, c)) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                CrashModel m = new CrashModel();
                read(t, "/", m);
                assertEquals(List.of(), Fsck.check(vfs, true), where + ": fsck");
                return m.nodes();
            }
        } finally {
            sys.terminate();
            sys.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    private static void read(VfsTask t, String dir, CrashModel m) {
        for (DirEntry e : t.readdir(dir)) {
            String n = e.name();
            if (n.equals(".") || n.equals("..") || (dir.equals("/") && n.equals("proc"))) {
                continue;
            }
            String p = (dir.equals("/") ? "" : dir) + "/" + n;
            Stat s = t.lstat(p);
            if (s.isDirectory()) {
                m.nodes.put(p, new CrashModel.Node(true, s.mode() & 07777, null));
                read(t, p, m);
            } else {
                int fd = t.open(p, OpenFlags.O_RDONLY);
                byte[] b = new byte[(int) s.size()];
                int got = 0;
                try {
                    while (got < b.length) {
                        int k = t.read(fd, b, got, b.length - got);
                        if (k <= 0) {
                            break;
                        }
                        got += k;
                    }
                } finally {
                    t.close(fd);
                }
                m.nodes.put(p, new CrashModel.Node(false, s.mode() & 07777, Arrays.copyOf(b, got)));
            }
        }
    }

    /** {@return the complete lines the child has written so far (a partial last line left out)} */
    private static List<String> childLines(Path out) throws java.io.IOException {
        if (!java.nio.file.Files.exists(out)) {
            return List.of();
        }
        String all = java.nio.file.Files.readString(out, StandardCharsets.UTF_8);
        int end = all.lastIndexOf('\n');
        return end < 0 ? List.of() : all.substring(0, end).lines().toList();
    }
}
