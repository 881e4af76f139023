package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Advisory locks under contention ({@code fcntl(2)} {@code F_SETLK}/{@code F_SETLKW}/ {@code
 * F_GETLK} record locks, {@code flock(2)}): never two conflicting holders at once, every waiter
 * eventually gets its lock, and {@code EDEADLK} comes back only when the waits really form a cycle.
 *
 * <pre>
 * /f            POSIX byte-range locks on bytes [0, 64)
 * /g            flock locks (they do not interact with POSIX locks)
 * /r0 /r1 /r2   one file per member of a deadlock ring
 * </pre>
 *
 * Every worker is its own task (a process: POSIX locks belong to the descriptor table). A ledger
 * shared by the workers holds what each believes it holds: an entry is added only after the call
 * that took the lock returned, and removed before the call that drops it, so two conflicting
 * entries at once mean two conflicting locks were held at once. Workers take their POSIX ranges in
 * increasing order of offset (each request starts above every byte the worker holds), so the
 * wait-for graph can have no cycle and any {@code EDEADLK} is false. Holders also write (or read)
 * their bytes and check them when they let go: the data must not change under a lock. A holder
 * yields now and then, so that others run into its ranges (contention, not timing).
 */
class FileLockConcurrencyTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    private static final int BYTES = 64;

    /** One range a worker holds, as the ledger records it. */
    private record Held(int owner, int type, long start, long end) {
        boolean conflicts(Held o) {
            return owner != o.owner
                    && start <= o.end
                    && o.start <= end
                    && (type == Flock.F_WRLCK || o.type == Flock.F_WRLCK);
        }
    }

    /** The shared ledger: who holds what (POSIX ranges, and flock holders of /g). */
    private static final class Ledger {
        private final List<Held> posix = new ArrayList<>();
        private int flockShared;
        private int flockExclusive;

        synchronized void take(Held h) {
            for (Held o : posix) {
                if (h.conflicts(o)) {
                    throw new AssertionError(
                            "two conflicting POSIX locks held at once: " + o + " and " + h);
                }
            }
            posix.add(h);
        }

        synchronized void drop(Held h) {
            if (!posix.remove(h)) {
                throw new AssertionError("ledger lost " + h);
            }
        }

        synchronized void retype(Held from, Held to) {
            drop(from);
            take(to);
        }

        synchronized void flockTake(boolean exclusive) {
            if (flockExclusive > 0 || (exclusive && flockShared > 0)) {
                throw new AssertionError(
                        "flock: "
                                + (exclusive ? "LOCK_EX" : "LOCK_SH")
                                + " granted while "
                                + flockExclusive
                                + " exclusive and "
                                + flockShared
                                + " shared holders");
            }
            if (exclusive) {
                flockExclusive++;
            } else {
                flockShared++;
            }
        }

        synchronized void flockDrop(boolean exclusive) {
            if (exclusive) {
                flockExclusive--;
            } else {
                flockShared--;
            }
        }
    }

    @Test
    void setlkwAndFlock_contendedOrderedRanges_neverTwoConflictingHoldersAndNoEDEADLK() {
        VfsTask root = fs.root();
        int rf = root.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0666);
        root.write(rf, new byte[BYTES]);
        root.close(rf);
        root.close(root.open("/g", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0666));
        Ledger ledger = new Ledger();
        Map<Integer, Integer> pids = new ConcurrentHashMap<>();
        LongAdder posixCycles = new LongAdder();
        LongAdder flockCycles = new LongAdder();
        LongAdder eagain = new LongAdder();
        LongAdder getlkHits = new LongAdder();
        int n = Stress.threads();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int id = i;
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        pids.put(t.pid(), id);
                        int f = t.open("/f", OpenFlags.O_RDWR);
                        int g = t.open("/g", OpenFlags.O_RDWR);
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        try {
                            while (c.running()) {
                                if (r.nextInt(4) == 0) {
                                    flockCycle(t, g, ledger, r, eagain);
                                    flockCycles.increment();
                                    continue;
                                }
                                f = posixCycle(t, f, id, ledger, pids, r, eagain, getlkHits);
                                posixCycles.increment();
                            }
                        } finally {
                            t.close();
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "locks: %d POSIX cycles, %d flock cycles, %d EAGAIN, %d F_GETLK conflicts by %d tasks%n",
                posixCycles.sum(), flockCycles.sum(), eagain.sum(), getlkHits.sum(), n);
        assertTrue(posixCycles.sum() >= 20 && flockCycles.sum() >= 5, "the contention did not run");
        assertEquals(List.of(), ledger.posix, "ledger drained");
        VfsTask probe = fs.vfs().newTask(Credentials.ROOT);
        int pf = probe.open("/f", OpenFlags.O_RDWR);
        assertEquals(
                Flock.F_UNLCK,
                probe.fcntlLock(pf, Fcntl.F_GETLK, Flock.of(Flock.F_WRLCK, 0, 0)).type(),
                "every POSIX lock left with its task");
        int pg = probe.open("/g", OpenFlags.O_RDWR);
        probe.flock(pg, Flock.LOCK_EX | Flock.LOCK_NB);
        probe.close();
    }

    /**
     * Takes one to three ranges in increasing order (blocking or not, read or write), probes with
     * {@code F_GETLK}, maybe downgrades one, then drops them all in one of three ways. Returns the
     * descriptor of /f (it changes when the cycle drops by closing).
     */
    @SuppressWarnings("ThreadPriorityCheck") // Thread.yield makes contention, not ordering
    private static int posixCycle(
            VfsTask t,
            int f,
            int id,
            Ledger ledger,
            Map<Integer, Integer> pids,
            ThreadLocalRandom r,
            LongAdder eagain,
            LongAdder getlkHits) {
        List<Held> held = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        long next = r.nextInt(8);
        int k = 1 + r.nextInt(3);
        for (int i = 0; i < k && next < BYTES; i++) {
            long start = next + r.nextInt(8);
            long end = Math.min(BYTES - 1, start + r.nextInt(12));
            if (start > end) {
                break;
            }
            next = end + 1 + r.nextInt(3);
            int type = r.nextBoolean() ? Flock.F_WRLCK : Flock.F_RDLCK;
            Flock req = Flock.of(type, start, end - start + 1);
            if (r.nextInt(5) == 0) {
                Flock got = t.fcntlLock(f, Fcntl.F_GETLK, req);
                if (got.type() != Flock.F_UNLCK) {
                    getlkHits.increment();
                    Integer other = pids.get(got.pid());
                    long gotEnd = got.len() == 0 ? Long.MAX_VALUE : got.start() + got.len() - 1;
                    if (other == null
                            || other == id
                            || gotEnd < start
                            || got.start() > end
                            || (type == Flock.F_RDLCK && got.type() != Flock.F_WRLCK)) {
                        throw new AssertionError(
                                "F_GETLK of "
                                        + req
                                        + " by worker "
                                        + id
                                        + " reported a lock that cannot block it: "
                                        + got);
                    }
                }
            }
            boolean wait = r.nextInt(4) != 0;
            try {
                t.fcntlLock(f, wait ? Fcntl.F_SETLKW : Fcntl.F_SETLK, req);
            } catch (VfsException e) {
                if (e.errno() == Errno.EAGAIN && !wait) {
                    eagain.increment();
                    continue;
                }
                throw new AssertionError(
                        "worker "
                                + id
                                + " holding "
                                + held
                                + " asked "
                                + (wait ? "F_SETLKW " : "F_SETLK ")
                                + req
                                + " (ranges taken in increasing order, no"
                                + " cycle possible): "
                                + e.errno(),
                        e);
            }
            Held h = new Held(id, type, start, end);
            ledger.take(h);
            held.add(h);
            contents.add(touch(t, f, h, (byte) (1 + id * 16 + (int) (next & 15))));
            if (r.nextBoolean()) {
                // Let others run into the range while it is held: contention, not timing.
                Thread.yield();
            }
        }
        if (!held.isEmpty() && r.nextInt(4) == 0) {
            Held w = held.get(r.nextInt(held.size()));
            if (w.type() == Flock.F_WRLCK) {
                // Downgrade: the ledger says "read" before the call, while the lock is still a
                // write lock.
                Held rd = new Held(id, Flock.F_RDLCK, w.start(), w.end());
                ledger.retype(w, rd);
                held.set(held.indexOf(w), rd);
                t.fcntlLock(
                        f,
                        Fcntl.F_SETLK,
                        Flock.of(Flock.F_RDLCK, w.start(), w.end() - w.start() + 1));
            }
        }
        for (int i = 0; i < held.size(); i++) {
            Held h = held.get(i);
            byte[] now = new byte[contents.get(i).length];
            t.pread(f, now, 0, now.length, h.start());
            if (!java.util.Arrays.equals(contents.get(i), now)) {
                throw new AssertionError(
                        "bytes ["
                                + h.start()
                                + ", "
                                + h.end()
                                + "] changed while worker "
                                + id
                                + " held "
                                + h
                                + ": "
                                + java.util.Arrays.toString(contents.get(i))
                                + " became "
                                + java.util.Arrays.toString(now));
            }
            ledger.drop(h);
        }
        switch (r.nextInt(3)) {
            case 0:
                t.fcntlLock(f, Fcntl.F_SETLK, Flock.of(Flock.F_UNLCK, 0, 0));
                return f;
            case 1:
                for (int i = held.size() - 1; i >= 0; i--) {
                    Held h = held.get(i);
                    t.fcntlLock(
                            f,
                            Fcntl.F_SETLK,
                            Flock.of(Flock.F_UNLCK, h.start(), h.end() - h.start() + 1));
                }
                return f;
            default:
                // POSIX: closing any descriptor of the file drops every lock the process holds on
                // it.
                t.close(f);
                return t.open("/f", OpenFlags.O_RDWR);
        }
    }

    /**
     * Works on a range just locked: a writer fills it with {@code mark} and reads it back, a reader
     * reads it twice; either way the bytes must not change under the lock. Returns the bytes the
     * range must still hold when it is dropped.
     */
    private static byte[] touch(VfsTask t, int f, Held h, byte mark) {
        int len = (int) (h.end() - h.start() + 1);
        byte[] first = new byte[len];
        if (h.type() == Flock.F_WRLCK) {
            java.util.Arrays.fill(first, mark);
            t.pwrite(f, first, 0, len, h.start());
        } else {
            t.pread(f, first, 0, len, h.start());
        }
        byte[] again = new byte[len];
        t.pread(f, again, 0, len, h.start());
        if (!java.util.Arrays.equals(first, again)) {
            throw new AssertionError(
                    "bytes of "
                            + h
                            + " changed under the lock: "
                            + java.util.Arrays.toString(first)
                            + " became "
                            + java.util.Arrays.toString(again));
        }
        return first;
    }

    /**
     * Takes /g shared or exclusive (maybe converting once), then drops it by LOCK_UN or by close.
     */
    @SuppressWarnings("ThreadPriorityCheck") // Thread.yield makes contention, not ordering
    private static void flockCycle(
            VfsTask t, int g, Ledger ledger, ThreadLocalRandom r, LongAdder eagain) {
        boolean exclusive = r.nextBoolean();
        boolean nb = r.nextInt(4) == 0;
        try {
            t.flock(g, (exclusive ? Flock.LOCK_EX : Flock.LOCK_SH) | (nb ? Flock.LOCK_NB : 0));
        } catch (VfsException e) {
            if (e.errno() == Errno.EAGAIN && nb) {
                eagain.increment();
                return;
            }
            throw e;
        }
        ledger.flockTake(exclusive);
        Thread.yield();
        if (r.nextInt(3) == 0) {
            // Conversion is not atomic (flock(2)): the old lock is dropped before the new one is
            // taken.
            ledger.flockDrop(exclusive);
            exclusive = !exclusive;
            t.flock(g, exclusive ? Flock.LOCK_EX : Flock.LOCK_SH);
            ledger.flockTake(exclusive);
        }
        ledger.flockDrop(exclusive);
        t.flock(g, Flock.LOCK_UN);
    }

    @Test
    void setlkw_ringOfThreeWaits_exactlyOneEDEADLKAndEveryoneFinishes() throws Exception {
        VfsTask root = fs.root();
        int members = 3;
        for (int i = 0; i < members; i++) {
            root.close(root.open("/r" + i, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0666));
        }
        int rounds = 150;
        AtomicInteger deadlocks = new AtomicInteger();
        List<Integer> perRound = java.util.Collections.synchronizedList(new ArrayList<>());
        CyclicBarrier start = new CyclicBarrier(members);
        // Counted once per round, after every member finished it.
        CyclicBarrier end = new CyclicBarrier(members, () -> perRound.add(deadlocks.getAndSet(0)));
        ExecutorService pool = Executors.newFixedThreadPool(members);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int m = 0; m < members; m++) {
                final int me = m;
                done.add(
                        pool.submit(
                                () -> {
                                    VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                                    int[] fd = new int[members];
                                    for (int i = 0; i < members; i++) {
                                        fd[i] = t.open("/r" + i, OpenFlags.O_RDWR);
                                    }
                                    int mine = fd[me];
                                    int theirs = fd[(me + 1) % members];
                                    for (int round = 0; round < rounds; round++) {
                                        // Member m holds /r<m> and, once all hold theirs, waits for
                                        // /r<m+1>: a cycle.
                                        t.fcntlLock(
                                                mine,
                                                Fcntl.F_SETLK,
                                                Flock.of(Flock.F_WRLCK, 0, 10));
                                        start.await(30, TimeUnit.SECONDS);
                                        try {
                                            t.fcntlLock(
                                                    theirs,
                                                    Fcntl.F_SETLKW,
                                                    Flock.of(Flock.F_WRLCK, 0, 10));
                                            t.fcntlLock(
                                                    theirs,
                                                    Fcntl.F_SETLK,
                                                    Flock.of(Flock.F_UNLCK, 0, 0));
                                        } catch (VfsException e) {
                                            if (e.errno() != Errno.EDEADLK) {
                                                throw e;
                                            }
                                            deadlocks.incrementAndGet();
                                        }
                                        t.fcntlLock(
                                                mine, Fcntl.F_SETLK, Flock.of(Flock.F_UNLCK, 0, 0));
                                        end.await(30, TimeUnit.SECONDS);
                                    }
                                    t.close();
                                    return null;
                                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(rounds, perRound.size(), "rounds finished");
        List<Integer> wrong = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            if (perRound.get(i) != 1) {
                wrong.add(i);
            }
        }
        assertEquals(
                List.of(),
                wrong,
                "rounds whose ring of "
                        + members
                        + " waits did not fail exactly one member"
                        + " with EDEADLK (EDEADLK counts per round: "
                        + perRound
                        + ")");
    }
}
