package dev.seqvfs.load.dbench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.protocol.Credentials;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Runs a dbench replay: on an embedded SeqVFS with one actor per client, or on the host's tmpfs
 * with one thread per client; prints a progress line per second.
 *
 * <p><b>Why the clients get an actor system of their own.</b> The engine's system runs its writers
 * on the calling-thread dispatcher, and its guardian has a protocol of its own (spawning
 * superblocks and descriptor tables). The clients need a guardian that spawns and stops them, a
 * timer, and a dispatcher sized to the machine whose threads they may keep busy; a separate system
 * gives all three without touching the engine's, and its termination ends the run without touching
 * the file system under measurement. Messages the clients send to the engine still run inline on
 * the client's thread when the target actor is idle, exactly as for any embedding caller.
 *
 * <p>Thread-safety: one run at a time per runner; {@link #stop()} may be called from any thread (a
 * shutdown hook) and ends the current run early.
 */
public final class DbenchRunner {
    /**
     * Keeps Pekko's JVM shutdown hooks out of both actor systems: on Ctrl-C this runner's own hook
     * stops the clients and the summary is printed while the engine still runs (a shaded jar's
     * merged {@code reference.conf} may hold Pekko's {@code on} after SeqVFS's {@code off}).
     */
    private static final Config NO_JVM_HOOKS =
            ConfigFactory.parseString(
                    "pekko.jvm-shutdown-hooks = off\npekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"
                            // A replay makes errors by the million (every ENOENT the loadfile
                            // expects): no
                            // stack walk per error (measured: 2.34-2.44 us of CPU per op against
                            // 2.72-3.04).
                            + "seqvfs.errors.stack-traces = off");

    private final PrintStream out;
    private final int mismatchLimit;
    private final int threads;
    private final AtomicReference<Runnable> stopper = new AtomicReference<>();
    private volatile boolean stopRequested;

    /**
     * @param out where progress and mismatches go
     * @param mismatchLimit how many mismatches to print (the rest are counted)
     * @param threads threads of the clients' dispatcher; 0 = as many as clients, at most the CPUs
     */
    public DbenchRunner(PrintStream out, int mismatchLimit, int threads) {
        this.out = out;
        this.mismatchLimit = mismatchLimit;
        this.threads = threads;
    }

    /**
     * A replay that failed (an exception in a client actor or in the guardian): the message is one
     * line for the user, the cause the exception.
     */
    public static final class ReplayFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ReplayFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Ends the current run (and refuses further ones); safe from any thread. */
    public void stop() {
        stopRequested = true;
        Runnable r = stopper.get();
        if (r != null) {
            r.run();
        }
    }

    /** Returns whether {@link #stop()} was called. */
    public boolean stopRequested() {
        return stopRequested;
    }

    /** Returns the I/O buffer size a client needs for {@code ops}: the largest ReadX/WriteX. */
    static int bufferBytes(List<LoadOp> ops) {
        long max = 65536;
        for (LoadOp op : ops) {
            if (op.type() == OpType.READ_X || op.type() == OpType.WRITE_X) {
                max = Math.max(max, op.arg(2));
            }
        }
        return (int) max;
    }

    /**
     * How long a replay runs.
     *
     * @param warmup run this long first, unmeasured (dbench's default is a fifth of the time)
     * @param time then run this long, measured
     * @param once instead, run the file once per client ({@code time} then only limits the run, and
     *     there is no warm-up)
     */
    public record Schedule(Duration warmup, Duration time, boolean once) {
        /**
         * The shortest default warm-up: the JVM's JIT compiles the replay's paths (the clients',
         * the engine's, the host's {@code java.nio}) during the first seconds. Measured on a shared
         * 2-vCPU machine, 4 clients, Debian's {@code client.txt}, 2 s measured after a warm-up of 1
         * s: 2290-2620 MB/s; 2 s: 3080-3400; 3 s: 3580 and 3600; 4 s: 3430 and 3800, and once 1770
         * (a 2-s window also swings with the machine, see {@link DbenchReport#MIN_SECONDS}); with
         * no warm-up, 1020. dbench's own default, a fifth of the time in whole seconds, is 0 s
         * below 5 s: right for a C binary, not for a JVM.
         */
        public static final Duration MIN_WARMUP = Duration.ofSeconds(4);

