package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Directory {@code /d} whose actor is kept busy: an {@code unlink("/d/x")} parked inside the
 * actor's handler ({@link WriterHooks#entriesPublished}) until {@link #release}, so that a command
 * sent to {@code /d} meanwhile ({@code mkdir("/d/y")}) waits for its reply in {@code Asker}.
 * Closing the instance waits for that handler, so a test closes it on a thread of its own ({@link
 * #closeInstance}).
 *
 * <pre>
 * /d      directory, its actor busy
 * /d/x    regular file, being unlinked
 * </pre>
 */
final class BusyDirectory implements AutoCloseable {
    private final SeqVfs vfs;
    private final CountDownLatch parked = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final Thread unlinker;

    /** Makes {@code /d} and {@code /d/x} with {@code t}, and returns once the unlink is parked. */
    BusyDirectory(SeqVfs vfs, VfsTask t) throws InterruptedException {
        this.vfs = vfs;
        t.mkdir("/d", 0755);
        t.mknod("/d/x", Mode.S_IFREG | 0644, 0);
        long dIno = t.stat("/d").ino();
        AtomicBoolean armed = new AtomicBoolean(true);
        vfs.namespace()
                .rootMount()
                .superblock()
                .installHooks(
                        new WriterHooks() {
                            @Override
                            public void entriesPublished(Inode dir) {
                                if (dir.ino() == dIno && armed.compareAndSet(true, false)) {
                                    parked.countDown();
                                    try {
                                        released.await(ParkedCall.WAIT_SECONDS, TimeUnit.SECONDS);
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                }
                            }
                        });
        VfsTask other = vfs.newTask(Credentials.ROOT);
        unlinker =
                new Thread(
                        () -> {
                            try {
                                other.unlink("/d/x");
                            } catch (VfsException e) {
                                // EIO: its reply was failed by the close
                            }
                        },
                        "busy-directory");
        unlinker.setDaemon(true);
        unlinker.start();
        assertTrue(
                parked.await(ParkedCall.WAIT_SECONDS, TimeUnit.SECONDS), "the unlink never parked");
    }

    /** Starts {@code vfs.close()} on a thread of its own and returns that thread. */
    Thread closeInstance() {
        Thread closer = new Thread(vfs::close, "closer");
        closer.setDaemon(true);
        closer.start();
        return closer;
    }

    /** Lets the parked unlink, and the commands queued behind it, run. */
    void release() {
        released.countDown();
    }

    /**
     * Waits for {@code closer} ({@link #closeInstance}) to return, failing the test if it does not.
     */
    static void assertReturned(Thread closer) throws InterruptedException {
        closer.join(TimeUnit.SECONDS.toMillis(ParkedCall.WAIT_SECONDS));
        assertFalse(closer.isAlive(), "close() did not return");
    }

    /** Releases the unlink and waits for it to end. */
    @Override
    public void close() {
        released.countDown();
        try {
            unlinker.join(TimeUnit.SECONDS.toMillis(ParkedCall.WAIT_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
