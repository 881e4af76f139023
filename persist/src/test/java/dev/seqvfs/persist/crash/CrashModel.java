package dev.seqvfs.persist.crash;

import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * What the crash workload's tree should hold: each path to its node (a directory, or a file with
 * its mode and content), changed by the same operations, given as tab-separated lines, that the
 * child JVM runs and reports. Both sides apply the lines with {@link #apply}, so the parent knows
 * what every acknowledged operation left. Not thread-safe.
 */
public final class CrashModel {
    /** One node: a directory, or a file's mode and content (shared by its hard links). */
    public record Node(boolean dir, int mode, byte[] content) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Node n
                    && n.dir == dir
                    && n.mode == mode
                    && Arrays.equals(n.content, content);
        }

        @Override
        public int hashCode() {
            return Boolean.hashCode(dir) * 31 + mode;
        }

        @Override
        public String toString() {
            return dir
                    ? "dir " + Integer.toOctalString(mode)
                    : "file " + Integer.toOctalString(mode) + " " + content.length + "B";
        }
    }

    final TreeMap<String, Node> nodes = new TreeMap<>();

    /** {@return a copy} */
    public CrashModel copy() {
        CrashModel m = new CrashModel();
        m.nodes.putAll(nodes);
        return m;
    }

    /** {@return the nodes, by path} */
    public Map<String, Node> nodes() {
        return nodes;
    }

    /** {@return the deterministic content of a created file} */
    public static byte[] content(int len, long seed) {
        byte[] b = new byte[len];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Applies one operation line. */
    public void apply(String line) {
        String[] f = line.split("\t");
        switch (f[0]) {
            case "mkdir" -> nodes.put(f[1], new Node(true, 0755, null));
            case "create" ->
                    nodes.put(
                            f[1],
                            new Node(
                                    false,
                                    0644,
                                    content(Integer.parseInt(f[2]), Long.parseLong(f[3]))));
            case "unlink", "rmdir" -> nodes.remove(f[1]);
            case "rename" -> nodes.put(f[2], nodes.remove(f[1]));
            case "link" -> nodes.put(f[2], nodes.get(f[1]));
            case "chmod" -> {
                int mode = Integer.parseInt(f[2], 8);
                Node old = nodes.get(f[1]);
                Node changed = new Node(old.dir(), mode, old.content());
                // every name of the inode shows the new mode
                for (Map.Entry<String, Node> e : nodes.entrySet()) {
                    if (e.getValue() == old) {
                        e.setValue(changed);
                    }
                }
            }
            default -> throw new IllegalArgumentException(line);
        }
    }

    /** {@return a random operation that should succeed on this tree} */
    public String next(Random r, int[] counter) {
        var dirs =
                nodes.entrySet().stream()
                        .filter(e -> e.getValue().dir())
                        .map(Map.Entry::getKey)
                        .toList();
        var files =
                nodes.entrySet().stream()
                        .filter(e -> !e.getValue().dir())
                        .map(Map.Entry::getKey)
                        .toList();
        int n = ++counter[0];
        int pick = r.nextInt(10);
        if (dirs.isEmpty() || pick == 0 && dirs.size() < 8) {
            return "mkdir\t/d" + n;
        }
        String d = dirs.get(r.nextInt(dirs.size()));
        if (files.isEmpty() || pick <= 3) {
            return "create\t" + d + "/f" + n + "\t" + r.nextInt(9000) + "\t" + r.nextLong();
        }
        String f = files.get(r.nextInt(files.size()));
        String parent = f.substring(0, f.lastIndexOf('/'));
        switch (pick) {
            case 4, 5:
                return "unlink\t" + f;
            case 6:
                // within its directory or to another one (the two halves of a move)
                return "rename\t" + f + "\t" + (r.nextBoolean() ? parent : d) + "/r" + n;
            case 7:
                return "link\t" + f + "\t" + d + "/h" + n;
            case 8:
                return "chmod\t" + f + "\t" + Integer.toOctalString(0600 + r.nextInt(0100));
            default:
                for (String x : dirs) {
                    String prefix = x + "/";
                    if (nodes.keySet().stream().noneMatch(p -> p.startsWith(prefix))) {
                        return "rmdir\t" + x;
                    }
                }
                return "mkdir\t/d" + n;
        }
    }
}
