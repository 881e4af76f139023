package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Descriptor credits under a race: creators open with {@code O_CREAT} far from the limit (so most
 * opens reserve with a credit from the table's pool, without a message), while a filler takes every
 * free slot by name ({@code pipe}, {@code dup}) until {@code EMFILE} and gives them back, so the
 * table keeps reaching its limit while credits are held. A credit must always find its slot: an
 * open that fails with {@code EMFILE} has created nothing, an open that succeeds got a descriptor
 * below the limit, and the filler's {@code EMFILE} comes only with every slot taken or held.
 *
 * <pre>
 * /keep0 /keep1        held open on descriptors 0, 1 (RLIMIT_NOFILE 32: 30 slots, 15 credits)
 * /d/w&lt;t&gt;_&lt;n&gt;         the n-th name creator t makes (O_CREAT | O_EXCL), closed at once
 * </pre>
 *
 * At the end {@code /d} holds exactly the names whose open succeeded, the free slots are 2..31 in
 * order and then {@code EMFILE} (nothing installed or reserved behind), the pool is refilled, and
 * fsck (the fixture) is clean.
 */
@SuppressWarnings("ThreadPriorityCheck") // Thread.yield makes contention, not ordering
class FdCreditRaceTest {
    private static final int LIMIT = 32;
    private static final int HELD = 2;

    @RegisterExtension
    final VfsFixture fs =
            new VfsFixture("seqvfs.fd.rlimit-nofile = " + LIMIT + "\nseqvfs.tmpfs.max-inodes = 0")
                    .checkingEndState();

    private static int count(List<DirEntry> entries) {
        int n = 0;
        for (DirEntry e : entries) {
            if (!e.name().equals(".") && !e.name().equals("..")) {
                n++;
            }
        }
        return n;
    }

    /** Checks an open's failure: only EMFILE, and then the name must be absent. */
    private static void checkFailure(
            VfsTask t,
            String name,
            Throwable x,
            LongAdder emfile,
            ConcurrentLinkedQueue<String> v) {
        if (!(x instanceof VfsException e) || e.errno() != Errno.EMFILE) {
            v.add("open(" + name + ") failed with " + x);
            return;
        }
        emfile.increment();
        try {
            t.lstat(name);
            v.add("open(" + name + ") failed with EMFILE but created the file");
        } catch (VfsException absent) {
            if (absent.errno() != Errno.ENOENT) {
                v.add("lstat(" + name + ") after EMFILE: " + absent.errno());
            }
        }
    }

    @Test
    void creditsRacingAFillerAtTheLimit_neverLoseTheirSlot_andTheTableEndsWhereItStarted() {
        VfsTask t = fs.root();
        t.mkdir("/d", 0755);
        for (int i = 0; i < HELD; i++) {
            assertEquals(i, t.open("/keep" + i, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644));
        }
        assertTrue(EngineInternals.descriptorCredits(t) > 1, "the pool holds credits");
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        LongAdder created = new LongAdder();
        LongAdder emfile = new LongAdder();
        LongAdder fills = new LongAdder();
        AtomicInteger ids = new AtomicInteger();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int w = 0; w < Stress.threads() - 1; w++) {
            workers.add(
                    c -> {
                        int id = ids.getAndIncrement();
                        ThreadLocalRandom rnd = ThreadLocalRandom.current();
                        int flags = OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY;
                        for (int n = 0; c.running() && violations.size() < 5; n++) {
                            String name = "/d/w" + id + "_" + n;
                            int fd;
                            try {
                                if (rnd.nextBoolean()) {
                                    fd = t.open(name, flags, 0644);
                                } else {
                                    CompletableFuture<Integer> f =
                                            t.async().open(name, flags, 0644);
                                    fd = f.join();
                                }
                            } catch (VfsException e) {
                                checkFailure(t, name, e, emfile, violations);
                                continue;
                            } catch (CompletionException e) {
                                checkFailure(t, name, e.getCause(), emfile, violations);
                                continue;
                            }
                            if (fd < HELD || fd >= LIMIT) {
                                violations.add("open(" + name + ") returned descriptor " + fd);
                            }
                            created.increment();
                            t.close(fd);
                        }
                    });
        }
        workers.add(
                c -> {
                    List<Integer> mine = new ArrayList<>();
                    while (c.running() && violations.size() < 5) {
                        try {
                            while (true) {
                                if (mine.isEmpty() || (mine.size() & 1) == 0) {
                                    for (int fd : t.pipe()) {
                                        mine.add(fd);
                                    }
                                } else {
                                    mine.add(t.dup(mine.get(0)));
                                }
                            }
                        } catch (VfsException e) {
                            if (e.errno() != Errno.EMFILE) {
                                violations.add("filler: " + e);
                            }
                        }
                        fills.increment();
                        for (int fd : mine) {
                            if (fd < HELD || fd >= LIMIT) {
                                violations.add("filler got descriptor " + fd);
                            }
                            t.close(fd);
                        }
                        mine.clear();
                        Thread.yield();
                    }
                });
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "credits at the limit: %d created, %d EMFILE, %d fills%n",
                created.sum(), emfile.sum(), fills.sum());
        long[] batches = EngineInternals.fdTableBatches(t);
        System.out.printf(
                "  %d batches published, %d of them of several commands%n", batches[0], batches[1]);
        assertEquals(List.of(), List.copyOf(violations));
        assertTrue(created.sum() > 0 && fills.sum() > 0, "the race did not run");
        assertEquals(created.sum(), count(t.readdir("/d")), "names in /d vs successful creates");
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (EngineInternals.reservedDescriptors(t) != 0 && System.nanoTime() < giveUp) {
            Thread.yield();
        }
        assertEquals(0, EngineInternals.reservedDescriptors(t));
        List<Integer> got = new ArrayList<>();
        for (int i = HELD; i < LIMIT; i++) {
            got.add(t.open("/keep0", OpenFlags.O_RDONLY));
        }
        assertEquals(Errno.EMFILE, assertThrows(VfsException.class, () -> t.dup(0)).errno());
        for (int i = 0; i < got.size(); i++) {
            assertEquals(HELD + i, got.get(i), "descriptors left installed or reserved");
        }
        for (int fd : got) {
            t.close(fd);
        }
        for (int i = 0; i < HELD; i++) {
            t.close(i);
        }
        assertEquals(0, EngineInternals.reservedDescriptors(t));
        assertEquals(16, EngineInternals.descriptorCredits(t), "the pool refilled");
    }
}
