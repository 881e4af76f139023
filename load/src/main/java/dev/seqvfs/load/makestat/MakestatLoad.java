package dev.seqvfs.load.makestat;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.load.Clients;
import dev.seqvfs.load.LoadException;
import dev.seqvfs.load.LoadReport;
import dev.seqvfs.load.Meter;
import dev.seqvfs.load.RunResult;
import dev.seqvfs.load.Session;
import dev.seqvfs.load.lookup.LookupLoad;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Seed 001's "empty {@code make -j}": a real source tree is imported, then each client stats every
 * file of it, over and over, for a given time; reports files/s.
 *
 * <p>Import: see {@link TreeImport} (sizes via {@code ftruncate} by default, contents with {@code
 * contents}). Before the clock starts, one pass stats every file and checks its type, size and
 * modification time against the source (a mismatch fails the run).
 *
 * <p>Clients are plain threads, each a task of its own (make's children are processes): {@code
 * stat} never sends a message and has no async twin. Client {@code k} of {@code n} starts its
 * passes at file {@code k * files / n}, as make's jobs work on different targets. One op is one
 * {@code stat} of an absolute path ({@code /src/...}).
 *
 * <p>Host ({@code compareHost}): the tree is extracted under a fresh directory of {@code /dev/shm}
 * (a tmpfs, so neither side touches a disk) and stat'ed through {@code
 * Files.readAttributes(BasicFileAttributes)}; the directory is removed at the end.
 */
public final class MakestatLoad {
    /** Where the tree lands in SeqVFS. */
    public static final String ROOT = "/src";

    /**
     * One stat in this many is timed (see {@link Meter}): a stat costs a few hundred nanoseconds.
     */
    static final int SAMPLE_EVERY = 16;

    /**
     * A run's settings.
     *
     * @param tree a directory or a zip file
     * @param clients the client counts, in order
     * @param seconds how long each run lasts
     * @param warmup how long the unmeasured warm-up before each run lasts (0: none)
     * @param contents import file contents (else sizes only)
     * @param compareHost run the same on the host
     */
    public record Settings(
            Path tree,
            List<Integer> clients,
            double seconds,
            double warmup,
            boolean contents,
            boolean compareHost) {}

    private MakestatLoad() {}

    /** Runs the workload into {@code session}'s report. */
    public static void run(Settings s, Session session) {
        if (s.seconds() <= 0) {
            throw new LoadException("--time must be positive");
        }
        LoadReport report = session.report();
        report.reference(s.compareHost() ? "host" : null);
        report.extraLines(r -> ratios(s, r));
        try (SourceTree tree = SourceTree.open(s.tree())) {
            if (tree.files().isEmpty()) {
                throw new LoadException("--tree " + s.tree() + ": no regular file to stat");
            }
            SeqVfs vfs = SeqVfs.create();
            session.closeAtEnd(vfs);
            long t0 = System.nanoTime();
            try (VfsTask importer = vfs.newTask(Credentials.ROOT)) {
                TreeImport.intoSeqVfs(tree, importer, ROOT, s.contents());
            }
            report.note(
                    String.format(
                                    "imported %s (%s): %,d directories, %,d files, %,d bytes of %s in %.2f s",
                                    s.tree(),
                                    tree.isZip() ? "zip" : "directory",
                                    tree.dirs().size(),
                                    tree.files().size(),
                                    tree.bytes(),
                                    s.contents()
                                            ? "contents (write)"
                                            : "sizes only (ftruncate: holes, no data)",
                                    (System.nanoTime() - t0) / 1e9)
                            + (tree.skipped() > 0
                                    ? String.format(
                                            "; %,d symlinks/special files skipped", tree.skipped())
                                    : ""));
            report.note(
                    "one op: stat of one file's absolute path; clients are threads, each its own task (stat sends"
                            + " no message: no async twin); every file checked against the source before the clock starts");
            report.note(
                    String.format(
                            "latency: every %dth stat timed; each run follows an unmeasured warm-up of"
                                    + " %.1f s",
                            SAMPLE_EVERY, s.warmup()));
            Path host = null;
            if (s.compareHost()) {
                host =
                        Paths.get(
                                "/dev/shm",
                                "seqvfs-load-makestat-" + ProcessHandle.current().pid());
                Path h = host;
                session.onExit(() -> LookupLoad.deleteTree(h));
                t0 = System.nanoTime();
                TreeImport.intoHost(tree, host, s.contents());
                report.note(
                        String.format(
                                "host: extracted to %s in %.2f s; stat through Files.readAttributes("
                                        + "BasicFileAttributes)",
                                host, (System.nanoTime() - t0) / 1e9));
            }
            List<SourceTree.FileEntry> files = tree.files();
            String[] vfsPaths = new String[files.size()];
            Path[] hostPaths = new Path[files.size()];
            for (int i = 0; i < vfsPaths.length; i++) {
                vfsPaths[i] = ROOT + "/" + files.get(i).path();
                hostPaths[i] = host == null ? null : host.resolve(files.get(i).path());
            }
            verifySeqVfs(vfs, files, vfsPaths);
            if (host != null) {
                verifyHost(files, hostPaths);
            }
            for (int clients : s.clients()) {
                runSeqVfs(s, session, vfs, vfsPaths, clients);
                if (host != null) {
                    runHost(s, session, hostPaths, clients);
                }
            }
        } catch (IOException e) {
            throw new LoadException("--tree " + s.tree() + ": " + e, e);
        }
    }

