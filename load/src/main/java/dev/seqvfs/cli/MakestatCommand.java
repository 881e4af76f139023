package dev.seqvfs.cli;

import dev.seqvfs.load.LoadException;
import dev.seqvfs.load.LoadReport;
import dev.seqvfs.load.Session;
import dev.seqvfs.load.makestat.MakestatLoad;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code seqvfs load makestat}: an empty {@code make -j} over a real source tree (seed 001). */
@Command(
        name = "makestat",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        versionProvider = VersionProvider.class,
        description = {
            "Import a real source tree (a directory or a zip such as the JDK's lib/src.zip), then every"
                    + " client stats every file of it over and over, like an empty make -j (seed 001): files/s.",
            "Files are imported with their sizes (ftruncate, no data) and modification times; --contents copies"
                    + " the data too.",
            "Example: seqvfs load makestat --tree /usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip --clients 2"
                    + " --time 10 --compare host"
        })
final class MakestatCommand extends WorkloadCommand {
    @Option(
            names = "--tree",
            paramLabel = "PATH",
            required = true,
            description = "A directory, or a zip file, to import.")
    Path tree;

    @Option(
            names = "--clients",
            split = ",",
            preprocessor = Values.ListElements.class,
            paramLabel = "N",
            defaultValue = "1",
            description =
                    "Client counts (threads), run one after another, each 1 to "
                            + Checks.MAX_CLIENTS
                            + " (default: ${DEFAULT-VALUE}).")
    List<Integer> clients;

    @Option(
            names = "--time",
            paramLabel = "S",
            defaultValue = "10",
            description =
                    "Seconds each run lasts, above 0, at most "
                            + Checks.MAX_SECONDS
                            + " (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(
            names = "--warmup",
            paramLabel = "S",
            defaultValue = "2",
            description =
                    "Seconds of unmeasured stats before each run, 0 to "
                            + Checks.MAX_SECONDS
                            + " (default: ${DEFAULT-VALUE}).")
    double warmup;

    @Option(
            names = "--contents",
            description = "Import the files' data too (write), not only their sizes.")
    boolean contents;

    @Option(
            names = "--compare",
            paramLabel = "host",
            description =
                    "Also stat the tree extracted under /dev/shm through java.nio, in the same run.")
    String compare;

    private MakestatLoad.Settings settings;

    @Override
    LoadReport newReport() {
        if (compare != null && !compare.equals("host")) {
            throw LoadException.usage("--compare " + compare + ": expected host");
        }
        Checks.seconds("--time", seconds, 0, true);
        settings =
                new MakestatLoad.Settings(
                        tree,
                        checkClients(clients),
                        seconds,
                        checkNotNegative("--warmup", warmup),
                        contents,
                        compare != null);
        LoadReport r =
                new LoadReport(
                        "makestat",
                        "stat every file of a real tree, repeatedly (seed 001); ops are"
                                + " files stat'ed");
        r.parameter("tree", tree.toString())
                .parameter("clients", settings.clients())
                .parameter("time", seconds)
                .parameter("warmup", warmup)
                .parameter("contents", contents)
                .parameter("compare", compare);
        return r;
    }

    @Override
    void run(Session session) {
        MakestatLoad.run(settings, session);
    }
}
