package dev.seqvfs.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code seqvfs load <workload>}: runs a workload on the embedded default configuration.
 */
@Command(name = "load", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Run a load test on an embedded SeqVFS (default configuration).",
        subcommands = {DbenchCommand.class, MakestatCommand.class, SocketCloseCommand.class,
                PipeCloseCommand.class, LookupCommand.class})
public final class LoadCommand implements Runnable {
    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }
}
