package dev.seqvfs.cli;

import dev.seqvfs.load.LoadException;
import dev.seqvfs.load.LoadReport;
import dev.seqvfs.load.Session;
import dev.seqvfs.load.lookup.LookupLoad;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code seqvfs load lookup}: deep-path stats from the same cwd and from distinct cwds (seed 004).
 */
@Command(
        name = "lookup",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        versionProvider = VersionProvider.class,
        description = {
            "stat of a deep relative path by every client, all from the same cwd and each from its own"
                    + " (seed 004): ops/s and the scaling factor over the smallest client count.",
            "Example: seqvfs load lookup --clients 1,2 --compare host"
        })
final class LookupCommand extends WorkloadCommand {
    @Option(
            names = "--clients",
            split = ",",
            preprocessor = Values.ListElements.class,
            paramLabel = "N",
            defaultValue = "1,2",
            description =
                    "Client counts (threads), run one after another, each 1 to "
                            + Checks.MAX_CLIENTS
                            + " (default: ${DEFAULT-VALUE}).")
    List<Integer> clients;

    @Option(
            names = "--ops",
            paramLabel = "M",
            defaultValue = "1000000",
            description = "Stats per client in each measured run (default: ${DEFAULT-VALUE}).")
    long ops;

    @Option(
            names = "--warmup",
            paramLabel = "S",
            defaultValue = "0.5",
            description =
                    "Seconds of unmeasured stats before each measured run, by the same clients, 0 to "
                            + Checks.MAX_SECONDS
                            + " (default: ${DEFAULT-VALUE}).")
    double warmup;

    @Option(
            names = "--depth",
            paramLabel = "D",
            defaultValue = "8",
            description =
                    "Directories between the cwd and the file, at least 1, at most what keeps the longest"
                            + " path (on the host with --compare host) within PATH_MAX, 4096 bytes with its NUL (default:"
                            + " ${DEFAULT-VALUE}).")
    int depth;

    @Option(
            names = "--compare",
            paramLabel = "host",
            description =
                    "Also stat the same tree under /dev/shm through java.nio, in the same run.")
    String compare;

    private LookupLoad.Settings settings;

    @Override
    LoadReport newReport() {
        if (compare != null && !compare.equals("host")) {
            throw LoadException.usage("--compare " + compare + ": expected host");
        }
        long n = checkAtLeast("--ops", ops, 1);
        List<Integer> c = checkClients(clients);
        checkDepth(depth, c.stream().mapToInt(Integer::intValue).max().orElse(1), compare != null);
        settings =
                new LookupLoad.Settings(
                        c, n, checkNotNegative("--warmup", warmup), depth, compare != null);
        LoadReport r =
                new LoadReport("lookup", "deep-path stat, same cwd and distinct cwds (seed 004)");
        r.parameter("clients", settings.clients())
                .parameter("ops", n)
                .parameter("warmup", settings.warmup())
                .parameter("depth", depth)
                .parameter("compare", compare);
        return r;
    }

    /** PATH_MAX on Linux: bytes of a path, its terminating NUL included. */
    static final int PATH_MAX = 4096;

    /**
     * Checks that the longest path the workload makes fits PATH_MAX (4096 bytes with the NUL;
     * {@code limits.h}): SeqVFS's {@code /lookup/cN/d1/.../dD/f}, and with {@code --compare host}
     * the host's {@code /dev/shm/seqvfs-load-lookup-PID/cN/d1/.../dD/f} (PID counted with 7 digits,
     * Linux's largest pid_max).
     */
    static void checkDepth(int depth, int maxClients, boolean host) {
        if (depth < 1) {
            throw LoadException.usage("--depth " + depth + ": must be at least 1");
        }
        String base =
                (host ? "/dev/shm/seqvfs-load-lookup-4194304" : "/lookup")
                        + "/c"
                        + (maxClients - 1)
                        + "/";
        int max = 0;
        long len = base.length() + 1L; // + "f"
        for (int d = 1; ; d++) {
            len += ("d" + d + "/").length();
            if (len + 1 > PATH_MAX) {
                break;
            }
            max = d;
        }
        if (depth > max) {
            throw LoadException.usage(
                    "--depth "
                            + depth
                            + ": the deepest path ("
                            + base
                            + "d1/.../d"
                            + depth
                            + "/f) must fit PATH_MAX, "
                            + PATH_MAX
                            + " bytes with its NUL; the largest depth here is "
                            + max);
        }
    }

    @Override
    void run(Session session) {
        LookupLoad.run(settings, session);
    }
}
