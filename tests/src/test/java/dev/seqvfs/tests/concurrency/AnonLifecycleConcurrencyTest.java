package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.anon.AnonFs;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Anonymous inodes (pipes, sockets, socket pairs, eventfds: {@code pipe(2)}, {@code socket(2)},
 * {@code socketpair(2)}, {@code shutdown(2)}, {@code eventfd(2)}) live exactly as long as some
 * descriptor holds them, under concurrency and in both layouts of {@code seqvfs.anon.shared-root}
 * (seed 000: the new one touches no shared structure, the old one hangs every dentry off one
 * pseudo-root).
 *
 * <p>Churn: threads, each with its own task, create and close anonymous files in loops, some closed
 * at once, some kept a while, the rest left to the task's exit. Afterwards no anonymous inode is
 * alive, the created count is exactly what the threads made, and the old layout's pseudo-root has
 * no child left.
 *
 * <p>Fork: a thread of a task closes its anonymous files while another thread forks the task
 * ({@code fork(2)}: the child gets a copy of the table, each open file shared). Then the child
 * holds exactly the files that were still open at the fork, and they stay alive, and usable, after
 * the parent has closed its copies, until the child closes them.
 */
class AnonLifecycleConcurrencyTest {

    /**
     * The new layout (the default): disconnected dentries, per-thread inode numbers, striped
     * counters.
     */
    @Nested
    class NewLayout {
        @RegisterExtension
        final VfsFixture fs = new VfsFixture("seqvfs.anon.shared-root = off").checkingEndState();

        @Test
        void createAndClose_tasksInLoops_noInodeLeftAndEveryCreationCounted() {
            churn(fs, false);
        }
    }

    /** The old layout of seed 000: one shared pseudo-root, shared counters. */
    @Nested
    class SharedRootLayout {
        @RegisterExtension
        final VfsFixture fs = new VfsFixture("seqvfs.anon.shared-root = on").checkingEndState();

        @Test
        void createAndClose_tasksInLoops_noInodeLeftAndEveryCreationCounted() {
            churn(fs, true);
        }
    }

    @Nested
    class Fork {
        @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

        @Test
        void fork_racingTheParentsCloses_childCopiesStayAliveUntilTheChildClosesThem()
                throws Exception {
            forkRace(fs);
        }
    }

