package dev.seqvfs.persist.log;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The child JVM of {@link LogStoreKillTest}: opens the segment log in its directory (small
 * segments, eager compaction, a 50 ms commit interval), then runs {@link #THREADS} threads that
 * append random groups of content and metadata changes to keys of their own until it is killed.
 * Each thread prints {@code B t i OPS} before an append, and {@code A t i} after a forced one
 * returned, or {@code L t i} after a lazy one was written. Arguments: the directory, the round, a
 * seed.
 */
public final class LogKillWorkload {
    /** Threads appending at once. */
    static final int THREADS = 4;

    /** Inodes per thread: thread {@code t} owns {@code t * 1000 + 0..7}. */
    static final int INODES = 8;

    /** The settings of the log under the kills: rolls and compaction happen often. */
    static final SegmentLog.Settings SETTINGS =
            new SegmentLog.Settings(256 << 10, 0.5, 512 << 10, 64 << 10, 50, true);

    private LogKillWorkload() {}

    /**
     * Runs the workload until killed.
     *
     * @param args the log's directory, the round, a seed
     */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long round = Long.parseLong(args[1]);
        long seed = Long.parseLong(args[2]);
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        SegmentLog log = SegmentLog.open(dir, SETTINGS);
        synchronized (out) {
            out.println("READY");
            out.flush();
        }
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            Thread th =
                    new Thread(
                            () -> {
                                Random r = new Random(seed * 31 + id);
                                for (long i = 0; ; i++) {
                                    String ops = randomOps(r, id);
                                    boolean lazy = r.nextInt(10) < 3;
                                    synchronized (out) {
                                        out.println("B " + id + " " + i + " " + ops);
                                        out.flush();
                                    }
                                    List<LogContent.Op> group = decode(ops, round, id, i);
                                    if (lazy) {
                                        log.content().updateLazy(group);
                                    } else {
                                        log.content().update(group);
                                    }
                                    synchronized (out) {
                                        out.println((lazy ? "L " : "A ") + id + " " + i);
                                        out.flush();
                                    }
                                }
                            });
            th.start();
        }
        Thread.sleep(Long.MAX_VALUE);
    }

    /** {@return one to three random operations on thread {@code t}'s keys, separated by ';'} */
    static String randomOps(Random r, int t) {
        int n = r.nextInt(5) == 0 ? 2 + r.nextInt(2) : 1;
        List<String> ops = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            long ino = t * 1000L + r.nextInt(INODES);
            int x = r.nextInt(100);
            if (x < 50) {
                ops.add("PB " + ino + " " + r.nextInt(8) + " " + (1 + r.nextInt(20_000)));
            } else if (x < 65) {
                ops.add("PR " + ino);
            } else if (x < 77) {
                int from = r.nextInt(8);
                ops.add("DB " + ino + " " + from + " " + (from + 1 + r.nextInt(4)));
            } else if (x < 85) {
                ops.add("DI " + ino);
            } else {
                ops.add("PM " + t);
            }
        }
        return String.join(";", ops);
    }

    /** {@return the operations {@code ops} stand for, as thread {@code t}'s append {@code i}} */
    static List<LogContent.Op> decode(String ops, long round, int t, long i) {
        List<LogContent.Op> out = new ArrayList<>();
        String[] parts = ops.split(";");
        for (int k = 0; k < parts.length; k++) {
            String[] f = parts[k].split(" ");
            long ino = f[0].equals("PM") ? 0 : Long.parseLong(f[1]);
            switch (f[0]) {
                case "PB" ->
                        out.add(
                                new LogContent.PutBlock(
                                        ino,
                                        Long.parseLong(f[2]),
                                        content(round, t, i, k, Integer.parseInt(f[3]))));
                case "PR" -> out.add(new LogContent.PutRow(ino, row(round, t, i, k)));
                case "DB" ->
                        out.add(
                                new LogContent.DeleteBlocks(
                                        ino, Long.parseLong(f[2]), Long.parseLong(f[3])));
                case "DI" -> out.add(new LogContent.DeleteInode(ino));
                case "PM" -> out.add(new LogContent.PutMeta("m" + t, round + "." + i + "." + k));
                default -> throw new IllegalArgumentException(parts[k]);
            }
        }
        return out;
    }

    /** {@return the bytes of a block written by op {@code k} of append {@code i} of thread t} */
    static byte[] content(long round, int t, long i, int k, int size) {
        byte[] b = new byte[size];
        new Random(((round * 31 + t) * 1_000_003L + i) * 7 + k).nextBytes(b);
        return b;
    }

    /** {@return the row written by op {@code k} of append {@code i} of thread {@code t}} */
    static byte[] row(long round, int t, long i, int k) {
        return ("r" + round + "." + t + "." + i + "." + k).getBytes(StandardCharsets.UTF_8);
    }
}
