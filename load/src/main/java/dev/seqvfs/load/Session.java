package dev.seqvfs.load;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One command's run of a workload: measures runs one after another (a progress line per second on
 * {@code err}), collects them in a {@link LoadReport}, and at the end prints the summary on {@code
 * out} and writes the JSON and chart files asked for.
 *
 * <p><b>Ctrl-C.</b> While open, a shutdown hook is registered: if the JVM is asked to stop (SIGINT,
 * SIGTERM) before {@link #complete()}, it stops the clients of the run in progress, adds what that
 * run measured so far (marked interrupted), prints the partial summary, writes the files, and runs
 * the {@link #onExit} cleanups (temporary host trees); runs that the command would start after that
 * do nothing. {@link #close()} removes the hook, closes the {@link #closeAtEnd} resources and runs
 * the cleanups.
 *
 * <p><b>Concurrency.</b> One command thread calls {@link #measure} and {@link #complete}; the
 * ticker thread of the current run and the hook only read the meter and the report, which are
 * thread-safe. Exactly one of {@link #complete()} and the hook prints (a CAS).
 */
public final class Session implements AutoCloseable {
    private final LoadReport report;
    private final PrintWriter out;
    private final PrintWriter err;
    private final Path json;
    private final Path chart;
    private final boolean progress;
    private final AtomicBoolean reported = new AtomicBoolean();
    private final AtomicBoolean cleaned = new AtomicBoolean();
    private final List<Runnable> cleanups = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private volatile boolean interrupted;
    private Meter added;
    private final Thread hook;
    private volatile Meter current;

    /**
     * Opens a session and registers its Ctrl-C hook.
     *
     * @param json where to write the JSON results, or null
     * @param chart where to draw the charts ({@code .svg} or {@code .png}), or null
     * @param progress whether to print a progress line per second
     * @throws LoadException a usage error when a file cannot be written (checked before any run)
     */
    public Session(
            LoadReport report,
            PrintWriter out,
            PrintWriter err,
            Path json,
            Path chart,
            boolean progress) {
        if (chart != null) {
            Charts.checkName(chart);
            OutputFiles.checkWritable("--chart", chart);
        }
        if (json != null) {
            OutputFiles.checkWritable("--json", json);
        }
        this.report = report;
        this.out = out;
        this.err = err;
        this.json = json;
        this.chart = chart;
        this.progress = progress;
        this.hook = new Thread(this::interrupted, "seqvfs-load-interrupt");
        report.loadAverage(true, loadAverage());
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Returns the report. */
    public LoadReport report() {
        return report;
    }

    /**
     * Registers a cleanup that must happen however the command ends (a temporary host tree): run
     * once, by {@link #close()} or by the Ctrl-C hook, latest first.
     */
    public synchronized void onExit(Runnable cleanup) {
        cleanups.add(cleanup);
    }

    /**
     * Registers something to close at the end of a command that was not interrupted (a SeqVFS
     * instance: a JVM that is shutting down need not stop its actors), latest first, before the
     * {@link #onExit} cleanups.
     */
    public synchronized void closeAtEnd(AutoCloseable resource) {
        closeables.add(resource);
    }

    /**
     * Measures one run: the body starts the clients, which start the meter once ready (see {@link
     * Clients}), and returns when they are done. A ticker thread prints progress once a second,
     * samples the rate every {@link Meter#FINE_NANOS} (the chart of a short run) and, if {@code
     * seconds > 0}, asks the clients to stop that long after the start.
     *
     * @return the run's result, also added to the report
     */
    public RunResult measure(Meter meter, double seconds, Runnable body) {
        return run(meter, seconds, body, true);
    }

    /**
     * Runs a warm-up: like {@link #measure}, but silent and not added to the report (the JIT
     * compiles the op's path before the clock that counts starts).
     */
    public void warmUp(Meter meter, double seconds, Runnable body) {
        meter.markWarmUp();
        run(meter, seconds, body, false);
    }

    private RunResult run(Meter meter, double seconds, Runnable body, boolean record) {
        current = meter;
        if (interrupted) {
            // the JVM is shutting down after Ctrl-C: start nothing more
            meter.requestStop();
            return meter.finish();
        }
        if (record) {
            // Start every measured run from a collected heap, as JMH's -gc does: garbage and
            // survivors a previous run (or warm-up) left would otherwise be collected, and
            // their pause counted, in whichever run comes next.
            System.gc();
        }
        AtomicBoolean running = new AtomicBoolean(true);
        Thread ticker =
                new Thread(() -> tick(meter, seconds, running, record), "seqvfs-load-ticker");
        ticker.setDaemon(true);
        ticker.start();
        try {
            body.run();
        } finally {
            running.set(false);
            LockSupport.unpark(ticker);
            meter.requestStop();
        }
        RunResult r = meter.finish();
        current = null;
        if (record) {
            addOnce(meter, r);
        }
        return r;
    }

    /** Adds a meter's result unless the Ctrl-C hook already added it (partial). */
    private synchronized void addOnce(Meter meter, RunResult r) {
        if (added != meter) {
            added = meter;
            report.add(r);
        }
    }

    private void tick(Meter meter, double seconds, AtomicBoolean running, boolean print) {
        while (running.get() && !meter.started()) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        long start = meter.startNanos();
        long deadline = seconds > 0 ? start + (long) (seconds * 1e9) : Long.MAX_VALUE;
        long next = start + TimeUnit.SECONDS.toNanos(1);
        long nextSample = start + Meter.FINE_NANOS;
        while (running.get()) {
            long now = System.nanoTime();
            if (now >= deadline) {
                meter.requestStop();
                deadline = Long.MAX_VALUE;
            }
            if (now >= nextSample && nextSample - start <= Meter.FINE_LIMIT_NANOS) {
                meter.sample();
                nextSample += Meter.FINE_NANOS;
                continue;
            }
            if (now >= next) {
                double rate = meter.tick();
                if (progress && print) {
                    err.printf(
                            "[%4ds] %s, %d %s: %,.0f ops/s (%,d ops, p99 %.1f us)%n",
                            Math.round((now - start) / 1e9),
                            meter.variant().isEmpty()
                                    ? meter.target()
                                    : meter.target() + " " + meter.variant(),
                            meter.clients(),
                            meter.clients() == 1 ? "client" : "clients",
                            rate,
                            meter.opsSoFar(),
                            meter.p99SoFar() / 1000.0);
                    err.flush();
                }
                next += TimeUnit.SECONDS.toNanos(1);
                continue;
            }
            long wake =
                    nextSample - start <= Meter.FINE_LIMIT_NANOS
                            ? Math.min(next, nextSample)
                            : next;
            LockSupport.parkNanos(Math.min(wake, deadline) - now);
        }
    }

    /**
     * Prints the summary and writes the JSON and chart files; the Ctrl-C hook no longer prints
     * after this.
     *
     * @throws LoadException a file that could not be written
     */
    public void complete() {
        if (!reported.compareAndSet(false, true)) {
            return;
        }
        report.loadAverage(false, loadAverage());
        report.print(out);
        writeFiles(true);
    }

    private void writeFiles(boolean strict) {
        String failed = null;
        Exception cause = null;
        if (json != null) {
            try {
                JsonReport.write(report, json);
                err.println("results written to " + json);
            } catch (Exception e) {
                failed = "--json " + json + ": cannot write: " + OutputFiles.reason(e);
                cause = e;
            }
        }
        if (chart != null) {
            try {
                Charts.write(report, chart);
                err.println("chart written to " + chart);
            } catch (Exception e) {
                String m = "--chart " + chart + ": cannot write: " + OutputFiles.reason(e);
                failed = failed == null ? m : failed + "; " + m;
                cause = cause == null ? e : cause;
            }
        }
        if (failed != null) {
            if (strict) {
                err.flush();
                throw new LoadException(failed, cause);
            }
            err.println(failed);
        }
        err.flush();
    }

    private void interrupted() {
        interrupted = true;
        Meter m = current;
        if (m != null) {
            m.interrupt();
        }
        if (reported.compareAndSet(false, true)) {
            if (m != null && m.recorded()) {
                addOnce(m, m.partial());
            }
            report.loadAverage(false, loadAverage());
            out.println("interrupted: partial summary");
            report.print(out);
            writeFiles(false);
        }
        cleanup();
    }

    /**
     * Returns the host's load averages over 1, 5 and 15 minutes ({@code /proc/loadavg}), or null
     * where there is none: figures measured while other work shares the CPUs mean little, so the
     * summary shows them.
     */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+", -1);
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private void cleanup() {
        if (!cleaned.compareAndSet(false, true)) {
            return;
        }
        List<Runnable> all;
        synchronized (this) {
            all = new ArrayList<>(cleanups);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                all.get(i).run();
            } catch (RuntimeException e) {
                err.println("cleanup failed: " + e);
            }
        }
    }

    /** Removes the Ctrl-C hook and runs the cleanups. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook runs the cleanups
            return;
        }
        List<AutoCloseable> all;
        synchronized (this) {
            all = new ArrayList<>(closeables);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                all.get(i).close();
            } catch (Exception e) {
                err.println("close failed: " + e);
            }
        }
        cleanup();
    }
}
