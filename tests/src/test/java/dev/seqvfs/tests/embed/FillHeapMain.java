package dev.seqvfs.tests.embed;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.sb.HeapPool;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An embedder with a small heap that writes 1 MiB chunks into a default instance until a write
 * fails, as {@link SmallHeapTest} runs it in a child JVM ({@code -Xmx256m}): with {@code load} as
 * its argument the instance is {@code SeqVfs.create(ConfigFactory.load())}, else {@code
 * SeqVfs.create()}. It prints one {@code key=value} line per finding (what was written, the short
 * counts, the failure, the checks after) and then {@link #MARKER}; on an {@link OutOfMemoryError}
 * it prints {@code oom=...} instead and exits with status 3.
 */
public final class FillHeapMain {
    /** The line printed just before {@code main} returns. */
    public static final String MARKER = "fill-heap done";

    private static final int CHUNK = 1 << 20;

    /** Files of this many chunks each. */
    private static final int CHUNKS_PER_FILE = 16;

    private FillHeapMain() {}

    /**
     * Fills the instance, then frees it and checks it works and is back where it started.
     *
     * @param args {@code load} for {@code SeqVfs.create(ConfigFactory.load())}
     */
    public static void main(String[] args) {
        boolean load = args.length > 0 && args[0].equals("load");
        try {
            run(load);
        } catch (OutOfMemoryError e) {
            System.out.println("oom=" + e);
            System.out.flush();
            System.exit(3);
        }
        System.out.println(MARKER);
        System.out.flush();
    }

    private static void run(boolean load) {
        System.out.println("heap=" + Runtime.getRuntime().maxMemory());
        System.out.println("pool=" + HeapPool.JVM.capacity());
        try (SeqVfs vfs = load ? SeqVfs.create(ConfigFactory.load()) : SeqVfs.create();
                VfsTask t = vfs.newTask(Credentials.ROOT)) {
            StatFs before = t.statfs("/");
            System.out.println("blocks=" + before.blocks() * before.bsize());
            t.mkdir("/fill", 0755);
            // Three pages first, so that the room left is not a whole number of chunks: the
            // write that reaches the limit is cut short.
            int seed = t.open("/fill/seed", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(seed, new byte[3 * 4096]);
            t.close(seed);
            byte[] chunk = new byte[CHUNK];
            Arrays.fill(chunk, (byte) 'x');
            long written = 0;
            List<Integer> shortCounts = new ArrayList<>();
            String failure = "none";
            int files = 0;
            fill:
            while (true) {
                int fd = t.open("/fill/f" + files++, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
                try {
                    for (int i = 0; i < CHUNKS_PER_FILE; i++) {
                        int n = t.write(fd, chunk);
                        written += n;
                        if (n < CHUNK) {
                            shortCounts.add(n);
                        }
                    }
                } catch (VfsException e) {
                    failure = e.errno().name();
                    break fill;
                } finally {
                    t.close(fd);
                }
            }
            System.out.println("written=" + written);
            System.out.println("shorts=" + shortCounts);
            System.out.println("failure=" + failure);
            System.out.println("full-bfree=" + t.statfs("/").bfree());
            for (int i = 0; i < files; i++) {
                t.unlink("/fill/f" + i);
            }
            t.unlink("/fill/seed");
            // The heap is usable again: a new directory and a whole chunk.
            t.mkdir("/after", 0755);
            int fd = t.open("/after/x", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            System.out.println("after=" + t.write(fd, chunk));
            t.close(fd);
            t.unlink("/after/x");
            t.rmdir("/after");
            t.rmdir("/fill");
            StatFs after = t.statfs("/");
            System.out.println(
                    "baseline="
                            + (after.bfree() == before.bfree() && after.ffree() == before.ffree())
                            + " bfree "
                            + before.bfree()
                            + "->"
                            + after.bfree()
                            + " ffree "
                            + before.ffree()
                            + "->"
                            + after.ffree());
        }
        System.out.println("pool-after-close=" + (HeapPool.JVM.free() == HeapPool.JVM.capacity()));
    }
}
