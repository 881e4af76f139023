package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cross-directory renames that would create loops, racing each other: a directory is never moved
 * into its own subtree, so the tree never gets a cycle and never loses a subtree ({@code
 * rename(2)}: {@code EINVAL} "an attempt was made to make a directory a subdirectory of itself";
 * {@code ENOTEMPTY} when the target is a non-empty directory or an ancestor of the source; {@code
 * EEXIST} with {@code RENAME_NOREPLACE}).
 *
 * <pre>
 * four directories x, y, z, w with unique names, starting as /x, /x/y, /z, /z/w
 * </pre>
 *
 * Two threads race the brief's pair, {@code rename(/x/y, /z/w/y)} against {@code rename(/z,
 * /x/y/z)}, and their inverses; the others rename a random path of 1..3 of the names to another
 * path ending in the same name (sometimes through {@code ".."}, sometimes with {@code
 * RENAME_NOREPLACE}), so a directory keeps its name and names stay unique. Readers stat random
 * paths (a hit must be the directory its last name names) and a task sitting in {@code w} calls
 * {@code getcwd}, which must name a path of distinct names ending in {@code w}. At quiescence the
 * four directories are all reachable, once each, and {@code Fsck} (the fixture) finds no cycle and
 * no lost inode.
 */
class RenameLoopConcurrencyTest {
    private static final String[] NAMES = {"x", "y", "z", "w"};
    private static final Set<Errno> EXPECTED =
            EnumSet.of(Errno.EINVAL, Errno.ENOENT, Errno.ENOTEMPTY, Errno.EEXIST);

    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    @Test
    void rename_racingIntoEachOthersSubtrees_neverMakesCycleOrLosesSubtree() {
        VfsTask root = fs.root();
        root.mkdir("/x", 0755);
        root.mkdir("/x/y", 0755);
        root.mkdir("/z", 0755);
        root.mkdir("/z/w", 0755);
        Map<String, Long> ino = new HashMap<>();
        for (String p : List.of("/x", "/x/y", "/z", "/z/w")) {
            ino.put(p.substring(p.lastIndexOf('/') + 1), root.stat(p).ino());
        }
        VfsTask inW = fs.vfs().newTask(Credentials.ROOT);
        inW.chdir("/z/w");
        List<String> paths = allPaths();
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        Map<Errno, LongAdder> errors = new EnumMap<>(Errno.class);
        for (Errno e : EXPECTED) {
            errors.put(e, new LongAdder());
        }
        LongAdder moved = new LongAdder();
        LongAdder reads = new LongAdder();
        int n = Stress.threads();
        List<Stress.Worker> workers = new ArrayList<>();
        String[][] pairA = {{"/x/y", "/z/w/y"}, {"/z/w/y", "/x/y"}};
        String[][] pairB = {{"/z", "/x/y/z"}, {"/x/y/z", "/z"}};
        for (String[][] pair : List.of(pairA, pairB)) {
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        int i = 0;
                        while (c.running() && violations.size() < 10) {
                            String[] op = pair[i++ & 1];
                            rename(t, op[0], op[1], 0, errors, moved, violations);
                        }
                    });
        }
        for (int i = 2; i < n; i++) {
            final boolean reader = i == 2;
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        while (c.running() && violations.size() < 10) {
                            if (reader) {
                                read(t, inW, paths, ino, violations);
                                reads.increment();
                                continue;
                            }
                            String from = paths.get(r.nextInt(paths.size()));
                            String name = from.substring(from.lastIndexOf('/') + 1);
                            String to = paths.get(r.nextInt(paths.size()));
                            to = to.substring(0, to.lastIndexOf('/') + 1) + name;
                            if (r.nextInt(4) == 0 && to.lastIndexOf('/') > 0) {
                                // through "..": /p/q/name -> /p/q/name-of-a-sibling/../name
                                to =
                                        to.substring(0, to.lastIndexOf('/'))
                                                + "/"
                                                + NAMES[r.nextInt(NAMES.length)]
                                                + "/../"
                                                + name;
                            }
                            int flags = r.nextInt(5) == 0 ? OpenFlags.RENAME_NOREPLACE : 0;
                            rename(t, from, to, flags, errors, moved, violations);
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "rename loops: %d moves, errors %s, %d reader rounds%n",
                moved.sum(), errors, reads.sum());
        assertEquals(List.of(), List.copyOf(violations));
        assertTrue(moved.sum() >= 20 && errors.get(Errno.EINVAL).sum() > 0, "the race did not run");

        Map<String, Integer> found = new HashMap<>();
        collect(root, "/", found, violations);
        assertEquals(List.of(), List.copyOf(violations));
        assertEquals(
                Map.of("x", 1, "y", 1, "z", 1, "w", 1),
                found,
                "every directory reachable exactly once");
        String cwd = inW.getcwd();
        assertEquals(ino.get("w"), root.stat(cwd).ino(), "getcwd() of the task in w: " + cwd);
    }

    private static void rename(
            VfsTask t,
            String from,
            String to,
            int flags,
            Map<Errno, LongAdder> errors,
            LongAdder moved,
            ConcurrentLinkedQueue<String> violations) {
        try {
            t.renameat2(VfsTask.AT_FDCWD, from, VfsTask.AT_FDCWD, to, flags);
            moved.increment();
        } catch (VfsException e) {
            LongAdder count = errors.get(e.errno());
            if (count == null) {
                violations.add(
                        "rename(" + from + ", " + to + ", " + flags + ") failed with " + e.errno());
            } else {
                count.increment();
            }
        }
    }

    /** Every path of 1 to 3 distinct names: /x, /x/y, /x/y/z, ... */
    private static List<String> allPaths() {
        List<String> out = new ArrayList<>();
        for (String a : NAMES) {
            out.add("/" + a);
            for (String b : NAMES) {
                if (b.equals(a)) {
                    continue;
                }
                out.add("/" + a + "/" + b);
                for (String c : NAMES) {
                    if (!c.equals(a) && !c.equals(b)) {
                        out.add("/" + a + "/" + b + "/" + c);
                    }
                }
            }
        }
        return out;
    }

    private static void read(
            VfsTask t,
            VfsTask inW,
            List<String> paths,
            Map<String, Long> ino,
            ConcurrentLinkedQueue<String> violations) {
        String p = paths.get(ThreadLocalRandom.current().nextInt(paths.size()));
        try {
            Stat st = t.stat(p);
            long want = ino.get(p.substring(p.lastIndexOf('/') + 1));
            if (st.ino() != want) {
                violations.add("stat(" + p + ") found inode " + st.ino() + ", expected " + want);
            }
        } catch (VfsException e) {
            if (e.errno() != Errno.ENOENT) {
                violations.add("stat(" + p + ") failed with " + e.errno());
            }
        }
        String cwd;
        try {
            cwd = inW.getcwd();
        } catch (VfsException e) {
            violations.add("getcwd() in w failed with " + e.errno());
            return;
        }
        String[] parts = cwd.substring(1).split("/");
        if (!cwd.startsWith("/")
                || !parts[parts.length - 1].equals("w")
                || parts.length > NAMES.length
                || Set.of(parts).size() != parts.length) {
            violations.add("getcwd() in w returned " + cwd);
        }
    }

    private static void collect(
            VfsTask t,
            String dir,
            Map<String, Integer> found,
            ConcurrentLinkedQueue<String> violations) {
        for (DirEntry e : t.readdir(dir)) {
            if (e.type() != FileType.DIRECTORY) {
                violations.add("unexpected " + e);
                continue;
            }
            if (found.merge(e.name(), 1, Integer::sum) > 1 || found.size() > NAMES.length) {
                violations.add("directory " + e.name() + " reached again at " + dir);
                return;
            }
            collect(t, (dir.equals("/") ? "" : dir) + "/" + e.name(), found, violations);
        }
    }
}
