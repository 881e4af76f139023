package dev.seqvfs.tests.concurrency;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.concurrency.LinearizabilityChecker.Op;
import dev.seqvfs.tests.concurrency.NamespaceModel.Kind;
import dev.seqvfs.tests.concurrency.NamespaceModel.Node;
import dev.seqvfs.tests.concurrency.NamespaceModel.Result;
import dev.seqvfs.tests.concurrency.NamespaceModel.State;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The operations of the linearizability tests: a small universe of paths, a random operation over
 * it, its execution on a {@link VfsTask} with timing, and the observation of the whole tree at
 * quiescence as a {@link State}.
 *
 * <pre>
 * flat:  /a and /b fixed; files x, y, z in each; create, unlink, stat, rename within
 *        and across /a and /b
 * one:   /a fixed; files w, x, y, z in it; create, unlink, stat, rename within /a (every
 *        call is a command of /a's actor, or a lock-free read of its snapshot)
 * tree:  /a and /b fixed; two movable directories s and t (start /a/s, /b/t), which
 *        renames move between /a and /b, nest (/a/s/t), rename onto each other (replace
 *        when empty) or into themselves (EINVAL); files named x in every directory
 * </pre>
 */
final class NamespaceWorkload {
    private final List<String> files;
    private final List<String> dirs;
    private final int dirRenamePercent;

    private NamespaceWorkload(List<String> files, List<String> dirs, int dirRenamePercent) {
        this.files = files;
        this.dirs = dirs;
        this.dirRenamePercent = dirRenamePercent;
    }

    /** Files in two fixed directories; no directory moves. */
    static NamespaceWorkload flat() {
        List<String> f = new ArrayList<>();
        for (String d : List.of("/a", "/b")) {
            for (String n : List.of("x", "y", "z")) {
                f.add(d + "/" + n);
            }
        }
        return new NamespaceWorkload(f, List.of(), 0);
    }

    /** Files in one fixed directory, which every thread changes. */
    static NamespaceWorkload oneDirectory() {
        List<String> f = new ArrayList<>();
        for (String n : List.of("w", "x", "y", "z")) {
            f.add("/a/" + n);
        }
        return new NamespaceWorkload(f, List.of(), 0);
    }

    /** Files in and through two directories that renames move, nest and replace. */
    static NamespaceWorkload tree() {
        List<String> d =
                List.of("/a/s", "/b/s", "/a/t", "/b/t", "/a/s/t", "/b/s/t", "/a/t/s", "/b/t/s");
        List<String> f = new ArrayList<>(List.of("/a/x", "/b/x"));
        for (String dir : d) {
            f.add(dir + "/x");
        }
        return new NamespaceWorkload(f, d, 30);
    }

    /** Builds the starting layout (the file system holds only the root). */
    void setUp(VfsTask t) {
        t.mkdir("/a", 0755);
        t.mkdir("/b", 0755);
        if (!dirs.isEmpty()) {
            t.mkdir("/a/s", 0755);
            t.mkdir("/b/t", 0755);
        }
    }

    /**
     * Restores the starting layout if renames replaced a movable directory (so that rounds keep
     * exercising two of them); call at quiescence.
     */
    void replenish(VfsTask t, State now) {
        if (dirs.isEmpty()) {
            return;
        }
        int movable = 0;
        for (Map.Entry<String, Node> e : now.entries().entrySet()) {
            if (e.getValue().dir() && !e.getKey().equals("/a") && !e.getKey().equals("/b")) {
                movable++;
            }
        }
        if (movable >= 2) {
            return;
        }
        List<String> paths = new ArrayList<>(now.entries().keySet());
        paths.sort((x, y) -> y.length() - x.length());
        for (String p : paths) {
            if (p.equals("/a") || p.equals("/b")) {
                continue;
            }
            if (now.get(p).dir()) {
                t.rmdir(p);
            } else {
                t.unlink(p);
            }
        }
        t.mkdir("/a/s", 0755);
        t.mkdir("/b/t", 0755);
    }

    /** Runs one random operation on {@code t} and returns it with its interval and result. */
    Op randomOp(VfsTask t, int thread) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int p = r.nextInt(100);
        if (!dirs.isEmpty() && p < dirRenamePercent) {
            return run(t, thread, Kind.RENAME, pick(dirs), pick(dirs));
        }
        int q = r.nextInt(100);
        if (q < 25) {
            return run(t, thread, Kind.CREATE, pick(files), null);
        }
        if (q < 45) {
            return run(t, thread, Kind.UNLINK, pick(files), null);
        }
        if (q < 70) {
            return run(t, thread, Kind.RENAME, pick(files), pick(files));
        }
        return run(
                t,
                thread,
                Kind.STAT,
                r.nextInt(4) == 0 && !dirs.isEmpty() ? pick(dirs) : pick(files),
                null);
    }

    private static String pick(List<String> l) {
        return l.get(ThreadLocalRandom.current().nextInt(l.size()));
    }

    /** Filenames parsed ahead ({@link Filename#components()}), one per path, shared by threads. */
    private static final ConcurrentHashMap<String, Filename> PARSED = new ConcurrentHashMap<>();

    /**
     * {@return {@code p} itself or, half the time, a shared {@link Filename} of it whose components
     * were parsed ahead, so that walks take both the scanning and the parsed route}
     */
    static CharSequence eitherForm(String p) {
        if (ThreadLocalRandom.current().nextBoolean()) {
            return p;
        }
        return PARSED.computeIfAbsent(
                p,
                k -> {
                    Filename f = Filename.of(k);
                    f.components();
                    f.components();
                    return f;
                });
    }

    /** Executes one call, timing it from just before the call to just after it returned. */
    static Op run(VfsTask t, int thread, Kind kind, String pa, String pb) {
        CharSequence a = pa == null ? null : eitherForm(pa);
        CharSequence b = pb == null ? null : eitherForm(pb);
        long inv = System.nanoTime();
        Result res;
        int fd = -1;
        try {
            switch (kind) {
                case CREATE:
                    fd = t.open(a, OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY, 0644);
                    res = Result.ok(t.fstat(fd).ino());
                    break;
                case UNLINK:
                    t.unlink(a);
                    res = Result.ok(0);
                    break;
                case RENAME:
                    t.rename(a, b);
                    res = Result.ok(0);
                    break;
                case STAT:
                    res = Result.ok(t.stat(a).ino());
                    break;
                default:
                    throw new IllegalArgumentException(kind.toString());
            }
        } catch (VfsException e) {
            res = Result.error(e.errno());
        }
        long resp = System.nanoTime();
        if (fd >= 0) {
            t.close(fd);
        }
        return new Op(thread, kind, pa, pb, res, inv, resp);
    }

    /** Reads the whole tree (at quiescence) as a model state. */
    static State observe(VfsTask t) {
        Map<String, Node> m = new TreeMap<>();
        walk(t, "", m);
        return new State(m);
    }

    private static void walk(VfsTask t, String dir, Map<String, Node> out) {
        for (DirEntry e : t.readdir(dir.isEmpty() ? "/" : dir)) {
            String p = dir + "/" + e.name();
            boolean isDir = e.type() == FileType.DIRECTORY;
            out.put(p, new Node(e.ino(), isDir));
            if (isDir) {
                walk(t, p, out);
            }
        }
    }
}
