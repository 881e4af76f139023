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
 * A {@code seqvfs load} subcommand: opens a {@link Session} with the {@link OutputOptions},
 * runs the workload, prints the summary and writes the files. A {@link LoadException}
 * (bad input, a failed check) prints {@code seqvfs load NAME: error: MESSAGE} on stderr and
 * exits with 1; picocli exits with 2 on a bad option.
 */
abstract class WorkloadCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    OutputOptions output;

    /** Returns a new report with the workload's name, title and parameters. */
    abstract LoadReport newReport();

    /** Runs the workload into the session's report. */
    abstract void run(Session session);

    @Override
    public final Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            LoadReport report = newReport();
            try (Session session = new Session(report, out, err, output.json(), output.chart(), output.progress())) {
                run(session);
                session.complete();
            }
            return 0;
        } catch (LoadException e) {
            err.println("seqvfs load " + spec.name() + ": error: " + e.getMessage());
            err.flush();
            return 1;
        }
    }

    /** Checks a --clients list: not empty, every count at least 1. */
    static List<Integer> checkClients(List<Integer> clients) {
        if (clients == null || clients.isEmpty()) {
            throw new LoadException("--clients needs at least one count");
        }
        for (int c : clients) {
            if (c < 1) {
                throw new LoadException("--clients " + c + ": a client count must be at least 1");
            }
        }
        return List.copyOf(clients);
    }

    /** Checks that a seconds option is not negative (nor NaN). */
    static double checkNotNegative(String option, double value) {
        if (!(value >= 0)) {
            throw new LoadException(option + " " + value + ": must not be negative");
        }
        return value;
    }

    /** Checks that a count option is at least {@code min}. */
    static long checkAtLeast(String option, long value, long min) {
        if (value < min) {
            throw new LoadException(option + " " + value + ": must be at least " + min);
        }
        return value;
    }
}
