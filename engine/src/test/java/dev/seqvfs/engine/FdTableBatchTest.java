package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.fdtable.FdReply;
import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.FdTableActor;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One batch of a descriptor table's actor holding commands that fail beside commands that succeed:
 * each is answered as if it ran alone, in submission order, and the batch is published whole. The
 * test makes the batch certain: a first call's publication is held by a hook until the other
 * commands are queued behind it, so the actor's next round of its drain takes them all at once.
 *
 * <pre>
 * /f   opened on descriptor 0; RLIMIT_NOFILE 6
 * </pre>
 */
class FdTableBatchTest {
    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs =
                SeqVfs.create(
                        ConfigFactory.parseString(
                                "seqvfs.fd.rlimit-nofile = 6\nseqvfs.proc.mount = off"));
        t = vfs.newTask(Credentials.ROOT);
        assertEquals(0, t.open("/f", O_CREAT | O_RDWR, 0644));
    }

    @AfterEach
    void down() {
        t.context().files().installBeforePublishHook(null);
        vfs.close();
    }

    /** What a future ended with: the descriptor, 0 for a close, or the errno's name. */
    private static String outcome(CompletableFuture<?> f) {
        try {
            Object v = f.get(10, TimeUnit.SECONDS);
            return v == null ? "ok" : v.toString();
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause() instanceof CompletionException ce ? ce.getCause() : e;
            c = c instanceof VfsException ? c : e.getCause();
            return c instanceof VfsException v ? v.errno().name() : c.toString();
        } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            return e.toString();
        }
    }

    @Test
    void failingCommandsInsideABatch_areAnsweredAlone_andTheOthersAllApplied() throws Exception {
        FilesStruct files = t.context().files();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        files.installBeforePublishHook(
                () -> {
                    if (first.compareAndSet(true, false)) {
                        held.countDown();
                        try {
                            release.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
        long[] before = files.batchCounts();
        // The first dup runs the table's actor on a pool thread, and the hook holds it there.
        CompletableFuture<Integer> held0 = CompletableFuture.supplyAsync(() -> t.dup(0));
        assertTrue(held.await(10, TimeUnit.SECONDS), "the first batch never reached its hook");
        List<CompletableFuture<?>> batch = new ArrayList<>();
        batch.add(t.async().dup(0)); // 2
        batch.add(t.async().close(42)); // EBADF
        batch.add(t.async().dup(0)); // 3
        batch.add(t.async().dup(0)); // 4
        batch.add(t.async().dup(0)); // 5
        batch.add(t.async().dup(0)); // EMFILE: 0..5 are open
        batch.add(t.async().close(3)); // ok
        batch.add(t.async().dup(0)); // 3 again: the batch's own close freed it
        batch.add(t.async().close(3)); // ok
        for (CompletableFuture<?> f : batch) {
            assertTrue(!f.isDone(), "a command was answered before the held batch was published");
        }
        release.countDown();
        assertEquals(1, (int) held0.get(10, TimeUnit.SECONDS));
        List<String> got = new ArrayList<>();
        for (CompletableFuture<?> f : batch) {
            got.add(outcome(f));
        }
        assertEquals(List.of("2", "EBADF", "3", "4", "5", "EMFILE", "ok", "3", "ok"), got);
        FdTable table = files.tableAcquire();
        assertEquals(List.of(0, 1, 2, 4, 5), boxed(table.openFds()));
        long[] after = files.batchCounts();
        assertTrue(after[1] > before[1], "the queued commands did not share a batch");
        assertEquals(0, files.reservedCount());
        assertEquals(Errno.EBADF, errno(() -> t.close(3)));
    }

    private static List<Integer> boxed(int[] a) {
        List<Integer> l = new ArrayList<>();
        for (int x : a) {
            l.add(x);
        }
        return l;
    }

    private static Errno errno(Runnable r) {
        try {
            r.run();
        } catch (VfsException e) {
            return e.errno();
        }
        return null;
    }

    /**
     * A command that reaches a stopped table (its last task exited) is refused with {@code EBADF}
     * at once, not left to the ask timeout as a dead letter: the stop marks the table's queue
     * closed, and a submit that finds it closed answers the command itself.
     */
    @Test
    void commandToAStoppedTable_isRefusedWithEBADF() throws Exception {
        FilesStruct files = t.context().files();
        t.close(); // exit: every descriptor closed, then the actor is told to stop
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            CompletableFuture<FdReply> f =
                    vfs.asker()
                            .ask(
                                    files.commands(),
                                    (ReplyTo<FdReply> r) -> new FdTableActor.CloseAll(r));
            try {
                FdReply r = f.get(200, TimeUnit.MILLISECONDS);
                last = String.valueOf(r.error());
                if (r.error() == Errno.EBADF) {
                    return; // stopped, and the command refused
                }
            } catch (java.util.concurrent.TimeoutException e) {
                last = "no answer within 200 ms";
            }
            Thread.sleep(10);
        }
        fail("a command to the stopped table got: " + last);
    }
}
