package dev.seqvfs.engine.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Specifies {@link CallingThreadExecutor} as Pekko runs it (through {@link
 * CallingThreadExecutorConfigurator}) and on its own.
 */
class CallingThreadExecutorTest {

    /** Dispatchers under test; self-contained so the test does not depend on reference.conf. */
    private static final Config CONFIG =
            ConfigFactory.parseString(
                            """
            pekko.loglevel = WARNING
            test-inline {
              type = Dispatcher
              executor = "dev.seqvfs.engine.dispatch.CallingThreadExecutorConfigurator"
              throughput = 16
              calling-thread-executor { inline = on, max-trampolined = 64 }
              fork-join-executor { parallelism-min = 2, parallelism-max = 4 }
            }
            # every hop of a long chain stays on the caller
            test-deep = ${test-inline} { calling-thread-executor.max-trampolined = 1000000 }
            # the bound is hit at once; a mailbox re-schedules itself after every message
            test-bounded = ${test-inline} { throughput = 1, calling-thread-executor.max-trampolined = 2 }
            test-off = ${test-inline} { calling-thread-executor.inline = off }
            """)
                    .resolve();

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static ActorTestKit testKit;

    @BeforeAll
    static void startSystem() {
        testKit = ActorTestKit.create("CallingThreadExecutorTest", CONFIG);
    }

    @AfterAll
    static void stopSystem() {
        testKit.shutdownTestKit();
    }

    // ---- actors used by the tests ----

    sealed interface Cmd {}

    /** Replies with the thread the handler ran on and its stack depth. */
    record WhoRuns(ActorRef<Where> replyTo) implements Cmd {}

    record Where(Thread thread, int stackDepth) {}

    record Increment(AtomicInteger inHandler, AtomicBoolean overlapped) implements Cmd {}

    record GetCount(ActorRef<Integer> replyTo) implements Cmd {}

    /** Tells {@code next}; the last actor completes {@code done}. */
    record Hop(CompletableFuture<Where> done) implements Cmd {}

    /** Tells each target one {@link Ping}. */
    record FanOut(List<ActorRef<Cmd>> targets, CountDownLatch processed, Set<Thread> threads)
            implements Cmd {}

    record Ping(CountDownLatch processed, Set<Thread> threads) implements Cmd {}

    /** Tells {@code target} {@code n} increments from inside a handler. */
    record Burst(ActorRef<Cmd> target, int n) implements Cmd {}

    private static Where here() {
        return new Where(Thread.currentThread(), Thread.currentThread().getStackTrace().length);
    }

    /** Counts increments; flags any moment two threads are inside the handler at once. */
    private static Behavior<Cmd> counter() {
        int[] count = {0}; // confined to the actor: a plain field, as an actor's state is
        return Behaviors.receive(Cmd.class)
                .onMessage(
                        Increment.class,
                        m -> {
                            if (m.inHandler() != null && m.inHandler().incrementAndGet() != 1) {
                                m.overlapped().set(true);
                            }
                            int before = count[0];
                            Thread.onSpinWait(); // widen the window a lost update or an overlap
                            // would need
                            count[0] = before + 1;
                            if (m.inHandler() != null) {
                                m.inHandler().decrementAndGet();
                            }
                            return Behaviors.same();
                        })
                .onMessage(
                        GetCount.class,
                        m -> {
                            m.replyTo().tell(count[0]);
                            return Behaviors.same();
                        })
                .onMessage(
                        WhoRuns.class,
                        m -> {
                            m.replyTo().tell(here());
                            return Behaviors.same();
                        })
                .onMessage(
                        Ping.class,
                        m -> {
                            m.threads().add(Thread.currentThread());
                            m.processed().countDown();
                            return Behaviors.same();
                        })
                .onMessage(
                        FanOut.class,
                        m -> {
                            for (ActorRef<Cmd> target : m.targets()) {
                                target.tell(new Ping(m.processed(), m.threads()));
                            }
                            return Behaviors.same();
                        })
                .onMessage(
                        Burst.class,
                        m -> {
                            for (int i = 0; i < m.n(); i++) {
                                m.target().tell(new Increment(null, null));
                            }
                            return Behaviors.same();
                        })
                .build();
    }

    private static Behavior<Cmd> relay(ActorRef<Cmd> next) {
        return Behaviors.receive(Cmd.class)
                .onMessage(
                        Hop.class,
                        m -> {
                            if (next == null) {
                                m.done().complete(here());
                            } else {
                                next.tell(m);
                            }
                            return Behaviors.same();
                        })
                .build();
    }

    private static ActorRef<Cmd> spawnOn(String dispatcher, Behavior<Cmd> behavior) {
        return testKit.spawn(behavior, DispatcherSelector.fromConfig(dispatcher));
    }

    private static <R> CompletableFuture<R> ask(
            ActorRef<Cmd> target,
            org.apache.pekko.japi.function.Function<ActorRef<R>, Cmd> message) {
        return AskPattern.ask(target, message, TIMEOUT, testKit.scheduler()).toCompletableFuture();
    }

