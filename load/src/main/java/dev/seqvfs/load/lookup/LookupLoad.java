package dev.seqvfs.load.lookup;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.load.Clients;
import dev.seqvfs.load.LoadException;
import dev.seqvfs.load.LoadReport;
import dev.seqvfs.load.Meter;
import dev.seqvfs.load.RunResult;
import dev.seqvfs.load.Session;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Seed 004's lookup microbenchmark: each client stats a deep relative path ({@code d1/d2/.../dN/f})
 * over and over, from the same working directory as every other client ({@code same-cwd}) and from
 * a directory of its own ({@code distinct-cwd}), at each client count; reports ops/s and the
 * scaling factor (ops/s at N clients over ops/s at the smallest count). Store-free walking should
 * make both scale with the clients.
 *
 * <pre>
 * /lookup/c0/d1/d2/.../dN/f     every client's cwd in same-cwd; client 0's in distinct-cwd
 * /lookup/c1/d1/d2/.../dN/f     client 1's cwd in distinct-cwd
 * ...
 * </pre>
 *
 * <p>Clients are plain threads, each a task of its own (its own cwd): {@code stat} never sends a
 * message and has no async twin, so an actor would only add a mailbox hop. Host ({@code --compare
 * host}): the same tree under a fresh directory of {@code /dev/shm}, and {@code
 * Files.readAttributes(BasicFileAttributes)} ({@code stat}) of the absolute path through {@code c0}
 * or the client's {@code cK}: Java cannot change a thread's working directory, so the host walks
 * {@code /dev/shm/<dir>/cK} too (four more components, warm in the dcache).
 */
public final class LookupLoad {
    /** The modes: the same cwd for every client, or one each. */
    public static final List<String> MODES = List.of("same-cwd", "distinct-cwd");

    /** One stat in this many is timed (see {@link Meter}). */
    static final int SAMPLE_EVERY = 16;

    /**
     * A run's settings.
     *
     * @param clients the client counts, in order
     * @param ops stats per client in each measured run
     * @param warmup seconds of unmeasured stats by the same clients before each measured run
     * @param depth directories between the cwd and the file (at least 1)
     * @param compareHost whether to run the same on the host
     */
    public record Settings(
            List<Integer> clients, long ops, double warmup, int depth, boolean compareHost) {}

    private LookupLoad() {}

