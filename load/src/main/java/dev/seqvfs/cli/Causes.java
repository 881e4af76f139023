package dev.seqvfs.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * One line for a failure and its causes, for a command's stderr: what failed first, then each cause
 * that says something new, down to the root (the real reason, such as "segment log ... is held by
 * another process", was the last line of a 40-line stack trace). Stateless.
 */
final class Causes {
    private Causes() {}

    /**
     * {@return {@code t}'s message and its causes' messages, joined by ": ", each once} The
     * configuration library's prefix ("system properties: Invalid value at 'seqvfs.root.options':
     * ") is dropped: the command line set that value itself.
     *
     * @param t the failure
     */
    static String line(Throwable t) {
        List<String> parts = new ArrayList<>();
        for (Throwable c = t; c != null && parts.size() < 8; c = c.getCause()) {
            String m = c.getMessage();
            if (m == null || m.isBlank()) {
                m = c.getClass().getSimpleName();
            }
            m = m.replaceFirst("^[a-z ]+: Invalid value at '[^']*': ", "");
            String said = String.join(": ", parts);
            if (!said.contains(m)) {
                parts.add(m);
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return String.join(": ", parts);
    }

    /**
     * {@return the message for an {@link OutOfMemoryError} while a data directory was loaded:
     * persistfs keeps file data in the heap (tmpfs-like), so a store larger than about half the
     * heap cannot be mounted or checked}
     *
     * @param dataDir the data directory, or {@code null}
     */
    static String heapTooSmall(java.nio.file.Path dataDir) {
        return "the data"
                + (dataDir == null ? "" : " in " + dataDir)
                + " does not fit in this JVM's heap ("
                + (Runtime.getRuntime().maxMemory() >> 20)
                + " MiB; persistfs keeps file contents in memory): give it more, as"
                + " SEQVFS_JAVA_OPTS=-Xmx8g";
    }
}
