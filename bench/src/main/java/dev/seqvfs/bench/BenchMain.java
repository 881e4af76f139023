package dev.seqvfs.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the SeqVFS benchmarks with JMH, each on SeqVFS, Jimfs and the host's tmpfs in the same run,
 * and prints one table of ops/s with the ratios SeqVFS/Jimfs and SeqVFS/host, the 2-thread/1-thread
 * scaling, the loss of lookups to a concurrent renamer, and the project's goals met or missed
 * ({@link ResultTable}).
 *
 * <p>Defaults suit a noisy 2-vCPU machine: 1 fork, warmup 3 x 1 s, measurement 5 x 1 s, about 9
 * minutes in all (59 benchmark runs of ~8 s: one per method, target and parameter value of each
 * plan in {@code PLANS}). Options (each also a system property {@code -Dbench.NAME}):
 *
 * <pre>
 *   --quick              warmup 1 x 1 s, measurement 2 x 1 s (a smoke run, ~3 s a run)
 *   --forks N            JMH forks per benchmark (1)
 *   --warmup N           warmup iterations (3)      --warmup-time S   seconds each (1)
 *   --iterations N       measurement iterations (5) --time S          seconds each (1)
 *   --only a,b           runs among: stat, create, renamer, anon, newfs, data (all)
 *   --fs a,b             targets among: seqvfs, jimfs, host (all)
 *   --prof NAME[:OPTS]   a JMH profiler, e.g. jfr:dir=/tmp/jfr (repeatable; a dir= gets a
 *                        subdirectory per run, such as stat-2t; read a .jfr with {@link JfrTop})
 *   --jvm-arg ARG        an extra JVM argument for the forks (repeatable)
 *   --out FILE           also write the final table to FILE
 * </pre>
 */
public final class BenchMain {
    /**
     * One JMH invocation: a benchmark class (or one method of it) at one thread count with its
     * parameter values.
     */
    @SuppressWarnings("ArrayRecordComponent") // a constant table row, never compared
    record Plan(
            String group,
            Class<?> bench,
            String method,
            int threads,
            String param,
            String... values) {
        Plan(String group, Class<?> bench, int threads, String param, String... values) {
            this(group, bench, null, threads, param, values);
        }
    }

    static final List<Plan> PLANS =
            List.of(
                    new Plan("stat", StatBench.class, 1, "paths", "same"),
                    new Plan("stat", StatBench.class, 2, "paths", "same", "distinct"),
                    new Plan("create", CreateUnlinkBench.class, 1, "dir", "own"),
                    new Plan("create", CreateUnlinkBench.class, 2, "dir", "own", "shared"),
                    new Plan(
                            "renamer", RenameLookupBench.class, 1, "renamer", "off", "on", "paced"),
                    new Plan("anon", AnonBench.class, "socketClose", 1, null),
                    new Plan("anon", AnonBench.class, "socketClose", 2, null),
                    new Plan("anon", AnonBench.class, "socketClose", 4, null),
                    new Plan("anon", AnonBench.class, "pipeClose", 16, null),
                    new Plan("newfs", NewFsBench.class, 1, null),
                    new Plan("data", FileDataBench.class, 1, null),
                    new Plan("data", ReadWhileWritingBench.class, 2, null));

    private BenchMain() {}

