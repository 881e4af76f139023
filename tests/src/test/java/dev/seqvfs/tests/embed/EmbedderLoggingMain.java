package dev.seqvfs.tests.embed;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;

/**
 * An embedder with its own {@code logback.xml}: it logs one line through SLF4J, uses a SeqVFS
 * instance, closes it, and prints {@link #MARKER}. Run by {@link EmbedderLoggingTest} in a child
 * JVM.
 */
public final class EmbedderLoggingMain {
    /** The line printed just before {@code main} returns. */
    public static final String MARKER = "main returns";

    private EmbedderLoggingMain() {}

    /** Logs, uses an instance, closes it. */
    public static void main(String[] args) {
        org.slf4j.LoggerFactory.getLogger("embedder").info("embedder says hello");
        try (SeqVfs vfs = SeqVfs.create()) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/data", 0755);
            t.close();
        }
        System.out.println(MARKER);
        System.out.flush();
    }
}