        /**
         * Returns the warm-up when none is asked for: a fifth of {@code time}, as dbench, and at
         * least {@link #MIN_WARMUP}; never zero.
         */
        public static Duration defaultWarmup(Duration time) {
            Duration fifth = time.dividedBy(5);
            return fifth.compareTo(MIN_WARMUP) > 0 ? fifth : MIN_WARMUP;
        }

        /** The time the clients are let run at most, in nanoseconds. */
        long totalNanos() {
            return (once ? Duration.ZERO : warmup).plus(time).toNanos();
        }
    }

    /**
     * When measuring started, and the counters then (written once by one thread, read after the
     * run).
     */
    private static final class Mark {
        volatile long nanos;
        volatile long cpu;
        volatile long retries;
        volatile long refWalks;

        void set(long retries, long refWalks) {
            this.cpu = ReplayResult.processCpuNanos();
            this.retries = retries;
            this.refWalks = refWalks;
            this.nanos = System.nanoTime();
        }
    }

    /**
     * Replays {@code ops} on a new SeqVFS (default configuration), {@code clients} client actors,
     * as {@code schedule} says (or until {@link #stop()}).
     *
     * @return the measured figures, or {@code null} if {@link #stop()} came first
     */
    public ReplayResult runSeqVfs(List<LoadOp> ops, int clients, Schedule schedule) {
        if (stopRequested) {
            return null;
        }
        int buf = bufferBytes(ops);
        try (SeqVfs vfs =
                SeqVfs.create(NO_JVM_HOOKS.withFallback(ConfigFactory.defaultApplication()))) {
            List<ReplayGuardian.ClientSpec> specs = new ArrayList<>();
            List<SeqVfsClientFs> fss = new ArrayList<>();
            for (int i = 1; i <= clients; i++) {
                SeqVfsClientFs fs = new SeqVfsClientFs(vfs.newTask(Credentials.ROOT), buf);
                fss.add(fs);
                specs.add(
                        new ReplayGuardian.ClientSpec(
                                i, new DbenchClient<>(fs, i), new ClientStats()));
            }
            MismatchLog log = new MismatchLog(out, mismatchLimit);
            CompletableFuture<List<ReplayGuardian.ClientFinished>> done = new CompletableFuture<>();
            List<ClientStats> stats = specs.stream().map(ReplayGuardian.ClientSpec::stats).toList();
            Mark start = new Mark();
            Mark measured = new Mark();
            start.set(vfs.walkRetries(), vfs.refWalks());
            ActorSystem<ReplayGuardian.Command> system =
                    ActorSystem.create(
                            ReplayGuardian.create(
                                    specs,
                                    ops,
                                    log,
                                    schedule.warmup(),
                                    schedule.time(),
                                    schedule.once(),
                                    () -> measured.set(vfs.walkRetries(), vfs.refWalks()),
                                    done),
                            "dbench",
                            clientSystemConfig(clients));
            // whatever stops the system before every client reported ends the run, not a hang
            system.getWhenTerminated()
                    .thenRun(
                            () ->
                                    done.completeExceptionally(
                                            new IllegalStateException(
                                                    "the clients' actor system stopped before every client finished")));
            stopper.set(() -> system.tell(ReplayGuardian.Stop.INSTANCE));
            if (stopRequested) {
                system.tell(ReplayGuardian.Stop.INSTANCE);
            }
            List<ReplayGuardian.ClientFinished> finished;
            try (Progress p = new Progress(stats, start, measured)) {
                finished = await(done);
            } catch (ReplayFailedException e) {
                system.terminate();
                await(system.getWhenTerminated().toCompletableFuture());
                throw e;
            } finally {
                stopper.set(null);
            }
            Mark from = measured.nanos != 0 ? measured : start;
            long nanos = System.nanoTime() - from.nanos;
            long cpu = from.cpu < 0 ? -1 : ReplayResult.processCpuNanos() - from.cpu;
            long retries = vfs.walkRetries() - from.retries;
            long refWalks = vfs.refWalks() - from.refWalks;
            system.terminate();
            await(system.getWhenTerminated().toCompletableFuture());
            for (SeqVfsClientFs fs : fss) {
                fs.close();
            }
            long loops = finished.stream().mapToLong(ReplayGuardian.ClientFinished::loops).sum();
            return new ReplayResult(
                    "SeqVFS",
                    clients,
                    nanos,
                    sum(stats),
                    loops,
                    retries,
                    refWalks,
                    stopRequested,
                    cpu,
                    warmupNanos(schedule, measured),
                    ops.size());
        }
    }