    /** Both layouts share one slice of the budget. */
    private static void churn(VfsFixture fs, boolean sharedRoot) {
        AnonFs anon = EngineInternals.anonFs(fs.vfs());
        assertEquals(sharedRoot, anon.sharedRoot(), "layout");
        long createdBefore = anon.createdInodes();
        long liveBefore = anon.liveInodes();
        LongAdder created = new LongAdder();
        LongAdder calls = new LongAdder();
        int n = Stress.threads();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final boolean exitCloses = (i & 1) == 1;
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        Deque<Integer> kept = new ArrayDeque<>();
                        long mine = 0;
                        try {
                            while (c.running()) {
                                int[] fds;
                                switch (r.nextInt(4)) {
                                    case 0:
                                        {
                                            int domain =
                                                    r.nextBoolean()
                                                            ? SocketFlags.AF_UNIX
                                                            : SocketFlags.AF_INET;
                                            int type =
                                                    r.nextBoolean()
                                                            ? SocketFlags.SOCK_STREAM
                                                            : SocketFlags.SOCK_DGRAM;
                                            fds = new int[] {t.socket(domain, type, 0)};
                                            mine += 1;
                                            break;
                                        }
                                    case 1:
                                        {
                                            fds = t.pipe();
                                            mine += 1;
                                            roundTrip(t, fds[1], fds[0]);
                                            break;
                                        }
                                    case 2:
                                        {
                                            fds =
                                                    t.socketpair(
                                                            SocketFlags.AF_UNIX,
                                                            SocketFlags.SOCK_STREAM,
                                                            0);
                                            mine += 2;
                                            roundTrip(t, fds[0], fds[1]);
                                            t.shutdown(fds[r.nextInt(2)], r.nextInt(3));
                                            break;
                                        }
                                    default:
                                        {
                                            fds = new int[] {t.eventfd(r.nextInt(5), 0)};
                                            mine += 1;
                                            eventRoundTrip(t, fds[0]);
                                            break;
                                        }
                                }
                                calls.increment();
                                for (int fd : fds) {
                                    if (r.nextInt(4) == 0) {
                                        kept.add(fd);
                                    } else {
                                        t.close(fd);
                                    }
                                }
                                while (kept.size() > 16) {
                                    t.close(r.nextBoolean() ? kept.pollFirst() : kept.pollLast());
                                }
                            }
                            if (!exitCloses) {
                                while (!kept.isEmpty()) {
                                    t.close(kept.poll());
                                }
                            }
                        } finally {
                            created.add(mine);
                            t.close(); // the exit closes whatever is left
                        }
                    });
        }
        Stress.run(Stress.sliceNanos() / 2, workers);
        System.out.printf(
                "anon %s layout: %d creating calls, %d inodes by %d tasks%n",
                sharedRoot ? "shared-root" : "new", calls.sum(), created.sum(), n);
        assertTrue(calls.sum() >= 50, "the churn did not run");
        assertEquals(
                liveBefore,
                anon.liveInodes(),
                "anonymous inodes alive after every task closed or exited");
        assertEquals(
                createdBefore + created.sum(), anon.createdInodes(), "anonymous inodes created");
        assertEquals(0, anon.pseudoRootChildren(), "dentries left on the pseudo-root");
    }

    /** Writes one byte into {@code w} and reads it back from {@code r}. */
    private static void roundTrip(VfsTask t, int w, int r) {
        byte[] b = {(byte) ThreadLocalRandom.current().nextInt()};
        assertEquals(1, t.write(w, b, 0, 1));
        byte[] got = new byte[1];
        assertEquals(1, t.read(r, got, 0, 1));
        assertEquals(b[0], got[0]);
    }

    /**
     * Adds a value to an eventfd and reads the whole counter back (it was 0 or the initial value).
     */
    private static long eventRoundTrip(VfsTask t, int efd) {
        long v = 1L + ThreadLocalRandom.current().nextInt(1000);
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        assertEquals(8, t.write(efd, b, 0, 8));
        byte[] got = new byte[8];
        assertEquals(8, t.read(efd, got, 0, 8));
        long sum = 0;
        for (int i = 0; i < 8; i++) {
            sum |= (got[i] & 0xffL) << (8 * i);
        }
        assertTrue(sum >= v, "eventfd counter " + sum + " after adding " + v);
        return sum;
    }

    /** What the parent's descriptor {@code fd} held in one round of the fork race. */
    private record Held(String kind, long ino, int peer, boolean readEnd) {}

    private static void forkRace(VfsFixture fs) throws Exception {
        AnonFs anon = EngineInternals.anonFs(fs.vfs());
        VfsTask parent = fs.vfs().newTask(Credentials.ROOT);
        VfsTask closer = parent.newThread();
        VfsTask forker = parent.newThread();
        int rounds = 200;
        LongAdder copied = new LongAdder();
        CyclicBarrier go = new CyclicBarrier(2);
        for (int round = 0; round < rounds; round++) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            Map<Integer, Held> held = new HashMap<>();
            for (int k = 0; k < 6; k++) {
                switch (r.nextInt(4)) {
                    case 0:
                        {
                            int[] p = closer.pipe();
                            long ino = closer.fstat(p[0]).ino();
                            held.put(p[0], new Held("pipe", ino, p[1], true));
                            held.put(p[1], new Held("pipe", ino, p[0], false));
                            break;
                        }
                    case 1:
                        {
                            int[] s =
                                    closer.socketpair(
                                            SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
                            held.put(
                                    s[0],
                                    new Held("socketpair", closer.fstat(s[0]).ino(), s[1], false));
                            held.put(
                                    s[1],
                                    new Held("socketpair", closer.fstat(s[1]).ino(), s[0], false));
                            break;
                        }
                    case 2:
                        {
                            int s = closer.socket(SocketFlags.AF_INET, SocketFlags.SOCK_STREAM, 0);
                            held.put(s, new Held("socket", closer.fstat(s).ino(), -1, false));
                            break;
                        }
                    default:
                        {
                            int e = closer.eventfd(0, 0);
                            held.put(e, new Held("eventfd", closer.fstat(e).ino(), -1, false));
                            break;
                        }
                }
            }
            List<Integer> order = new ArrayList<>(held.keySet());
            Collections.shuffle(order);
            CompletableFuture<VfsTask> child =
                    CompletableFuture.supplyAsync(
                            () -> {
                                await(go);
                                return forker.fork();
                            });
            await(go);
            for (int fd : order) {
                closer.close(fd);
            }
            VfsTask c = child.get(20, TimeUnit.SECONDS);
            // The parent holds none of the round's files now; the child holds a copy of each one
            // still open at the fork, on the same descriptor, and nothing else.
            Map<Integer, Held> inChild = new HashMap<>();
            int maxFd = Collections.max(held.keySet()) + 8;
            for (int fd = 0; fd <= maxFd; fd++) {
                try {
                    c.fcntl(fd, Fcntl.F_GETFD, 0);
                } catch (VfsException e) {
                    assertEquals(Errno.EBADF, e.errno());
                    continue;
                }
                Held h = held.get(fd);
                assertTrue(h != null, "child descriptor " + fd + " is not one the parent had");
                assertEquals(
                        h.ino(),
                        c.fstat(fd).ino(),
                        "child descriptor " + fd + " holds the parent's file");
                inChild.put(fd, h);
            }
            copied.add(inChild.size());
            assertEquals(
                    distinctInos(inChild),
                    anon.liveInodes(),
                    "anonymous inodes alive = those the child's copies hold");
            for (Map.Entry<Integer, Held> e : inChild.entrySet()) {
                use(c, e.getKey(), e.getValue(), inChild);
            }
            List<Integer> childOrder = new ArrayList<>(inChild.keySet());
            Collections.shuffle(childOrder);
            for (int fd : childOrder) {
                c.close(fd);
                inChild.remove(fd);
                assertEquals(
                        distinctInos(inChild), anon.liveInodes(), "after the child closed " + fd);
            }
            c.close();
        }
        System.out.printf(
                "anon fork race: %d rounds, %d descriptors copied into children%n",
                rounds, copied.sum());
        assertTrue(copied.sum() > 0, "no fork ever copied a descriptor");
        forker.close();
        closer.close();
        parent.close();
        assertEquals(0, anon.liveInodes(), "anonymous inodes alive at the end");
    }

    private static long distinctInos(Map<Integer, Held> m) {
        Set<Long> s = new HashSet<>();
        for (Held h : m.values()) {
            s.add(h.ino());
        }
        return s.size();
    }

    /**
     * Uses a descriptor the child holds, after the parent closed its copy: it must still work, and
     * its peer must count as present exactly when the child holds the peer.
     */
    private static void use(VfsTask c, int fd, Held h, Map<Integer, Held> inChild) {
        boolean peerHeld = h.peer() >= 0 && inChild.containsKey(h.peer());
        byte[] one = {42};
        switch (h.kind()) {
            case "pipe":
                if (h.readEnd()) {
                    if (!peerHeld) {
                        assertEquals(
                                0,
                                c.read(fd, new byte[1], 0, 1),
                                "read end without a writer: end of file");
                    }
                } else if (peerHeld) {
                    roundTrip(c, fd, h.peer());
                } else {
                    assertEquals(
                            Errno.EPIPE,
                            errno(() -> c.write(fd, one, 0, 1)),
                            "write end without a reader");
                }
                break;
            case "socketpair":
                if (peerHeld) {
                    roundTrip(c, fd, h.peer());
                } else {
                    assertEquals(
                            Errno.EPIPE,
                            errno(() -> c.write(fd, one, 0, 1)),
                            "socket whose peer is closed");
                    assertEquals(
                            0,
                            c.read(fd, new byte[1], 0, 1),
                            "socket whose peer is closed: end of file");
                }
                break;
            case "socket":
                // an unconnected AF_INET stream socket: Linux answers a write with EPIPE
                // (tcp_sendmsg)
                assertEquals(
                        Errno.EPIPE, errno(() -> c.write(fd, one, 0, 1)), "unconnected TCP socket");
                break;
            default:
                eventRoundTrip(c, fd);
                break;
        }
    }

    private static Errno errno(Runnable call) {
        try {
            call.run();
        } catch (VfsException e) {
            return e.errno();
        }
        return null;
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("barrier", e);
        }
    }
}
