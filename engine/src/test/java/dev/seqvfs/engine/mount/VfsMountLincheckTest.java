package dev.seqvfs.engine.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.testing.LincheckBudget;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * The mount pin / doomed handshake of {@link VfsMount} under Lincheck's model checker:
 * {@link VfsMount#tryPin()} (an open, a chdir) against {@link VfsMount#tryDoom()} (the
 * step of {@code umount2(2)} without {@code MNT_DETACH} that {@link Namespace#detach}
 * takes inside the mount write lock). Forbidden outcomes: an unmount that succeeds while
 * a pin is held; a pin taken after a successful unmount.
 *
 * <p>The model checker steps through {@link java.util.concurrent.atomic.LongAdder}'s own
 * fields too, and the second test fails at once if {@link VfsMount#pinCount()} sums the
 * taken pins before the dropped ones. It did not reach the split-cell undercount of the
 * former single incremented-and-decremented adder (30,000 four-thread interleavings):
 * that needs a CAS failure that moves a decrement to another cell, argued in
 * {@link VfsMount}. Nor does it model the release CAS inside the adder, which is why
 * {@link VfsMount#tryPin()} has a fence (sequential consistency is assumed here).
 */
class VfsMountLincheckTest {
    private static VfsMount mount() {
        return new VfsMount(2, null, null, null, null, false);
    }

    @Test
    void tryDoom_racingTryPin_neverSucceedsWhileThePinIsHeld() {
        Lincheck.runConcurrentTest(LincheckBudget.invocations(1_000), () -> {
            VfsMount m = mount();
            boolean[] pinned = new boolean[1];
            boolean[] doomed = new boolean[1];
            Thread pinner = new Thread(() -> pinned[0] = m.tryPin());
            Thread umounter = new Thread(() -> doomed[0] = m.tryDoom());
            pinner.start();
            umounter.start();
            join(pinner, umounter);
            assertFalse(pinned[0] && doomed[0], "unmounted while a pin is held");
            if (doomed[0]) {
                assertFalse(m.tryPin(), "a pin after the unmount");
                assertTrue(m.isDoomed());
            } else {
                assertFalse(m.isDoomed(), "a failed unmount clears doomed");
            }
            assertEquals(pinned[0] ? 1 : 0, m.pinCount());
        });
    }

    /** A pin held throughout, another taken and dropped meanwhile (a racing open and close): never unmounted. */
    @Test
    void tryDoom_pinHeldWhileAnotherComesAndGoes_fails() {
        Lincheck.runConcurrentTest(LincheckBudget.invocations(1_000), () -> {
            VfsMount m = mount();
            assertTrue(m.tryPin());
            boolean[] doomed = new boolean[1];
            Thread churn = new Thread(() -> {
                if (m.tryPin()) {
                    m.unpin();
                }
            });
            Thread umounter = new Thread(() -> doomed[0] = m.tryDoom());
            churn.start();
            umounter.start();
            join(churn, umounter);
            assertFalse(doomed[0], "unmounted while a pin is held");
            assertEquals(1, m.pinCount());
        });
    }

    static void join(Thread... ts) {
        for (Thread t : ts) {
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