    /**
     * Runs the benchmarks and prints the table.
     *
     * @param args the options above
     */
    public static void main(String[] args) throws Exception {
        Settings s = Settings.parse(args);
        if (s.help) {
            System.out.println(usage());
            return;
        }
        Path report = Files.createTempFile("seqvfs-bench-", ".tsv");
        String loadBefore = loadAverage();
        long start = System.nanoTime();
        List<RunResult> results = new ArrayList<>();
        for (Plan p : PLANS) {
            if (!s.only.isEmpty() && !s.only.contains(p.group())) {
                continue;
            }
            boolean anon = p.bench() == AnonBench.class;
            String[] targets =
                    anon
                            ? s.anonTargets()
                            : p.bench() == NewFsBench.class
                                    ? s.newFsTargets()
                                    : s.fs.toArray(String[]::new);
            if (targets.length == 0) {
                continue; // --fs leaves this plan no target (newfs with --fs host)
            }
            ChainedOptionsBuilder ob =
                    new OptionsBuilder()
                            .include(
                                    "^"
                                            + Pattern.quote(p.bench().getName())
                                            + "\\."
                                            + (p.method() == null
                                                    ? ""
                                                    : Pattern.quote(p.method()) + "$"))
                            .threads(p.threads())
                            .forks(s.forks)
                            .warmupIterations(s.warmup)
                            .warmupTime(TimeValue.milliseconds(s.warmupMillis))
                            .measurementIterations(s.iterations)
                            .measurementTime(TimeValue.milliseconds(s.measureMillis))
                            .param("fs", targets)
                            .jvmArgs(s.jvmArgs().toArray(String[]::new))
                            .jvmArgsAppend("-D" + Report.PROPERTY + "=" + report)
                            .shouldFailOnError(true);
            if (p.param() != null) {
                ob.param(p.param(), p.values());
            }
            for (String spec : s.profilers) {
                // A profiler's output directory gets one subdirectory per plan: JMH names its
                // files by benchmark and parameters only, so the 2-thread run would overwrite
                // the 1-thread one.
                String prof =
                        spec.replaceFirst(
                                "(dir=[^;]+)", "$1/" + p.group() + "-" + p.threads() + "t");
                int colon = prof.indexOf(':');
                if (colon < 0) {
                    ob.addProfiler(prof);
                } else {
                    ob.addProfiler(prof.substring(0, colon), prof.substring(colon + 1));
                }
            }
            results.addAll(new Runner(ob.build()).run());
        }
        String header =
                String.format(
                        "SeqVFS benchmarks: %d CPUs, %s, load average before %s, after %s;"
                                + " %d fork(s), warmup %d x %d ms, measurement %d x %d ms; %.1f min",
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("java.vm.version"),
                        loadBefore,
                        loadAverage(),
                        s.forks,
                        s.warmup,
                        s.warmupMillis,
                        s.iterations,
                        s.measureMillis,
                        (System.nanoTime() - start) / 60e9);
        String table = new ResultTable(results, Report.read(report)).render(header);
        Files.deleteIfExists(report);
        System.out.println();
        System.out.print(table);
        if (s.out != null) {
            Files.writeString(Paths.get(s.out), table, StandardCharsets.UTF_8);
        }
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Paths.get("/proc/loadavg")).trim().split("\\s+", -1);
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "n/a";
        }
    }

    static String usage() {
        String doc =
                """
                usage: bench/run [--quick] [--forks N] [--warmup N] [--warmup-time S]
                                 [--iterations N] [--time S] [--only stat,create,renamer,anon,newfs,data]
                                 [--fs seqvfs,jimfs,host] [--prof NAME[:OPTS]]...
                                 [--jvm-arg ARG]... [--out FILE]
                Each option is also a system property: -Dbench.forks=2, -Dbench.quick=true, ...""";
        return doc;
    }

    /** Command-line options, defaulted from {@code -Dbench.*} system properties. */
    static final class Settings {
        boolean help;
        int forks = intProp("forks", 1);
        int warmup = intProp("warmup", 3);
        long warmupMillis = secondsProp("warmup-time", 1);
        int iterations = intProp("iterations", 5);
        long measureMillis = secondsProp("time", 1);
        List<String> only = listProp("only", "");
        List<String> fs =
                listProp("fs", FsTarget.SEQVFS + "," + FsTarget.JIMFS + "," + FsTarget.HOST);
        List<String> profilers = new ArrayList<>(listProp("prof", ""));
        List<String> extraJvmArgs = new ArrayList<>(listProp("jvm-arg", ""));
        String out = System.getProperty("bench.out");

        static Settings parse(String[] args) {
            Settings s = new Settings();
            if (Boolean.getBoolean("bench.quick")) {
                s.quick();
            }
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "-h", "--help" -> s.help = true;
                    case "--quick" -> s.quick();
                    default -> {
                        if (!a.startsWith("--") || i + 1 >= args.length) {
                            throw new IllegalArgumentException(
                                    "bad argument: " + a + "\n" + usage());
                        }
                        String v = args[++i];
                        switch (a.substring(2)) {
                            case "forks" -> s.forks = Integer.parseInt(v);
                            case "warmup" -> s.warmup = Integer.parseInt(v);
                            case "warmup-time" -> s.warmupMillis = seconds(v);
                            case "iterations" -> s.iterations = Integer.parseInt(v);
                            case "time" -> s.measureMillis = seconds(v);
                            case "only" -> s.only = split(v);
                            case "fs" -> s.fs = split(v);
                            case "prof" -> s.profilers.add(v);
                            case "jvm-arg" -> s.extraJvmArgs.add(v);
                            case "out" -> s.out = v;
                            default ->
                                    throw new IllegalArgumentException(
                                            "unknown option: " + a + "\n" + usage());
                        }
                    }
                }
            }
            for (String g : s.only) {
                if (PLANS.stream().noneMatch(p -> p.group().equals(g))) {
                    throw new IllegalArgumentException(
                            "--only takes stat, create, renamer, anon, newfs, data; not " + g);
                }
            }
            return s;
        }

        void quick() {
            warmup = 1;
            warmupMillis = 1000;
            iterations = 2;
            measureMillis = 1000;
        }

        /**
         * The targets of the anonymous-inode benchmarks: SeqVFS's two layouts and the host, as --fs
         * allows.
         */
        String[] anonTargets() {
            List<String> t = new ArrayList<>();
            if (fs.contains(FsTarget.SEQVFS)) {
                t.add(FsTarget.SEQVFS);
                t.add(AnonBench.SEQVFS_OLD);
            }
            if (fs.contains(FsTarget.HOST)) {
                t.add(FsTarget.HOST);
            }
            return t.toArray(String[]::new);
        }

        /**
         * The targets of the new-file-system benchmark: SeqVFS and Jimfs, as --fs allows (the host
         * has none).
         */
        String[] newFsTargets() {
            return fs.stream()
                    .filter(f -> f.equals(FsTarget.SEQVFS) || f.equals(FsTarget.JIMFS))
                    .toArray(String[]::new);
        }

        /**
         * The forks' JVM arguments: a fixed heap (no resizing during measurement), then the extras.
         */
        List<String> jvmArgs() {
            List<String> a = new ArrayList<>(List.of("-Xms2g", "-Xmx2g"));
            a.addAll(extraJvmArgs);
            return a;
        }

        private static int intProp(String name, int def) {
            return Integer.parseInt(System.getProperty("bench." + name, Integer.toString(def)));
        }

        private static long secondsProp(String name, double def) {
            return seconds(System.getProperty("bench." + name, Double.toString(def)));
        }

        private static long seconds(String v) {
            return Math.round(Double.parseDouble(v) * 1000);
        }

        private static List<String> listProp(String name, String def) {
            return split(System.getProperty("bench." + name, def));
        }

        private static List<String> split(String v) {
            return Arrays.stream(v.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
        }
    }
}
