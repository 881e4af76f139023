package dev.seqvfs.cli;

import dev.seqvfs.load.LoadException;
import dev.seqvfs.load.LoadReport;
import dev.seqvfs.load.Session;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A {@code seqvfs load} subcommand: opens a {@link Session} with the {@link OutputOptions}, runs
 * the workload, prints the summary and writes the files. A {@link LoadException} prints one line
 * {@code seqvfs load NAME: MESSAGE} on stderr; the exit status is 2 for bad input (options out of
 * range, output files that cannot be written, all checked before the run; a missing input), as
 * picocli's for a malformed option, and 1 for a run that failed.
 */
abstract class WorkloadCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin OutputOptions output;

    /** Returns a new report with the workload's name, title and parameters. */
    abstract LoadReport newReport();

    /** Runs the workload into the session's report. */
    abstract void run(Session session);

    @Override
    public final Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean started = false;
        try {
            LoadReport report = newReport();
            try (Session session =
                    new Session(
                            report, out, err, output.json(), output.chart(), output.progress())) {
                started = true;
                run(session);
                session.complete();
            }
            return 0;
        } catch (LoadException e) {
            err.println("seqvfs load " + spec.name() + ": " + e.getMessage());
            err.flush();
            return e.isUsage() || !started ? 2 : 1;
        }
    }

    /** Checks a --clients list: not empty, every count 1 to {@link Checks#MAX_CLIENTS}. */
    static List<Integer> checkClients(List<Integer> clients) {
        return Checks.clients(clients);
    }

    /** Checks that a seconds option is from 0 to {@link Checks#MAX_SECONDS} (not NaN). */
    static double checkNotNegative(String option, double value) {
        return Checks.seconds(option, value, 0, false);
    }

    /** Checks that a count option is at least {@code min}. */
    static long checkAtLeast(String option, long value, long min) {
        return Checks.range(option, value, min, Long.MAX_VALUE);
    }
}
