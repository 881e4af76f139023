package dev.seqvfs.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * Turns JMH run results into the report: one row per workload and thread count with the three
 * targets' ops/s (for the new-file-system row, creations plus closes per second), SeqVFS's ratios
 * to Jimfs and to the host, the 2-thread/1-thread scaling of each target; then the renamer section
 * (loss of lookups, renames measured), with {@code --prof gc} the garbage collection of each row,
 * and the goals, each met or missed; a goal whose benchmarks did not run ({@code --only}) is left
 * out. Missing results print as {@code -}.
 */
final class ResultTable {
    private static final String[] FS = {FsTarget.SEQVFS, FsTarget.JIMFS, FsTarget.HOST};

    /** A row: which results, and which 1-thread row its scaling divides by (or null). */
    private record Row(String label, String bench, String variant, int threads, Key base) {}

    private record Key(String bench, String variant, int threads) {}

    private record Score(double ops, double error) {}

    private static final List<Row> ROWS =
            List.of(
                    new Row("stat 5-deep, same path", "StatBench", "same", 1, null),
                    new Row(
                            "stat 5-deep, same path",
                            "StatBench",
                            "same",
                            2,
                            new Key("StatBench", "same", 1)),
                    new Row(
                            "stat 5-deep, distinct paths",
                            "StatBench",
                            "distinct",
                            2,
                            new Key("StatBench", "same", 1)),
                    new Row("create+unlink, own dir", "CreateUnlinkBench", "own", 1, null),
                    new Row(
                            "create+unlink, own dirs",
                            "CreateUnlinkBench",
                            "own",
                            2,
                            new Key("CreateUnlinkBench", "own", 1)),
                    new Row(
                            "create+unlink, shared dir",
                            "CreateUnlinkBench",
                            "shared",
                            2,
                            new Key("CreateUnlinkBench", "own", 1)),
                    new Row("stat 5-deep, no renamer", "RenameLookupBench", "off", 1, null),
                    new Row("stat 5-deep, renamer running", "RenameLookupBench", "on", 1, null),
                    new Row("new fs: create()+close()", "NewFsBench", "", 1, null),
                    new Row(
                            "pwrite 4K random, 256M file",
                            "FileDataBench",
                            "randomWrite4k",
                            1,
                            null),
                    new Row("pwrite 4K same page, 256M", "FileDataBench", "samePage4k", 1, null),
                    new Row("pwrite 4K, one-page file", "FileDataBench", "smallFile4k", 1, null),
                    new Row("write 1M sequential", "FileDataBench", "seqWrite1m", 1, null),
                    new Row("pread 4K random, 256M file", "FileDataBench", "randomRead4k", 1, null),
                    new Row(
                            "pread 4K, writer elsewhere",
                            "ReadWhileWritingBench",
                            "reader",
                            2,
                            null));

    /**
     * Garbage-collection figures of one result, the {@code gc} profiler's: the collector's time in
     * ms summed over the measurement iterations, the number of collections, and bytes allocated per
     * op.
     */
    private record Gc(double millis, double count, double bytesPerOp) {}

    private final Map<Key, Map<String, Score>> scores = new HashMap<>();
    private final Map<Key, Map<String, Gc>> gcs = new HashMap<>();
    private final Map<String, String[]> renamers = new HashMap<>();

