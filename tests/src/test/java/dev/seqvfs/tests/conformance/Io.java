package dev.seqvfs.tests.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.OpenFlags;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Data helpers shared by the open-file suites: text as bytes, whole-file reads and writes,
 * eventfd's 8-byte little-endian values, and waiting (without a timed sleep) until a helper thread
 * is parked in a blocking call. Stateless.
 */
final class Io {
    private Io() {}

    /** Returns the ASCII bytes of {@code s}. */
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Returns the first {@code n} bytes of {@code b} as ASCII text. */
    static String text(byte[] b, int n) {
        return new String(b, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** Writes all of {@code s} at the descriptor's offset and returns the count. */
    static int write(VfsTask t, int fd, String s) {
        return t.write(fd, bytes(s));
    }

    /** Reads up to {@code max} bytes at the descriptor's offset, as text. */
    static String read(VfsTask t, int fd, int max) {
        byte[] b = new byte[max];
        return text(b, t.read(fd, b, 0, max));
    }

    /** Reads from the descriptor's offset to the end of file (a read returning 0). */
    static String readToEnd(VfsTask t, int fd) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] b = new byte[8192];
        for (int n; (n = t.read(fd, b, 0, b.length)) > 0; ) {
            out.write(b, 0, n);
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    /** Returns the whole content of the file at {@code path}. */
    static String content(VfsTask t, String path) {
        int fd = t.open(path, OpenFlags.O_RDONLY);
        try {
            return readToEnd(t, fd);
        } finally {
            t.close(fd);
        }
    }

    /** Creates or truncates {@code path} (mode 0644 before the umask) and writes {@code s}. */
    static void writeFile(VfsTask t, String path, String s) {
        int fd = t.open(path, OpenFlags.O_CREAT | OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0644);
        try {
            t.write(fd, bytes(s));
        } finally {
            t.close(fd);
        }
    }

    /** Returns {@code v} as 8 little-endian bytes (an eventfd value on x86-64). */
    static byte[] le64(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    /** Returns the 8 little-endian bytes at the start of {@code b}. */
    static long le64(byte[] b) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v |= (b[i] & 0xffL) << (8 * i);
        }
        return v;
    }

    /**
     * Waits until {@code th} is parked (waiting on a monitor or a condition), that is, inside the
     * blocking call it was started for. Fails after 10 s, or if the thread ended.
     */
    @SuppressWarnings(
            "ThreadPriorityCheck") // Thread.yield between polls of a state, bounded by the deadline
    static void awaitParked(Thread th) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            Thread.State s = th.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                return;
            }
            if (s == Thread.State.TERMINATED) {
                fail("the thread ended instead of blocking");
            }
            if (System.nanoTime() > deadline) {
                fail("the thread did not block: " + s);
            }
            Thread.yield();
        }
    }
}
