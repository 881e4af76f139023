package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Directory link counts and parent links while directories are made, removed and moved with their
 * subtrees ({@code mkdir(2)}, {@code rmdir(2)}, {@code rename(2)}; a directory's {@code st_nlink}
 * is 2 plus its subdirectories, as tmpfs and ext4 keep it; {@code getcwd(3)}).
 *
 * <pre>
 * /t0 .. /t3                 fixed
 * /tI/nK, /tI/nK/nJ          made, removed, moved (K, J in 0..5), replaced when empty;
 *                            moves nest them deeper (/t1/n2/n0/n2)
 * /tI/cK or /tI/nJ/cK        anchors c0 .. c3: never removed, moved around (with the nJ
 *                            holding them); task K's working directory is cK
 * </pre>
 *
 * While this runs, readers stat directories ({@code st_nlink >= 2}, {@code ".."} is a directory)
 * and the anchor tasks call {@code getcwd}, which must name a path ending in their anchor (or fail
 * with ENAMETOOLONG: long runs nest the anchors deeper than PATH_MAX). At quiescence every
 * directory's link count is 2 plus the subdirectories its listing shows, {@code d/..} is its
 * parent, each anchor task's {@code getcwd()} is the path the tree has its working directory at
 * (ENAMETOOLONG when that is PATH_MAX bytes or longer), and {@code Fsck} (the fixture) finds
 * nothing.
 */
class DirectoryLinksConcurrencyTest {
    private static final int TOPS = 4;
    private static final int POOL = 6;
    private static final int ANCHORS = 4;
    private static final Set<Errno> EXPECTED =
            EnumSet.of(Errno.ENOENT, Errno.EEXIST, Errno.ENOTEMPTY, Errno.EINVAL);

    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    @Test
    void mkdirRmdirRename_concurrently_keepLinkCountsParentLinksAndCwdPaths() {
        VfsTask root = fs.root();
        for (int i = 0; i < TOPS; i++) {
            root.mkdir("/t" + i, 0755);
        }
        VfsTask[] anchorTasks = new VfsTask[ANCHORS];
        long[] anchorIno = new long[ANCHORS];
        for (int k = 0; k < ANCHORS; k++) {
            root.mkdir("/t" + k + "/c" + k, 0755);
            anchorIno[k] = root.stat("/t" + k + "/c" + k).ino();
            anchorTasks[k] = fs.vfs().newTask(Credentials.ROOT);
            anchorTasks[k].chdir("/t" + k + "/c" + k);
        }
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        LongAdder attempts = new LongAdder();
        LongAdder done = new LongAdder();
        LongAdder moves = new LongAdder();
        LongAdder reads = new LongAdder();
        int n = Stress.threads();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int id = i;
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        while (c.running() && violations.size() < 10) {
                            if (id % 2 == 1) {
                                read(
                                        t,
                                        id < 2 * ANCHORS ? anchorTasks[id / 2] : null,
                                        id / 2,
                                        violations);
                                reads.increment();
                                continue;
                            }
                            int op = r.nextInt(10);
                            attempts.increment();
                            try {
                                if (op < 3) {
                                    t.mkdir(pool(r), 0755);
                                } else if (op < 5) {
                                    t.rmdir(pool(r));
                                } else if (op < 8) {
                                    t.rename(pool(r), pool(r));
                                    moves.increment();
                                } else {
                                    int k = r.nextInt(ANCHORS);
                                    t.rename(anchor(r, k), anchor(r, k));
                                    moves.increment();
                                }
                                done.increment();
                            } catch (VfsException e) {
                                if (!EXPECTED.contains(e.errno())) {
                                    violations.add(
                                            e.operation()
                                                    + " failed with "
                                                    + e.errno()
                                                    + ": "
                                                    + e.getMessage());
                                }
                            }
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "directory links: %d calls, %d succeeded (%d rename attempts), %d reader rounds%n",
                attempts.sum(), done.sum(), moves.sum(), reads.sum());
        assertEquals(List.of(), List.copyOf(violations));
        assertTrue(done.sum() >= 20 && reads.sum() >= 20, "the race did not run");

        Map<Long, String> paths = new HashMap<>();
        checkTree(root, "/", root.stat("/").ino(), violations, paths);
        System.out.printf(
                "directory links: longest directory path at quiescence %d bytes%n",
                paths.values().stream().mapToInt(String::length).max().orElse(0));
        for (int k = 0; k < ANCHORS; k++) {
            String expected = paths.get(anchorIno[k]);
            if (expected == null || anchorTasks[k].stat(".").ino() != anchorIno[k]) {
                violations.add(
                        "task "
                                + k
                                + ": its working directory "
                                + anchorIno[k]
                                + " is not in the tree");
                continue;
            }
            String cwd;
            try {
                cwd = anchorTasks[k].getcwd();
            } catch (VfsException e) {
                cwd = "failed with " + e.errno();
            }
            // getcwd(2): a path of PATH_MAX (4096) bytes or more, with its NUL, does not fit:
            // ENAMETOOLONG.
            String want =
                    expected.length() < Limits.PATH_MAX
                            ? expected
                            : "failed with " + Errno.ENAMETOOLONG;
            if (!cwd.equals(want)) {
                violations.add(
                        "task " + k + ": getcwd() " + cwd + ", the tree has it at " + expected);
            }
        }
        assertEquals(List.of(), List.copyOf(violations), "at quiescence");
    }

