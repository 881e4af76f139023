package dev.seqvfs.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code seqvfs} command. Subcommands of {@code load} are the workloads.
 */
@Command(name = "seqvfs", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "An embeddable, actor-based virtual file system engine: load tests.",
        subcommands = {LoadCommand.class})
public final class Main implements Runnable {
    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }
}