    private Config clientSystemConfig(int clients) {
        int n =
                threads > 0
                        ? threads
                        : Math.min(clients, Runtime.getRuntime().availableProcessors());
        return ConfigFactory.parseString(
                        String.format(
                                Locale.ROOT,
                                """
                pekko.actor.default-dispatcher.executor = thread-pool-executor
                pekko.actor.default-dispatcher.thread-pool-executor.fixed-pool-size = %d
                pekko.actor.default-dispatcher.throughput = 1""",
                                n))
                .withFallback(NO_JVM_HOOKS)
                .withFallback(ConfigFactory.defaultApplication());
    }

    /**
     * Replays {@code ops} on the host: a fresh directory under {@code hostDir} (removed
     * afterwards), one thread per client, blocking {@code java.nio} calls, as {@code schedule}
     * says.
     *
     * @return the measured figures, or {@code null} if {@link #stop()} came first
     */
    public ReplayResult runHost(List<LoadOp> ops, int clients, Schedule schedule, Path hostDir)
            throws IOException {
        if (stopRequested) {
            return null;
        }
        Path dir = Files.createTempDirectory(hostDir, "seqvfs-dbench-");
        int buf = bufferBytes(ops);
        MismatchLog log = new MismatchLog(out, mismatchLimit);
        List<ClientStats> stats = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        long[] loops = new long[clients];
        Mark start = new Mark();
        Mark measured = new Mark();
        start.set(0, 0);
        long warmupEnd =
                schedule.once() || schedule.warmup().isZero()
                        ? start.nanos
                        : start.nanos + schedule.warmup().toNanos();
        long deadline = start.nanos + schedule.totalNanos();
        if (warmupEnd == start.nanos) {
            measured.set(0, 0);
        }
        stopper.set(() -> {});
        try {
            for (int i = 1; i <= clients; i++) {
                int id = i;
                ClientStats st = new ClientStats();
                stats.add(st);
                HostClientFs fs = new HostClientFs(dir, buf);
                DbenchClient<HostClientFs.Handle> client = new DbenchClient<>(fs, id);
                Thread t =
                        new Thread(
                                () -> {
                                    try (fs) {
                                        loops[id - 1] =
                                                hostLoop(
                                                        id,
                                                        client,
                                                        ops,
                                                        st,
                                                        log,
                                                        warmupEnd,
                                                        deadline,
                                                        schedule.once(),
                                                        measured);
                                    }
                                },
                                "dbench-host-" + id);
                workers.add(t);
            }
            try (Progress p = new Progress(stats, start, measured)) {
                workers.forEach(Thread::start);
                for (Thread t : workers) {
                    t.join();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Mark from = measured.nanos != 0 ? measured : start;
            long nanos = System.nanoTime() - from.nanos;
            long cpu = from.cpu < 0 ? -1 : ReplayResult.processCpuNanos() - from.cpu;
            long total = 0;
            for (long l : loops) {
                total += l;
            }
            return new ReplayResult(
                    "host",
                    clients,
                    nanos,
                    sum(stats),
                    total,
                    0,
                    0,
                    stopRequested,
                    cpu,
                    warmupNanos(schedule, measured),
                    ops.size());
        } finally {
            stopper.set(null);
            deleteTree(dir);
        }
    }

    private long hostLoop(
            int id,
            DbenchClient<?> client,
            List<LoadOp> ops,
            ClientStats st,
            MismatchLog log,
            long warmupEnd,
            long deadline,
            boolean once,
            Mark measured) {
        int next = 0;
        long loops = 0;
        boolean warm = warmupEnd <= System.nanoTime();
        while (!stopRequested && !(once && loops > 0)) {
            long t0 = System.nanoTime();
            if (t0 >= deadline) {
                break;
            }
            if (!warm && t0 >= warmupEnd) {
                warm = true;
                synchronized (measured) {
                    if (measured.nanos == 0) {
                        measured.set(0, 0);
                    }
                }
                st.reset(client.bytes());
            }
            if (next == 0 && loops > 0 && client.openHandles() > 0) {
                client.closeAll().join();
            }
            LoadOp op = ops.get(next);
            if (++next == ops.size()) {
                next = 0;
                loops++;
            }
            boolean mismatch;
            try {
                DbenchClient.Outcome o = client.run(op).join();
                mismatch = !o.matches(op);
                if (mismatch) {
                    log.report(id, op, o);
                }
            } catch (RuntimeException e) {
                mismatch = true;
                log.failure(id, op, e.getCause() != null ? e.getCause() : e);
            }
            st.record(op.type(), System.nanoTime() - t0, mismatch, client.bytes());
        }
        return loops;
    }

    /**
     * Returns the warm-up the clients ran before measuring started, in nanoseconds: the schedule's
     * (the start mark also covers starting the clients' actor system), 0 if measuring never started
     * or the file ran once.
     */
    private static long warmupNanos(Schedule schedule, Mark measured) {
        return measured.nanos == 0 || schedule.once() ? 0 : schedule.warmup().toNanos();
    }

    private static ClientStats sum(List<ClientStats> stats) {
        ClientStats total = new ClientStats();
        for (ClientStats s : stats) {
            total.add(s);
        }
        return total;
    }

    private static <T> T await(CompletableFuture<T> f) {
        while (true) {
            try {
                return f.get();
            } catch (InterruptedException e) {
                // a Ctrl-C arrives as a stop() from the shutdown hook, not as an interrupt: keep
                // waiting
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                String what =
                        c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
                throw new ReplayFailedException(
                        "the replay failed: " + what.lines().findFirst().orElse(""), c);
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Returns the progress line of a tick at {@code now}: {@code clients, phase, seconds, lines,
     * MB/s}, seconds and MB/s counted from the start of the phase. A tick that comes less than half
     * a second after measuring started belongs to the warm-up's last second (the ticks run on the
     * warm-up's clock, so the tick at the end of an N-second warm-up races the switch): it is
     * printed as warm-up second N, never as an execute line at 0 s whose rate would divide the
     * warm-up's bytes by a few milliseconds.
     *
     * @param startNanos when the run started ({@code System.nanoTime()})
     * @param measuredNanos when measuring started, 0 while warming up
     * @param ops lines run since measuring started (since the start while warming up)
     * @param bytes bytes read and written since measuring started (likewise)
     * @param allOps lines run since the start, warm-up included
     * @param allBytes bytes since the start, warm-up included
     */
    static String progressLine(
            int clients,
            long startNanos,
            long measuredNanos,
            long now,
            long ops,
            long bytes,
            long allOps,
            long allBytes) {
        boolean warm = measuredNanos == 0 || now - measuredNanos < 500_000_000L;
        if (warm) {
            ops = allOps;
            bytes = allBytes;
        }
        long from = warm ? startNanos : measuredNanos;
        double secs = (now - from) / 1e9;
        return String.format(
                Locale.ROOT,
                "%4d clients  %s %4.0f s  ops %10d  %9.2f MB/sec",
                clients,
                warm ? " warmup" : "execute",
                secs,
                ops,
                secs <= 0 ? 0 : bytes / secs / 1e6);
    }

    /** Prints {@link #progressLine} once a second, as dbench does, until closed. */
    private final class Progress implements AutoCloseable {
        private final ScheduledExecutorService timer =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "dbench-progress");
                            t.setDaemon(true);
                            return t;
                        });

        Progress(List<ClientStats> stats, Mark start, Mark measured) {
            var unused =
                    timer.scheduleAtFixedRate(
                            () -> { // ended by close()
                                long ops = 0;
                                long bytes = 0;
                                long allOps = 0;
                                long allBytes = 0;
                                for (ClientStats s : stats) {
                                    ops += s.ops();
                                    bytes += s.bytes();
                                    allOps += s.opsWithWarmup();
                                    allBytes += s.bytesWithWarmup();
                                }
                                out.println(
                                        progressLine(
                                                stats.size(),
                                                start.nanos,
                                                measured.nanos,
                                                System.nanoTime(),
                                                ops,
                                                bytes,
                                                allOps,
                                                allBytes));
                            },
                            1,
                            1,
                            TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            timer.shutdownNow();
        }
    }
}
