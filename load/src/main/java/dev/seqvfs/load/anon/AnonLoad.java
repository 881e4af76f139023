package dev.seqvfs.load.anon;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.load.Clients;
import dev.seqvfs.load.LoadException;
import dev.seqvfs.load.LoadReport;
import dev.seqvfs.load.Meter;
import dev.seqvfs.load.RunResult;
import dev.seqvfs.load.Session;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.SocketFlags;
import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The anonymous-inode workloads of seeds 000, 002 and 003:
 *
 * <ul>
 *   <li>{@code socket-close}: one op is {@code close(socket(AF_INET, SOCK_STREAM, 0))};
 *   <li>{@code pipe-close}: one op is {@code pipe()} and {@code close()} of both ends.
 * </ul>
 *
 * Each client has its own descriptor table (its own task, like the seeds' processes), or, with
 * {@code sharedFdTable}, is a thread of one task (seed 002's 16 threads).
 *
 * <p><b>Targets</b>, run one after another at each client count: {@code seqvfs} (the new layout:
 * disconnected dentries, {@code seqvfs.anon.shared-root = off}); with {@code --compare
 * shared-root}, {@code seqvfs-old} (the old shared pseudo-root, {@code = on}) in its own instance;
 * with {@code --compare host}, the host kernel through the JDK, which makes the same system calls:
 * {@code SocketChannel.open()} + {@code close()} ({@code socket} + {@code close}), {@code
 * Pipe.open()} + closing both ends ({@code pipe2} + 2 {@code close}). The first compared target is
 * the reference of the report's ratio.
 *
 * <p><b>Clients.</b> SeqVFS clients are Pekko actors driving the async twins ({@code
 * socketAsync}/{@code closeAsync}, {@code pipe2Async}/{@code closeAsync}) on a dispatcher of {@code
 * min(clients, CPUs)} threads by default (one thread when the clients share a descriptor table, see
 * {@link #defaultActorThreads}): this is the engine's message-driven model, and the way an
 * embedding server would use it (no thread per client, none blocked). {@link Driver#THREADS} runs
 * one plain thread per client on the blocking calls instead, for a comparison with the seeds'
 * processes. Host clients are always plain threads: the JDK calls block.
 *
 * <p>After each SeqVFS run every client task exits and the run fails if an anonymous inode is still
 * alive (a leak).
 */
public final class AnonLoad {
    /** Which workload. */
    public enum Kind {
        /** {@code close(socket())}. */
        SOCKET_CLOSE("socket-close", "close(socket(AF_INET, SOCK_STREAM, 0))"),
        /** {@code pipe()} + 2 {@code close()}. */
        PIPE_CLOSE("pipe-close", "pipe() + close() of both ends");

        private final String command;
        private final String op;

        Kind(String command, String op) {
            this.command = command;
            this.op = op;
        }

        /** Returns the workload's name on the command line. */
        public String command() {
            return command;
        }
    }

    /** How SeqVFS clients run. */
    public enum Driver {
        /** Pekko actors on the async API (the default). */
        ACTORS,
        /** Plain threads on the blocking API. */
        THREADS
    }

    /**
     * A run's settings.
     *
     * @param clients the client counts to run, in order
     * @param ops ops per client in each measured run
     * @param warmup seconds of unmeasured ops by the same clients before each measured run
     * @param actorThreads the client dispatcher's threads (0: {@link #defaultActorThreads})
     * @param compare {@code shared-root} and/or {@code host}; the first is the ratio's reference
     */
    public record Settings(
            Kind kind,
            List<Integer> clients,
            long ops,
            double warmup,
            boolean sharedFdTable,
            Driver driver,
            int actorThreads,
            List<String> compare) {}

    /** The target names. */
    public static final String NEW = "seqvfs";

    /** The old shared-pseudo-root layout. */
    public static final String OLD = "seqvfs-old";

    /** The host kernel. */
    public static final String HOST = "host";

    private AnonLoad() {}

    /** Runs the workload into {@code session}'s report. */
    public static void run(Settings s, Session session) {
        int maxClients = s.clients().stream().mapToInt(Integer::intValue).max().orElse(1);
        int threads =
                s.actorThreads() > 0
                        ? s.actorThreads()
                        : defaultActorThreads(s.sharedFdTable(), maxClients);
        LoadReport report = session.report();
        describe(s, threads, report);
        List<String> targets = new ArrayList<>(List.of(NEW));
        for (String c : s.compare()) {
            targets.add(c.equals("shared-root") ? OLD : HOST);
        }
        report.reference(targets.size() > 1 ? targets.get(1) : null);
        report.extraLines(r -> table(s, r, targets));
        Map<String, SeqVfs> instances = new LinkedHashMap<>();
        for (String t : targets) {
            if (!t.equals(HOST)) {
                SeqVfs vfs =
                        SeqVfs.create(
                                config(t.equals(OLD), threads, maxClients, s.sharedFdTable()));
                session.closeAtEnd(vfs);
                instances.put(t, vfs);
            }
        }
        if (s.warmup() > 0 && instances.size() > 1) {
            // One warm-up of every SeqVFS target before any is measured: the JIT then
            // compiles the shared code paths for both layouts, instead of compiling them for
            // the first and deoptimizing under a later run (measured: the second run of a
            // layout could be 2x slower than its first without this).
            for (String t : instances.keySet()) {
                Meter w = new Meter(t, "", s.clients().get(0));
                session.warmUp(
                        w, s.warmup(), () -> runOnce(s, instances.get(t), w, Long.MAX_VALUE));
            }
        }
        for (int clients : s.clients()) {
            for (String t : targets) {
                SeqVfs vfs = instances.get(t);
                if (s.warmup() > 0) {
                    Meter w = new Meter(t, "", clients);
                    session.warmUp(w, s.warmup(), () -> runOnce(s, vfs, w, Long.MAX_VALUE));
                }
                Meter meter = new Meter(t, "", clients);
                session.measure(meter, 0, () -> runOnce(s, vfs, meter, s.ops()));
            }
        }
    }

    /**
     * Returns the client dispatcher's default size: {@code min(clients, CPUs)} when each client has
     * its own descriptor table; 1 when they share one, whose actor serializes every call anyway: a
     * second client thread only adds cross-thread hand-offs (measured with 16 clients, 2 CPUs: 1
     * thread 200,000 ops/s with p99 7 us, 2 threads 135,000 with p99 213 us).
     */
    static int defaultActorThreads(boolean sharedFdTable, int maxClients) {
        return sharedFdTable ? 1 : Math.min(maxClients, Runtime.getRuntime().availableProcessors());
    }

    private static void describe(Settings s, int threads, LoadReport report) {
        report.note(
                "one op: "
                        + s.kind().op
                        + "; "
                        + (s.sharedFdTable()
                                ? "clients are threads of one task sharing one descriptor table"
                                : "each client has its own descriptor table (its own task)"));
        report.note(
                "SeqVFS clients: "
                        + (s.driver() == Driver.ACTORS
                                ? "Pekko actors on "
                                        + threads
                                        + " dispatcher thread(s), driving the async API ("
                                        + (s.kind() == Kind.SOCKET_CLOSE
                                                ? "socketAsync + closeAsync"
                                                : "pipe2Async + 2 closeAsync")
                                        + ")"
                                : "one plain thread each, on the blocking API")
                        + "; host clients: one thread each, "
                        + (s.kind() == Kind.SOCKET_CLOSE
                                ? "SocketChannel.open() + close()"
                                : "Pipe.open() + closing both ends"));
        if (s.warmup() > 0) {
            report.note(
                    "each measured run follows an unmeasured warm-up of "
                            + s.warmup()
                            + " s by the same clients");
        }
    }

    static Config config(boolean sharedRoot, int threads, int maxClients, boolean shared) {
        int nofile = Math.max(1024, 4 * maxClients + 64);
        return Clients.dispatcherConfig(threads)
                .withFallback(
                        ConfigFactory.parseString(
                                "seqvfs.anon.shared-root = "
                                        + (sharedRoot ? "on" : "off")
                                        + "\nseqvfs.fd.rlimit-nofile = "
                                        + nofile
                                        + "\nseqvfs.errors.stack-traces = off"));
    }

    /**
     * The client actors' own actor system, made once per client count and kept for the whole
     * command.
     */
    private static final Map<Integer, ActorSystem<Void>> CLIENT_SYSTEMS = new ConcurrentHashMap<>();

    /**
     * Returns an actor system for {@code n} client actors on the fixed-pool client dispatcher
     * ({@link Clients#dispatcherConfig}): the clients are message-driven callers of the engine's
     * async API, beside it, not inside its actor system. Terminated when the JVM ends (its threads
     * are daemons).
     */
    private static ActorSystem<Void> clientSystem(int n) {
        return CLIENT_SYSTEMS.computeIfAbsent(
                n,
                k ->
                        ActorSystem.create(
                                Behaviors.empty(),
                                "load-clients-" + k,
                                Clients.dispatcherConfig(k)
                                        .withFallback(
                                                ConfigFactory.parseString("pekko.daemonic = on"))
                                        .withFallback(ConfigFactory.load())));
    }

    private static void runOnce(Settings s, SeqVfs vfs, Meter meter, long ops) {
        int n = meter.clients();
        if (vfs == null) {
            List<Clients.BlockingOp> host = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                host.add(
                        s.kind() == Kind.SOCKET_CLOSE
                                ? AnonLoad::hostSocketClose
                                : AnonLoad::hostPipeClose);
            }
            Clients.threads(meter, host, ops);
            return;
        }
        List<VfsTask> tasks = new ArrayList<>();
        VfsTask parent = s.sharedFdTable() ? vfs.newTask(Credentials.ROOT) : null;
        try {
            for (int i = 0; i < n; i++) {
                tasks.add(parent != null ? parent.newThread() : vfs.newTask(Credentials.ROOT));
            }
            if (s.driver() == Driver.ACTORS) {
                List<Clients.AsyncOp> async = new ArrayList<>();
                for (VfsTask t : tasks) {
                    async.add(
                            s.kind() == Kind.SOCKET_CLOSE
                                    ? () -> socketClose(t)
                                    : () -> pipeClose(t));
                }
                Clients.actors(clientSystem(n), meter, async, ops);
            } else {
                List<Clients.BlockingOp> blocking = new ArrayList<>();
                for (VfsTask t : tasks) {
                    blocking.add(
                            s.kind() == Kind.SOCKET_CLOSE
                                    ? () ->
                                            t.close(
                                                    t.socket(
                                                            SocketFlags.AF_INET,
                                                            SocketFlags.SOCK_STREAM,
                                                            0))
                                    : () -> {
                                        int[] p = t.pipe();
                                        t.close(p[0]);
                                        t.close(p[1]);
                                    });
                }
                Clients.threads(meter, blocking, ops);
            }
        } finally {
            tasks.forEach(VfsTask::close);
            if (parent != null) {
                parent.close();
            }
        }
        long live = vfs.anonInodesAlive();
        if (live != 0) {
            throw new LoadException(
                    meter.target()
                            + ": "
                            + live
                            + " anonymous inodes still alive after every client"
                            + " task exited (leak)");
        }
    }

    private static CompletableFuture<Void> socketClose(VfsTask t) {
        return t.async()
                .socket(SocketFlags.AF_INET, SocketFlags.SOCK_STREAM, 0)
                .thenCompose(t.async()::close);
    }

    private static CompletableFuture<Void> pipeClose(VfsTask t) {
        return t.async()
                .pipe2(0)
                .thenCompose(p -> t.async().close(p[0]).thenCompose(v -> t.async().close(p[1])));
    }

    private static void hostSocketClose() throws IOException {
        SocketChannel.open().close();
    }

    private static void hostPipeClose() throws IOException {
        Pipe p = Pipe.open();
        p.source().close();
        p.sink().close();
    }

    /** The seeds' before/after table: total time for clients x ops, per target, and the ratios. */
    private static List<String> table(Settings s, LoadReport r, List<String> targets) {
        List<String> lines = new ArrayList<>();
        StringBuilder head = new StringBuilder(String.format("%-8s %12s", "clients", "ops/client"));
        for (String t : targets) {
            head.append(String.format(" %14s", "time " + t));
        }
        for (String t : targets.subList(1, targets.size())) {
            head.append(String.format(" %16s", (t.equals(OLD) ? "new/old" : "new/" + t)));
        }
        lines.add(
                "total time for clients x ops (ratios: ops/s of new over the other; higher is better)");
        lines.add(head.toString());
        for (int c : s.clients()) {
            RunResult mine = r.find(NEW, "", c);
            if (mine == null) {
                continue;
            }
            StringBuilder row = new StringBuilder(String.format("%-8d %,12d", c, s.ops()));
            for (String t : targets) {
                RunResult x = r.find(t, "", c);
                row.append(
                        String.format(
                                " %14s", x == null ? "-" : String.format("%.3fs", x.seconds())));
            }
            for (String t : targets.subList(1, targets.size())) {
                row.append(
                        String.format(
                                " %16s", LoadReport.fmt(LoadReport.ratio(mine, r.find(t, "", c)))));
            }
            lines.add(row.toString());
        }
        return lines;
    }
}
