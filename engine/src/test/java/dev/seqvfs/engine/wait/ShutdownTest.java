package dev.seqvfs.engine.wait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Shutdown}: a waiter that entered before the shutdown is woken once by it, one that enters
 * after is refused, one that left is not woken; the shutdown happens once, and a waiter that throws
 * does not keep the others asleep. Racing enterers against the close: an enterer that was admitted
 * is woken exactly once, never missed (the Dekker handshake of its class comment); one that was
 * refused is woken at most once (it was in the set for an instant, and its waker must not mind).
 */
@Timeout(60)
class ShutdownTest {
    @Test
    void waiterThatEntered_isWokenOnce_andEnterAfterTheShutdown_isRefused() {
        Shutdown s = new Shutdown();
        AtomicInteger woken = new AtomicInteger();
        assertFalse(s.isShutDown());
        assertTrue(s.enter(woken::incrementAndGet));
        assertEquals(1, s.waiting());
        s.shutDown();
        assertTrue(s.isShutDown());
        assertEquals(1, woken.get());
        assertEquals(0, s.waiting());
        s.shutDown();
        assertEquals(1, woken.get(), "a second shutDown woke again");
        assertFalse(s.enter(woken::incrementAndGet));
        assertEquals(0, s.waiting(), "a refused waiter stays registered");
        assertEquals(1, woken.get());
    }

    @Test
    void waiterThatLeft_isNotWoken() {
        Shutdown s = new Shutdown();
        AtomicInteger woken = new AtomicInteger();
        Shutdown.Waiter w = woken::incrementAndGet;
        assertTrue(s.enter(w));
        s.leave(w);
        assertEquals(0, s.waiting());
        s.shutDown();
        assertEquals(0, woken.get());
    }

    @Test
    void waiterThatThrows_doesNotKeepTheOthersAsleep() {
        Shutdown s = new Shutdown();
        AtomicInteger woken = new AtomicInteger();
        assertTrue(s.enter(woken::incrementAndGet));
        assertTrue(
                s.enter(
                        () -> {
                            woken.incrementAndGet();
                            throw new IllegalStateException("a waker failed (this test's doing)");
                        }));
        assertTrue(s.enter(woken::incrementAndGet));
        s.shutDown();
        assertEquals(3, woken.get());
    }

    @Test
    void error_isEIO_namingTheCall() {
        VfsException e = Shutdown.error(Syscall.READ);
        assertEquals(Errno.EIO, e.errno());
        assertEquals(Syscall.READ, e.operation());
    }

    @Test
    void enterRacingTheShutdown_admittedIsWokenExactlyOnce_refusedAtMostOnce() throws Exception {
        int rounds = 1_000;
        int enterers = 3;
        for (int r = 0; r < rounds; r++) {
            Shutdown s = new Shutdown();
            CyclicBarrier start = new CyclicBarrier(enterers + 1);
            AtomicInteger[] wakes = new AtomicInteger[enterers];
            boolean[] admitted = new boolean[enterers];
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < enterers; i++) {
                AtomicInteger w = new AtomicInteger();
                wakes[i] = w;
                int k = i;
                Thread th =
                        new Thread(
                                () -> {
                                    await(start);
                                    admitted[k] = s.enter(w::incrementAndGet);
                                });
                threads.add(th);
                th.start();
            }
            await(start);
            s.shutDown();
            for (Thread th : threads) {
                th.join();
            }
            for (int i = 0; i < enterers; i++) {
                String what = "round " + r + ": admitted=" + admitted[i] + " woken=" + wakes[i];
                if (admitted[i]) {
                    assertEquals(1, wakes[i].get(), what);
                } else {
                    assertTrue(wakes[i].get() <= 1, what);
                }
            }
            assertEquals(0, s.waiting());
        }
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
