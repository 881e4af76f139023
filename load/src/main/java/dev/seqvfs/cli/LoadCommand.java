package dev.seqvfs.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code seqvfs load <workload>}: runs a workload on the embedded default configuration. Without a
 * workload it prints its usage on stderr and exits with 2.
 */
@Command(
        name = "load",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Run a load test on an embedded SeqVFS (default configuration).",
        subcommands = {
            DbenchCommand.class,
            MakestatCommand.class,
            SocketCloseCommand.class,
            PipeCloseCommand.class,
            LookupCommand.class
        })
public final class LoadCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    /**
     * {@code --data-dir D}, taken before or after the workload's name: the workload runs on
     * persistfs in {@code D}.
     *
     * @param dir the data directory
     */
    @Option(
            names = "--data-dir",
            paramLabel = "D",
            scope = ScopeType.INHERIT,
            description =
                    "Run on the persistent type (persistfs) with its journal in D (made if absent),"
                            + " not on tmpfs.")
    void dataDir(Path dir) {
        DataDir.use(dir);
    }

    /**
     * {@code --data-options OPTS}: persistfs mount options for {@code --data-dir}.
     *
     * @param options comma-separated options ({@code async}, {@code sync}, {@code
     *     snapshot_every=N})
     */
    @Option(
            names = "--data-options",
            paramLabel = "OPTS",
            scope = ScopeType.INHERIT,
            description =
                    "With --data-dir: persistfs mount options, comma-separated: async (namespace"
                            + " changes durable at fsync of the directory or sync, not at return),"
                            + " sync (every write too), snapshot_every=N.")
    void dataOptions(String options) {
        DataDir.options(options);
    }

    /** Runs {@code seqvfs load} without a workload: prints the usage on stderr and returns 2. */
    @Override
    public Integer call() {
        return Main.usageError(spec);
    }
}