    /** Runs the workload into {@code session}'s report. */
    public static void run(Settings s, Session session) {
        if (s.depth() < 1) {
            throw new LoadException("--depth must be at least 1");
        }
        int maxClients = s.clients().stream().mapToInt(Integer::intValue).max().orElse(1);
        StringBuilder rel = new StringBuilder();
        for (int i = 1; i <= s.depth(); i++) {
            rel.append('d').append(i).append('/');
        }
        String file = rel + "f";
        LoadReport report = session.report();
        report.note(
                "one op: stat(\""
                        + file
                        + "\") relative to the client's cwd; clients are threads, each its own"
                        + " task (stat sends no message: no async twin)");
        if (s.compareHost()) {
            report.note(
                    "host: Files.readAttributes(BasicFileAttributes) of /dev/shm/<dir>/cK/"
                            + file
                            + " (absolute: Java cannot chdir)");
        }
        report.note(
                "latency: every "
                        + SAMPLE_EVERY
                        + "th stat timed"
                        + (s.warmup() > 0
                                ? "; each measured run follows an unmeasured warm-up of "
                                        + s.warmup()
                                        + " s by the same clients"
                                : ""));
        report.primary("seqvfs", MODES.get(0));
        report.reference(s.compareHost() ? "host" : null);
        report.extraLines(r -> scaling(s, r));
        SeqVfs vfs = SeqVfs.create();
        session.closeAtEnd(vfs);
        try (VfsTask root = vfs.newTask(Credentials.ROOT)) {
            root.mkdir("/lookup", 0755);
            for (int c = 0; c < maxClients; c++) {
                String dir = "/lookup/c" + c;
                root.mkdir(dir, 0755);
                for (int i = 1; i <= s.depth(); i++) {
                    dir += "/d" + i;
                    root.mkdir(dir, 0755);
                }
                root.close(root.open(dir + "/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            }
        }
        Path hostBase = s.compareHost() ? hostTree(maxClients, file, session) : null;
        for (int clients : s.clients()) {
            for (String mode : MODES) {
                runSeqVfs(s, session, vfs, clients, mode, file);
                if (hostBase != null) {
                    runHost(s, session, hostBase, clients, mode, file);
                }
            }
        }
    }

    private static void runSeqVfs(
            Settings s, Session session, SeqVfs vfs, int clients, String mode, String file) {
        List<VfsTask> tasks = new ArrayList<>();
        try {
            List<Clients.BlockingOp> ops = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                tasks.add(t);
                t.chdir("/lookup/c" + (mode.equals("same-cwd") ? 0 : i));
                ops.add(
                        () -> {
                            if (t.stat(file).mode() != (Mode.S_IFREG | 0644)) {
                                throw new LoadException(
                                        "seqvfs: stat "
                                                + file
                                                + ": not the regular file made in setup");
                            }
                        });
            }
            if (s.warmup() > 0) {
                Meter w = new Meter("seqvfs", mode, clients, SAMPLE_EVERY);
                session.warmUp(w, s.warmup(), () -> Clients.threads(w, ops, Long.MAX_VALUE));
            }
            Meter m = new Meter("seqvfs", mode, clients, SAMPLE_EVERY);
            session.measure(m, 0, () -> Clients.threads(m, ops, s.ops()));
        } finally {
            tasks.forEach(VfsTask::close);
        }
    }

    private static void runHost(
            Settings s, Session session, Path base, int clients, String mode, String file) {
        List<Clients.BlockingOp> ops = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Path p = base.resolve("c" + (mode.equals("same-cwd") ? 0 : i)).resolve(file);
            ops.add(
                    () -> {
                        if (!Files.readAttributes(p, BasicFileAttributes.class).isRegularFile()) {
                            throw new LoadException(
                                    "host: stat " + p + ": not the regular file made in setup");
                        }
                    });
        }
        if (s.warmup() > 0) {
            Meter w = new Meter("host", mode, clients, SAMPLE_EVERY);
            session.warmUp(w, s.warmup(), () -> Clients.threads(w, ops, Long.MAX_VALUE));
        }
        Meter m = new Meter("host", mode, clients, SAMPLE_EVERY);
        session.measure(m, 0, () -> Clients.threads(m, ops, s.ops()));
    }

    private static Path hostTree(int clients, String file, Session session) {
        Path base = Paths.get("/dev/shm", "seqvfs-load-lookup-" + ProcessHandle.current().pid());
        try {
            for (int c = 0; c < clients; c++) {
                Path f = base.resolve("c" + c).resolve(file);
                Files.createDirectories(f.getParent());
                Files.createFile(f);
            }
        } catch (IOException e) {
            throw new LoadException("cannot make the host tree under " + base + ": " + e, e);
        }
        session.onExit(() -> deleteTree(base));
        return base;
    }

    /** Deletes a host directory tree (without following symlinks). */
    public static void deleteTree(Path base) {
        if (!Files.exists(base, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var all = Files.walk(base)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + base, e);
        }
    }

    private static List<String> scaling(Settings s, LoadReport r) {
        List<String> lines = new ArrayList<>();
        int base = s.clients().stream().mapToInt(Integer::intValue).min().orElse(1);
        lines.add(
                "scaling factor: ops/s at N clients over ops/s at "
                        + base
                        + " client(s); seqvfs over host");
        lines.add(
                String.format(
                        "%-8s %-14s %14s %10s %14s %10s %10s",
                        "clients",
                        "mode",
                        "seqvfs ops/s",
                        "scaling",
                        "host ops/s",
                        "scaling",
                        "s/host"));
        for (int c : s.clients()) {
            for (String mode : MODES) {
                RunResult mine = r.find("seqvfs", mode, c);
                if (mine == null) {
                    continue;
                }
                RunResult host = r.find("host", mode, c);
                lines.add(
                        String.format(
                                "%-8d %-14s %,14.0f %10s %14s %10s %10s",
                                c,
                                mode,
                                mine.opsPerSec(),
                                LoadReport.fmt(
                                        LoadReport.ratio(mine, r.find("seqvfs", mode, base))),
                                host == null ? "-" : String.format("%,.0f", host.opsPerSec()),
                                LoadReport.fmt(LoadReport.ratio(host, r.find("host", mode, base))),
                                LoadReport.fmt(LoadReport.ratio(mine, host))));
            }
        }
        return lines;
    }
}
