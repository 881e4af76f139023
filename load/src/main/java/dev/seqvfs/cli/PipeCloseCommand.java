package dev.seqvfs.cli;

import dev.seqvfs.load.anon.AnonLoad;
import picocli.CommandLine.Command;

/** {@code seqvfs load pipe-close}: {@code pipe()} + 2 {@code close()} per op (seed 002). */
@Command(
        name = "pipe-close",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        versionProvider = VersionProvider.class,
        description = {
            "pipe() and close() of both ends in a loop by every client (seed 002: 16 threads sharing"
                    + " one descriptor table): ops/s, latency.",
            "Defaults: --clients 16, --ops 100000.",
            "Example: seqvfs load pipe-close --clients 16 --shared-fd-table --compare host"
        })
final class PipeCloseCommand extends AnonCommand {
    @Override
    AnonLoad.Kind kind() {
        return AnonLoad.Kind.PIPE_CLOSE;
    }

    @Override
    int defaultClients() {
        return 16;
    }

    @Override
    long defaultOps() {
        return 100_000;
    }
}
