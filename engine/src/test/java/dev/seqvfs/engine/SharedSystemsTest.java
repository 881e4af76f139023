package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Instances of one JVM share an actor system when their configurations agree outside {@code seqvfs}
 * ({@code seqvfs.dispatcher} included), each with actors of its own: a newcomer's test suite paid
 * 40-94 ms per {@code SeqVfs.create()} for a fresh actor system. Closing an instance stops its
 * actors only; the last close lets the system go after {@code seqvfs.actor-system.linger}. {@link
 * SeqVfs#create(ActorSystem, Config)} runs an instance in an embedder's system.
 *
 * <p>Each test names its own {@code seqvfs-test.case}, a key outside {@code seqvfs}, so its
 * instances share a system with each other and with no other test's.
 */
@Timeout(60)
class SharedSystemsTest {
    private static Config only(String testCase, String more) {
        return ConfigFactory.parseString("seqvfs-test.case = " + testCase + "\n" + more);
    }

    private static Config only(String testCase) {
        return only(testCase, "");
    }

    private static void assertEio(Runnable call) {
        VfsException e = assertThrows(VfsException.class, call::run);
        assertEquals(Errno.EIO, e.errno());
    }

    /** mkdir, a file written through a descriptor and closed, a pipe, a new task, a tmpfs mount. */
    private static void exercise(SeqVfs vfs, String dir) {
        VfsTask t = vfs.newTask(Credentials.ROOT);
        t.mkdir(dir, 0755);
        int fd = t.open(dir + "/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
        assertEquals(3, t.write(fd, new byte[] {1, 2, 3}));
        t.close(fd);
        int[] p = t.pipe();
        t.write(p[1], new byte[] {7});
        assertEquals(1, t.read(p[0], new byte[1], 0, 1));
        t.close(p[0]);
        t.close(p[1]);
        t.mkdir(dir + "/m", 0755);
        t.mount("tmpfs", dir + "/m", "tmpfs", 0, null);
        t.mknod(dir + "/m/x", Mode.S_IFREG | 0644, 0);
        assertEquals(3, t.stat(dir + "/f").size());
        t.close();
    }

    @Test
    void twoInstances_sameConfiguration_shareOneActorSystem() {
        try (SeqVfs a = SeqVfs.create(only("same"));
                SeqVfs b = SeqVfs.create(only("same"))) {
            assertSame(a.system(), b.system());
            exercise(a, "/a");
            exercise(b, "/b");
        }
    }

    @Test
    void defaultCreate_twice_sharesOneActorSystem() {
        try (SeqVfs a = SeqVfs.create();
                SeqVfs b = SeqVfs.create()) {
            assertSame(a.system(), b.system());
        }
    }

    @Test
    void instances_differentPekkoSettings_getSystemsOfTheirOwn() {
        try (SeqVfs a = SeqVfs.create(only("pekko"));
                SeqVfs b =
                        SeqVfs.create(
                                only("pekko", "pekko.actor.default-dispatcher.throughput = 3"))) {
            assertNotSame(a.system(), b.system());
            assertEquals(
                    3,
                    b.system()
                            .settings()
                            .config()
                            .getInt("pekko.actor.default-dispatcher.throughput"));
            exercise(a, "/a");
            exercise(b, "/b");
        }
    }

    @Test
    void instances_differentDispatcherSettings_getSystemsOfTheirOwn() {
        try (SeqVfs a = SeqVfs.create(only("dispatcher"));
                SeqVfs b = SeqVfs.create(only("dispatcher", "seqvfs.dispatcher.throughput = 5"))) {
            assertNotSame(a.system(), b.system());
            assertEquals(5, b.system().settings().config().getInt("seqvfs.dispatcher.throughput"));
        }
    }

    @Test
    void instances_differentEngineSettings_shareTheSystemAndKeepTheirOwnSettings() {
        try (SeqVfs a = SeqVfs.create(only("limits"));
                SeqVfs b =
                        SeqVfs.create(
                                only(
                                        "limits",
                                        "seqvfs.tmpfs.max-inodes = 3\nseqvfs.proc.mount = off"))) {
            assertSame(a.system(), b.system());
            VfsTask ta = a.newTask(Credentials.ROOT);
            VfsTask tb = b.newTask(Credentials.ROOT);
            tb.mkdir("/1", 0755);
            tb.mkdir("/2", 0755);
            VfsException e = assertThrows(VfsException.class, () -> tb.mkdir("/3", 0755));
            assertEquals(Errno.ENOSPC, e.errno());
            for (int i = 0; i < 10; i++) {
                ta.mkdir("/" + i, 0755); // a's tmpfs has no limit
            }
            ta.stat("/proc"); // a mounts procfs, b does not
            assertEquals(
                    Errno.ENOENT, assertThrows(VfsException.class, () -> tb.stat("/proc")).errno());
        }
    }

    @Test
    void instancesOfOneSystem_neverSeeEachOthersState() {
        try (SeqVfs a = SeqVfs.create(only("isolation"));
                SeqVfs b = SeqVfs.create(only("isolation"))) {
            assertSame(a.system(), b.system());
            VfsTask ta = a.newTask(Credentials.ROOT);
            VfsTask tb = b.newTask(Credentials.ROOT);
            ta.mkdir("/only-in-a", 0755);
            assertEquals(
                    Errno.ENOENT,
                    assertThrows(VfsException.class, () -> tb.stat("/only-in-a")).errno());
            // each instance numbers its own tasks and shows only them in its /proc
            assertEquals(ta.pid(), tb.pid());
            VfsTask extra = a.newTask(Credentials.ROOT);
            ta.stat("/proc/" + extra.pid());
            assertEquals(
                    Errno.ENOENT,
                    assertThrows(VfsException.class, () -> tb.stat("/proc/" + extra.pid()))
                            .errno());
            // descriptors are per task table
            int fa = ta.open("/only-in-a/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            assertEquals(Errno.EBADF, assertThrows(VfsException.class, () -> tb.close(fa)).errno());
        }
    }

    @Test
    void close_stopsOnlyThatInstancesActors() {
        SeqVfs a = SeqVfs.create(only("close"));
        SeqVfs b = SeqVfs.create(only("close"));
        assertSame(a.system(), b.system());
        VfsTask ta = a.newTask(Credentials.ROOT);
        ta.mkdir("/d", 0755);
        a.close();
        assertEio(() -> ta.mkdir("/e", 0755));
        assertEio(() -> a.newTask(Credentials.ROOT));
        assertFalse(b.system().getWhenTerminated().toCompletableFuture().isDone());
        exercise(b, "/b"); // every kind of actor of b still answers
        b.close();
    }

    @Test
    void lastClose_systemOutlivesItByTheLinger_andTheNextInstanceReusesIt() {
        Config c = only("reuse", "seqvfs.actor-system.linger = 30s");
        SeqVfs a = SeqVfs.create(c);
        ActorSystem<?> system = a.system();
        a.close();
        try (SeqVfs b = SeqVfs.create(c)) {
            assertSame(system, b.system());
            exercise(b, "/b");
        }
    }

    @Test
    void lastClose_lingerZero_terminatesTheSystem() throws Exception {
        SeqVfs a = SeqVfs.create(only("linger-zero", "seqvfs.actor-system.linger = 0s"));
        ActorSystem<?> system = a.system();
        a.close();
        system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        try (SeqVfs b = SeqVfs.create(only("linger-zero", "seqvfs.actor-system.linger = 0s"))) {
            assertNotSame(system, b.system()); // a fresh one
            exercise(b, "/b");
        }
    }

    @Test
    void lastClose_terminatesTheSystemAfterTheLinger() throws Exception {
        SeqVfs a = SeqVfs.create(only("linger", "seqvfs.actor-system.linger = 1s"));
        ActorSystem<?> system = a.system();
        a.close();
        system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    void closeOfOneInstance_whileAnotherHoldsTheSystem_doesNotTerminateIt() throws Exception {
        Config c = only("held", "seqvfs.actor-system.linger = 0s");
        SeqVfs a = SeqVfs.create(c);
        SeqVfs b = SeqVfs.create(c);
        a.close();
        a.close(); // idempotent: releases once
        assertFalse(b.system().getWhenTerminated().toCompletableFuture().isDone());
        exercise(b, "/b");
        b.close();
        b.system().getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    void systemTerminatedByItsUser_nextCreateStartsAFreshOne() throws Exception {
        SeqVfs a = SeqVfs.create(only("terminated"));
        ActorSystem<?> system = a.system();
        a.close();
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        try (SeqVfs b = SeqVfs.create(only("terminated"))) {
            assertNotSame(system, b.system());
            exercise(b, "/b");
        }
    }

    @Test
    void concurrentCreates_fourThreads_allShareOneSystemAndWork() throws Exception {
        Config c = only("concurrent");
        List<CompletableFuture<ActorSystem<?>>> done = new ArrayList<>();
        AtomicInteger n = new AtomicInteger();
        for (int i = 0; i < 4; i++) {
            done.add(
                    CompletableFuture.supplyAsync(
                            () -> {
                                ActorSystem<?> seen = null;
                                for (int k = 0; k < 20; k++) {
                                    try (SeqVfs v = SeqVfs.create(c)) {
                                        exercise(v, "/d" + n.incrementAndGet());
                                        seen = v.system();
                                    }
                                }
                                return seen;
                            },
                            r -> new Thread(r).start()));
        }
        try (SeqVfs held = SeqVfs.create(c)) {
            for (CompletableFuture<ActorSystem<?>> f : done) {
                assertSame(held.system(), f.get(50, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void blockingCallOnAnotherInstance_fromADependentStageRunInsideAnActor_completes()
            throws Exception {
        // A dependent stage of a's reply runs where a's actor runs: here inside that actor's
        // handler, on a thread flooding it. Its blocking call to b (same system, so the same
        // calling-thread executor) is queued behind that handler on the same thread and used
        // to wait for the ask timeout (EIO).
        Config c = only("cross", "seqvfs.ask-timeout = 3s");
        try (SeqVfs a = SeqVfs.create(c);
                SeqVfs b = SeqVfs.create(c)) {
            assertSame(a.system(), b.system());
            VfsTask ta = a.newTask(Credentials.ROOT);
            VfsTask tb = b.newTask(Credentials.ROOT);
            ta.mkdir("/busy", 0755);
            tb.mkdir("/warm", 0755);
            java.util.concurrent.atomic.AtomicBoolean stop =
                    new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicLong floodRounds =
                    new java.util.concurrent.atomic.AtomicLong();
            Thread flood =
                    new Thread(
                            () -> {
                                VfsTask t = a.newTask(Credentials.ROOT);
                                for (int i = 0; !stop.get(); i++) {
                                    t.mkdir("/busy/f" + i, 0755);
                                    t.rmdir("/busy/f" + i);
                                    floodRounds.incrementAndGet();
                                }
                            },
                            "flood");
            flood.start();
            try {
                // the flood must be running before the probes start (on a busy machine its thread
                // may not run for a while), and the probes go on until enough ran inside it
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (floodRounds.get() < 100 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                int insideAnActor = 0;
                for (int i = 0;
                        (i < 2000 || System.nanoTime() < deadline) && insideAnActor < 20;
                        i++) {
                    int k = i;
                    long[] took = new long[1];
                    Thread[] ranOn = new Thread[1];
                    ta.async()
                            .mkdir("/busy/g" + i, 0755)
                            .thenRun(
                                    () -> {
                                        ranOn[0] = Thread.currentThread();
                                        long t0 = System.nanoTime();
                                        tb.mkdir("/y" + k, 0755);
                                        took[0] = System.nanoTime() - t0;
                                    })
                            .get(10, TimeUnit.SECONDS);
                    if (ranOn[0] == flood) {
                        insideAnActor++;
                        assertTrue(
                                took[0] < TimeUnit.SECONDS.toNanos(2),
                                "the blocking call waited " + took[0] / 1_000_000 + " ms");
                    }
                }
                assertTrue(
                        insideAnActor > 0,
                        "no dependent stage ran inside the flooded actor: nothing was tested");
            } finally {
                stop.set(true);
                flood.join();
            }
        }
    }

    @Test
    void createOnEmbedderSystem_runsThere_andCloseLeavesTheSystemRunning() throws Exception {
        ActorSystem<Void> mine =
                ActorSystem.create(Behaviors.empty(), "embedder", ConfigFactory.load());
        try {
            SeqVfs vfs = SeqVfs.create(mine, ConfigFactory.parseString("seqvfs.proc.mount = off"));
            assertSame(mine, vfs.system());
            exercise(vfs, "/e");
            assertEquals(
                    Errno.ENOENT,
                    assertThrows(
                                    VfsException.class,
                                    () -> vfs.newTask(Credentials.ROOT).stat("/proc"))
                            .errno());
            vfs.close();
            assertEio(() -> vfs.newTask(Credentials.ROOT));
            assertFalse(mine.getWhenTerminated().toCompletableFuture().isDone());
            try (SeqVfs again = SeqVfs.create(mine, ConfigFactory.empty())) {
                exercise(again, "/again");
            }
        } finally {
            mine.terminate();
            mine.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void createOnEmbedderSystem_withoutSeqvfsDispatcher_failsWithIllegalArgumentException()
            throws Exception {
        // Pekko falls back to every reference.conf its class loader sees, SeqVFS's included;
        // a loader that hides SeqVFS's gives a system without the dispatcher.
        ClassLoader hiding =
                new ClassLoader(getClass().getClassLoader()) {
                    @Override
                    public java.util.Enumeration<java.net.URL> getResources(String name)
                            throws java.io.IOException {
                        List<java.net.URL> urls =
                                java.util.Collections.list(super.getResources(name));
                        if (name.equals("reference.conf")) {
                            urls.removeIf(u -> ConfigFactory.parseURL(u).hasPath("seqvfs"));
                        }
                        return java.util.Collections.enumeration(urls);
                    }
                };
        ActorSystem<Void> bare =
                ActorSystem.create(
                        Behaviors.empty(),
                        "bare",
                        org.apache.pekko.actor.BootstrapSetup.create()
                                .withClassloader(hiding)
                                .withConfig(ConfigFactory.parseString("pekko.loglevel = WARNING")));
        assertFalse(bare.settings().config().hasPath("seqvfs.dispatcher"));
        try {
            IllegalArgumentException e =
                    assertThrows(
                            IllegalArgumentException.class,
                            () -> SeqVfs.create(bare, ConfigFactory.empty()));
            assertTrue(e.getMessage().contains("seqvfs.dispatcher"), e.getMessage());
        } finally {
            bare.terminate();
            bare.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }
}
