package dev.seqvfs.engine.sb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.fs.tmpfs.TmpfsType;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsClock;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Superblock#tryReconfigureLimits}: a remount's new inode and byte limits, checked against
 * the use and applied by the same CAS that charges use, so that a charge racing a shrink never
 * leaves the use above the new limit (the check "new limit &gt;= used" and the store are one step),
 * and a failed shrink changes nothing.
 */
@Timeout(60)
class SuperblockLimitsTest {
    private static final int PAGE = 4096;

    private static Superblock superblock(long maxInodes, long maxBytes) {
        return new Superblock(
                1,
                TmpfsType.INSTANCE,
                TmpfsType.superOperations(),
                new SuperblockConfig(maxInodes, maxBytes, PAGE, 64),
                VfsClock.SYSTEM,
                new NamespaceLocks(),
                01777,
                0,
                0);
    }

    @Test
    void tryReconfigureLimits_growAndShrinkToTheUse_areApplied() {
        Superblock sb = superblock(5, 16 * PAGE);
        sb.chargeInode(Syscall.CREATE);
        sb.chargeBytes(3 * PAGE, Syscall.WRITE);
        assertTrue(sb.tryReconfigureLimits(1000, 256 * PAGE));
        assertEquals(1000, sb.statfs(false).files());
        assertEquals(256, sb.statfs(false).blocks());
        assertEquals(2, sb.usedInodes());
        assertEquals(3 * PAGE, sb.usedBytes());
        assertTrue(sb.tryReconfigureLimits(2, 3 * PAGE)); // exactly the use
        assertThrows(VfsException.class, () -> sb.chargeInode(Syscall.CREATE));
        assertThrows(VfsException.class, () -> sb.chargeBytes(1, Syscall.WRITE));
        assertEquals(0, sb.statfs(false).ffree());
        assertEquals(0, sb.statfs(false).bfree());
    }

    @Test
    void tryReconfigureLimits_belowTheUse_changesNeitherLimit() {
        Superblock sb = superblock(100, 16 * PAGE);
        for (int i = 0; i < 4; i++) {
            sb.chargeInode(Syscall.CREATE);
        }
        sb.chargeBytes(5 * PAGE, Syscall.WRITE);
        // the inode limit would fit, the byte limit does not: neither applies
        assertFalse(sb.tryReconfigureLimits(50, 4 * PAGE));
        assertEquals(100, sb.configAcquire().maxInodes());
        assertEquals(16 * PAGE, sb.configAcquire().maxBytes());
        assertEquals(95, sb.statfs(false).ffree());
        assertFalse(sb.tryReconfigureLimits(4, -1)); // 5 in use, the root included
        assertEquals(95, sb.statfs(false).ffree());
        assertEquals(11, sb.statfs(false).bfree());
    }

    /**
     * Rounds of: {@code THREADS} threads charge (one inode, or one page, each time) as fast as they
     * can while the remounter, once the use is near it, lowers the limit to {@code target}. When
     * the shrink succeeds, the use at the end (every thread joined) must be at most {@code target}
     * and must equal what the threads counted as charged: a charge that read the old limit before
     * the shrink and applied after it would leave more.
     */
    private static void shrinkRacingCharges(boolean bytes) throws Exception {
        final int threads = 3;
        final int perThread = 40;
        final int headroom = 60; // the new limit, above the use at the round's start
        Superblock sb = superblock(1_000_000, 1L << 40);
        AtomicLong shrinksWon = new AtomicLong();
        AtomicLong filledToTheLimit = new AtomicLong();
        for (int round = 0; round < 400; round++) {
            long big = bytes ? 1L << 40 : 1_000_000;
            assertTrue(bytes ? sb.tryReconfigureLimits(-1, big) : sb.tryReconfigureLimits(big, -1));
            long base = bytes ? sb.usedBytes() / PAGE : sb.usedInodes();
            long target = base + headroom;
            CyclicBarrier start = new CyclicBarrier(threads + 1);
            AtomicLong charged = new AtomicLong();
            AtomicBoolean failed = new AtomicBoolean();
            List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Thread th =
                        new Thread(
                                () -> {
                                    try {
                                        start.await();
                                        for (int n = 0; n < perThread; n++) {
                                            try {
                                                if (bytes) {
                                                    sb.chargeBytes(PAGE, Syscall.WRITE);
                                                } else {
                                                    sb.chargeInode(Syscall.CREATE);
                                                }
                                                charged.incrementAndGet();
                                            } catch (VfsException e) {
                                                if (e.errno() != Errno.ENOSPC) {
                                                    failed.set(true);
                                                }
                                            }
                                        }
                                    } catch (Exception e) {
                                        failed.set(true);
                                    }
                                });
                th.start();
                ts.add(th);
            }
            start.await();
            // Shrink while the chargers run, near the new limit: wait for some use first.
            while ((bytes ? sb.usedBytes() / PAGE : sb.usedInodes()) < base + headroom / 2
                    && ts.stream().anyMatch(Thread::isAlive)) {
                Thread.onSpinWait();
            }
            boolean won =
                    bytes
                            ? sb.tryReconfigureLimits(-1, target * PAGE)
                            : sb.tryReconfigureLimits(target, -1);
            for (Thread th : ts) {
                th.join();
            }
            assertFalse(failed.get(), "a charge failed with something other than ENOSPC");
            long used = bytes ? sb.usedBytes() / PAGE : sb.usedInodes();
            assertEquals(base + charged.get(), used, "round " + round + ": use miscounted");
            if (won) {
                shrinksWon.incrementAndGet();
                assertTrue(
                        used <= target,
                        "round " + round + ": use " + used + " above the new limit " + target);
                if (used == target) {
                    filledToTheLimit.incrementAndGet();
                }
            }
            for (long i = 0; i < charged.get(); i++) {
                if (bytes) {
                    sb.unchargeBytes(PAGE);
                } else {
                    sb.unchargeInode();
                }
            }
        }
        // the race was run: shrinks succeeded with chargers still going, which then hit the limit
        assertTrue(shrinksWon.get() > 0, "no shrink succeeded: nothing was tested");
        assertTrue(filledToTheLimit.get() > 0, "no round filled the new limit: nothing was raced");
    }

    @Test
    void shrinkInodeLimit_racingCreates_neverLetsTheUsePassTheNewLimit() throws Exception {
        shrinkRacingCharges(false);
    }

    @Test
    void shrinkByteLimit_racingWrites_neverLetsTheUsePassTheNewLimit() throws Exception {
        shrinkRacingCharges(true);
    }
}
