package dev.seqvfs.cli;

import dev.seqvfs.load.anon.AnonLoad;
import picocli.CommandLine.Command;

/**
 * {@code seqvfs load socket-close}: {@code close(socket(AF_INET, SOCK_STREAM, 0))} per op (seeds
 * 000, 003).
 */
@Command(
        name = "socket-close",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        versionProvider = VersionProvider.class,
        description = {
            "close(socket(AF_INET, SOCK_STREAM, 0)) in a loop by every client (seeds 000, 003):"
                    + " total time for clients x ops, ops/s, latency.",
            "Defaults: --clients 1, --ops 1000000.",
            "Example: seqvfs load socket-close --clients 1,2,4 --ops 200000 --compare shared-root"
        })
final class SocketCloseCommand extends AnonCommand {
    @Override
    AnonLoad.Kind kind() {
        return AnonLoad.Kind.SOCKET_CLOSE;
    }

    @Override
    int defaultClients() {
        return 1;
    }

    @Override
    long defaultOps() {
        return 1_000_000;
    }
}
