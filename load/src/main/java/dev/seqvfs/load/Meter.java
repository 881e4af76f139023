package dev.seqvfs.load;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Measures one run (one target at one client count): per-op latency in an HdrHistogram, ops per
 * second over time, and the stop signal the clients poll.
 *
 * <p><b>Sampling.</b> Clients count every op, and time one op in {@code sampleEvery} (a power of
 * two): two {@code System.nanoTime()} calls and a histogram record cost about 60 ns, which would be
 * a sixth of a SeqVFS {@code stat}; the latency percentiles are those of the sampled ops (every
 * {@code sampleEvery}-th op of each client, a systematic sample).
 *
 * <p><b>Concurrency.</b> Each client owns one {@link Probe} and is its only writer: an HdrHistogram
 * {@link SingleWriterRecorder} (wait-free for the writer) for latencies, and its op count,
 * published with a release store every {@link Probe#PUBLISH_EVERY} ops and at the end, in a slot of
 * a shared array spaced a cache line (and more) from the others. The reporter thread ({@link
 * Session}'s ticker, or a shutdown hook) drains the probes under this object's monitor; clients
 * never take it. {@link #requestStop()} is a volatile write that clients read before each op.
 *
 * <p><b>States.</b> new, {@link #start() started}, {@link #finish() finished}; the counts of a
 * finished meter no longer change.
 */
public final class Meter {
    private final String target;
    private final String variant;
    private final int clients;
    private final int sampleEvery;
    private final SingleWriterRecorder[] recorders;

    /** Client i's published op count is at index {@code i * STRIDE}. */
    private final AtomicLongArray counts;

    private final Histogram[] recycled;
    private final Histogram total = new Histogram(3);
    private final List<double[]> perSecond = new ArrayList<>();
    private final List<double[]> fine = new ArrayList<>();
    private volatile boolean stop;
    private volatile boolean interrupted;
    private boolean warmUp;
    private volatile long startNanos;
    private long lastTickNanos;
    private long lastTickOps;
    private long lastFineNanos;
    private long lastFineOps;
    private RunResult finished;
    private static final int STRIDE = 16;

    /** The interval of the {@link RunResult#fine} series, in nanoseconds: 0.1 s. */
    public static final long FINE_NANOS = 100_000_000L;

    /**
     * How much of a run the {@link RunResult#fine} series covers, in nanoseconds: 30 s, 300 points
     * (a chart of a longer run uses the per-second series).
     */
    public static final long FINE_LIMIT_NANOS = 30_000_000_000L;

    /**
     * Creates a meter for {@code clients} clients of {@code target} ({@code seqvfs}, {@code
     * seqvfs-old}, {@code host}), in a workload {@code variant} ({@code ""} if none), timing every
     * op.
     */
    public Meter(String target, String variant, int clients) {
        this(target, variant, clients, 1);
    }

    /**
     * Creates a meter that times one op in {@code sampleEvery} of each client.
     *
     * @param sampleEvery a power of two
     */
    public Meter(String target, String variant, int clients, int sampleEvery) {
        if (sampleEvery < 1 || Integer.bitCount(sampleEvery) != 1) {
            throw new IllegalArgumentException(
                    "sampleEvery must be a power of two: " + sampleEvery);
        }
        this.target = target;
        this.variant = variant;
        this.clients = clients;
        this.sampleEvery = sampleEvery;
        this.counts = new AtomicLongArray((clients + 1) * STRIDE);
        this.recorders = new SingleWriterRecorder[clients];
        this.recycled = new Histogram[clients];
        for (int i = 0; i < clients; i++) {
            recorders[i] = new SingleWriterRecorder(3);
        }
    }

    /** Returns the target's name. */
    public String target() {
        return target;
    }

    /** Returns the variant ({@code ""} if none). */
    public String variant() {
        return variant;
    }

    /** Returns the number of clients. */
    public int clients() {
        return clients;
    }

    /** Returns one op in how many each client times. */
    public int sampleEvery() {
        return sampleEvery;
    }

    /** Returns client {@code i}'s probe; only that client may record through it. */
    public Probe probe(int i) {
        return new Probe(recorders[i], this, (i + 1) * STRIDE);
    }

    /** Starts the clock; call when every client is ready. */
    public synchronized void start() {
        startNanos = System.nanoTime();
        lastTickNanos = startNanos;
        lastFineNanos = startNanos;
    }

    /** Returns whether the run was started. */
    public boolean started() {
        return startNanos != 0;
    }

    /** Returns the nanoTime the run started at (0 before {@link #start}). */
    public long startNanos() {
        return startNanos;
    }

    /** Asks every client to stop before its next op (a deadline, Ctrl-C, a failed client). */
    public void requestStop() {
        stop = true;
    }

    /** Stops the clients and marks the run's result as interrupted (Ctrl-C). */
    public void interrupt() {
        interrupted = true;
        stop = true;
    }

    /** Marks this meter as a warm-up's, whose results are not reported. */
    synchronized void markWarmUp() {
        warmUp = true;
    }

    /** Returns whether this meter's results go into the report (not a warm-up's). */
    synchronized boolean recorded() {
        return !warmUp;
    }

    /** Returns whether clients should stop; a volatile read. */
    public boolean stopRequested() {
        return stop;
    }

    /**
     * Drains the probes and appends the ops per second since the last tick to the series; returns
     * that rate. Called by the reporter once a second.
     */
    public synchronized double tick() {
        long now = System.nanoTime();
        drain();
        double rate = appendRate(now);
        return rate;
    }

    /**
     * Appends the ops per second since the last sample to the {@link RunResult#fine} series, if the
     * run is still within {@link #FINE_LIMIT_NANOS}. Called by the reporter every {@link
     * #FINE_NANOS}; reads the published counts only (no histogram drain).
     */
    public synchronized void sample() {
        appendFine(System.nanoTime());
    }

    private void appendFine(long now) {
        if (startNanos == 0 || now - startNanos > FINE_LIMIT_NANOS + FINE_NANOS / 2) {
            return;
        }
        long ops = ops();
        long nanos = now - lastFineNanos;
        if (nanos > FINE_NANOS / 2 || fine.isEmpty()) {
            fine.add(
                    new double[] {
                        (now - startNanos) / 1e9,
                        nanos > 0 ? (ops - lastFineOps) / (nanos / 1e9) : 0
                    });
            lastFineNanos = now;
            lastFineOps = ops;
        }
    }

    private long ops() {
        long sum = 0;
        for (int i = 0; i < clients; i++) {
            sum += counts.get((i + 1) * STRIDE);
        }
        return sum;
    }

    private double appendRate(long now) {
        long ops = ops();
        double secs = (now - lastTickNanos) / 1e9;
        double rate = secs > 0 ? (ops - lastTickOps) / secs : 0;
        if (secs > 0.05 || perSecond.isEmpty()) {
            perSecond.add(new double[] {(now - startNanos) / 1e9, rate});
            lastTickNanos = now;
            lastTickOps = ops;
        }
        return rate;
    }

    private void drain() {
        for (int i = 0; i < recorders.length; i++) {
            recycled[i] = recorders[i].getIntervalHistogram(recycled[i]);
            total.add(recycled[i]);
        }
    }

    /** Returns the ops the clients have published so far. */
    public long opsSoFar() {
        return ops();
    }

    /** Returns the 99th percentile so far, in nanoseconds (as of the last drain). */
    public synchronized long p99SoFar() {
        return total.getValueAtPercentile(99);
    }

    /**
     * Ends the run once every client has returned: drains the probes and returns the result.
     * Idempotent.
     */
    public synchronized RunResult finish() {
        if (finished == null) {
            finished = result(System.nanoTime(), interrupted);
        }
        return finished;
    }

    /**
     * Returns what was measured so far of a run that is still going (Ctrl-C): its clients may still
     * be recording.
     */
    public synchronized RunResult partial() {
        if (finished != null) {
            return finished;
        }
        return result(System.nanoTime(), true);
    }

    private RunResult result(long now, boolean interrupted) {
        if (startNanos == 0) {
            return new RunResult(
                    target,
                    variant,
                    clients,
                    0,
                    0,
                    new Histogram(3),
                    List.of(),
                    List.of(),
                    interrupted);
        }
        drain();
        appendRate(now);
        appendFine(now);
        return new RunResult(
                target,
                variant,
                clients,
                ops(),
                now - startNanos,
                total.copy(),
                List.copyOf(perSecond),
                List.copyOf(fine),
                interrupted);
    }

    /**
     * A client's recorder: {@link #record} a sampled op's latency, {@link #publish} the client's op
     * count. Single writer.
     */
    public static final class Probe {
        /** Ops between two publications of a client's count (a power of two). */
        public static final int PUBLISH_EVERY = 256;

        private final SingleWriterRecorder recorder;
        private final Meter meter;
        private final int slot;
        private final int sampleMask;

        Probe(SingleWriterRecorder recorder, Meter meter, int slot) {
            this.recorder = recorder;
            this.meter = meter;
            this.slot = slot;
            this.sampleMask = meter.sampleEvery - 1;
        }

        /** Returns whether the client's op number {@code k} (from 0) is one to time. */
        public boolean sampled(long k) {
            return (k & sampleMask) == 0;
        }

        /** Records one op that took {@code nanos} nanoseconds. */
        public void record(long nanos) {
            recorder.recordValue(Math.max(0, nanos));
        }

        /** Publishes the client's total op count (release store). */
        public void publish(long ops) {
            meter.counts.lazySet(slot, ops);
        }

        /** Returns whether the client should stop. */
        public boolean stopRequested() {
            return meter.stop;
        }
    }
}
