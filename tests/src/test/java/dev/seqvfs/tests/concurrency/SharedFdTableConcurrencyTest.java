package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One descriptor table shared by many threads of a task ({@code clone(CLONE_FILES)}): threads open
 * files, {@code dup2(2)}/{@code dup3(2)} them onto shared descriptor numbers and close, while
 * reader threads {@code fstat(2)}, {@code fcntl(F_GETFD)} and {@code read(2)} those numbers. A
 * descriptor points at its old open file or its new one, never a third and never at nothing while
 * {@code dup2} replaces it ({@code dup2(2)}: "the steps of closing and reusing the file descriptor
 * newfd are performed atomically").
 *
 * <pre>
 * /c&lt;k&gt;_&lt;j&gt;   candidate j of slot k: a regular file of (16 + tag) bytes, every byte the tag
 * </pre>
 *
 * Each slot (a descriptor number from {@link #BASE} up) has its own candidates, and only ever
 * receives one of them, so what a reader sees there must be one of them:
 *
 * <ul>
 *   <li>sequenced slots: one mutator each installs candidate {@code k % 3} as its {@code k}-th
 *       install, publishing the numbers it started and finished; a reader that saw install {@code
 *       L} finished before its call and {@code U} started after it must see one of installs {@code
 *       L..U} (old or new, exactly);
 *   <li>contended slots: every mutator races to install any of the slot's candidates; the first
 *       half are never closed (a reader must never get {@code EBADF}), the others are closed now
 *       and then;
 *   <li>anonymous slots: candidates are an eventfd, a socket and a pipe's read end, kept open on
 *       source descriptors and duplicated from there.
 * </ul>
 *
 * Odd slots are always installed with {@code O_CLOEXEC} ({@code dup3}), even ones without ({@code
 * dup2}), so {@code F_GETFD} must always match the slot. At quiescence every slot holds what its
 * last install put there; after everything is closed the table is empty, every candidate's open
 * count is 0, the root mount's pin count and the live anonymous inodes are back where they started,
 * and fsck (the fixture) is clean.
 */
class SharedFdTableConcurrencyTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    /** The first slot descriptor; open() and dup() allocate far below it. */
    private static final int BASE = 300;

    private static final int CANDIDATES = 3;
    private static final int CONTENDED = 4;
    private static final int ANON = 2;

    /** What a descriptor may legally point at: inode, regular-file tag and size. */
    private record Candidate(int slot, int index, long ino, int tag, long size, String path) {}

    /** One slot: its descriptor number, kind, candidates and (sequenced) install counters. */
    private static final class Slot {
        final int fd;
        final boolean closable;
        final boolean anon;
        boolean sequenced;
        final List<Candidate> candidates = new ArrayList<>();
        final int[] anonSources = new int[CANDIDATES];

        /** Sequenced slots: the last install started, and the last one finished. */
        final AtomicLong started = new AtomicLong();

        final AtomicLong finished = new AtomicLong();

        Slot(int fd, boolean closable, boolean anon) {
            this.fd = fd;
            this.closable = closable;
            this.anon = anon;
        }

        boolean cloexec() {
            return (fd & 1) != 0;
        }

        Candidate byIno(long ino) {
            for (Candidate c : candidates) {
                if (c.ino() == ino) {
                    return c;
                }
            }
            return null;
        }

        Candidate byTag(int tag) {
            for (Candidate c : candidates) {
                if (c.tag() == tag) {
                    return c;
                }
            }
            return null;
        }
    }

    @Test
    void
            dup2AndClose_threadsSharingOneTableWhileOthersReadTheSlots_oldOrNewFileNeverAThirdAndNoLeak() {
        VfsTask root = fs.root();
        long pinsBefore = EngineInternals.namespace(fs.vfs()).rootMount().pinCount();
        long anonBefore = EngineInternals.anonFs(fs.vfs()).liveInodes();
        VfsTask p = fs.vfs().newTask(Credentials.ROOT);
        int mutators = Stress.threads();
        int readers = Math.max(2, Stress.threads() / 2);
        List<Slot> slots = new ArrayList<>();
        List<Slot> sequenced = new ArrayList<>();
        List<Slot> contended = new ArrayList<>();
        int fd = BASE;
        for (int m = 0; m < mutators; m++) {
            Slot s = new Slot(fd++, false, false);
            s.sequenced = true;
            sequenced.add(s);
            slots.add(s);
        }
        for (int k = 0; k < CONTENDED; k++) {
            Slot s = new Slot(fd++, k >= CONTENDED / 2, false);
            contended.add(s);
            slots.add(s);
        }
        for (int k = 0; k < ANON; k++) {
            Slot s = new Slot(fd++, k == 1, true);
            contended.add(s);
            slots.add(s);
        }
        List<Integer> pipeWriteEnds = new ArrayList<>();
        int tag = 1;
        for (Slot s : slots) {
            for (int j = 0; j < CANDIDATES; j++) {
                if (s.anon) {
                    int src;
                    if (j == 0) {
                        src = p.eventfd(0, 0);
                    } else if (j == 1) {
                        src = p.socket(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
                    } else {
                        int[] pipe = p.pipe();
                        pipeWriteEnds.add(pipe[1]);
                        src = pipe[0];
                    }
                    s.anonSources[j] = src;
                    s.candidates.add(new Candidate(s.fd, j, p.fstat(src).ino(), -1, -1, null));
                } else {
                    String path = "/c" + s.fd + "_" + j;
                    int w = root.open(path, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
                    byte[] body = new byte[16 + tag];
                    Arrays.fill(body, (byte) tag);
                    root.write(w, body);
                    root.close(w);
                    s.candidates.add(
                            new Candidate(s.fd, j, root.stat(path).ino(), tag, body.length, path));
                    tag++;
                }
            }
            install(p, s, 0);
        }
        assertTrue(tag < 256, "tags fit in a byte");

        LongAdder installs = new LongAdder();
        LongAdder closes = new LongAdder();
        LongAdder observations = new LongAdder();
        LongAdder badf = new LongAdder();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int m = 0; m < mutators; m++) {
            Slot mine = sequenced.get(m);
            VfsTask t = p.newThread();
            workers.add(
                    c -> {
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        try {
                            while (c.running()) {
                                int dice = r.nextInt(10);
                                if (dice < 4) {
                                    long k = mine.started.get() + 1;
                                    mine.started.set(k);
                                    install(t, mine, (int) (k % CANDIDATES));
                                    mine.finished.set(k);
                                    installs.increment();
                                } else if (dice < 8) {
                                    Slot s = contended.get(r.nextInt(contended.size()));
                                    install(t, s, r.nextInt(CANDIDATES));
                                    installs.increment();
                                } else if (dice < 9) {
                                    Slot s = contended.get(r.nextInt(contended.size()));
                                    if (s.closable) {
                                        try {
                                            t.close(s.fd);
                                            closes.increment();
                                        } catch (VfsException e) {
                                            if (e.errno() != Errno.EBADF) {
                                                throw e;
                                            }
                                        }
                                    }
                                } else {
                                    // Churn below the slots: dup of a source, then close.
                                    Slot s = contended.get(contended.size() - 1);
                                    t.close(t.dup(s.anonSources[r.nextInt(CANDIDATES)]));
                                }
                            }
                        } finally {
                            t.close();
                        }
                    });
        }
        for (int i = 0; i < readers; i++) {
            VfsTask t = p.newThread();
            workers.add(
                    c -> {
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        byte[] buf = new byte[64];
                        try {
                            while (c.running()) {
                                Slot s = slots.get(r.nextInt(slots.size()));
                                long before = s.finished.get();
                                try {
                                    observe(t, s, r.nextInt(s.anon ? 2 : 4), buf, before);
                                    observations.increment();
                                } catch (VfsException e) {
                                    if (e.errno() != Errno.EBADF || !s.closable) {
                                        throw new AssertionError(
                                                "slot "
                                                        + s.fd
                                                        + (s.closable ? "" : " (never closed)")
                                                        + ": "
                                                        + e.errno(),
                                                e);
                                    }
                                    badf.increment();
                                }
                            }
                        } finally {
                            t.close();
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "shared fd table: %d installs, %d closes, %d observations (%d EBADF on closable slots)"
                        + " by %d mutators and %d readers%n",
                installs.sum(), closes.sum(), observations.sum(), badf.sum(), mutators, readers);
        assertTrue(installs.sum() >= 50 && observations.sum() >= 50, "the race did not run");

        // Quiescence: every slot holds what its last install put there.
        for (Slot s : sequenced) {
            Candidate want = s.candidates.get((int) (s.finished.get() % CANDIDATES));
            assertEquals(
                    want.ino(),
                    p.fstat(s.fd).ino(),
                    "sequenced slot " + s.fd + " after install " + s.finished.get());
        }
        for (Slot s : slots) {
            try {
                assertTrue(
                        s.byIno(p.fstat(s.fd).ino()) != null,
                        "slot " + s.fd + " holds one of its candidates");
                assertEquals(s.cloexec() ? Fcntl.FD_CLOEXEC : 0, p.fcntl(s.fd, Fcntl.F_GETFD, 0));
            } catch (VfsException e) {
                assertTrue(
                        s.closable && e.errno() == Errno.EBADF, "slot " + s.fd + ": " + e.errno());
            }
        }

        // Close everything: the table is empty and nothing leaked.
        for (Slot s : slots) {
            if (s.anon) {
                for (int src : s.anonSources) {
                    p.close(src);
                }
            }
            try {
                p.close(s.fd);
            } catch (VfsException e) {
                assertTrue(
                        s.closable && e.errno() == Errno.EBADF,
                        "closing slot " + s.fd + ": " + e.errno());
            }
        }
        for (int w : pipeWriteEnds) {
            p.close(w);
        }
        List<Integer> stillOpen = new ArrayList<>();
        for (int d = 0; d < fd + 64; d++) {
            try {
                p.fcntl(d, Fcntl.F_GETFD, 0);
                stillOpen.add(d);
            } catch (VfsException e) {
                assertEquals(Errno.EBADF, e.errno());
            }
        }
        assertEquals(List.of(), stillOpen, "descriptors left open in the shared table");
        Map<String, Integer> openCounts = new HashMap<>();
        for (Slot s : slots) {
            for (Candidate cand : s.candidates) {
                if (cand.path() != null) {
                    Dentry d =
                            EngineInternals.namespace(fs.vfs())
                                    .rootMount()
                                    .root()
                                    .snapshotAcquire()
                                    .lookup(cand.path().substring(1));
                    if (d.inode().openCount() != 0) {
                        openCounts.put(cand.path(), d.inode().openCount());
                    }
                }
            }
        }
        assertEquals(Map.of(), openCounts, "open counts of candidate files after every close");
        assertEquals(
                anonBefore,
                EngineInternals.anonFs(fs.vfs()).liveInodes(),
                "anonymous inodes alive");
        p.close();
        assertEquals(
                pinsBefore,
                EngineInternals.namespace(fs.vfs()).rootMount().pinCount(),
                "root mount pins");
    }

    /**
     * Installs candidate {@code j} on {@code s}: opened fresh (regular) or from its source
     * (anonymous).
     */
    private static void install(VfsTask t, Slot s, int j) {
        Candidate cand = s.candidates.get(j);
        int src =
                s.anon
                        ? s.anonSources[j]
                        : t.open(cand.path(), j == 2 ? OpenFlags.O_RDWR : OpenFlags.O_RDONLY);
        try {
            int got = s.cloexec() ? t.dup3(src, s.fd, OpenFlags.O_CLOEXEC) : t.dup2(src, s.fd);
            if (got != s.fd) {
                throw new AssertionError("dup2 onto " + s.fd + " returned " + got);
            }
        } finally {
            if (!s.anon) {
                t.close(src);
            }
        }
    }

    /**
     * Makes one reading call on {@code s} and checks what it shows against the slot's candidates
     * (and, on a sequenced slot, against the installs that overlapped the call).
     *
     * @param what 0 fstat, 1 F_GETFD, 2 read, 3 pread
     * @param finishedBefore the slot's finished-install number sampled before the call
     */
    private static void observe(VfsTask t, Slot s, int what, byte[] buf, long finishedBefore) {
        Candidate seen;
        switch (what) {
            case 0:
                {
                    Stat st = t.fstat(s.fd);
                    seen = s.byIno(st.ino());
                    if (seen == null) {
                        throw new AssertionError(
                                "fstat("
                                        + s.fd
                                        + ") shows inode "
                                        + st.ino()
                                        + ", not a candidate of the"
                                        + " slot: "
                                        + s.candidates);
                    }
                    if (!s.anon && st.size() != seen.size()) {
                        throw new AssertionError(
                                "fstat("
                                        + s.fd
                                        + ") shows inode "
                                        + st.ino()
                                        + " with size "
                                        + st.size()
                                        + ", its size is "
                                        + seen.size());
                    }
                    break;
                }
            case 1:
                {
                    int flags = t.fcntl(s.fd, Fcntl.F_GETFD, 0);
                    if (flags != (s.cloexec() ? Fcntl.FD_CLOEXEC : 0)) {
                        throw new AssertionError(
                                "F_GETFD("
                                        + s.fd
                                        + ") = "
                                        + flags
                                        + ", every install there has"
                                        + (s.cloexec() ? "" : " no")
                                        + " FD_CLOEXEC");
                    }
                    return;
                }
            default:
                {
                    int n =
                            what == 2
                                    ? t.read(s.fd, buf, 0, buf.length)
                                    : t.pread(s.fd, buf, 0, buf.length, 0);
                    if (n == 0) {
                        if (what == 3) {
                            throw new AssertionError(
                                    "pread(" + s.fd + ", 0) of a non-empty candidate read nothing");
                        }
                        t.lseek(s.fd, 0, VfsTask.SEEK_SET);
                        return;
                    }
                    seen = s.byTag(buf[0] & 0xff);
                    for (int i = 0; i < n; i++) {
                        if (buf[i] != buf[0]) {
                            throw new AssertionError(
                                    "read("
                                            + s.fd
                                            + ") mixed bytes of two files: "
                                            + Arrays.toString(Arrays.copyOf(buf, n)));
                        }
                    }
                    if (seen == null || n > seen.size()) {
                        throw new AssertionError(
                                "read("
                                        + s.fd
                                        + ") returned "
                                        + n
                                        + " bytes of tag "
                                        + (buf[0] & 0xff)
                                        + ", not a candidate of the slot: "
                                        + s.candidates);
                    }
                    break;
                }
        }
        if (!s.sequenced) {
            return;
        }
        long startedAfter = s.started.get();
        for (long k = finishedBefore; k <= startedAfter; k++) {
            if (k % CANDIDATES == seen.index()) {
                return;
            }
        }
        throw new AssertionError(
                "slot "
                        + s.fd
                        + " showed candidate "
                        + seen.index()
                        + " but only installs "
                        + finishedBefore
                        + ".."
                        + startedAfter
                        + " (candidates "
                        + (finishedBefore % CANDIDATES)
                        + ".."
                        + (startedAfter % CANDIDATES)
                        + " mod "
                        + CANDIDATES
                        + ") overlapped the call");
    }
}
