package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeState;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Syscall;
import java.lang.ref.WeakReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Resources come back: a file unlinked while open is freed (quota returned, inode and data
 * unreachable) when its last descriptor closes; a million socket/close cycles leave every counter
 * at its baseline and the anonymous inodes unreachable.
 */
class ReleaseTest {
    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create();
        t = vfs.newTask(Credentials.ROOT);
    }

    @AfterEach
    void down() {
        t.close();
        vfs.close();
    }

    /** Runs the collector until {@code ref} is cleared or a bound of attempts passes. */
    private static void collect(WeakReference<?> ref) {
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
            byte[][] pressure = new byte[64][];
            for (int k = 0; k < pressure.length; k++) {
                pressure[k] = new byte[1 << 16];
            }
        }
    }

    @Test
    void unlinkedOpenFile_lastClose_freesQuotaAndTheInodeBecomesUnreachable() {
        long inodes = vfs.namespace().rootMount().superblock().usedInodes();
        int fd = t.open("/big", O_CREAT | O_RDWR, 0644);
        t.write(fd, new byte[1 << 20]);
        Inode inode = t.context().fget(fd, Syscall.FSTAT).inode();
        WeakReference<Inode> ref = new WeakReference<>(inode);
        t.unlink("/big");
        assertEquals(InodeState.UNLINKED_OPEN, inode.state());
        assertTrue(
                vfs.namespace().rootMount().superblock().usedBytes() >= (1 << 20),
                "data stays charged while open");
        t.close(fd);
        assertEquals(InodeState.FREED, inode.state());
        assertEquals(inodes, vfs.namespace().rootMount().superblock().usedInodes());
        assertEquals(0, vfs.namespace().rootMount().superblock().usedBytes());
        inode = null;
        collect(ref);
        assertNull(ref.get(), "the freed inode (and its 1 MiB of pages) is still reachable");
    }

    @Test
    void aMillionSocketCloseCycles_leaveCountersAtBaseline_andSocketsUnreachable() {
        int fd0 = t.socket(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
        WeakReference<Inode> first =
                new WeakReference<>(t.context().fget(fd0, Syscall.FSTAT).inode());
        t.close(fd0);
        for (int i = 0; i < 1_000_000; i++) {
            t.close(t.socket(SocketFlags.AF_INET, SocketFlags.SOCK_STREAM, 0));
        }
        assertEquals(0, vfs.anonFs().liveInodes());
        assertEquals(1_000_001, vfs.anonFs().createdInodes());
        assertEquals(0, t.context().files().tableAcquire().count());
        collect(first);
        assertNull(first.get(), "a closed socket's inode is still reachable");
    }

    /**
     * Reproducer from the concurrency tier: the write's charge outlived the file it was for. Since
     * calls hold their file (issue 17), the last close while the write waits leaves the file open
     * until the write returns; then it is freed with every byte the write charged.
     */
    @Test
    void writeRacingTheLastCloseOfAnUnlinkedFile_leavesNoBytesCharged() throws Exception {
        int fd = t.open("/u", O_CREAT | O_RDWR, 0644);
        dev.seqvfs.engine.inode.RegularInode ri =
                (dev.seqvfs.engine.inode.RegularInode) t.context().fget(fd, Syscall.FSTAT).inode();
        t.unlink("/u");
        VfsTask thread = t.newThread();
        java.util.concurrent.CompletableFuture<Integer> written;
        ri.writeLock().lock();
        try {
            written =
                    java.util.concurrent.CompletableFuture.supplyAsync(
                            () -> thread.write(fd, new byte[8192]), r -> new Thread(r).start());
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!ri.writeLock().hasQueuedThreads() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(
                    ri.writeLock().hasQueuedThreads(), "the writer never reached the inode's lock");
            t.close(fd);
            // The write holds its own reference (fdget): the close removed the descriptor only.
            assertEquals(InodeState.UNLINKED_OPEN, ri.state());
        } finally {
            ri.writeLock().unlock();
        }
        assertEquals(8192, written.get(10, java.util.concurrent.TimeUnit.SECONDS));
        // The write's fdput was the last reference: the file is freed with its charge.
        assertEquals(InodeState.FREED, ri.state());
        assertEquals(0, vfs.namespace().rootMount().superblock().usedBytes());
        thread.close();
    }
}
