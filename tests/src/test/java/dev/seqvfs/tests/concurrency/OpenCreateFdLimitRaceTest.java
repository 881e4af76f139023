package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code open(O_CREAT)} racing for the last descriptors of a shared table: Linux reserves the
 * descriptor before it creates ({@code get_unused_fd_flags} in {@code do_sys_openat2}), so an open
 * that fails with {@code EMFILE} has created nothing, and one that succeeds has both created and
 * installed. Checking the published table first and creating second let a concurrent open take the
 * last slot in between: the new file stayed, the open said {@code EMFILE}.
 *
 * <pre>
 * /keep0 .. /keep12   held open on descriptors 0..12 (RLIMIT_NOFILE 16: 3 slots left)
 * /d/w&lt;t&gt;_&lt;n&gt;         the n-th name worker t creates (O_CREAT | O_EXCL), closed at once
 * </pre>
 *
 * {@code 2 x CPUs} workers (more than the free slots) share the root task's table. Every {@code
 * EMFILE} must find its name absent right after; at the end {@code /d} holds exactly the names
 * whose open succeeded, the three free slots are 13, 14, 15 again (nothing installed or reserved
 * behind), and fsck (the fixture) finds no reserved descriptor.
 */
@SuppressWarnings("ThreadPriorityCheck") // Thread.yield makes contention, not ordering
class OpenCreateFdLimitRaceTest {
    private static final int LIMIT = 16;
    private static final int HELD = 13;

    @RegisterExtension
    final VfsFixture fs =
            new VfsFixture(
                            "seqvfs.fd.rlimit-nofile = "
                                    + LIMIT
                                    + "\n"
                                    // the races create names for the whole slice: no inode limit
                                    + "seqvfs.tmpfs.max-inodes = 0")
                    .checkingEndState();

    private void fillTable(VfsTask t) {
        t.mkdir("/d", 0755);
        for (int i = 0; i < HELD; i++) {
            assertEquals(i, t.open("/keep" + i, OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644));
        }
    }

    /** The free slots are exactly HELD..LIMIT-1, in order, then EMFILE; closes what it opened. */
    private void assertFreeSlotsAreTheLastThree(VfsTask t) {
        List<Integer> got = new ArrayList<>();
        for (int i = HELD; i < LIMIT; i++) {
            got.add(t.open("/keep0", OpenFlags.O_RDONLY));
        }
        VfsException full =
                org.junit.jupiter.api.Assertions.assertThrows(
                        VfsException.class, () -> t.open("/keep0", OpenFlags.O_RDONLY));
        assertEquals(Errno.EMFILE, full.errno());
        assertEquals(
                List.of(13, 14, 15), got, "descriptors left installed or reserved by the race");
        for (int fd : got) {
            t.close(fd);
        }
        assertEquals(0, EngineInternals.reservedDescriptors(t));
    }

    private void closeHeld(VfsTask t) {
        for (int i = 0; i < HELD; i++) {
            t.close(i);
        }
    }

    private static int count(List<DirEntry> entries) {
        int n = 0;
        for (DirEntry e : entries) {
            if (!e.name().equals(".") && !e.name().equals("..")) {
                n++;
            }
        }
        return n;
    }

    @Test
    void openCreat_racingForTheLastDescriptors_emfileLeavesNoFileAndNoReservedDescriptor() {
        VfsTask t = fs.root();
        fillTable(t);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        LongAdder created = new LongAdder();
        LongAdder emfile = new LongAdder();
        AtomicInteger ids = new AtomicInteger();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int w = 0; w < Stress.threads(); w++) {
            workers.add(
                    c -> {
                        int id = ids.getAndIncrement();
                        for (int n = 0; c.running() && violations.size() < 5; n++) {
                            String name = "/d/w" + id + "_" + n;
                            int fd;
                            try {
                                fd =
                                        t.open(
                                                name,
                                                OpenFlags.O_CREAT
                                                        | OpenFlags.O_EXCL
                                                        | OpenFlags.O_WRONLY,
                                                0644);
                            } catch (VfsException e) {
                                if (e.errno() != Errno.EMFILE) {
                                    violations.add("open(" + name + ") failed with " + e.errno());
                                    continue;
                                }
                                emfile.increment();
                                try {
                                    t.lstat(name);
                                    violations.add(
                                            "open("
                                                    + name
                                                    + ") failed with EMFILE but created the file");
                                } catch (VfsException absent) {
                                    if (absent.errno() != Errno.ENOENT) {
                                        violations.add(
                                                "lstat("
                                                        + name
                                                        + ") after EMFILE: "
                                                        + absent.errno());
                                    }
                                }
                                continue;
                            }
                            created.increment();
                            t.close(fd);
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "O_CREAT at the descriptor limit: %d created, %d EMFILE%n",
                created.sum(), emfile.sum());
        assertEquals(List.of(), List.copyOf(violations));
        assertTrue(created.sum() > 0 && emfile.sum() > 0, "the race did not run");
        assertEquals(created.sum(), count(t.readdir("/d")), "names in /d vs successful creates");
        assertFreeSlotsAreTheLastThree(t);
        closeHeld(t);
    }

    @Test
    void
            openCreatAsync_racingForTheLastDescriptors_andWithdrawn_leavesNoInstalledOrReservedDescriptor() {
        VfsTask t = fs.root();
        fillTable(t);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        LongAdder opened = new LongAdder();
        LongAdder withdrawn = new LongAdder();
        LongAdder emfile = new LongAdder();
        AtomicInteger ids = new AtomicInteger();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int w = 0; w < Stress.threads(); w++) {
            workers.add(
                    c -> {
                        int id = ids.getAndIncrement();
                        ThreadLocalRandom rnd = ThreadLocalRandom.current();
                        for (int n = 0; c.running() && violations.size() < 5; n++) {
                            String name = "/d/a" + id + "_" + n;
                            CompletableFuture<Integer> f =
                                    t.async()
                                            .open(
                                                    name,
                                                    OpenFlags.O_CREAT
                                                            | OpenFlags.O_EXCL
                                                            | OpenFlags.O_WRONLY,
                                                    0644);
                            if (rnd.nextInt(3) == 0 && f.cancel(false)) {
                                withdrawn.increment();
                                continue;
                            }
                            try {
                                t.close(f.join());
                                opened.increment();
                            } catch (CompletionException e) {
                                Throwable cause = e.getCause();
                                if (cause instanceof VfsException v && v.errno() == Errno.EMFILE) {
                                    emfile.increment();
                                    try {
                                        t.lstat(name);
                                        violations.add(
                                                "openAsync("
                                                        + name
                                                        + ") failed with EMFILE but created the file");
                                    } catch (VfsException absent) {
                                        // nothing was created
                                    }
                                } else {
                                    violations.add("openAsync(" + name + "): " + cause);
                                }
                            }
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "async O_CREAT at the descriptor limit: %d opened, %d withdrawn, %d EMFILE%n",
                opened.sum(), withdrawn.sum(), emfile.sum());
        assertEquals(List.of(), List.copyOf(violations));
        assertTrue(opened.sum() > 0 && emfile.sum() > 0, "the race did not run");
        // A withdrawn open's stages run to their end on the threads that answer them; wait
        // (bounded) until the last of them gave its reservation back.
        long giveUp = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (EngineInternals.reservedDescriptors(t) != 0 && System.nanoTime() < giveUp) {
            Thread.yield();
        }
        assertFreeSlotsAreTheLastThree(t);
        closeHeld(t);
    }
}
