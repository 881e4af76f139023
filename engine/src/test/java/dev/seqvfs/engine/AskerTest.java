package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reply path of the embedding API: an async call to an idle actor completes on the
 * calling thread, and its dependent stages run synchronously, never on a thread of
 * CompletableFuture's default executor (which, with 2 CPUs, starts a thread per task).
 */
class AskerTest {
    static SeqVfs vfs;
    static VfsTask t;

    @BeforeAll
    static void up() {
        vfs = SeqVfs.create();
        t = vfs.newTask(Credentials.ROOT);
    }

    @AfterAll
    static void down() {
        vfs.close();
    }

    @Test
    void asyncCall_idleActor_completesBeforeReturningAndRunsDependentsOnCaller() {
        t.mkdir("/warm", 0755); // spawns the root directory's actor first
        for (int i = 0; i < 100; i++) {
            CompletableFuture<Void> f = t.async().mknodat(VfsTask.AT_FDCWD, "/warm/f" + i, Mode.S_IFREG | 0644, 0);
            assertTrue(f.isDone(), "reply not there when the async call returned, iteration " + i);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            f.thenRun(() -> ranOn.set(Thread.currentThread()));
            assertSame(Thread.currentThread(), ranOn.get(), "dependent stage handed off to another thread");
        }
    }

    @Test
    void asyncCall_failure_completesExceptionallyWithTheVfsException() {
        t.mkdir("/dup", 0755);
        CompletableFuture<Void> f = t.async().mkdir("/dup", 0755);
        assertTrue(f.isDone());
        CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, f::join);
        assertEquals(Errno.EEXIST, ((VfsException) e.getCause()).errno());
    }

    @Test
    void blockingCreateUnlink_manyIterations_startsNoThreadPerCall() {
        t.mkdir("/loop", 0755);
        int before = Thread.activeCount();
        for (int i = 0; i < 2000; i++) {
            t.mknod("/loop/x", Mode.S_IFREG | 0644, 0);
            t.unlink("/loop/x");
        }
        int after = Thread.activeCount();
        assertTrue(after - before < 8, "threads grew from " + before + " to " + after);
    }
}
