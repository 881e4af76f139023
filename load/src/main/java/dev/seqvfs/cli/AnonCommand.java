package dev.seqvfs.cli;

import dev.seqvfs.load.LoadException;
import dev.seqvfs.load.LoadReport;
import dev.seqvfs.load.Session;
import dev.seqvfs.load.anon.AnonLoad;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import picocli.CommandLine.Option;

/** The options and run of {@code socket-close} and {@code pipe-close} (see {@link AnonLoad}). */
abstract class AnonCommand extends WorkloadCommand {
    @Option(
            names = "--clients",
            split = ",",
            preprocessor = Values.ListElements.class,
            paramLabel = "N",
            description =
                    "Client counts, run one after another (a list draws scaling curves), each 1 to "
                            + Checks.MAX_CLIENTS
                            + ", e.g. 1,2,4,8.")
    List<Integer> clients;

    @Option(names = "--ops", paramLabel = "M", description = "Ops per client in each measured run.")
    Long ops;

    @Option(
            names = "--warmup",
            paramLabel = "S",
            defaultValue = "1",
            description =
                    "Seconds of unmeasured ops before each measured run, by the same clients, 0 to "
                            + Checks.MAX_SECONDS
                            + " (default: ${DEFAULT-VALUE}).")
    double warmup;

    @Option(
            names = "--shared-fd-table",
            description =
                    "Clients are threads of one task sharing one descriptor table (seed 002), instead of"
                            + " tasks with a table each.")
    boolean sharedFdTable;

    @Option(
            names = "--driver",
            paramLabel = "actors|threads",
            defaultValue = "actors",
            description =
                    "SeqVFS clients: Pekko actors driving the async API (default; no client thread waits),"
                            + " or plain threads calling the blocking API. Host clients are always threads.")
    String driver;

    @Option(
            names = "--actor-threads",
            paramLabel = "T",
            defaultValue = "0",
            description =
                    "Threads of the client actors' dispatcher (default: min(largest --clients, CPUs); 1 with"
                            + " --shared-fd-table, whose one table actor serializes every call).")
    int actorThreads;

    @Option(
            names = "--compare",
            split = ",",
            preprocessor = Values.ListElements.class,
            paramLabel = "TARGET",
            description =
                    "Also run, in the same run, TARGET shared-root: the old shared-pseudo-root layout"
                            + " (seqvfs.anon.shared-root = on), and/or TARGET host: the host kernel through the JDK. The"
                            + " first is the ratio's reference.")
    List<String> compare = new ArrayList<>();

    private AnonLoad.Settings settings;

    /** Returns the workload. */
    abstract AnonLoad.Kind kind();

    /** Returns the default client count. */
    abstract int defaultClients();

    /** Returns the default ops per client. */
    abstract long defaultOps();

    private AnonLoad.Settings settings() {
        List<Integer> c = checkClients(clients == null ? List.of(defaultClients()) : clients);
        long n = checkAtLeast("--ops", ops == null ? defaultOps() : ops, 1);
        double w = checkNotNegative("--warmup", warmup);
        AnonLoad.Driver d =
                switch (driver) {
                    case "actors" -> AnonLoad.Driver.ACTORS;
                    case "threads" -> AnonLoad.Driver.THREADS;
                    default ->
                            throw LoadException.usage(
                                    "--driver " + driver + ": expected actors or threads");
                };
        for (String x : compare) {
            if (!x.equals("shared-root") && !x.equals("host")) {
                throw LoadException.usage("--compare " + x + ": expected shared-root or host");
            }
        }
        Checks.range("--actor-threads", actorThreads, 0, Checks.MAX_CLIENTS);
        return new AnonLoad.Settings(
                kind(),
                c,
                n,
                w,
                sharedFdTable,
                d,
                actorThreads,
                List.copyOf(new LinkedHashSet<>(compare)));
    }

    @Override
    LoadReport newReport() {
        settings = settings();
        LoadReport r =
                new LoadReport(
                        kind().command(),
                        kind() == AnonLoad.Kind.SOCKET_CLOSE
                                ? "close(socket()) in a loop (seeds 000, 003)"
                                : "pipe() + 2 close() in a loop (seed 002)");
        r.parameter("clients", settings.clients())
                .parameter("ops", settings.ops())
                .parameter("warmup", settings.warmup())
                .parameter("shared_fd_table", settings.sharedFdTable())
                .parameter("driver", driver)
                .parameter("actor_threads", actorThreads)
                .parameter("compare", settings.compare());
        return r;
    }

    @Override
    void run(Session session) {
        AnonLoad.run(settings, session);
    }
}
