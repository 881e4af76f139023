package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code chmod}, {@code chown} and {@code utimensat} by path racing a rename that swaps two names:
 * the change must take effect at an instant at which the path still names the inode it changes
 * (SeqVFS's linearizability target). Applying it by CAS right after the walk let it land on a file
 * the path no longer named.
 *
 * <pre>
 * /d/a, /d/b   two regular files, X and Y; each round swaps them (RENAME_EXCHANGE)
 * </pre>
 *
 * Each round runs two threads. C changes {@code /d/a} with a value unique to the round. R swaps
 * {@code a} and {@code b}, then reads the attribute of {@code /d/b} (X, the file {@code a} named
 * before). Only two outcomes have a linear order: C before the swap (X has the value, and R's read
 * after the swap saw it), or C after it (Y has the value, X kept its old one, and R saw the old
 * one). X holding the value that R's read did not see means the change reached X after X had been
 * renamed to {@code b}.
 *
 * <p>To make the bad interleaving certain instead of rare, the instance's clock (which the change
 * reads for ctime, between its walk and its CAS) holds C's first reading until R has swapped and
 * read, or for {@link #WINDOW_MS}: where the change applies inside the directory's actor while its
 * proof holds, R's swap waits behind it and the window passes with nothing moved.
 */
@Timeout(120)
class SetattrRenameRaceTest {
    private static final long WINDOW_MS = 100;
    private static final int ROUNDS = 12;

    /** A clock that, once armed for a thread, holds that thread's next reading open. */
    private static final class GateClock implements VfsClock {
        volatile Thread armed;
        volatile CountDownLatch inWindow = new CountDownLatch(0);
        volatile CountDownLatch renamerDone = new CountDownLatch(0);

        @Override
        public long nowNanos() {
            if (Thread.currentThread() == armed) {
                armed = null;
                inWindow.countDown();
                try {
                    renamerDone.await(WINDOW_MS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return VfsClock.SYSTEM.nowNanos();
        }
    }

    /** The change of round {@code r}: its kind cycles chmod, chown, utimensat. */
    private static void change(VfsTask t, int r) {
        switch (r % 3) {
            case 0 -> t.chmod("/d/a", tag(r));
            case 1 -> t.chown("/d/a", tag(r), -1);
            default ->
                    t.utimensat(
                            VfsTask.AT_FDCWD, "/d/a", Timespec.OMIT, new Timespec(tag(r), 0), 0);
        }
    }

    private static int tag(int r) {
        return r % 3 == 0 ? 0400 + r : 1000 + r;
    }

    /** The attribute round {@code r} changes. */
    private static long attr(Stat s, int r) {
        switch (r % 3) {
            case 0:
                return s.permissions();
            case 1:
                return s.uid();
            default:
                return s.mtimeNanos() / 1_000_000_000L;
        }
    }

    @Test
    void setattrByPath_racingAnExchangeOfItsName_landsOnlyWhereThePathLeads() throws Exception {
        GateClock clock = new GateClock();
        try (SeqVfs vfs =
                SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"), clock)) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/d", 0755);
            t.mknod("/d/a", Mode.S_IFREG | 0644, 0);
            t.mknod("/d/b", Mode.S_IFREG | 0644, 0);
            List<String> violations = new ArrayList<>();
            int hooked = 0;
            for (int r = 1; r <= ROUNDS; r++) {
                final int round = r;
                Stat before = t.stat("/d/a");
                long old = attr(before, r);
                CountDownLatch inWindow = new CountDownLatch(1);
                CountDownLatch renamerDone = new CountDownLatch(1);
                clock.inWindow = inWindow;
                clock.renamerDone = renamerDone;
                AtomicReference<Throwable> failure = new AtomicReference<>();
                long[] seen = new long[1];
                boolean[] inside = new boolean[1];
                Thread c =
                        new Thread(
                                () -> {
                                    try {
                                        VfsTask ct = vfs.newTask(Credentials.ROOT);
                                        clock.armed = Thread.currentThread();
                                        change(ct, round);
                                    } catch (Throwable e) {
                                        failure.compareAndSet(null, e);
                                    } finally {
                                        clock.armed = null;
                                        inWindow.countDown();
                                    }
                                },
                                "setattr");
                Thread rn =
                        new Thread(
                                () -> {
                                    try {
                                        VfsTask rt = vfs.newTask(Credentials.ROOT);
                                        inside[0] = inWindow.await(10, TimeUnit.SECONDS);
                                        rt.renameat2(
                                                VfsTask.AT_FDCWD,
                                                "/d/a",
                                                VfsTask.AT_FDCWD,
                                                "/d/b",
                                                OpenFlags.RENAME_EXCHANGE);
                                        seen[0] = attr(rt.stat("/d/b"), round);
                                    } catch (Throwable e) {
                                        failure.compareAndSet(null, e);
                                    } finally {
                                        renamerDone.countDown();
                                    }
                                },
                                "renamer");
                c.start();
                rn.start();
                c.join(TimeUnit.SECONDS.toMillis(30));
                rn.join(TimeUnit.SECONDS.toMillis(30));
                assertTrue(!c.isAlive() && !rn.isAlive(), "round " + r + " did not finish");
                if (failure.get() != null) {
                    throw new AssertionError("round " + r, failure.get());
                }
                if (inside[0]) {
                    hooked++;
                }
                Stat x = t.stat("/d/b");
                Stat y = t.stat("/d/a");
                assertEquals(before.ino(), x.ino(), "the swap happened");
                long want = tag(r);
                boolean changeFirst = attr(x, r) == want && seen[0] == want;
                boolean swapFirst = attr(y, r) == want && attr(x, r) == old && seen[0] == old;
                if (!changeFirst && !swapFirst) {
                    violations.add(
                            "round "
                                    + r
                                    + ": X (now b) has "
                                    + attr(x, r)
                                    + ", Y (now a) has "
                                    + attr(y, r)
                                    + ", the read of b after the swap saw "
                                    + seen[0]
                                    + " (value "
                                    + want
                                    + ", old "
                                    + old
                                    + ")");
                }
            }
            assertEquals(List.of(), violations);
            assertEquals(
                    ROUNDS,
                    hooked,
                    "rounds in which the change was held between its walk and its apply");
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }
}
