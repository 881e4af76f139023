package dev.seqvfs.engine.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.fs.tmpfs.TmpfsType;
import dev.seqvfs.engine.sb.NamespaceLocks;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.engine.sb.SuperblockConfig;
import dev.seqvfs.engine.testing.LincheckBudget;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * The mount pin / doomed handshake of {@link VfsMount} under Lincheck's model checker: {@link
 * VfsMount#tryPin()} (an open, a chdir) against {@link VfsMount#tryDoom()} (the step of {@code
 * umount2(2)} without {@code MNT_DETACH} that {@link Namespace#detach} takes inside the mount write
 * lock). Forbidden outcomes: an unmount that succeeds while a pin is held; a pin taken after a
 * successful unmount. Then the release of a detached mount ({@link VfsMount#tryRelease}, which
 * counts it off its superblock): forbidden are a release while a pin is held, a second release, a
 * pin on a released mount, and no release once the last pin is gone.
 *
 * <p>The model checker steps through {@link java.util.concurrent.atomic.LongAdder}'s own fields
 * too, and the second test fails at once if {@link VfsMount#pinCount()} sums the taken pins before
 * the dropped ones. It did not reach the split-cell undercount of the former single
 * incremented-and-decremented adder (30,000 four-thread interleavings): that needs a CAS failure
 * that moves a decrement to another cell, argued in {@link VfsMount}. Nor does it model the release
 * CAS inside the adder, which is why {@link VfsMount#tryPin()} has a fence (sequential consistency
 * is assumed here).
 */
class VfsMountLincheckTest {
    private static VfsMount mount() {
        return new VfsMount(2, null, null, null, null, false);
    }

    @Test
    void tryDoom_racingTryPin_neverSucceedsWhileThePinIsHeld() {
        Lincheck.runConcurrentTest(
                LincheckBudget.invocations(1_000),
                () -> {
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

    /**
     * A pin held throughout, another taken and dropped meanwhile (a racing open and close): never
     * unmounted.
     */
    @Test
    void tryDoom_pinHeldWhileAnotherComesAndGoes_fails() {
        Lincheck.runConcurrentTest(
                LincheckBudget.invocations(1_000),
                () -> {
                    VfsMount m = mount();
                    assertTrue(m.tryPin());
                    boolean[] doomed = new boolean[1];
                    Thread churn =
                            new Thread(
                                    () -> {
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

    // ------------------------------------------------------------------ release of a detached
    // mount

    /** A mount counted on a superblock without actors (its release only counts). */
    private static VfsMount mounted() {
        Superblock sb =
                new Superblock(
                        2,
                        TmpfsType.INSTANCE,
                        TmpfsType.superOperations(),
                        SuperblockConfig.UNLIMITED,
                        () -> 0,
                        new NamespaceLocks(),
                        0755,
                        0,
                        0);
        assertTrue(sb.tryAddMount());
        return new VfsMount(2, sb, sb.root(), null, null, false);
    }

    /**
     * Namespace.detach's steps: out of the table (inside the lock), then the release attempt (after
     * it).
     */
    private static void detach(VfsMount m) {
        m.markDetached();
        m.tryRelease();
    }

    @Test
    void lazyDetach_racingTheLastUnpin_releasesExactlyOnce() {
        Lincheck.runConcurrentTest(
                LincheckBudget.invocations(1_000),
                () -> {
                    VfsMount m = mounted();
                    assertTrue(m.tryPin());
                    Throwable[] failed = new Throwable[2];
                    Thread detacher = new Thread(() -> catching(failed, 0, () -> detach(m)));
                    Thread closer = new Thread(() -> catching(failed, 1, m::unpin));
                    detacher.start();
                    closer.start();
                    join(detacher, closer);
                    assertEquals(null, failed[0]);
                    assertEquals(null, failed[1], "released twice (mountReleased threw)");
                    assertTrue(m.isReleased(), "not released after its last pin went");
                    assertTrue(m.superblock().isDeactivated());
                    assertFalse(m.tryPin(), "a pin on a released mount");
                });
    }

    /**
     * A lazily detached mount: its last pin goes while something inside opens another file (a pin
     * taken through a working directory there would be pinAgain; a walk that raced the detach takes
     * it by tryPin). The opener either holds a live mount or backs off; the mount is released once,
     * after both.
     */
    @Test
    void tryPin_racingTheLastUnpinOfADetachedMount_neverPinsAReleasedMount() {
        Lincheck.runConcurrentTest(
                LincheckBudget.invocations(1_000),
                () -> {
                    VfsMount m = mounted();
                    assertTrue(m.tryPin());
                    detach(m);
                    assertFalse(m.isReleased(), "pinned");
                    boolean[] sawReleased = new boolean[1];
                    Throwable[] failed = new Throwable[2];
                    Thread closer = new Thread(() -> catching(failed, 0, m::unpin));
                    Thread opener =
                            new Thread(
                                    () ->
                                            catching(
                                                    failed,
                                                    1,
                                                    () -> {
                                                        if (m.tryPin()) {
                                                            sawReleased[0] = m.isReleased();
                                                            m.unpin();
                                                        }
                                                    }));
                    closer.start();
                    opener.start();
                    join(closer, opener);
                    assertEquals(null, failed[0]);
                    assertEquals(null, failed[1]);
                    assertFalse(sawReleased[0], "pinned a released mount");
                    assertTrue(m.isReleased(), "not released after its last pin went");
                    assertTrue(m.superblock().isDeactivated());
                    assertEquals(0, m.pinCount());
                });
    }

    /**
     * A plain umount's release, racing a pinner that backs off: released once, by whichever goes
     * last.
     */
    @Test
    void umount_racingAFailingPin_releasesExactlyOnce() {
        Lincheck.runConcurrentTest(
                LincheckBudget.invocations(1_000),
                () -> {
                    VfsMount m = mounted();
                    boolean[] doomed = new boolean[1];
                    boolean[] pinned = new boolean[1];
                    Throwable[] failed = new Throwable[2];
                    Thread umounter =
                            new Thread(
                                    () ->
                                            catching(
                                                    failed,
                                                    0,
                                                    () -> {
                                                        doomed[0] = m.tryDoom();
                                                        if (doomed[0]) {
                                                            detach(m);
                                                        }
                                                    }));
                    Thread pinner =
                            new Thread(() -> catching(failed, 1, () -> pinned[0] = m.tryPin()));
                    umounter.start();
                    pinner.start();
                    join(umounter, pinner);
                    assertEquals(null, failed[0]);
                    assertEquals(null, failed[1]);
                    assertFalse(doomed[0] && pinned[0]);
                    assertEquals(doomed[0], m.isReleased());
                    assertEquals(doomed[0], m.superblock().isDeactivated());
                });
    }

    private static void catching(Throwable[] into, int i, Runnable r) {
        try {
            r.run();
        } catch (Throwable e) {
            into[i] = e;
        }
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
