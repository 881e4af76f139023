package dev.seqvfs.engine.fdtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.testing.LincheckBudget;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * {@link InstallClaim} under Lincheck's model checker, which runs each scenario under every thread
 * interleaving it chooses (switching at each shared-memory access) and fails with the interleaving
 * that broke an assertion. Forbidden outcomes: both the install and a withdrawal win; two
 * withdrawals win; a withdrawal that lost to the install learns another descriptor than the one
 * installed, or learns it before the table holding it was published.
 *
 * <p>The model checker explores interleavings of sequentially consistent accesses; it does not
 * model the weaker orderings the release/acquire pair ({@code installed} / {@code awaitInstalled})
 * permits, which jcstress would (it does not resolve from this machine's registry).
 */
class InstallClaimLincheckTest {
    private static final int FD = 7;

    /** What the actor publishes before it records the descriptor: its table (a plain field). */
    private static final class Table {
        int fdInstalled = -1;
    }

    @Test
    void tryWithdraw_racingTheInstall_isDecidedOnce() {
        Lincheck.runConcurrentTest(
                LincheckBudget.invocations(1_000),
                () -> {
                    InstallClaim claim = new InstallClaim();
                    Table table = new Table();
                    boolean[] installed = new boolean[1];
                    boolean[] withdrew = new boolean[2];
                    int[] learned = {-1, -1};
                    Thread actor =
                            new Thread(
                                    () -> {
                                        if (claim.tryBeginInstall()) {
                                            table.fdInstalled = FD; // files.publishRelease(...)
                                            claim.installed(FD);
                                            installed[0] = true;
                                        }
                                    });
                    Thread[] callers = new Thread[2];
                    for (int i = 0; i < 2; i++) {
                        int me = i;
                        callers[i] =
                                new Thread(
                                        () -> {
                                            // OpenFuture.withdraw
                                            withdrew[me] = claim.tryWithdraw();
                                            if (!withdrew[me] && !claim.isWithdrawn()) {
                                                learned[me] = claim.awaitInstalled();
                                                assertEquals(
                                                        FD,
                                                        table.fdInstalled,
                                                        "learned the fd before its table was published");
                                            }
                                        });
                    }
                    actor.start();
                    callers[0].start();
                    callers[1].start();
                    join(actor, callers[0], callers[1]);

                    int wins =
                            (withdrew[0] ? 1 : 0) + (withdrew[1] ? 1 : 0) + (installed[0] ? 1 : 0);
                    assertEquals(1, wins, "exactly one of the install and the withdrawals wins");
                    if (installed[0]) {
                        assertFalse(claim.isWithdrawn());
                        assertEquals(
                                FD,
                                learned[0],
                                "a withdrawal that lost to the install owns the descriptor");
                        assertEquals(FD, learned[1]);
                    } else {
                        assertTrue(claim.isWithdrawn());
                        assertEquals(-1, table.fdInstalled, "a withdrawn open installs nothing");
                        assertEquals(-1, learned[0]);
                        assertEquals(-1, learned[1]);
                        assertFalse(claim.tryBeginInstall(), "withdrawn for good");
                    }
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