    ResultTable(Iterable<RunResult> results, List<String[]> report) {
        for (RunResult r : results) {
            BenchmarkParams p = r.getParams();
            String name = p.getBenchmark();
            String[] parts = name.split("\\.", -1);
            String bench = parts[parts.length - 2];
            String variant =
                    first(
                            p.getParam("paths"),
                            p.getParam("dir"),
                            p.getParam("renamer"),
                            "AnonBench".equals(bench) || "FileDataBench".equals(bench)
                                    ? parts[parts.length - 1]
                                    : null);
            Result<?> primary = r.getPrimaryResult();
            Map<String, Result> secondary = r.getSecondaryResults();
            if ("ReadWhileWritingBench".equals(bench)) {
                // a group: the reader's ops/s is the row's, the writer's goes beside the GC
                Result<?> reader = secondary.get("reader");
                Result<?> writer = secondary.get("writer");
                primary = reader == null ? primary : reader;
                variant = "reader";
                if (writer != null) {
                    scores.computeIfAbsent(
                                    new Key(bench, "writer", p.getThreads()), k -> new HashMap<>())
                            .put(
                                    p.getParam("fs"),
                                    new Score(writer.getScore(), writer.getScoreError()));
                }
            }
            Key key = new Key(bench, variant, p.getThreads());
            scores.computeIfAbsent(key, k -> new HashMap<>())
                    .put(p.getParam("fs"), new Score(primary.getScore(), primary.getScoreError()));
            Result<?> time = secondaryEnding(secondary, "gc.time");
            if (time != null) {
                Result<?> count = secondaryEnding(secondary, "gc.count");
                Result<?> norm = secondaryEnding(secondary, "gc.alloc.rate.norm");
                gcs.computeIfAbsent(key, k -> new HashMap<>())
                        .put(
                                p.getParam("fs"),
                                new Gc(
                                        time.getScore(),
                                        count == null ? Double.NaN : count.getScore(),
                                        norm == null ? Double.NaN : norm.getScore()));
            }
        }
        for (String[] line : report) {
            if (line.length >= 6 && "renamer".equals(line[0])) {
                renamers.put(line[1] + "/" + line[2], line);
            }
        }
    }

    /** {@return the secondary result whose label ends with {@code suffix} (the gc profiler's)} */
    @SuppressWarnings("rawtypes") // JMH's own map type
    private static Result<?> secondaryEnding(Map<String, Result> secondary, String suffix) {
        for (Map.Entry<String, Result> e : secondary.entrySet()) {
            if (e.getKey().endsWith(suffix)) {
                return e.getValue();
            }
        }
        return null;
    }

    private static String first(String... values) {
        for (String v : values) {
            if (v != null) {
                return v;
            }
        }
        return "";
    }

    private double ops(Key k, String fs) {
        Map<String, Score> m = scores.get(k);
        Score s = m == null ? null : m.get(fs);
        return s == null ? Double.NaN : s.ops();
    }

    private double ops(String bench, String variant, int threads, String fs) {
        return ops(new Key(bench, variant, threads), fs);
    }

    String render(String header) {
        StringBuilder out = new StringBuilder();
        out.append(header).append('\n').append('\n');
        String fmt = "%-30s %3s  %-20s %-20s %-20s %8s %8s   %-23s%n";
        boolean anyRow = false;
        for (Row row : ROWS) {
            anyRow |= scores.containsKey(new Key(row.bench(), row.variant(), row.threads()));
        }
        if (anyRow) {
            out.append(
                    String.format(
                            fmt,
                            "benchmark",
                            "thr",
                            "SeqVFS ops/s",
                            "Jimfs ops/s",
                            "host ops/s",
                            "S/Jimfs",
                            "S/host",
                            "2T/1T SeqVFS Jimfs host"));
        }
        for (Row row : ROWS) {
            Key k = new Key(row.bench(), row.variant(), row.threads());
            if (!scores.containsKey(k)) {
                continue;
            }
            Map<String, Score> m = scores.get(k);
            String scaling = "";
            if (row.base() != null) {
                StringBuilder sc = new StringBuilder();
                for (String fs : FS) {
                    sc.append(
                            String.format(
                                    Locale.ROOT, "%6s", factor(ops(k, fs) / ops(row.base(), fs))));
                }
                scaling = sc.toString();
            }
            out.append(
                    String.format(
                            Locale.ROOT,
                            fmt,
                            row.label(),
                            row.threads(),
                            withError(m.get(FsTarget.SEQVFS)),
                            withError(m.get(FsTarget.JIMFS)),
                            withError(m.get(FsTarget.HOST)),
                            factor(ops(k, FsTarget.SEQVFS) / ops(k, FsTarget.JIMFS)),
                            factor(ops(k, FsTarget.SEQVFS) / ops(k, FsTarget.HOST)),
                            scaling));
        }
        renderGc(out);
        renderRenamer(out);
        renderAnon(out);
        renderGoals(out);
        return out.toString();
    }

