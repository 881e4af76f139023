package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.dir.DirReply;
import dev.seqvfs.engine.dir.DirectoryActor;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.dir.PathProof;
import dev.seqvfs.engine.reply.ReplyTo;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A namespace write whose {@link PathProof} never holds, sent to a real directory actor through
 * {@link Revalidate}: every attempt is answered {@code ESTALE}, and the call ends after {@link
 * Revalidate#MAX_TRIES} attempts with {@code EIO}, in milliseconds, in both forms, having created
 * nothing. Before the bound counted attempts, the blocking twin waited for the whole chain of
 * retries under one ask timeout.
 */
class RevalidateStaleProofTest {
    private SeqVfs vfs;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"));
    }

    @AfterEach
    void down() {
        vfs.close();
    }

    /** A proof that counts its checks and never holds. */
    private static final class NeverHolds implements PathProof {
        final AtomicInteger checks = new AtomicInteger();

        @Override
        public boolean stillHolds() {
            checks.incrementAndGet();
            return false;
        }
    }

    /**
     * One attempt of {@code mknod("/x")}: a Create with {@code proof}, as NamespaceCalls sends it.
     */
    private Supplier<CompletableFuture<Void>> mknodAttempt(PathProof proof) {
        DirectoryInode root = vfs.namespace().rootMount().root();
        return () ->
                vfs.asker()
                        .askDir(
                                root,
                                (ReplyTo<DirReply> r) ->
                                        new DirectoryActor.Create(
                                                "x",
                                                Mode.S_IFREG | 0644,
                                                0,
                                                null,
                                                true,
                                                Credentials.ROOT,
                                                proof,
                                                r))
                        .thenApply(
                                r -> {
                                    Asker.check(r, Syscall.MKNOD, "/x", null);
                                    return null;
                                });
    }

    @Test
    void mknod_proofThatNeverHolds_blocking_failsWithEIOAfterMaxTries() {
        NeverHolds proof = new NeverHolds();
        Supplier<CompletableFuture<Void>> attempt = mknodAttempt(proof);
        long start = System.nanoTime();
        VfsException e =
                assertThrows(
                        VfsException.class,
                        () ->
                                Revalidate.retryingBlocking(
                                        () ->
                                                vfs.asker()
                                                        .join(attempt.get(), Syscall.MKNOD, "/x")));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertSame(Errno.EIO, e.errno());
        assertEquals(Revalidate.MAX_TRIES, proof.checks.get());
        assertTrue(ms < 5_000, "took " + ms + " ms");
        assertFalse(
                vfs.namespace().rootMount().root().snapshotAcquire().lookup("x") != null,
                "created /x");
    }

    @Test
    void mknod_proofThatNeverHolds_async_failsWithEIOAfterMaxTries() throws Exception {
        NeverHolds proof = new NeverHolds();
        long start = System.nanoTime();
        CompletableFuture<Void> out = Revalidate.retrying(mknodAttempt(proof));
        java.util.concurrent.ExecutionException e =
                assertThrows(
                        java.util.concurrent.ExecutionException.class,
                        () -> out.get(5, TimeUnit.SECONDS));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertSame(Errno.EIO, ((VfsException) e.getCause()).errno());
        assertEquals(Revalidate.MAX_TRIES, proof.checks.get());
        assertTrue(ms < 5_000, "took " + ms + " ms");
        assertFalse(
                vfs.namespace().rootMount().root().snapshotAcquire().lookup("x") != null,
                "created /x");
    }
}