    /** A random pool path: /tI/nK or /tI/nK/nJ. */
    private static String pool(ThreadLocalRandom r) {
        String p = "/t" + r.nextInt(TOPS) + "/n" + r.nextInt(POOL);
        return r.nextInt(3) == 0 ? p + "/n" + r.nextInt(POOL) : p;
    }

    /** A random place for anchor k: /tI/cK or /tI/nJ/cK. */
    private static String anchor(ThreadLocalRandom r, int k) {
        String top = "/t" + r.nextInt(TOPS);
        return (r.nextBoolean() ? top : top + "/n" + r.nextInt(POOL)) + "/c" + k;
    }

    private static final Pattern CWD = Pattern.compile("/t\\d(/n\\d)*/c(\\d)");

    /** Stats random directories; for anchor tasks, checks getcwd's shape. */
    private static void read(
            VfsTask t, VfsTask anchorTask, int k, ConcurrentLinkedQueue<String> violations) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (String p :
                new String[] {pool(r), anchor(r, r.nextInt(ANCHORS)), "/t" + r.nextInt(TOPS)}) {
            try {
                Stat st = t.stat(p);
                if (!st.isDirectory() || st.nlink() < 2) {
                    violations.add(
                            "stat("
                                    + p
                                    + "): directory "
                                    + st.isDirectory()
                                    + ", nlink "
                                    + st.nlink());
                }
                Stat up = t.stat(p + "/..");
                if (!up.isDirectory() || up.nlink() < 3) {
                    violations.add(
                            "stat("
                                    + p
                                    + "/..): directory "
                                    + up.isDirectory()
                                    + ", nlink "
                                    + up.nlink());
                }
            } catch (VfsException e) {
                if (e.errno() != Errno.ENOENT) {
                    violations.add("stat(" + p + ") failed with " + e.errno());
                }
            }
        }
        if (anchorTask != null) {
            String cwd;
            try {
                cwd = anchorTask.getcwd();
            } catch (VfsException e) {
                // getcwd(2): ENAMETOOLONG when the path does not fit in PATH_MAX; long
                // runs nest the anchors that deep. At quiescence the path is checked exactly.
                if (e.errno() != Errno.ENAMETOOLONG) {
                    violations.add("getcwd() of task in c" + k + " failed with " + e.errno());
                }
                return;
            }
            var m = CWD.matcher(cwd);
            if (!m.matches() || Integer.parseInt(m.group(2)) != k) {
                violations.add("getcwd() of task in c" + k + " returned " + cwd);
            }
        }
    }

    /**
     * At quiescence: nlink = 2 + subdirectories, ".." is the parent, for every directory. Walks by
     * relative chdir, so a tree deeper than PATH_MAX (long stress runs grow one) is still checked
     * whole; and iteratively, with a stack of frames, because long runs nest directories thousands
     * deep (a recursive walk overflowed the thread's stack).
     */
    private static void checkTree(
            VfsTask t,
            String dir,
            long parentIno,
            ConcurrentLinkedQueue<String> violations,
            Map<Long, String> paths) {
        t.chdir(dir);
        Deque<Frame> stack = new ArrayDeque<>();
        stack.push(Frame.enter(t, dir, parentIno, paths));
        while (!stack.isEmpty()) {
            Frame f = stack.peek();
            if (f.next < f.entries.size()) {
                DirEntry e = f.entries.get(f.next++);
                if (e.type() == FileType.DIRECTORY) {
                    f.subdirs++;
                    t.chdir(e.name());
                    String shown = (f.shown.equals("/") ? "" : f.shown) + "/" + e.name();
                    stack.push(Frame.enter(t, shown, f.ino, paths));
                }
                continue;
            }
            Stat st = t.stat(".");
            if (st.nlink() != 2 + f.subdirs) {
                violations.add(
                        f.shown
                                + " has nlink "
                                + st.nlink()
                                + " but "
                                + f.subdirs
                                + " subdirectories");
            }
            long up = t.stat("..").ino();
            if (!f.shown.equals("/") && up != f.parentIno) {
                violations.add(f.shown + "/.. is inode " + up + ", its parent is " + f.parentIno);
            }
            stack.pop();
            if (!stack.isEmpty()) {
                t.chdir("..");
            }
        }
        t.chdir("/");
    }

    /** One directory being checked: its listing, how far through it, its subdirectories so far. */
    private static final class Frame {
        final String shown;
        final long ino;
        final long parentIno;
        final List<DirEntry> entries;
        int next;
        int subdirs;

        private Frame(String shown, long ino, long parentIno, List<DirEntry> entries) {
            this.shown = shown;
            this.ino = ino;
            this.parentIno = parentIno;
            this.entries = entries;
        }

        /** Lists the working directory (named {@code shown}) and records its path by inode. */
        static Frame enter(VfsTask t, String shown, long parentIno, Map<Long, String> paths) {
            List<DirEntry> entries = t.readdir(".");
            long ino = t.stat(".").ino();
            paths.put(ino, shown);
            return new Frame(shown, ino, parentIno, entries);
        }
    }
}