    // ---- (i) inline execution on the asking thread ----

    @Test
    void ask_fromPlainThreadToIdleActor_runsHandlerOnCallerAndIsDoneWhenAskReturns() {
        ActorRef<Cmd> actor = spawnOn("test-inline", counter());
        ask(actor, WhoRuns::new)
                .join(); // the actor has processed its start-up; its mailbox is idle

        for (int i = 0; i < 100; i++) {
            CompletableFuture<Where> reply = ask(actor, WhoRuns::new);

            assertTrue(reply.isDone(), "reply must be complete when ask returns (ask " + i + ")");
            assertSame(
                    Thread.currentThread(),
                    reply.join().thread(),
                    "handler must run on the asking thread");
        }
    }

    @Test
    void ask_withInlineOff_runsHandlerOnPoolThread() {
        ActorRef<Cmd> actor = spawnOn("test-off", counter());

        Where where = ask(actor, WhoRuns::new).join();

        assertNotSame(Thread.currentThread(), where.thread());
        assertTrue(where.thread().getName().contains("test-off"), where.thread().getName());
    }

    // ---- (ii) nested tells are trampolined ----

    @Test
    void tell_chainOfTenThousandActors_isTrampolinedOnCallerNotRecursive() {
        int depth = 10_000;
        ActorRef<Cmd> head = spawnOn("test-deep", relay(null));
        for (int i = 1; i < depth; i++) {
            head = spawnOn("test-deep", relay(head)); // returns once the actor has started: idle
        }
        CompletableFuture<Where> done = new CompletableFuture<>();
        int callerDepth = Thread.currentThread().getStackTrace().length;

        head.tell(new Hop(done));

        assertTrue(done.isDone(), "the whole chain must have run before tell returned");
        Where last = done.join();
        assertSame(Thread.currentThread(), last.thread());
        assertTrue(
                last.stackDepth() - callerDepth < 200,
                "last hop ran "
                        + (last.stackDepth() - callerDepth)
                        + " frames above the caller: recursion");
    }

    // ---- (iii) combining keeps the actor single-threaded ----

    @Test
    void increments_fromEightThreads_countIsExactAndHandlerNeverOverlaps() throws Exception {
        int threads = 8;
        int perThread = 20_000;
        ActorRef<Cmd> actor = spawnOn("test-inline", counter());
        AtomicInteger inHandler = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        CyclicBarrier start = new CyclicBarrier(threads);
        List<CompletableFuture<Void>> senders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            senders.add(
                    CompletableFuture.runAsync(
                            () -> {
                                await(start);
                                for (int i = 1; i <= perThread; i++) {
                                    actor.tell(new Increment(inHandler, overlapped));
                                    if (i % 1000 == 0) {
                                        ask(actor, GetCount::new)
                                                .join(); // mix blocking asks into the traffic
                                    }
                                }
                            },
                            runEachOnNewThread()));
        }
        CompletableFuture.allOf(senders.toArray(CompletableFuture[]::new))
                .get(60, TimeUnit.SECONDS);

        int count = count(actor);

