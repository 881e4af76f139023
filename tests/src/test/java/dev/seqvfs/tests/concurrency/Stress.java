package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The time budget and the thread harness of the concurrency tier.
 *
 * <p>Every time-bounded test runs for {@link #sliceNanos()}: the budget {@code
 * seqvfs.stress.seconds} (system property, default 20, set by the tests module's surefire
 * configuration and raised by the {@code stress} Maven profile) divided among the {@link
 * #TIMED_TESTS} time-bounded tests of this package, but at least two seconds. Nothing is timed by
 * sleeping: workers loop until the deadline passes.
 *
 * <p>{@link #run} starts every worker behind one start gate, lets each loop until the deadline (or
 * until some worker failed), joins them, and fails the test with the first failure. A worker still
 * running long after the deadline is a liveness failure (a wedged actor or a lost reply): the test
 * fails with the stuck threads' stacks.
 */
final class Stress {
    /** How many tests of this package share the budget. */
    static final int TIMED_TESTS = 29;

    /** How long after the deadline a worker may still be finishing its last call. */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(60);

    static {
        System.out.printf(
                "concurrency tier: seqvfs.stress.seconds = %d, %d ms per time-bounded test, %d threads%n",
                budgetSeconds(), TimeUnit.NANOSECONDS.toMillis(sliceNanos()), threads());
    }

    private Stress() {}

    /** Returns the whole budget in seconds ({@code seqvfs.stress.seconds}, default 20). */
    static long budgetSeconds() {
        String s = System.getProperty("seqvfs.stress.seconds", "");
        try {
            return s.isBlank() ? 20 : Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return 20;
        }
    }

    /** Returns how long one time-bounded test runs: {@code max(2 s, budget / TIMED_TESTS)}. */
    static long sliceNanos() {
        long ms = Math.max(2000, budgetSeconds() * 1000 / TIMED_TESTS);
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }

    /** Returns the number of worker threads to use: twice the cores, at least four. */
    static int threads() {
        return Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    }

    /** One worker's loop body; runs until {@link Control#running()} turns false. */
    interface Worker {
        void run(Control c) throws Exception;
    }

    /** What a worker sees of the run: whether to keep going. */
    static final class Control {
        private final long deadline;
        private final AtomicReference<Throwable> failure;

        Control(long deadline, AtomicReference<Throwable> failure) {
            this.deadline = deadline;
            this.failure = failure;
        }

        /** Returns whether the deadline is ahead and no worker has failed. */
        boolean running() {
            return failure.get() == null && System.nanoTime() < deadline;
        }

        /** Returns whether some worker has failed. */
        boolean failed() {
            return failure.get() != null;
        }
    }

    /**
     * Runs {@code workers} concurrently for {@code nanos}, each as {@code w.run(control)} (the
     * worker loops on {@link Control#running()}), and waits for all of them.
     *
     * @throws AssertionError the first failure of any worker, or a liveness failure
     */
    static void run(long nanos, List<Worker> workers) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch gate = new CountDownLatch(1);
        long[] deadline = new long[1];
        List<Thread> threads = new ArrayList<>();
        Control[] control = new Control[1];
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            Thread t =
                    new Thread(
                            () -> {
                                try {
                                    gate.await();
                                    w.run(control[0]);
                                } catch (Throwable e) {
                                    failure.compareAndSet(null, e);
                                }
                            },
                            "stress-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        for (Thread t : threads) {
            t.start();
        }
        deadline[0] = System.nanoTime() + nanos;
        control[0] = new Control(deadline[0], failure);
        gate.countDown();
        long giveUp = deadline[0] + GRACE_NANOS;
        for (Thread t : threads) {
            long left = giveUp - System.nanoTime();
            try {
                if (left > 0) {
                    TimeUnit.NANOSECONDS.timedJoin(t, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while joining " + t.getName());
            }
        }
        List<Thread> stuck = new ArrayList<>();
        for (Thread t : threads) {
            if (t.isAlive()) {
                stuck.add(t);
            }
        }
        Throwable f = failure.get();
        if (!stuck.isEmpty()) {
            StringBuilder sb =
                    new StringBuilder(
                            "workers still running 60 s after the deadline (liveness failure):\n");
            for (Thread t : stuck) {
                ThreadInfo info =
                        ManagementFactory.getThreadMXBean()
                                .getThreadInfo(new long[] {t.getId()}, true, true)[0];
                sb.append(info == null ? t.getName() : info.toString());
            }
            fail(sb.toString(), f);
        }
        if (f instanceof AssertionError a) {
            throw a;
        }
        if (f != null) {
            throw new AssertionError("worker failed: " + f, f);
        }
    }
}
