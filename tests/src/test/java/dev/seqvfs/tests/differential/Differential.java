package dev.seqvfs.tests.differential;

import dev.seqvfs.protocol.Errno;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Replays one sequence of calls against the host kernel and against SeqVFS, call by call, and fails
 * with a readable report at the first difference: a call's result (success value or errno), then
 * the final tree, then SeqVFS's own {@code Fsck}.
 *
 * <p>The report prints the whole sequence as Java source (ready to become a regression test), each
 * call with both results, and marks the first differing call with {@code >>>}. An {@code open} the
 * host skips (it would open a FIFO, which blocks) is not made on SeqVFS either.
 */
final class Differential {
    /**
     * Descriptors closed on both sides before the trees are compared, beyond the highest one seen.
     */
    private static final int EXTRA_FDS_TO_CLOSE = 4;

    private Differential() {}

    /**
     * Runs {@code ops} on a fresh sandbox and a fresh SeqVFS instance.
     *
     * @throws AssertionError describing the first difference
     */
    static void check(List<Op> ops) {
        String[] hostResults = new String[ops.size()];
        String[] vfsResults = new String[ops.size()];
        try (HostSide host = new HostSide();
                VfsSide vfs = new VfsSide()) {
            int maxFd = 0;
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                String h = host.apply(op);
                String v = h.equals(Outcomes.SKIPPED) ? Outcomes.SKIPPED : vfs.apply(op);
                hostResults[i] = h;
                vfsResults[i] = v;
                if (!h.equals(v)) {
                    throw new AssertionError(
                            report(
                                    ops,
                                    hostResults,
                                    vfsResults,
                                    "call #"
                                            + i
                                            + " differs: "
                                            + op
                                            + "\n  host: "
                                            + h
                                            + "\n  vfs:  "
                                            + v));
                }
                if (op.kind() == Op.Kind.OPEN && !isErrno(h) && !h.equals(Outcomes.SKIPPED)) {
                    maxFd = Math.max(maxFd, Integer.parseInt(h));
                }
            }
            host.closeAll(maxFd + EXTRA_FDS_TO_CLOSE);
            vfs.closeAll(maxFd + EXTRA_FDS_TO_CLOSE);
            List<String> hostTree = host.tree();
            List<String> vfsTree = vfs.tree();
            if (!hostTree.equals(vfsTree)) {
                throw new AssertionError(
                        report(
                                ops,
                                hostResults,
                                vfsResults,
                                "every call agreed, but the final trees differ:\n"
                                        + treeDiff(hostTree, vfsTree)));
            }
            List<String> problems = vfs.fsck();
            if (!problems.isEmpty()) {
                throw new AssertionError(
                        report(
                                ops,
                                hostResults,
                                vfsResults,
                                "every call and the final tree agreed, but SeqVFS's fsck found: "
                                        + problems));
            }
        }
    }

    static boolean isErrno(String result) {
        for (Errno e : Errno.values()) {
            if (e.name().equals(result)) {
                return true;
            }
        }
        return result.startsWith("errno ") || result.startsWith("threw ");
    }

    static String report(List<Op> ops, String[] host, String[] vfs, String headline) {
        StringBuilder sb =
                new StringBuilder("SeqVFS and the host kernel disagree; ")
                        .append(headline)
                        .append("\n\nthe sequence (")
                        .append(ops.size())
                        .append(" calls), as Java:\n");
        for (int i = 0; i < ops.size(); i++) {
            String mark = host[i] != null && !host[i].equals(vfs[i]) ? ">>> " : "    ";
            sb.append(mark).append(ops.get(i)).append(i + 1 < ops.size() ? "," : "");
            if (host[i] == null) {
                sb.append("  // #").append(i).append(" not run");
            } else if (host[i].equals(vfs[i])) {
                sb.append("  // #").append(i).append(" both: ").append(host[i]);
            } else {
                sb.append("  // #")
                        .append(i)
                        .append(" host: ")
                        .append(host[i])
                        .append(" | vfs: ")
                        .append(vfs[i]);
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    static String treeDiff(List<String> host, List<String> vfs) {
        Set<String> h = new HashSet<>(host);
        Set<String> v = new HashSet<>(vfs);
        List<String> out = new ArrayList<>();
        out.add("  host tree (- only on the host):");
        for (String l : host) {
            out.add((v.contains(l) ? "      " : "    - ") + l);
        }
        out.add("  vfs tree (+ only in SeqVFS):");
        for (String l : vfs) {
            out.add((h.contains(l) ? "      " : "    + ") + l);
        }
        return String.join("\n", out);
    }
}
