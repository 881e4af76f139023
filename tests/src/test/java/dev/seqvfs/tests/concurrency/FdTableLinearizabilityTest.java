package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.concurrency.LinearizabilityChecker.History;
import dev.seqvfs.tests.concurrency.LinearizabilityChecker.Op;
import dev.seqvfs.tests.concurrency.NamespaceModel.Result;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Descriptor-table calls on one table shared by several threads are linearizable, with the table's
 * actor applying them in batches (one publication per drained batch, see {@code FdTableActor}):
 * histories of {@code open}, {@code close}, {@code dup}, {@code pipe} and {@code fstat} (the
 * lock-free read of the published table) are checked by {@link LinearizabilityChecker} against the
 * sequential model below: POSIX's lowest free descriptor, {@code EBADF}, {@code EMFILE} at {@code
 * RLIMIT_NOFILE}.
 *
 * <p>Not in the histories: an {@code open} that creates or truncates. It reserves its descriptor (a
 * credit or by name) before it changes the file and installs it after, as Linux's {@code
 * get_unused_fd_flags} and {@code fd_install}: meanwhile the slot is taken for other opens ({@code
 * EMFILE}) but not yet open ({@code close} says {@code EBADF}), which no one-instant model allows,
 * on Linux either. {@link OpenCreateFdLimitRaceTest} and {@link FdCreditRaceTest} check those.
 *
 * <p>A reply sent before its batch is published shows here: the caller's own {@code fstat} of the
 * descriptor it was just given says {@code EBADF}. So does a batch published half-way (a {@code
 * pipe}'s two ends seen apart, a {@code dup} seen before the {@code close} that came first).
 *
 * <pre>
 * /f0 .. /f3   regular files, one per thread (their inode numbers tell the descriptors apart)
 * </pre>
 *
 * Rounds start from an empty table (RLIMIT_NOFILE 6, so EMFILE is frequent); the last thread at the
 * barrier reads the table, checks the round's history against it, and closes everything.
 */
class FdTableLinearizabilityTest {
    private static final int LIMIT = 6;
    private static final int OPS_PER_THREAD = 5;

    @RegisterExtension
    final VfsFixture fs = new VfsFixture("seqvfs.fd.rlimit-nofile = " + LIMIT).checkingEndState();

    /** The calls of a history. */
    enum FdCall {
        OPEN,
        CLOSE,
        DUP,
        PIPE,
        FSTAT
    }

    /** A pipe end in the model: any inode number is what fstat may say. */
    private static final long PIPE_END = -1;

    /**
     * One state of the table: per descriptor, 0 if free, the inode number of the file it refers to,
     * or {@link #PIPE_END}.
     */
    record FdState(List<Long> slots) {
        static FdState empty() {
            Long[] z = new Long[LIMIT];
            Arrays.fill(z, 0L);
            return new FdState(List.of(z));
        }

        int lowestFree(int skip) {
            for (int fd = 0; fd < LIMIT; fd++) {
                if (slots.get(fd) == 0 && fd != skip) {
                    return fd;
                }
            }
            return -1;
        }

        FdState with(int fd, long v) {
            Long[] s = slots.toArray(new Long[0]);
            s[fd] = v;
            return new FdState(List.of(s));
        }
    }

    /** The sequential specification of the five calls on one table. */
    static FdState step(FdState s, Op x) {
        Result got = x.result();
        switch ((FdCall) x.kind()) {
            case OPEN:
                {
                    int fd = s.lowestFree(-1);
                    if (fd < 0) {
                        return got.equals(Result.error(Errno.EMFILE)) ? s : null;
                    }
                    return got.equals(Result.ok(fd)) ? s.with(fd, Long.parseLong(x.b())) : null;
                }
            case CLOSE:
                {
                    int fd = Integer.parseInt(x.a());
                    if (s.slots().get(fd) == 0) {
                        return got.equals(Result.error(Errno.EBADF)) ? s : null;
                    }
                    return got.equals(Result.ok(0)) ? s.with(fd, 0) : null;
                }
            case DUP:
                {
                    int old = Integer.parseInt(x.a());
                    long v = s.slots().get(old);
                    if (v == 0) {
                        return got.equals(Result.error(Errno.EBADF)) ? s : null;
                    }
                    int fd = s.lowestFree(-1);
                    if (fd < 0) {
                        return got.equals(Result.error(Errno.EMFILE)) ? s : null;
                    }
                    return got.equals(Result.ok(fd)) ? s.with(fd, v) : null;
                }
            case PIPE:
                {
                    int r = s.lowestFree(-1);
                    int w = r < 0 ? -1 : s.lowestFree(r);
                    if (w < 0) {
                        return got.equals(Result.error(Errno.EMFILE)) ? s : null;
                    }
                    return got.equals(Result.ok(r * 100L + w))
                            ? s.with(r, PIPE_END).with(w, PIPE_END)
                            : null;
                }
            case FSTAT:
                {
                    long v = s.slots().get(Integer.parseInt(x.a()));
                    if (v == 0) {
                        return got.equals(Result.error(Errno.EBADF)) ? s : null;
                    }
                    if (v == PIPE_END) {
                        return got.errno() == null && got.value() == PIPE_END ? s : null;
                    }
                    return got.equals(Result.ok(v)) ? s : null;
                }
            default:
                throw new IllegalArgumentException(x.kind().toString());
        }
    }

    /** Runs {@code call}, timing it, and returns the recorded operation. */
    private static Op timed(int thread, FdCall kind, String a, String b, Supplier<Long> call) {
        long t0 = System.nanoTime();
        Result r;
        try {
            r = Result.ok(call.get());
        } catch (VfsException e) {
            r = Result.error(e.errno());
        }
        return new Op(thread, kind, a, b, r, t0, System.nanoTime());
    }

    /** What fstat says of {@code fd} in the model's terms: its inode, a pipe end, or EBADF. */
    private static long fstatValue(VfsTask t, int fd) {
        Stat st = t.fstat(fd);
        return FileType.ofMode(st.mode()) == FileType.FIFO ? PIPE_END : st.ino();
    }

    private static FdState observe(VfsTask t) {
        FdState s = FdState.empty();
        for (int fd = 0; fd < LIMIT; fd++) {
            try {
                s = s.with(fd, fstatValue(t, fd));
            } catch (VfsException e) {
                // free
            }
        }
        return s;
    }

    private static Op randomOp(VfsTask t, int id, long ino, ThreadLocalRandom rnd) {
        String fd = Integer.toString(rnd.nextInt(LIMIT));
        switch (rnd.nextInt(6)) {
            case 0:
                return timed(
                        id,
                        FdCall.OPEN,
                        "/f" + id,
                        Long.toString(ino),
                        () -> (long) t.open("/f" + id, OpenFlags.O_RDWR));
            case 1:
                return timed(id, FdCall.FSTAT, fd, null, () -> fstatValue(t, Integer.parseInt(fd)));
            case 2:
                return timed(
                        id,
                        FdCall.CLOSE,
                        fd,
                        null,
                        () -> {
                            t.close(Integer.parseInt(fd));
                            return 0L;
                        });
            case 3:
                return timed(id, FdCall.DUP, fd, null, () -> (long) t.dup(Integer.parseInt(fd)));
            case 4:
                return timed(
                        id,
                        FdCall.PIPE,
                        "",
                        null,
                        () -> {
                            int[] p = t.pipe();
                            return p[0] * 100L + p[1];
                        });
            default:
                return timed(id, FdCall.FSTAT, fd, null, () -> fstatValue(t, Integer.parseInt(fd)));
        }
    }

    @Test
    void descriptorCalls_onOneSharedTable_areLinearizable_withBatchesInPlay() {
        VfsTask root = fs.root();
        int n = Math.min(4, Stress.threads());
        long[] inos = new long[n];
        for (int i = 0; i < n; i++) {
            root.close(root.open("/f" + i, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644));
            inos[i] = root.stat("/f" + i).ino();
        }
        // Widen the window between a batch's handlers and its publication: a reply sent before
        // the publication then reaches a caller that acts on it while the table still lacks it.
        EngineInternals.beforeFdTablePublish(
                root,
                () -> {
                    long until = System.nanoTime() + 20_000;
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                });
        History history = new History(n);
        String[] failure = new String[1];
        long[] rounds = new long[1];
        long[] ops = new long[1];
        boolean[] stop = new boolean[1];
        Stress.Control[] control = new Stress.Control[1];
        CyclicBarrier barrier =
                new CyclicBarrier(
                        n,
                        () -> {
                            if (history.size() > 0 && failure[0] == null) {
                                FdState after = observe(root);
                                failure[0] =
                                        LinearizabilityChecker.check(
                                                FdState.empty(),
                                                history,
                                                after,
                                                FdTableLinearizabilityTest::step);
                                rounds[0]++;
                                ops[0] += history.size();
                                history.clear();
                                for (int fd = 0; fd < LIMIT; fd++) {
                                    try {
                                        root.close(fd);
                                    } catch (VfsException free) {
                                        // not open
                                    }
                                }
                            }
                            stop[0] = failure[0] != null || !control[0].running();
                        });
        List<Stress.Worker> workers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int id = i;
            workers.add(
                    c -> {
                        control[0] = c;
                        ThreadLocalRandom rnd = ThreadLocalRandom.current();
                        try {
                            while (true) {
                                barrier.await();
                                if (stop[0]) {
                                    return;
                                }
                                for (int k = 0; k < OPS_PER_THREAD; k++) {
                                    history.record(randomOp(root, id, inos[id], rnd));
                                }
                            }
                        } catch (RuntimeException | Error e) {
                            barrier.reset();
                            throw e;
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "descriptor-table linearizability (%d threads x %d ops per round): %d rounds, %d"
                        + " operations checked%n",
                n, OPS_PER_THREAD, rounds[0], ops[0]);
        EngineInternals.beforeFdTablePublish(root, null);
        long[] batches = EngineInternals.fdTableBatches(root);
        System.out.printf(
                "  %d batches published, %d of them of several commands%n", batches[0], batches[1]);
        assertNull(failure[0]);
        assertTrue(rounds[0] >= 10, "too few rounds ran: " + rounds[0]);
        assertTrue(batches[1] > 0, "no batch applied more than one command");
    }
}
