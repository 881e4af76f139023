package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.dir.DirQueue;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One batch of a directory's actor (flat combining, {@link DirQueue}) holding commands that fail
 * beside commands that succeed: each is answered as if it ran alone, in submission order, none
 * before the batch is published, and the batch is published whole. The test makes the batch
 * certain: a first create's batch is held unpublished by a hook ({@link WriterHooks#batchStaged})
 * while the other commands queue behind it, so the next round of the actor's drain takes them all.
 *
 * <pre>
 * /f        a regular file (the link source)
 * /d        the directory under test; /d/a is the held create
 * </pre>
 *
 * The superblock holds at most {@value #INODES} inodes (root, /f, /d, /d/a and the batch's own), so
 * creates in the batch meet ENOSPC: one that an earlier unlink of the same batch makes room for
 * succeeds (the batch is published before it, so that the unlinked inode is freed first), as it
 * would after that unlink alone; one with no unlink before it fails.
 */
class DirBatchTest {
    private static final int INODES = 8;

    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs =
                SeqVfs.create(
                        ConfigFactory.parseString(
                                "seqvfs.tmpfs.max-inodes = "
                                        + INODES
                                        + "\nseqvfs.proc.mount = off"));
        t = vfs.newTask(Credentials.ROOT);
        t.mknod("/f", Mode.S_IFREG | 0644, 0);
        t.mkdir("/d", 0755);
    }

    @AfterEach
    void down() {
        vfs.namespace().rootMount().superblock().installHooks(null);
        vfs.close();
    }

    /** What a future ended with: "ok" or the errno's name. */
    private static String outcome(CompletableFuture<?> f) {
        try {
            f.get(10, TimeUnit.SECONDS);
            return "ok";
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            while (!(c instanceof VfsException) && c != null && c.getCause() != null) {
                c = c.getCause();
            }
            return c instanceof VfsException v ? v.errno().name() : String.valueOf(c);
        } catch (InterruptedException | TimeoutException e) {
            return e.toString();
        }
    }

    private DirectoryInode dirD() {
        DirectoryInode root = vfs.namespace().rootMount().root();
        return (DirectoryInode) root.snapshotAcquire().lookup("d").inode();
    }

    @Test
    void failingCommandsInsideABatch_areAnsweredAlone_inOrder_andTheOthersAllApplied()
            throws Exception {
        DirectoryInode d = dirD();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        AtomicInteger biggest = new AtomicInteger();
        vfs.namespace()
                .rootMount()
                .superblock()
                .installHooks(
                        new WriterHooks() {
                            @Override
                            public void batchStaged(Inode dir, int commands) {
                                if (dir != d) {
                                    return;
                                }
                                biggest.accumulateAndGet(commands, Math::max);
                                if (first.compareAndSet(true, false)) {
                                    held.countDown();
                                    try {
                                        release.await(10, TimeUnit.SECONDS);
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                }
                            }
                        });
        // The first create runs /d's actor on a pool thread, and the hook holds its batch there.
        CompletableFuture<Void> held0 =
                CompletableFuture.runAsync(() -> t.mknod("/d/a", Mode.S_IFREG | 0644, 0));
        assertTrue(held.await(10, TimeUnit.SECONDS), "the first batch never reached its hook");
        assertEquals(ENOENT, outcomeOf(() -> t.stat("/d/a")), "a held batch is not published");
        AsyncVfsTask a = t.async();
        List<String> calls = new ArrayList<>();
        List<CompletableFuture<?>> batch = new ArrayList<>();
        add(calls, batch, "create b", a.mknod("/d/b", Mode.S_IFREG | 0644, 0)); // ok
        add(calls, batch, "create b again", a.mknod("/d/b", Mode.S_IFREG | 0644, 0)); // EEXIST
        add(calls, batch, "unlink zz", a.unlink("/d/zz")); // ENOENT
        add(calls, batch, "create c", a.mknod("/d/c", Mode.S_IFREG | 0644, 0)); // ok
        add(calls, batch, "unlink c", a.unlink("/d/c")); // ok: the batch's own create
        add(calls, batch, "link f as l", a.link("/f", "/d/l")); // ok (an inode: 6 of 8)
        add(calls, batch, "mkdir s", a.mkdir("/d/s", 0755)); // ok (7 of 8)
        add(calls, batch, "unlink s", a.unlink("/d/s")); // EISDIR
        add(calls, batch, "create e", a.mknod("/d/e", Mode.S_IFREG | 0644, 0)); // ok (8 of 8)
        add(calls, batch, "create g", a.mknod("/d/g", Mode.S_IFREG | 0644, 0)); // ENOSPC
        add(calls, batch, "unlink e", a.unlink("/d/e")); // ok (7 of 8)
        add(calls, batch, "create g again", a.mknod("/d/g", Mode.S_IFREG | 0644, 0)); // ok
        add(calls, batch, "rename b to b2", a.rename("/d/b", "/d/b2")); // ends the batch
        add(calls, batch, "create b after", a.mknod("/d/b", Mode.S_IFREG | 0644, 0)); // ENOSPC
        add(calls, batch, "unlink b2", a.unlink("/d/b2")); // ok
        add(calls, batch, "create b last", a.mknod("/d/b", Mode.S_IFREG | 0644, 0)); // ok
        for (int i = 0; i < batch.size(); i++) {
            assertFalse(
                    batch.get(i).isDone(),
                    calls.get(i) + " was answered before the held batch was published");
        }
        long[] before = d.commandQueue().batchCounts();
        release.countDown();
        held0.get(10, TimeUnit.SECONDS);
        List<String> got = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            got.add(calls.get(i) + ": " + outcome(batch.get(i)));
        }
        assertEquals(
                List.of(
                        "create b: ok",
                        "create b again: EEXIST",
                        "unlink zz: ENOENT",
                        "create c: ok",
                        "unlink c: ok",
                        "link f as l: ok",
                        "mkdir s: ok",
                        "unlink s: EISDIR",
                        "create e: ok",
                        "create g: ENOSPC",
                        "unlink e: ok",
                        "create g again: ok",
                        "rename b to b2: ok",
                        "create b after: ENOSPC",
                        "unlink b2: ok",
                        "create b last: ok"),
                got);
        TreeSet<String> names = new TreeSet<>();
        for (DirEntry e : t.readdir("/d")) {
            names.add(e.name());
        }
        assertEquals(new TreeSet<>(List.of("a", "b", "g", "l", "s")), names);
        assertEquals(2, t.stat("/f").nlink(), "the batch's link counts once");
        assertEquals(3, t.stat("/d").nlink(), "the batch's mkdir counts once in its parent");
        long[] after = d.commandQueue().batchCounts();
        assertTrue(after[1] > before[1], "the queued commands did not share a batch");
        assertTrue(biggest.get() >= 8, "the largest batch held " + biggest.get() + " commands");
        assertEquals(List.of(), Fsck.check(vfs, false));
    }

    private static final String ENOENT = "ENOENT";

    private static String outcomeOf(Runnable r) {
        try {
            r.run();
            return "ok";
        } catch (VfsException e) {
            return e.errno().name();
        }
    }

    private static void add(
            List<String> calls,
            List<CompletableFuture<?>> batch,
            String call,
            CompletableFuture<?> f) {
        calls.add(call);
        batch.add(f);
    }
}
