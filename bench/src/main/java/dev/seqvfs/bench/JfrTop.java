package dev.seqvfs.bench;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Summarises the CPU samples ({@code jdk.ExecutionSample}) of a JFR recording, such as the one
 * JMH's {@code -prof jfr} writes per benchmark: GC pauses, the CPU each thread got ({@code
 * jdk.ThreadCPULoad}, to tell a starved thread from a slow one), the hottest methods by self time,
 * by the nearest frame of the engine's code (the SeqVFS method that the time was spent under), and
 * the engine's methods by inclusive time.
 *
 * <pre>
 *   java -cp bench/target/benchmarks.jar dev.seqvfs.bench.JfrTop FILE.jfr [TOP] [THREAD-SUBSTRING]
 * </pre>
 *
 * Only samples of threads whose name contains THREAD-SUBSTRING (default {@code jmh-worker}) count;
 * engine code is {@code dev.seqvfs.} outside {@code dev.seqvfs.bench}.
 */
public final class JfrTop {
    private JfrTop() {}

    /**
     * Prints the summary.
     *
     * @param args the recording, how many methods per list (20), the thread filter
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: JfrTop FILE.jfr [TOP] [THREAD-SUBSTRING]");
            System.exit(2);
        }
        Path file = Paths.get(args[0]);
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        String threadFilter = args.length > 2 ? args[2] : "jmh-worker";
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> nearest = new HashMap<>();
        Map<String, Integer> inclusive = new HashMap<>();
        int samples = 0;
        Map<String, double[]> cpu = new HashMap<>();
        double gcPauseMillis = 0;
        int gcs = 0;
        double start = Double.MAX_VALUE;
        double end = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            String type = e.getEventType().getName();
            if ("jdk.ThreadCPULoad".equals(type)) {
                RecordedThread t = e.getThread("eventThread");
                String tn = t == null || t.getJavaName() == null ? "(native)" : t.getJavaName();
                double[] acc = cpu.computeIfAbsent(tn.replaceAll("\\d+", "N"), k -> new double[2]);
                acc[0] += e.getFloat("user") + e.getFloat("system");
                acc[1]++;
                continue;
            }
            if ("jdk.GarbageCollection".equals(type)) {
                gcPauseMillis += e.getDuration("sumOfPauses").toNanos() / 1e6;
                gcs++;
                continue;
            }
            if (!"jdk.ExecutionSample".equals(type)) {
                continue;
            }
            start = Math.min(start, e.getStartTime().toEpochMilli() / 1e3);
            end = Math.max(end, e.getStartTime().toEpochMilli() / 1e3);
            RecordedThread t = e.getThread("sampledThread");
            String tname = t == null ? "" : t.getJavaName();
            if (tname == null || !tname.contains(threadFilter)) {
                continue;
            }
            RecordedStackTrace st = e.getStackTrace();
            if (st == null || st.getFrames().isEmpty()) {
                continue;
            }
            samples++;
            List<RecordedFrame> frames = st.getFrames();
            self.merge(name(frames.get(0)), 1, Integer::sum);
            String near = "(no engine frame)";
            Set<String> seen = new HashSet<>();
            for (RecordedFrame f : frames) {
                if (isEngine(f)) {
                    String n = name(f);
                    if (near.startsWith("(")) {
                        near = n;
                    }
                    if (seen.add(n)) {
                        inclusive.merge(n, 1, Integer::sum);
                    }
                }
            }
            nearest.merge(near, 1, Integer::sum);
        }
        System.out.printf(
                Locale.ROOT,
                "%s: %d execution samples of threads matching '%s'%n",
                file,
                samples,
                threadFilter);
        System.out.printf(
                Locale.ROOT,
                "GC: %d collections, %.1f ms of pauses over %.1f s of samples%n",
                gcs,
                gcPauseMillis,
                Math.max(0, end - start));
        System.out.println(
                "mean CPU load per thread (of the machine, jdk.ThreadCPULoad; digits in names as N):");
        cpu.entrySet().stream()
                .filter(en -> en.getValue()[0] / en.getValue()[1] >= 0.005)
                .sorted(
                        (a, b) ->
                                Double.compare(
                                        b.getValue()[0] / b.getValue()[1],
                                        a.getValue()[0] / a.getValue()[1]))
                .limit(top)
                .forEach(
                        en ->
                                System.out.printf(
                                        Locale.ROOT,
                                        "  %5.1f%%  %s%n",
                                        100 * en.getValue()[0] / en.getValue()[1],
                                        en.getKey()));
        print("self (top frame)", self, samples, top);
        print(
                "nearest SeqVFS frame (time spent in or under it, below any other engine frame)",
                nearest,
                samples,
                top);
        print("SeqVFS inclusive (on the stack)", inclusive, samples, top);
    }

    private static boolean isEngine(RecordedFrame f) {
        RecordedMethod m = f.getMethod();
        String type = m == null ? "" : m.getType().getName();
        return type.startsWith("dev.seqvfs.") && !type.startsWith("dev.seqvfs.bench.");
    }

    private static String name(RecordedFrame f) {
        RecordedMethod m = f.getMethod();
        if (m == null) {
            return "(unknown)";
        }
        return m.getType().getName() + "." + m.getName();
    }

    private static void print(String title, Map<String, Integer> counts, int samples, int top) {
        System.out.println();
        System.out.println(title + ":");
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(top)
                .forEach(
                        en ->
                                System.out.printf(
                                        Locale.ROOT,
                                        "  %5.1f%%  %6d  %s%n",
                                        100.0 * en.getValue() / Math.max(1, samples),
                                        en.getValue(),
                                        en.getKey()));
    }
}
