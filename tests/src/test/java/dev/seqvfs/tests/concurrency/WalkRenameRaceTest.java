package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Path walks racing renames never report a state that did not exist at one instant ({@code
 * path_resolution(7)}, {@code rename(2)}: "If newpath already exists, it will be atomically
 * replaced, so that there is no point at which another process attempting to access newpath will
 * find it missing"; SeqVFS's linearizability target).
 *
 * <p>One mutator moves a directory {@code D} between two places, {@code P0} and {@code P1}, and
 * while {@code D} sits at {@code Pi} creates and removes marker files {@code D/only_i} and {@code
 * D/sub/only_i}; those markers therefore only ever exist while {@code D} is at {@code Pi}. Walkers
 * stat paths that would need {@code D} to be at one place and the marker of the other place at the
 * same instant, directly, one level down, and through {@code ".."}: any success is a
 * non-linearizable observation. They also stat paths that climb out of {@code D} by {@code ".."}
 * and come back down at the other place ({@code /A/D/sub/../../../B/D}), which needs {@code D} at
 * both places at once. A directory descriptor on {@code /A} (and {@code D}) is listed with {@code
 * getdents} in chunks of three: one chunk is one snapshot, so it never holds both names of {@code
 * D} (nor both markers), and every untouched name appears exactly once per listing. Half the
 * walkers sit in {@code D/sub}: their {@code getcwd()} names one of D's two places, and relative
 * walks that climb out of D by {@code ".."} never find a name of D's old parent that exists only
 * while D is elsewhere (the walk read D's parent link: only the rename sequence, not the per-lookup
 * trail, validates that read).
 *
 * <pre>
 * cross-directory:  /A/D/sub   /B          D moves /A/D &lt;-&gt; /B/D
 * same-directory:   /A/D/sub               D moves /A/D &lt;-&gt; /A/E
 * plus untouched files /A/a0 .. /A/a7, /B/b0 .. /B/b7 and directories /A/x, /B/x
 * </pre>
 */
class WalkRenameRaceTest {
    /**
     * Least mutator rounds (and walks overlapping a rename) that show the race ran: low, because
     * the machine may be shared; a quiet 2-core machine does thousands.
     */
    private static final int MIN_ROUNDS = 20;

    /**
     * From D/sub, paths to a name that exists only while D is at its other place. The {@code x/..}
     * detours (x: an untouched directory in both /A and /B) only widen the window between reading
     * D's parent link and the final lookup.
     */
    private static final List<String> RELATIVE_IMPOSSIBLE =
            List.of(
                    "../../whileAt1",
                    "../../whileAt0",
                    "../../x/../x/../x/../x/../x/../whileAt1",
                    "../../x/../x/../x/../x/../x/../whileAt0");

    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    /** The two places of D and the paths that must never resolve. */
    private record Scenario(
            String p0,
            String p1,
            List<String> impossible,
            List<String> possible,
            boolean crossDirectory) {}

    @Test
    void stat_racingCrossDirectoryRenames_neverSeesNameFromOtherPlace() {
        Scenario s =
                new Scenario(
                        "/A/D",
                        "/B/D",
                        List.of(
                                "/A/D/only1",
                                "/A/D/sub/only1",
                                "/A/D/sub/../only1",
                                "/A/./D/sub/../sub/only1",
                                "/B/D/only0",
                                "/B/D/sub/only0",
                                "/B/D/sub/../only0",
                                "/B/D/sub/../sub/./only0",
                                "/A/D/sub/../../../B/D",
                                "/B/D/sub/../../../A/D",
                                "/A/D/sub/../../../B/D/sub/only1",
                                "/B/../A/D/sub/../../../B/D/only0"),
                        List.of("/A/D/only0", "/B/D/only1", "/A/D/sub/only0", "/B/D/sub/only1"),
                        true);
        race(s);
    }

    @Test
    void stat_racingSameDirectoryRenames_neverSeesNameFromOtherPlace() {
        Scenario s =
                new Scenario(
                        "/A/D",
                        "/A/E",
                        List.of(
                                "/A/D/only1",
                                "/A/D/sub/only1",
                                "/A/D/sub/../only1",
                                "/A/./D/sub/../sub/only1",
                                "/A/E/only0",
                                "/A/E/sub/only0",
                                "/A/E/sub/../only0",
                                "/A/E/sub/../sub/./only0",
                                "/A/D/sub/../../E",
                                "/A/E/sub/../../D",
                                "/A/D/sub/../../E/sub/only1",
                                "/B/../A/E/sub/../../D/only0"),
                        List.of("/A/D/only0", "/A/E/only1", "/A/D/sub/only0", "/A/E/sub/only1"),
                        false);
        race(s);
    }

    private void race(Scenario s) {
        VfsTask root = fs.root();
        root.mkdir("/A", 0755);
        root.mkdir("/B", 0755);
        root.mkdir("/A/D", 0755);
        root.mkdir("/A/D/sub", 0755);
        root.mkdir("/A/x", 0755);
        root.mkdir("/B/x", 0755);
        Set<String> untouchedA = new HashSet<>();
        for (int i = 0; i < 8; i++) {
            root.mknod("/A/a" + i, Mode.S_IFREG | 0644, 0);
            root.mknod("/B/b" + i, Mode.S_IFREG | 0644, 0);
            untouchedA.add("a" + i);
        }
        untouchedA.add("x");
        long dIno = root.stat("/A/D").ino();
        long subIno = root.stat("/A/D/sub").ino();
        String name0 = s.p0().substring(s.p0().lastIndexOf('/') + 1);
        String name1 = s.p1().substring(s.p1().lastIndexOf('/') + 1);

        // Even while D rests, odd while a rename is in flight.
        AtomicLong epoch = new AtomicLong();
        LongAdder walks = new LongAdder();
        LongAdder overlapping = new LongAdder();
        LongAdder positives = new LongAdder();
        LongAdder listings = new LongAdder();
        long[] rounds = new long[1];
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

        List<Stress.Worker> workers = new ArrayList<>();
        workers.add(
                c -> {
                    VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                    while (c.running()) {
                        epoch.incrementAndGet();
                        t.rename(s.p0(), s.p1());
                        epoch.incrementAndGet();
                        marker(t, s.p1(), "only1");
                        if (s.crossDirectory()) {
                            t.mknod("/A/whileAt1", Mode.S_IFREG | 0644, 0);
                            t.unlink("/A/whileAt1");
                        }
                        epoch.incrementAndGet();
                        t.rename(s.p1(), s.p0());
                        epoch.incrementAndGet();
                        marker(t, s.p0(), "only0");
                        if (s.crossDirectory()) {
                            t.mknod("/B/whileAt0", Mode.S_IFREG | 0644, 0);
                            t.unlink("/B/whileAt0");
                        }
                        rounds[0]++;
                    }
                });
        int walkers = Stress.threads() - 1;
        for (int w = 0; w < walkers; w++) {
            final int id = w;
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        // Odd walkers sit in D/sub and also walk relative paths that climb out by
                        // "..".
                        boolean inSub = (id & 1) == 1 && chdirIntoSub(t, s);
                        List<String> impossible = s.impossible();
                        List<String> possible = s.possible();
                        int i = id;
                        while (c.running()) {
                            i++;
                            if (id == 0 && (i & 63) == 0) {
                                listDirectories(t, untouchedA, name0, name1, violations);
                                listings.increment();
                                continue;
                            }
                            long e0 = epoch.get();
                            String path = impossible.get(i % impossible.size());
                            try {
                                Stat st = t.stat(NamespaceWorkload.eitherForm(path));
                                violations.add("stat(" + path + ") succeeded: ino " + st.ino());
                            } catch (VfsException e) {
                                if (e.errno() != Errno.ENOENT) {
                                    violations.add(
                                            "stat("
                                                    + path
                                                    + ") failed with "
                                                    + e.errno()
                                                    + ", expected ENOENT");
                                }
                            }
                            String p = possible.get(i % possible.size());
                            try {
                                t.stat(NamespaceWorkload.eitherForm(p));
                                positives.increment();
                            } catch (VfsException e) {
                                if (e.errno() != Errno.ENOENT) {
                                    violations.add("stat(" + p + ") failed with " + e.errno());
                                }
                            }
                            if (inSub) {
                                checkRelative(t, s, violations);
                                walks.add(s.crossDirectory() ? 1 + RELATIVE_IMPOSSIBLE.size() : 1);
                            }
                            String place = (i & 1) == 0 ? s.p0() : s.p1();
                            checkIno(t, place + "/sub/..", dIno, violations);
                            checkIno(t, place + "/sub/../sub", subIno, violations);
                            long e1 = epoch.get();
                            walks.add(4);
                            if (e1 != e0 || (e0 & 1) != 0) {
                                overlapping.increment();
                            }
                            if (violations.size() > 20) {
                                throw new AssertionError("violations: " + violations);
                            }
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);

        System.out.printf(
                "%s: %d mutator rounds, %d walks (%d stat groups overlapping a rename), "
                        + "%d possible-path hits, %d listings, walkRetries=%d refWalks=%d%n",
                s.p1().startsWith("/B") ? "cross-directory" : "same-directory",
                rounds[0],
                walks.sum(),
                overlapping.sum(),
                positives.sum(),
                listings.sum(),
                fs.vfs().walkRetries(),
                fs.vfs().refWalks());
        assertEquals(List.of(), new ArrayList<>(violations), "non-linearizable observations");
        assertTrue(
                rounds[0] >= MIN_ROUNDS,
                "the mutator made too little progress: " + rounds[0] + " rounds");
        assertTrue(
                overlapping.sum() >= MIN_ROUNDS,
                "too few walks overlapped a rename: " + overlapping.sum());
        assertTrue(
                fs.vfs().walkRetries() > 0,
                "no optimistic walk ever failed validation: the race was not hit");
        assertTrue(listings.sum() > 0, "no directory listing ran");
    }

    /** Makes {@code D/sub} the task's working directory, wherever D is now. */
    private static boolean chdirIntoSub(VfsTask t, Scenario s) {
        for (int attempt = 0; attempt < 1000; attempt++) {
            for (String p : List.of(s.p0(), s.p1())) {
                try {
                    t.chdir(p + "/sub");
                    return true;
                } catch (VfsException e) {
                    if (e.errno() != Errno.ENOENT) {
                        throw e;
                    }
                }
            }
        }
        throw new AssertionError("D/sub found at neither " + s.p0() + " nor " + s.p1());
    }

    /**
     * From a working directory of D/sub: getcwd names one of D's two places, and (across
     * directories) ".." out of D never reaches a name that exists only while D is at the other
     * place: /A/whileAt1 exists only while D is at /B, /B/whileAt0 only while D is at /A.
     */
    private static void checkRelative(
            VfsTask t, Scenario s, ConcurrentLinkedQueue<String> violations) {
        String cwd = t.getcwd();
        if (!cwd.equals(s.p0() + "/sub") && !cwd.equals(s.p1() + "/sub")) {
            violations.add("getcwd() in D/sub returned " + cwd);
        }
        if (!s.crossDirectory()) {
            return;
        }
        for (String rel : RELATIVE_IMPOSSIBLE) {
            try {
                Stat st = t.stat(rel);
                violations.add("stat(" + rel + ") from D/sub succeeded: ino " + st.ino());
            } catch (VfsException e) {
                if (e.errno() != Errno.ENOENT) {
                    violations.add("stat(" + rel + ") from D/sub failed with " + e.errno());
                }
            }
        }
    }

    /** Creates and removes {@code dir/name} and {@code dir/sub/name}. */
    private static void marker(VfsTask t, String dir, String name) {
        t.mknod(dir + "/" + name, Mode.S_IFREG | 0644, 0);
        t.mknod(dir + "/sub/" + name, Mode.S_IFREG | 0644, 0);
        t.unlink(dir + "/sub/" + name);
        t.unlink(dir + "/" + name);
    }

    private static void checkIno(
            VfsTask t, String path, long expected, ConcurrentLinkedQueue<String> violations) {
        try {
            long ino = t.stat(path).ino();
            if (ino != expected) {
                violations.add("stat(" + path + ") found inode " + ino + ", expected " + expected);
            }
        } catch (VfsException e) {
            if (e.errno() != Errno.ENOENT) {
                violations.add("stat(" + path + ") failed with " + e.errno());
            }
        }
    }

    /**
     * Lists /A and D through descriptors in chunks of three: no chunk (one snapshot) holds both
     * names of D or both markers, each untouched name appears exactly once, D's {@code sub} exactly
     * once.
     */
    private static void listDirectories(
            VfsTask t,
            Set<String> untouchedA,
            String name0,
            String name1,
            ConcurrentLinkedQueue<String> violations) {
        int fd = t.open("/A", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            Map<String, Integer> seen = new HashMap<>();
            while (true) {
                List<DirEntry> chunk = t.getdents(fd, 3);
                if (chunk.isEmpty()) {
                    break;
                }
                Set<String> names = new HashSet<>();
                for (DirEntry e : chunk) {
                    names.add(e.name());
                    seen.merge(e.name(), 1, Integer::sum);
                }
                if (!name0.equals(name1) && names.contains(name0) && names.contains(name1)) {
                    violations.add(
                            "one getdents chunk of /A holds both "
                                    + name0
                                    + " and "
                                    + name1
                                    + ": "
                                    + chunk);
                }
            }
            for (String u : untouchedA) {
                if (seen.getOrDefault(u, 0) != 1) {
                    violations.add(
                            "listing of /A shows " + u + " " + seen.getOrDefault(u, 0) + " times");
                }
            }
            for (Map.Entry<String, Integer> e : seen.entrySet()) {
                // D's names are touched: renamed back, a name gets a new cookie and may show
                // again. So is /A/whileAt1, made and removed once per round: each making is a
                // new entry with a new cookie, and a listing spanning two rounds may show both.
                if (e.getValue() != 1
                        && !e.getKey().equals(name0)
                        && !e.getKey().equals(name1)
                        && !e.getKey().equals("whileAt1")) {
                    violations.add(
                            "listing of /A shows " + e.getKey() + " " + e.getValue() + " times");
                }
            }
        } finally {
            t.close(fd);
        }
        int dfd;
        try {
            dfd = t.open("/A/" + name0, OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        } catch (VfsException e) {
            if (e.errno() != Errno.ENOENT) {
                violations.add("open(/A/" + name0 + ") failed with " + e.errno());
            }
            return;
        }
        try {
            int subs = 0;
            while (true) {
                List<DirEntry> chunk = t.getdents(dfd, 3);
                if (chunk.isEmpty()) {
                    break;
                }
                Set<String> names = new HashSet<>();
                for (DirEntry e : chunk) {
                    names.add(e.name());
                    if (e.name().equals("sub")) {
                        subs++;
                    }
                }
                if (names.contains("only0") && names.contains("only1")) {
                    violations.add("one getdents chunk of D holds both markers: " + chunk);
                }
            }
            if (subs != 1) {
                violations.add("listing of D shows sub " + subs + " times");
            }
        } finally {
            t.close(dfd);
        }
    }
}