        assertEquals(threads * perThread, count);
        assertFalse(overlapped.get(), "two threads ran the actor's handler at the same time");
    }

    // ---- (iv) hand-off past the trampoline bound ----

    @Test
    void fanOut_pastTrampolineBound_handsRestToPoolAndEveryPingIsProcessed() throws Exception {
        int leaves = 100;
        List<ActorRef<Cmd>> targets = new ArrayList<>();
        for (int i = 0; i < leaves; i++) {
            targets.add(spawnOn("test-bounded", counter()));
        }
        ActorRef<Cmd> fanOut = spawnOn("test-bounded", counter());
        ask(fanOut, WhoRuns::new).join();
        CountDownLatch processed = new CountDownLatch(leaves);
        Set<Thread> threads = ConcurrentHashMap.newKeySet();

        fanOut.tell(new FanOut(targets, processed, threads));

        assertTrue(
                processed.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS),
                processed.getCount() + " pings never processed");
        assertTrue(threads.contains(Thread.currentThread()), "the first 2 pings run on the caller");
        assertTrue(
                threads.stream().anyMatch(t -> t.getName().contains("test-bounded")),
                "pings past the bound run on the backing pool: " + threads);
    }

    @Test
    void burst_mailboxReschedulingPastBound_processesEveryMessage() {
        int n = 10_000;
        ActorRef<Cmd> target = spawnOn("test-bounded", counter());
        ActorRef<Cmd> sender = spawnOn("test-bounded", counter());
        ask(target, WhoRuns::new).join();

        sender.tell(new Burst(target, n));

        assertEquals(n, count(target));
    }

    // ---- the executor on its own ----

    @Test
    void execute_nestedTask_runsAfterCurrentTaskNotInsideIt() {
        ExecutorService pool = new ForkJoinPool(1);
        CallingThreadExecutor executor = new CallingThreadExecutor(pool, 64);
        List<String> order = new ArrayList<>();

        executor.execute(
                () -> {
                    order.add("outer-start");
                    executor.execute(() -> order.add("nested"));
                    order.add("outer-end");
                });

        assertEquals(List.of("outer-start", "outer-end", "nested"), order);
        executor.shutdown();
    }

    @Test
    void execute_afterShutdown_throwsRejectedExecutionException() {
        CallingThreadExecutor executor = new CallingThreadExecutor(new ForkJoinPool(1), 64);

        executor.shutdown();

        assertTrue(executor.isShutdown());
        assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
    }

    @Test
    void execute_taskThrows_queuedTasksStillRunThenErrorIsRethrown() {
        CallingThreadExecutor executor = new CallingThreadExecutor(new ForkJoinPool(1), 64);
        AtomicBoolean queuedRan = new AtomicBoolean();

        AssertionError thrown =
                assertThrows(
                        AssertionError.class,
                        () ->
                                executor.execute(
                                        () -> {
                                            executor.execute(() -> queuedRan.set(true));
                                            throw new AssertionError("fatal");
                                        }));

        assertEquals("fatal", thrown.getMessage());
        assertTrue(queuedRan.get(), "a queued task was dropped: its mailbox would stay scheduled");
        executor.shutdown();
    }

    @Test
    void execute_taskThrowsInterruptedException_restoresInterruptStatus() {
        CallingThreadExecutor executor = new CallingThreadExecutor(new ForkJoinPool(1), 64);

        executor.execute(() -> sneakyThrow(new InterruptedException("as Mailbox.run does")));

        assertTrue(Thread.interrupted(), "interrupt status must be restored (and is cleared here)");
        executor.shutdown();
    }

    @Test
    void runQueuedTask_insideATask_runsTheTaskQueuedBehindItThere() {
        CallingThreadExecutor executor = new CallingThreadExecutor(new ForkJoinPool(1), 64);
        List<String> order = new ArrayList<>();

        executor.execute(
                () -> {
                    executor.execute(() -> order.add("queued"));
                    // a waiter inside a task (a blocking call from a dependent stage) helps first
                    assertTrue(CallingThreadExecutor.runQueuedTask());
                    order.add("after-help");
                    assertFalse(CallingThreadExecutor.runQueuedTask(), "nothing left");
                });

        assertEquals(List.of("queued", "after-help"), order);
        executor.shutdown();
    }

    @Test
    void runQueuedTask_nestedDrainsOfTwoExecutors_reachesTheOuterQueue() {
        CallingThreadExecutor outer = new CallingThreadExecutor(new ForkJoinPool(1), 64);
        CallingThreadExecutor inner = new CallingThreadExecutor(new ForkJoinPool(1), 64);
        AtomicBoolean ran = new AtomicBoolean();

        outer.execute(
                () ->
                        inner.execute(
                                () -> {
                                    outer.execute(
                                            () -> ran.set(true)); // queued on the outer drain,
                                    // behind this
                                    assertTrue(CallingThreadExecutor.runQueuedTask());
                                    assertTrue(ran.get());
                                }));

        assertTrue(ran.get());
        outer.shutdown();
        inner.shutdown();
    }

    @Test
    void runQueuedTask_outsideAnyTask_runsNothing() {
        assertFalse(CallingThreadExecutor.runQueuedTask());
    }

    @Test
    void runQueuedTask_helpedTaskThrows_failureIsRethrownAtTheEndOfTheDrain() {
        CallingThreadExecutor executor = new CallingThreadExecutor(new ForkJoinPool(1), 64);
        AtomicBoolean rest = new AtomicBoolean();

        AssertionError thrown =
                assertThrows(
                        AssertionError.class,
                        () ->
                                executor.execute(
                                        () -> {
                                            executor.execute(
                                                    () -> {
                                                        throw new AssertionError("helped");
                                                    });
                                            assertTrue(CallingThreadExecutor.runQueuedTask());
                                            rest.set(
                                                    true); // the helper goes on; the drain rethrows
                                            // when it ends
                                        }));

        assertEquals("helped", thrown.getMessage());
        assertTrue(rest.get());
        executor.shutdown();
    }

    @Test
    void shippedConfig_namesThisConfiguratorAtSeqvfsDispatcher() {
        Config shipped = ConfigFactory.parseResources("seqvfs-dispatcher.conf");

        assertEquals(
                CallingThreadExecutorConfigurator.class.getName(),
                shipped.getString("seqvfs.dispatcher.executor"));
        assertEquals("Dispatcher", shipped.getString("seqvfs.dispatcher.type"));
    }

    // ---- helpers ----

    private static int count(ActorRef<Cmd> actor) {
        return CallingThreadExecutorTest.<Integer>ask(actor, GetCount::new).join();
    }

    private static java.util.concurrent.Executor runEachOnNewThread() {
        return task -> new Thread(task, "plain-sender").start();
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable e) throws E {
        throw (E) e;
    }
}
