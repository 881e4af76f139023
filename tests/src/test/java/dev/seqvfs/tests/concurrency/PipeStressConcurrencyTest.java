package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One pipe, many writers and readers, blocking ({@code read(2)}, {@code write(2)}) and asynchronous
 * ({@code readAsync}, {@code writeAsync}), following {@code pipe(7)}: a write of at most {@code
 * PIPE_BUF} bytes is atomic (never interleaved with other writes), every byte written is read
 * exactly once, a writer facing no reader gets {@code EPIPE}, and a reader sees end of file once
 * every writer has closed and the buffer is empty.
 *
 * <p>Records are self-describing: two bytes of length, the writer's id, its sequence number, and a
 * payload derived from both, from 7 bytes up to {@code PIPE_BUF}. Readers take turns (one call at a
 * time, so the stream they rebuild is the pipe's order); writers do not. A split or interleaved
 * record breaks the parse; a lost or doubled one breaks a writer's sequence. Every wait is bounded:
 * a call that does not return within {@link #HANG_SECONDS} is a hang and fails the test.
 */
class PipeStressConcurrencyTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    private static final int HEADER = 7;
    private static final long HANG_SECONDS = 20;

    private final ExecutorService pool =
            Executors.newCachedThreadPool(
                    r -> {
                        Thread t = new Thread(r, "pipe-stress");
                        t.setDaemon(true);
                        return t;
                    });

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    /** Builds record {@code seq} of {@code writer}, {@code len} bytes. */
    private static byte[] record(int writer, int seq, int len) {
        byte[] b = new byte[len];
        b[0] = (byte) (len >>> 8);
        b[1] = (byte) len;
        b[2] = (byte) writer;
        b[3] = (byte) (seq >>> 24);
        b[4] = (byte) (seq >>> 16);
        b[5] = (byte) (seq >>> 8);
        b[6] = (byte) seq;
        for (int i = HEADER; i < len; i++) {
            b[i] = payload(writer, seq, i);
        }
        return b;
    }

    private static byte payload(int writer, int seq, int i) {
        return (byte) (writer * 31 + seq * 7 + i * 13);
    }

    /** A record length: PIPE_BUF a quarter of the time, else anything from the header up. */
    private static int recordLength(ThreadLocalRandom r) {
        return r.nextInt(4) == 0
                ? Limits.PIPE_BUF
                : HEADER + r.nextInt(Limits.PIPE_BUF - HEADER + 1);
    }

    /** Rebuilds records from the stream, in order, and checks each writer's sequence. */
    private static final class Parser {
        private byte[] buf = new byte[1 << 16];
        private int len;
        private final int[] nextSeq;
        long bytes;

        Parser(int writers) {
            nextSeq = new int[writers];
        }

        void feed(byte[] chunk, int n) {
            if (len + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
            }
            System.arraycopy(chunk, 0, buf, len, n);
            len += n;
            bytes += n;
            int at = 0;
            while (len - at >= 2) {
                int rlen = ((buf[at] & 0xff) << 8) | (buf[at + 1] & 0xff);
                if (rlen < HEADER || rlen > Limits.PIPE_BUF) {
                    throw new AssertionError(
                            "record at stream byte "
                                    + (bytes - len + at)
                                    + " has length "
                                    + rlen
                                    + ": a record was split or interleaved");
                }
                if (len - at < rlen) {
                    break;
                }
                int writer = buf[at + 2] & 0xff;
                int seq =
                        ((buf[at + 3] & 0xff) << 24)
                                | ((buf[at + 4] & 0xff) << 16)
                                | ((buf[at + 5] & 0xff) << 8)
                                | (buf[at + 6] & 0xff);
                if (writer >= nextSeq.length) {
                    throw new AssertionError(
                            "record names writer "
                                    + writer
                                    + ": a record was split or interleaved");
                }
                for (int i = HEADER; i < rlen; i++) {
                    if (buf[at + i] != payload(writer, seq, i)) {
                        throw new AssertionError(
                                "record "
                                        + writer
                                        + "/"
                                        + seq
                                        + " ("
                                        + rlen
                                        + " bytes) is corrupt at"
                                        + " byte "
                                        + i
                                        + ": split or interleaved with another write");
                    }
                }
                if (seq != nextSeq[writer]) {
                    throw new AssertionError(
                            "writer "
                                    + writer
                                    + ": record "
                                    + seq
                                    + " arrived where "
                                    + nextSeq[writer]
                                    + " was due (lost, doubled or reordered)");
                }
                nextSeq[writer]++;
                at += rlen;
            }
            System.arraycopy(buf, at, buf, 0, len - at);
            len -= at;
        }

        int received(int writer) {
            return nextSeq[writer];
        }

        int leftover() {
            return len;
        }
    }

    @Test
    void writeAndRead_manyWritersAndReadersBlockingAndAsync_everyRecordOnceAndWhole() {
        VfsTask p = fs.vfs().newTask(Credentials.ROOT);
        int[] fds = p.pipe();
        int r = fds[0];
        int w = fds[1];
        int writers = Stress.threads();
        int readers = Math.max(2, Stress.threads() / 2);
        AtomicLong[] sent = new AtomicLong[writers];
        // Children: writers keep only the write end, readers only the read end.
        List<VfsTask> writerTasks = new ArrayList<>();
        List<VfsTask> readerTasks = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            VfsTask child = p.fork();
            child.close(r);
            writerTasks.add(child);
            sent[i] = new AtomicLong();
        }
        for (int i = 0; i < readers; i++) {
            VfsTask child = p.fork();
            child.close(w);
            readerTasks.add(child);
        }
        p.close();
        Parser parser = new Parser(writers);
        ReentrantLock turn = new ReentrantLock();
        AtomicBoolean eof = new AtomicBoolean();
        LongAdder asyncReads = new LongAdder();
        LongAdder asyncWrites = new LongAdder();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            final int id = i;
            final VfsTask t = writerTasks.get(i);
            final boolean async = (i & 1) == 1;
            workers.add(
                    c -> {
                        ThreadLocalRandom rnd = ThreadLocalRandom.current();
                        Deque<CompletableFuture<Integer>> inFlight = new ArrayDeque<>();
                        Deque<Integer> lengths = new ArrayDeque<>();
                        try {
                            int seq = 0;
                            while (c.running()) {
                                byte[] rec = record(id, seq++, recordLength(rnd));
                                if (!async) {
                                    assertEquals(
                                            rec.length,
                                            t.write(w, rec, 0, rec.length),
                                            "blocking write");
                                    sent[id].incrementAndGet();
                                    continue;
                                }
                                inFlight.add(t.async().write(w, rec, 0, rec.length));
                                lengths.add(rec.length);
                                asyncWrites.increment();
                                if (inFlight.size() >= 2) {
                                    assertEquals(
                                            lengths.poll(),
                                            await(inFlight.poll(), "writeAsync"),
                                            "async write");
                                    sent[id].incrementAndGet();
                                }
                            }
                            while (!inFlight.isEmpty()) {
                                assertEquals(
                                        lengths.poll(),
                                        await(inFlight.poll(), "writeAsync"),
                                        "async write");
                                sent[id].incrementAndGet();
                            }
                        } finally {
                            t.close(); // closes the write end: the last writer's exit is end
                            // of file
                        }
                    });
        }
        for (int i = 0; i < readers; i++) {
            final VfsTask t = readerTasks.get(i);
            final boolean async = (i & 1) == 1;
            workers.add(
                    c -> {
                        ThreadLocalRandom rnd = ThreadLocalRandom.current();
                        byte[] a = new byte[Limits.PIPE_BUF * 2];
                        byte[] b = new byte[Limits.PIPE_BUF];
                        try {
                            // Readers run until end of file, past the deadline: they race the
                            // writers' exits.
                            while (!c.failed()) {
                                turn.lock();
                                try {
                                    boolean eofBefore = eof.get();
                                    int len = 1 + rnd.nextInt(a.length);
                                    if (!async) {
                                        int n = t.read(r, a, 0, len);
                                        if (!consume(parser, eof, eofBefore, a, n)) {
                                            return;
                                        }
                                        continue;
                                    }
                                    // Two reads queued back to back are served in order.
                                    CompletableFuture<Integer> f1 = t.async().read(r, a, 0, len);
                                    CompletableFuture<Integer> f2 =
                                            rnd.nextBoolean()
                                                    ? t.async()
                                                            .read(
                                                                    r,
                                                                    b,
                                                                    0,
                                                                    1 + rnd.nextInt(b.length))
                                                    : null;
                                    asyncReads.increment();
                                    boolean more =
                                            consume(
                                                    parser,
                                                    eof,
                                                    eofBefore,
                                                    a,
                                                    await(f1, "readAsync"));
                                    if (f2 != null) {
                                        int n2 = await(f2, "readAsync");
                                        more =
                                                consume(parser, eof, eofBefore || !more, b, n2)
                                                        && more;
                                    }
                                    if (!more) {
                                        return;
                                    }
                                } finally {
                                    turn.unlock();
                                }
                            }
                        } finally {
                            t.close();
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        long total = 0;
        for (int i = 0; i < writers; i++) {
            assertEquals(sent[i].get(), parser.received(i), "records of writer " + i + " read");
            total += sent[i].get();
        }
        System.out.printf(
                "pipe: %d records (%d bytes) by %d writers (%d async writes), %d readers (%d async read"
                        + " rounds)%n",
                total, parser.bytes, writers, asyncWrites.sum(), readers, asyncReads.sum());
        assertEquals(0, parser.leftover(), "bytes of an incomplete record at end of file");
        assertTrue(eof.get(), "end of file seen");
        assertTrue(total >= 20, "the stress did not run");
        assertEquals(
                0,
                EngineInternals.anonFs(fs.vfs()).liveInodes(),
                "the pipe's inode is freed with its last end");
    }

    /**
     * Feeds one read's result to the parser. Returns {@code false} at end of file; data after an
     * end of file that was seen before the read started fails.
     */
    private static boolean consume(
            Parser parser, AtomicBoolean eof, boolean eofBefore, byte[] buf, int n) {
        if (n == 0) {
            eof.set(true);
            return false;
        }
        if (eofBefore) {
            throw new AssertionError(n + " bytes read after end of file");
        }
        parser.feed(buf, n);
        return true;
    }

    private static int await(CompletableFuture<Integer> f, String op) {
        try {
            return f.get(HANG_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(op + " did not complete within " + HANG_SECONDS + " s (hang)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof VfsException v) {
                throw v;
            }
            throw new AssertionError(op + " failed", e.getCause());
        }
    }

    private static <T> T join(Future<T> f, String what) throws Exception {
        try {
            return f.get(HANG_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " did not finish within " + HANG_SECONDS + " s (hang)");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    @Test
    void write_racingTheLastReadersClose_succeedsOrEPIPEAndNeverHangs() throws Exception {
        int rounds = 100;
        LongAdder epipes = new LongAdder();
        LongAdder successes = new LongAdder();
        for (int round = 0; round < rounds; round++) {
            VfsTask p = fs.vfs().newTask(Credentials.ROOT);
            int[] fds = p.pipe();
            int r = fds[0];
            int w = fds[1];
            AtomicBoolean closing = new AtomicBoolean();
            List<Future<?>> writers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                final boolean async = (i & 1) == 1;
                final VfsTask t = p.newThread();
                writers.add(
                        pool.submit(
                                () -> {
                                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                                    try {
                                        while (true) {
                                            byte[] rec = new byte[recordLength(rnd)];
                                            try {
                                                int n =
                                                        async
                                                                ? await(
                                                                        t.async()
                                                                                .write(
                                                                                        w,
                                                                                        rec,
                                                                                        0,
                                                                                        rec.length),
                                                                        "writeAsync")
                                                                : t.write(w, rec, 0, rec.length);
                                                assertEquals(
                                                        rec.length,
                                                        n,
                                                        "a write of at most PIPE_BUF bytes is all or nothing");
                                                successes.increment();
                                            } catch (VfsException e) {
                                                assertEquals(Errno.EPIPE, e.errno(), "write");
                                                assertTrue(
                                                        closing.get(),
                                                        "EPIPE before the last reader closed");
                                                epipes.increment();
                                                return null;
                                            }
                                        }
                                    } finally {
                                        t.close();
                                    }
                                }));
            }
            VfsTask reader = p.newThread();
            Future<?> closer =
                    pool.submit(
                            () -> {
                                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                                byte[] buf = new byte[Limits.PIPE_BUF];
                                for (int k = rnd.nextInt(4); k > 0; k--) {
                                    reader.read(r, buf, 0, buf.length);
                                }
                                closing.set(true);
                                reader.close(r);
                                reader.close();
                                return null;
                            });
            join(closer, "the reader's close");
            for (Future<?> f : writers) {
                join(f, "a writer facing the last reader's close");
            }
            p.close(w);
            p.close();
        }
        System.out.printf(
                "pipe EPIPE race: %d rounds, %d writes succeeded, %d EPIPE%n",
                rounds, successes.sum(), epipes.sum());
        assertEquals(4L * rounds, epipes.sum(), "every writer ends with EPIPE");
        assertEquals(0, EngineInternals.anonFs(fs.vfs()).liveInodes(), "every pipe's inode freed");
    }

    @Test
    void read_racingTheLastWritersClose_seesAllDataThenEOF() throws Exception {
        int rounds = 150;
        LongAdder eofs = new LongAdder();
        LongAdder bytes = new LongAdder();
        for (int round = 0; round < rounds; round++) {
            VfsTask p = fs.vfs().newTask(Credentials.ROOT);
            int[] fds = p.pipe();
            int r = fds[0];
            int w = fds[1];
            // Half the rounds the writer is a child task whose exit closes the last write end.
            boolean byExit = (round & 1) == 0;
            VfsTask writer = byExit ? p.fork() : p.newThread();
            if (byExit) {
                writer.close(r);
                p.close(w);
            }
            AtomicBoolean closing = new AtomicBoolean();
            AtomicBoolean eof = new AtomicBoolean();
            LongAdder read = new LongAdder();
            long[] written = new long[1];
            Future<?> wf =
                    pool.submit(
                            () -> {
                                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                                for (int k = rnd.nextInt(24); k > 0; k--) {
                                    byte[] rec = new byte[recordLength(rnd)];
                                    written[0] += writer.write(w, rec, 0, rec.length);
                                }
                                closing.set(true);
                                if (byExit) {
                                    writer.close();
                                } else {
                                    writer.close(w);
                                    writer.close();
                                }
                                return null;
                            });
            List<Future<?>> readers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                final boolean async = i == 1;
                final VfsTask t = p.newThread();
                readers.add(
                        pool.submit(
                                () -> {
                                    byte[] buf =
                                            new byte
                                                    [1
                                                            + ThreadLocalRandom.current()
                                                                    .nextInt(2 * Limits.PIPE_BUF)];
                                    try {
                                        while (true) {
                                            boolean eofBefore = eof.get();
                                            int n =
                                                    async
                                                            ? await(
                                                                    t.async()
                                                                            .read(
                                                                                    r,
                                                                                    buf,
                                                                                    0,
                                                                                    buf.length),
                                                                    "readAsync")
                                                            : t.read(r, buf, 0, buf.length);
                                            if (n == 0) {
                                                assertTrue(
                                                        closing.get(),
                                                        "end of file before the last writer closed");
                                                eof.set(true);
                                                eofs.increment();
                                                return null;
                                            }
                                            if (eofBefore) {
                                                throw new AssertionError(
                                                        n + " bytes read after end of file");
                                            }
                                            read.add(n);
                                        }
                                    } finally {
                                        t.close();
                                    }
                                }));
            }
            join(wf, "the writer");
            for (Future<?> f : readers) {
                join(f, "a reader facing the last writer's close");
            }
            assertEquals(
                    written[0], read.sum(), "round " + round + ": bytes read before end of file");
            bytes.add(read.sum());
            p.close(r);
            p.close();
        }
        System.out.printf(
                "pipe EOF race: %d rounds, %d bytes read before end of file%n",
                rounds, bytes.sum());
        assertEquals(2L * rounds, eofs.sum(), "every reader ends with end of file");
        assertEquals(0, EngineInternals.anonFs(fs.vfs()).liveInodes(), "every pipe's inode freed");
    }
}