    /**
     * Garbage collection during each row measured with {@code --prof gc}: the time the collector
     * took (ms over the measurement iterations of the run, as JMH's gc profiler sums it), the
     * collections, and the bytes allocated per op; SeqVFS beside Jimfs and the host, and the ratio
     * of GC times (at most 1 is the file-data issue's goal). For the read-while-writing row the
     * writer's ops/s follows.
     */
    private void renderGc(StringBuilder out) {
        if (gcs.isEmpty()) {
            return;
        }
        out.append('\n')
                .append(
                        "garbage collection (--prof gc): GC ms in the measurement, collections,"
                                + " bytes allocated per op\n");
        String fmt = "%-30s %3s  %-22s %-22s %-22s %9s  %s%n";
        out.append(
                String.format(
                        fmt,
                        "benchmark",
                        "thr",
                        "SeqVFS ms/n/B",
                        "Jimfs ms/n/B",
                        "host ms/n/B",
                        "GC S/Jimfs",
                        ""));
        for (Row row : ROWS) {
            Key k = new Key(row.bench(), row.variant(), row.threads());
            Map<String, Gc> m = gcs.get(k);
            if (m == null) {
                continue;
            }
            Gc s = m.get(FsTarget.SEQVFS);
            Gc j = m.get(FsTarget.JIMFS);
            String writer = "";
            if ("reader".equals(row.variant())) {
                Key w = new Key(row.bench(), "writer", row.threads());
                writer =
                        String.format(
                                Locale.ROOT,
                                "writer ops/s: SeqVFS %s, Jimfs %s, host %s",
                                count(ops(w, FsTarget.SEQVFS)),
                                count(ops(w, FsTarget.JIMFS)),
                                count(ops(w, FsTarget.HOST)));
            }
            out.append(
                    String.format(
                            Locale.ROOT,
                            fmt,
                            row.label(),
                            row.threads(),
                            gc(s),
                            gc(j),
                            gc(m.get(FsTarget.HOST)),
                            s == null || j == null
                                    ? "-"
                                    : j.millis() == 0
                                            ? (s.millis() == 0 ? "0 / 0" : "> 0 / 0")
                                            : factor(s.millis() / j.millis()),
                            writer));
        }
    }

    private static String gc(Gc g) {
        return g == null
                ? "-"
                : String.format(
                        Locale.ROOT, "%.0f / %.0f / %.0f", g.millis(), g.count(), g.bytesPerOp());
    }

    /** The seed workloads on anonymous inodes: SeqVFS's two layouts against the host. */
    private void renderAnon(StringBuilder out) {
        boolean any = false;
        for (int thr : new int[] {1, 2, 4}) {
            any |= scores.containsKey(new Key("AnonBench", "socketClose", thr));
        }
        any |= scores.containsKey(new Key("AnonBench", "pipeClose", 16));
        if (!any) {
            return;
        }
        out.append('\n')
                .append(
                        "anonymous inodes (seeds 000, 002, 003): new layout, old shared-root layout, host"
                                + " kernel through the JDK\n");
        String fmt = "%-34s %3s  %-20s %-20s %-20s %8s %8s  %s%n";
        out.append(
                String.format(
                        fmt,
                        "workload",
                        "thr",
                        "SeqVFS ops/s",
                        "SeqVFS old ops/s",
                        "host ops/s",
                        "new/old",
                        "new/host",
                        "time for thr x 1M ops: new / old / host"));
        for (int thr : new int[] {1, 2, 4, 16}) {
            String bench = thr == 16 ? "pipeClose" : "socketClose";
            Key k = new Key("AnonBench", bench, thr);
            Map<String, Score> m = scores.get(k);
            if (m == null) {
                continue;
            }
            double nw = ops(k, FsTarget.SEQVFS);
            double old = ops(k, AnonBench.SEQVFS_OLD);
            double host = ops(k, FsTarget.HOST);
            String times =
                    String.format(
                            Locale.ROOT,
                            "%s / %s / %s",
                            secs(thr, nw),
                            secs(thr, old),
                            secs(thr, host));
            out.append(
                    String.format(
                            Locale.ROOT,
                            fmt,
                            thr == 16
                                    ? "pipe() + 2 x close(), one fd table"
                                    : "close(socket()), own fd tables",
                            thr,
                            withError(m.get(FsTarget.SEQVFS)),
                            withError(m.get(AnonBench.SEQVFS_OLD)),
                            withError(m.get(FsTarget.HOST)),
                            factor(nw / old),
                            factor(nw / host),
                            times));
        }
    }