    private static void verifySeqVfs(SeqVfs vfs, List<SourceTree.FileEntry> files, String[] paths) {
        try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
            for (int i = 0; i < paths.length; i++) {
                Stat st;
                try {
                    st = t.stat(paths[i]);
                } catch (VfsException e) {
                    throw new LoadException("seqvfs: " + e.getMessage() + " after the import", e);
                }
                SourceTree.FileEntry f = files.get(i);
                long mtimeMs = Math.floorDiv(st.mtimeNanos(), 1_000_000L);
                if ((st.mode() & Mode.S_IFMT) != Mode.S_IFREG
                        || st.size() != f.size()
                        || mtimeMs != f.mtimeMillis()) {
                    throw new LoadException(
                            String.format(
                                    "seqvfs: stat %s: mode %o size %d mtime %d ms, expected a"
                                            + " regular file of %d bytes, mtime %d ms",
                                    paths[i],
                                    st.mode(),
                                    st.size(),
                                    mtimeMs,
                                    f.size(),
                                    f.mtimeMillis()));
                }
            }
        }
    }

    private static void verifyHost(List<SourceTree.FileEntry> files, Path[] paths) {
        for (int i = 0; i < paths.length; i++) {
            try {
                BasicFileAttributes a = Files.readAttributes(paths[i], BasicFileAttributes.class);
                if (!a.isRegularFile() || a.size() != files.get(i).size()) {
                    throw new LoadException(
                            "host: "
                                    + paths[i]
                                    + ": size "
                                    + a.size()
                                    + ", expected "
                                    + files.get(i).size());
                }
            } catch (IOException e) {
                throw new LoadException("host: " + e, e);
            }
        }
    }

    private static void runSeqVfs(
            Settings s, Session session, SeqVfs vfs, String[] paths, int clients) {
        List<VfsTask> tasks = new ArrayList<>();
        try {
            List<Clients.BlockingOp> ops = new ArrayList<>();
            for (int k = 0; k < clients; k++) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                tasks.add(t);
                int[] next = {(int) ((long) k * paths.length / clients)};
                ops.add(
                        () -> {
                            int i = next[0];
                            t.stat(paths[i]);
                            next[0] = i + 1 == paths.length ? 0 : i + 1;
                        });
            }
            measure(s, session, "seqvfs", clients, ops);
        } finally {
            tasks.forEach(VfsTask::close);
        }
    }

    private static void runHost(Settings s, Session session, Path[] paths, int clients) {
        List<Clients.BlockingOp> ops = new ArrayList<>();
        for (int k = 0; k < clients; k++) {
            int[] next = {(int) ((long) k * paths.length / clients)};
            ops.add(
                    () -> {
                        int i = next[0];
                        Files.readAttributes(paths[i], BasicFileAttributes.class);
                        next[0] = i + 1 == paths.length ? 0 : i + 1;
                    });
        }
        measure(s, session, "host", clients, ops);
    }

    private static void measure(
            Settings s, Session session, String target, int clients, List<Clients.BlockingOp> ops) {
        if (s.warmup() > 0) {
            Meter w = new Meter(target, "", clients, SAMPLE_EVERY);
            session.warmUp(w, s.warmup(), () -> Clients.threads(w, ops, Long.MAX_VALUE));
        }
        Meter m = new Meter(target, "", clients, SAMPLE_EVERY);
        session.measure(m, s.seconds(), () -> Clients.threads(m, ops, Long.MAX_VALUE));
    }

    private static List<String> ratios(Settings s, LoadReport r) {
        List<String> lines = new ArrayList<>();
        if (!s.compareHost()) {
            return lines;
        }
        lines.add(
                String.format(
                        "%-8s %14s %14s %10s",
                        "clients", "seqvfs files/s", "host files/s", "s/host"));
        for (int c : s.clients()) {
            RunResult mine = r.find("seqvfs", "", c);
            RunResult host = r.find("host", "", c);
            lines.add(
                    String.format(
                            "%-8d %14s %14s %10s",
                            c,
                            mine == null ? "-" : String.format("%,.0f", mine.opsPerSec()),
                            host == null ? "-" : String.format("%,.0f", host.opsPerSec()),
                            LoadReport.fmt(LoadReport.ratio(mine, host))));
        }
        return lines;
    }
}
