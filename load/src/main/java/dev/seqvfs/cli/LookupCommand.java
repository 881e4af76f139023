package dev.seqvfs.cli;

import dev.seqvfs.load.LoadException;
import dev.seqvfs.load.LoadReport;
import dev.seqvfs.load.Session;
import dev.seqvfs.load.lookup.LookupLoad;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code seqvfs load lookup}: deep-path stats from the same cwd and from distinct cwds (seed 004). */
@Command(name = "lookup", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"stat of a deep relative path by every client, all from the same cwd and each from its own"
                + " (seed 004): ops/s and the scaling factor over the smallest client count.",
                "Example: seqvfs load lookup --clients 1,2 --compare host"})
final class LookupCommand extends WorkloadCommand {
    @Option(names = "--clients", split = ",", paramLabel = "N", defaultValue = "1,2",
            description = "Client counts (threads), run one after another (default: ${DEFAULT-VALUE}).")
    List<Integer> clients;

    @Option(names = "--ops", paramLabel = "M", defaultValue = "1000000",
            description = "Stats per client in each measured run (default: ${DEFAULT-VALUE}).")
    long ops;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "0.5",
            description = "Seconds of unmeasured stats before each measured run, by the same clients (default:"
                    + " ${DEFAULT-VALUE}).")
    double warmup;

    @Option(names = "--depth", paramLabel = "D", defaultValue = "8",
            description = "Directories between the cwd and the file (default: ${DEFAULT-VALUE}).")
    int depth;

    @Option(names = "--compare", paramLabel = "host",
            description = "Also stat the same tree under /dev/shm through java.nio, in the same run.")
    String compare;

    private LookupLoad.Settings settings;

    @Override
    LoadReport newReport() {
        if (compare != null && !compare.equals("host")) {
            throw new LoadException("--compare " + compare + ": expected host");
        }
        long n = checkAtLeast("--ops", ops, 1);
        settings = new LookupLoad.Settings(checkClients(clients), n,
                checkNotNegative("--warmup", warmup), depth, compare != null);
        LoadReport r = new LoadReport("lookup", "deep-path stat, same cwd and distinct cwds (seed 004)");
        r.parameter("clients", settings.clients()).parameter("ops", n).parameter("warmup", settings.warmup())
                .parameter("depth", depth).parameter("compare", compare);
        return r;
    }

    @Override
    void run(Session session) {
        LookupLoad.run(settings, session);
    }
}