    private static String secs(int clients, double opsPerSec) {
        return Double.isNaN(opsPerSec)
                ? "-"
                : String.format(Locale.ROOT, "%.2fs", clients * 1e6 / opsPerSec);
    }

    private void renderRenamer(StringBuilder out) {
        if (!scores.containsKey(new Key("RenameLookupBench", "on", 1))) {
            return;
        }
        out.append('\n')
                .append(
                        "lookups under a concurrent renamer (1 stat thread; 1 thread renaming"
                                + " /r1/x <-> /r2/x flat out, or paced at "
                                + String.format(Locale.ROOT, "%,d", RenameLookupBench.PACED_RATE)
                                + "/s):\n");
        String fmt = "%-8s %-6s %16s %16s %9s %14s %14s  %s%n";
        out.append(
                String.format(
                        fmt,
                        "target",
                        "rate",
                        "stat/s off",
                        "stat/s on",
                        "loss",
                        "renames",
                        "renames/s",
                        "counters (on)"));
        for (String mode : List.of("on", "paced")) {
            for (String fs : FS) {
                double off = ops("RenameLookupBench", "off", 1, fs);
                double on = ops("RenameLookupBench", mode, 1, fs);
                if (Double.isNaN(on)) {
                    continue;
                }
                String[] line = renamers.get(fs + "/" + mode);
                String renames = "-";
                String rate = "-";
                String counters = "";
                if (line != null) {
                    long n = Long.parseLong(line[3]);
                    double secs = Long.parseLong(line[4]) / 1e9;
                    renames = String.format(Locale.ROOT, "%,d", n);
                    rate = secs > 0 ? String.format(Locale.ROOT, "%,.0f", n / secs) : "-";
                    counters = line[5];
                }
                out.append(
                        String.format(
                                Locale.ROOT,
                                fmt,
                                fs,
                                "on".equals(mode) ? "max" : "paced",
                                count(off),
                                count(on),
                                percent(1 - on / off),
                                renames,
                                rate,
                                counters));
            }
        }
    }

