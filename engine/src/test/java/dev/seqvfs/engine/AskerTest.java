package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reply path of the embedding API: an async call to an idle actor completes on the calling
 * thread, and its dependent stages run synchronously, never on a thread of CompletableFuture's
 * default executor (which, with 2 CPUs, starts a thread per task).
 */
class AskerTest {
    static SeqVfs vfs;
    static VfsTask t;

    @BeforeAll
    static void up() {
        vfs = SeqVfs.create();
        t = vfs.newTask(Credentials.ROOT);
    }

    @AfterAll
    static void down() {
        vfs.close();
    }

    @Test
    void asyncCall_idleActor_completesBeforeReturningAndRunsDependentsOnCaller() {
        t.mkdir("/warm", 0755); // spawns the root directory's actor first
        for (int i = 0; i < 100; i++) {
            CompletableFuture<Void> f =
                    t.async().mknodat(VfsTask.AT_FDCWD, "/warm/f" + i, Mode.S_IFREG | 0644, 0);
            assertTrue(f.isDone(), "reply not there when the async call returned, iteration " + i);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            var unused = f.thenRun(() -> ranOn.set(Thread.currentThread()));
            assertSame(
                    Thread.currentThread(),
                    ranOn.get(),
                    "dependent stage handed off to another thread");
        }
    }

    @Test
    void asyncCall_failure_completesExceptionallyWithTheVfsException() {
        t.mkdir("/dup", 0755);
        CompletableFuture<Void> f = t.async().mkdir("/dup", 0755);
        assertTrue(f.isDone());
        CompletionException e =
                org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, f::join);
        assertEquals(Errno.EEXIST, ((VfsException) e.getCause()).errno());
    }

    @Test
    void blockingCreateUnlink_manyIterations_startsNoThreadPerCall() {
        t.mkdir("/loop", 0755);
        int before = Thread.activeCount();
        for (int i = 0; i < 2000; i++) {
            t.mknod("/loop/x", Mode.S_IFREG | 0644, 0);
            t.unlink("/loop/x");
        }
        int after = Thread.activeCount();
        assertTrue(after - before < 8, "threads grew from " + before + " to " + after);
    }

    @Test
    void blockingCall_fromADependentStageRunInsideAnActor_completesWithoutWaitingForTheTimeout()
            throws Exception {
        // A dependent stage runs where the reply is made: here inside the actor of /busy,
        // on the thread flooding it. Its blocking mkdir goes to the root directory's actor,
        // whose mailbox the calling-thread executor queues behind that handler on the same
        // thread; the blocking call used to wait there for the ask timeout (EIO).
        try (SeqVfs own =
                SeqVfs.create(
                        com.typesafe.config.ConfigFactory.parseString(
                                "seqvfs.ask-timeout = 3s\nseqvfs.proc.mount = off"))) {
            VfsTask main = own.newTask(Credentials.ROOT);
            main.mkdir("/busy", 0755);
            java.util.concurrent.atomic.AtomicBoolean stop =
                    new java.util.concurrent.atomic.AtomicBoolean();
            Thread flood =
                    new Thread(
                            () -> {
                                VfsTask f = own.newTask(Credentials.ROOT);
                                for (int i = 0; !stop.get(); i++) {
                                    f.mkdir("/busy/f" + i, 0755);
                                    f.rmdir("/busy/f" + i);
                                }
                            },
                            "flood");
            flood.start();
            try {
                int insideTheActor = 0;
                for (int i = 0; i < 2000 && insideTheActor < 20; i++) {
                    int k = i;
                    Thread[] ranOn = new Thread[1];
                    long[] took = new long[1];
                    main.async()
                            .mkdir("/busy/g" + i, 0755)
                            .thenRun(
                                    () -> {
                                        ranOn[0] = Thread.currentThread();
                                        long t0 = System.nanoTime();
                                        main.mkdir("/y" + k, 0755);
                                        took[0] = System.nanoTime() - t0;
                                    })
                            .get(10, java.util.concurrent.TimeUnit.SECONDS);
                    if (ranOn[0] == flood) {
                        insideTheActor++;
                        assertTrue(
                                took[0] < java.util.concurrent.TimeUnit.SECONDS.toNanos(2),
                                "the blocking call waited " + took[0] / 1_000_000 + " ms");
                    }
                }
                assertTrue(
                        insideTheActor > 0,
                        "no dependent stage ran inside the flooded actor: nothing was tested");
            } finally {
                stop.set(true);
                flood.join();
            }
        }
    }
}
