package dev.seqvfs.engine.sb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.engine.fs.tmpfs.TmpfsType;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsClock;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link HeapPool}: the bytes all tmpfs superblocks of a JVM hold together. Superblocks with a byte
 * limit charge the pool besides their own limit (a charge the pool refuses is {@code ENOSPC} and
 * charges neither); {@code statfs} shows the smaller of the two free counts; a superblock without a
 * byte limit stays out; giving the pool back (unmount, instance close) returns exactly what was
 * held, whatever charges race it. Each test makes its own small pool.
 */
@Timeout(60)
class HeapPoolTest {
    private static final int PAGE = 4096;

    private static Superblock superblock(long maxBytes, HeapPool pool) {
        return new Superblock(
                1,
                TmpfsType.INSTANCE,
                TmpfsType.superOperations(),
                new SuperblockConfig(1000, maxBytes, PAGE, 64),
                VfsClock.SYSTEM,
                new NamespaceLocks(),
                01777,
                0,
                0,
                pool);
    }

    @Test
    void jvmPool_holdsHalfTheHeap_inWholePages() {
        long half = Runtime.getRuntime().maxMemory() / 2 / PAGE * PAGE;
        assertEquals(half, HeapPool.JVM.capacity());
        assertEquals(Runtime.getRuntime().maxMemory(), HeapPool.ramBytes());
    }

    @Test
    void percentOfRam_isTheLinuxFormula_roundedUpToPages() {
        assertEquals(256L << 20, HeapPool.percentOfRam(50, 512L << 20));
        assertEquals(512L << 20, HeapPool.percentOfRam(100, 512L << 20));
        assertEquals(1024L << 20, HeapPool.percentOfRam(200, 512L << 20));
        // 10001 pages: (50 << 12) * 10001 / 100 = 5000.5 pages, rounded up to 5001
        assertEquals(5001L * PAGE, HeapPool.percentOfRam(50, 10001L * PAGE + 123));
        // 1% of 99 pages is 4055 bytes: one page
        assertEquals(PAGE, HeapPool.percentOfRam(1, 99L * PAGE));
        assertEquals(0, HeapPool.percentOfRam(0, 512L << 20), "0% is 0: no limit");
        assertEquals(Long.MAX_VALUE, HeapPool.percentOfRam(50, Long.MAX_VALUE));
        assertThrows(ArithmeticException.class, () -> HeapPool.percentOfRam(-1L, 512L << 20));
    }

    @Test
    void chargeBytes_twoSuperblocksShareThePool_andTheFullPoolIsENOSPCChargingNeither() {
        HeapPool pool = new HeapPool(16 * PAGE);
        Superblock a = superblock(12 * PAGE, pool);
        Superblock b = superblock(12 * PAGE, pool);
        a.chargeBytes(10 * PAGE, Syscall.WRITE);
        assertEquals(6 * PAGE, pool.free());
        VfsException e =
                assertThrows(VfsException.class, () -> b.chargeBytes(8 * PAGE, Syscall.WRITE));
        assertEquals(Errno.ENOSPC, e.errno());
        assertEquals(0, b.usedBytes(), "a refused charge leaves the superblock as it was");
        assertEquals(6 * PAGE, pool.free(), "and the pool");
        assertEquals(6 * PAGE, b.availableBytes(), "what a short write may still take");
        b.chargeBytes(6 * PAGE, Syscall.WRITE);
        assertEquals(0, pool.free());
        assertEquals(10 * PAGE, a.heapPoolHeld());
        assertEquals(6 * PAGE, b.heapPoolHeld());
        assertThrows(VfsException.class, () -> a.chargeBytes(PAGE, Syscall.WRITE));
        a.unchargeBytes(4 * PAGE);
        assertEquals(4 * PAGE, pool.free());
        assertEquals(6 * PAGE, a.usedBytes());
    }

    @Test
    void statfs_ofAPooledSuperblock_freeIsTheSmallerOfItsOwnAndThePools() {
        HeapPool pool = new HeapPool(16 * PAGE);
        Superblock a = superblock(12 * PAGE, pool);
        Superblock b = superblock(12 * PAGE, pool);
        a.chargeBytes(10 * PAGE, Syscall.WRITE);
        assertEquals(12, b.statfs(false).blocks(), "f_blocks stays the superblock's own");
        assertEquals(6, b.statfs(false).bfree());
        assertEquals(6, b.statfs(false).bavail());
        assertEquals(2, a.statfs(false).bfree(), "its own limit is the smaller");
        b.chargeBytes(5 * PAGE, Syscall.WRITE);
        assertEquals(1, a.statfs(false).bfree());
        assertEquals(1, b.statfs(false).bfree());
    }

    @Test
    void superblockWithoutAByteLimit_staysOutOfThePool() {
        HeapPool pool = new HeapPool(4 * PAGE);
        Superblock unlimited = superblock(Long.MAX_VALUE, pool);
        assertNull(unlimited.heapPool());
        unlimited.chargeBytes(64 * PAGE, Syscall.WRITE);
        assertEquals(4 * PAGE, pool.free());
        assertEquals(0, unlimited.heapPoolHeld());
        Superblock limited = superblock(8 * PAGE, pool);
        assertSame(pool, limited.heapPool());
    }

    @Test
    void releaseHeapPool_givesBackWhatWasHeld_once_andLaterChargesFail() {
        HeapPool pool = new HeapPool(16 * PAGE);
        Superblock a = superblock(12 * PAGE, pool);
        a.chargeBytes(7 * PAGE, Syscall.WRITE);
        a.unchargeBytes(2 * PAGE);
        a.releaseHeapPool();
        assertEquals(16 * PAGE, pool.free());
        assertEquals(0, a.heapPoolHeld());
        a.unchargeBytes(5 * PAGE); // a late free of what the release gave back already
        a.releaseHeapPool();
        assertEquals(16 * PAGE, pool.free(), "nothing is given back twice");
        assertEquals(
                Errno.ENOSPC,
                assertThrows(VfsException.class, () -> a.chargeBytes(PAGE, Syscall.WRITE)).errno());
        assertEquals(16 * PAGE, pool.free());
    }

    /**
     * Rounds of: threads charge and return pages of their own superblock while another releases
     * that superblock's account. At the end (every thread joined, every surviving charge returned)
     * the pool holds its whole capacity again: each byte taken was given back exactly once.
     */
    @Test
    void releaseHeapPool_racingChargesAndReturns_returnsThePoolToItsCapacity() throws Exception {
        HeapPool pool = new HeapPool(1 << 20);
        AtomicBoolean failed = new AtomicBoolean();
        for (int round = 0; round < 200; round++) {
            Superblock sb = superblock(1 << 20, pool);
            CyclicBarrier start = new CyclicBarrier(3);
            List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Thread th =
                        new Thread(
                                () -> {
                                    try {
                                        start.await();
                                        for (int n = 0; n < 200; n++) {
                                            try {
                                                sb.chargeBytes(PAGE, Syscall.WRITE);
                                            } catch (VfsException e) {
                                                continue; // released: ENOSPC
                                            }
                                            if (n % 3 != 0) {
                                                sb.unchargeBytes(PAGE);
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
            sb.releaseHeapPool();
            for (Thread th : ts) {
                th.join();
            }
            assertFalse(failed.get());
            assertEquals(pool.capacity(), pool.free(), "round " + round);
        }
    }
}
