package dev.seqvfs.tests.embed;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;

/**
 * An embedder with its own {@code logback.xml}: it logs one line through SLF4J, uses a SeqVFS
 * instance, closes it, and prints {@link #MARKER}. Run by {@link EmbedderLoggingTest} in a child
 * JVM. With the argument {@link #UNTIL_STOPPED}, the instance's actor system lingers 100 ms instead
 * of 2 s after the close, and main waits 1.5 s before the marker: the system's shutdown (Pekko's
 * CoordinatedShutdown, which logs at INFO and DEBUG) runs while the embedder's logging is still
 * there to see it.
 */
public final class EmbedderLoggingMain {
    /** The line printed just before {@code main} returns. */
    public static final String MARKER = "main returns";

    private EmbedderLoggingMain() {}

    /** The argument that makes main wait for the actor system to stop. */
    public static final String UNTIL_STOPPED = "until-stopped";

    /** Logs, uses an instance, closes it (and waits for its actor system to stop). */
    public static void main(String[] args) throws InterruptedException {
        boolean untilStopped = args.length > 0 && args[0].equals(UNTIL_STOPPED);
        org.slf4j.LoggerFactory.getLogger("embedder").info("embedder says hello");
        try (SeqVfs vfs =
                untilStopped
                        ? SeqVfs.create(
                                ConfigFactory.parseString("seqvfs.actor-system.linger = 100ms"))
                        : SeqVfs.create()) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/data", 0755);
            t.close();
        }
        if (untilStopped) {
            Thread.sleep(1500);
        }
        System.out.println(MARKER);
        System.out.flush();
    }
}
