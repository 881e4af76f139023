package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SeqVfs#close()}: every later call fails at once with {@code EIO}, lock-free reads and
 * async twins included (a newcomer found blocking calls waiting for the ask timeout and async
 * futures that never completed); closing twice, and ending a task afterwards, are harmless.
 */
@Timeout(20)
class SeqVfsCloseTest {
    private static void assertEio(Runnable call) {
        VfsException e = assertThrows(VfsException.class, call::run);
        assertEquals(Errno.EIO, e.errno());
    }

    @Test
    void callsAfterClose_failAtOnceWithEIO() {
        SeqVfs vfs = SeqVfs.create();
        VfsTask t = vfs.newTask(Credentials.ROOT);
        t.mkdir("/d", 0755);
        int fd = t.open("/d/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
        assertFalse(vfs.isClosed());
        vfs.close();
        assertTrue(vfs.isClosed());
        long start = System.nanoTime();
        assertEio(() -> t.stat("/d"));
        assertEio(() -> t.open("/d/f", OpenFlags.O_RDONLY, 0));
        assertEio(() -> t.mkdir("/z", 0755));
        assertEio(() -> t.read(fd, new byte[4], 0, 4));
        assertEio(() -> t.close(fd));
        assertEio(() -> vfs.newTask(Credentials.ROOT));
        // far below the ask timeout (10 s): nothing waited for a reply
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
        vfs.close();
        t.close();
    }

    @Test
    void asyncTwinAfterClose_completesExceptionallyWithEIO() throws Exception {
        SeqVfs vfs = SeqVfs.create();
        VfsTask t = vfs.newTask(Credentials.ROOT);
        vfs.close();
        CompletableFuture<Void> f = t.async().mkdir("/z", 0755);
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        assertEquals(Errno.EIO, assertInstanceOf(VfsException.class, e.getCause()).errno());
    }
}