    private void renderGoals(StringBuilder out) {
        List<String[]> goals = new ArrayList<>();
        double stat1 = ops("StatBench", "same", 1, FsTarget.SEQVFS);
        goal(
                goals,
                "stat 1T >= 1.5x Jimfs",
                stat1 / ops("StatBench", "same", 1, FsTarget.JIMFS),
                1.5,
                true);
        goal(
                goals,
                "stat 1T >= 8x host",
                stat1 / ops("StatBench", "same", 1, FsTarget.HOST),
                8,
                true);
        goal(
                goals,
                "stat 2T same path >= 1.8x 1T",
                ops("StatBench", "same", 2, FsTarget.SEQVFS) / stat1,
                1.8,
                true);
        goal(
                goals,
                "stat 2T distinct paths >= 1.8x 1T",
                ops("StatBench", "distinct", 2, FsTarget.SEQVFS) / stat1,
                1.8,
                true);
        goal(
                goals,
                "create+unlink 1T >= Jimfs",
                ops("CreateUnlinkBench", "own", 1, FsTarget.SEQVFS)
                        / ops("CreateUnlinkBench", "own", 1, FsTarget.JIMFS),
                1,
                true);
        goal(
                goals,
                "create+unlink 2T own dirs >= 2x Jimfs 2T",
                ops("CreateUnlinkBench", "own", 2, FsTarget.SEQVFS)
                        / ops("CreateUnlinkBench", "own", 2, FsTarget.JIMFS),
                2,
                true);
        double loss =
                1
                        - ops("RenameLookupBench", "on", 1, FsTarget.SEQVFS)
                                / ops("RenameLookupBench", "off", 1, FsTarget.SEQVFS);
        if (!Double.isNaN(loss)) {
            goals.add(
                    new String[] {
                        "lookup loss to a renamer flat out < 10%",
                        percent(loss),
                        loss < 0.10 ? "met" : "MISSED"
                    });
        }
        double pacedLoss =
                1
                        - ops("RenameLookupBench", "paced", 1, FsTarget.SEQVFS)
                                / ops("RenameLookupBench", "off", 1, FsTarget.SEQVFS);
        if (!Double.isNaN(pacedLoss)) {
            goals.add(
                    new String[] {
                        "lookup loss to a renamer at the host's rate < 5%",
                        percent(pacedLoss),
                        pacedLoss < 0.05 ? "met" : "MISSED"
                    });
        }
        Key sock2 = new Key("AnonBench", "socketClose", 2);
        goal(
                goals,
                "close(socket()) 2 clients: new >= 1.2x old",
                ops(sock2, FsTarget.SEQVFS) / ops(sock2, AnonBench.SEQVFS_OLD),
                1.2,
                true);
        Key sock1 = new Key("AnonBench", "socketClose", 1);
        goal(
                goals,
                "close(socket()) 1 client >= 10x host",
                ops(sock1, FsTarget.SEQVFS) / ops(sock1, FsTarget.HOST),
                10,
                true);
        Key pipe16 = new Key("AnonBench", "pipeClose", 16);
        goal(
                goals,
                "pipe+2 close, 16 clients >= 10x host",
                ops(pipe16, FsTarget.SEQVFS) / ops(pipe16, FsTarget.HOST),
                10,
                true);
        // The embedding issue: a newcomer's suite paid 40-94 ms per SeqVfs.create() (a fresh
        // actor system each), Jimfs about 1 ms; a fresh instance should cost within 10x Jimfs.
        Key newFs = new Key("NewFsBench", "", 1);
        goal(
                goals,
                "new fs create+close >= 0.1x Jimfs",
                ops(newFs, FsTarget.SEQVFS) / ops(newFs, FsTarget.JIMFS),
                0.1,
                true);
        // The file-data issue (15): ratios to Jimfs, and GC time at most Jimfs's in each row.
        dataGoal(goals, "pwrite 4K random >= 1.5x Jimfs", "FileDataBench", "randomWrite4k", 1, 1.5);
        dataGoal(goals, "pwrite 4K same page >= 1.5x Jimfs", "FileDataBench", "samePage4k", 1, 1.5);
        dataGoal(goals, "write 1M sequential >= Jimfs", "FileDataBench", "seqWrite1m", 1, 1);
        dataGoal(
                goals,
                "pread 4K, writer elsewhere >= Jimfs",
                "ReadWhileWritingBench",
                "reader",
                2,
                1);
        for (Row row : ROWS) {
            Map<String, Gc> m = gcs.get(new Key(row.bench(), row.variant(), row.threads()));
            Gc s = m == null ? null : m.get(FsTarget.SEQVFS);
            Gc j = m == null ? null : m.get(FsTarget.JIMFS);
            if (s != null && j != null) {
                goals.add(
                        new String[] {
                            "GC time <= Jimfs's: " + row.label(),
                            String.format(Locale.ROOT, "%.0f/%.0f ms", s.millis(), j.millis()),
                            s.millis() <= j.millis() ? "met" : "MISSED"
                        });
            }
        }
        if (goals.isEmpty()) {
            return;
        }
        out.append('\n').append("goals (SeqVFS; those whose benchmarks ran):\n");
        for (String[] g : goals) {
            out.append(String.format(Locale.ROOT, "  %-42s %9s  %s%n", g[0], g[1], g[2]));
        }
    }

    private void dataGoal(
            List<String[]> goals,
            String name,
            String bench,
            String variant,
            int threads,
            double target) {
        Key k = new Key(bench, variant, threads);
        goal(goals, name, ops(k, FsTarget.SEQVFS) / ops(k, FsTarget.JIMFS), target, true);
    }

    private static void goal(
            List<String[]> goals, String name, double value, double target, boolean atLeast) {
        if (Double.isNaN(value)) {
            return; // not measured in this run (--only)
        }
        String status = (atLeast ? value >= target : value <= target) ? "met" : "MISSED";
        goals.add(new String[] {name, factor(value), status});
    }

    private static String withError(Score s) {
        if (s == null) {
            return "-";
        }
        String err =
                Double.isNaN(s.error()) || s.ops() == 0
                        ? ""
                        : String.format(Locale.ROOT, " ±%.0f%%", 100 * s.error() / s.ops());
        return count(s.ops()) + err;
    }

    private static String count(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String factor(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "-";
        }
        return String.format(Locale.ROOT, v >= 0.1 ? "%.2fx" : "%.2gx", v);
    }

    private static String percent(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
    }
}
