package dev.seqvfs.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code seqvfs} command. Subcommands of {@code load} are the workloads. Without a command it
 * prints its usage on stderr and exits with 2, as for any other bad input.
 */
@Command(
        name = "seqvfs",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description =
                "An embeddable, actor-based virtual file system engine: load tests, and a FUSE mount.",
        subcommands = {LoadCommand.class, MountCommand.class, FsckCommand.class})
public final class Main implements Callable<Integer> {
    @Spec CommandSpec spec;

    /** Runs {@code seqvfs} without a command: prints the usage on stderr and returns 2. */
    @Override
    public Integer call() {
        return usageError(spec);
    }

    /**
     * Prints the usage of {@code spec}'s command on its stderr and returns the exit status of bad
     * input (2): what a command that needs a subcommand does without one.
     */
    static int usageError(CommandSpec spec) {
        CommandLine cl = spec.commandLine();
        cl.usage(cl.getErr());
        cl.getErr().flush();
        return spec.exitCodeOnInvalidInput();
    }

    /**
     * Returns the command line, configured as {@code seqvfs} runs it: parse errors as one line and
     * exit 2 ({@link ParseErrors}), values read alike by every option ({@link Values}), usage help
     * wrapped only at spaces ({@link UsageHelp}). Tests run it in-process through this too.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setParameterExceptionHandler(new ParseErrors());
        Values.register(cl);
        cl.setHelpFactory(UsageHelp.FACTORY);
        return cl;
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
