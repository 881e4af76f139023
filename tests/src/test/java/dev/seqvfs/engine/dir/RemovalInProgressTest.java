package dev.seqvfs.engine.dir;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression for a linearizability failure found by {@link NamespaceLinearizabilityTest} in the 240
 * s stress run: {@code rename(/a/x, /b/t/x)} failed with ENOENT while a concurrent {@code
 * rename(/b/s, /b/t)} replaced the empty {@code /b/t}, though {@code /b/t} named a directory at
 * every instant. A remover kills the replaced directory, then publishes the parent; a command that
 * lands in between found its directory dead while its walk's proof still held. It must walk again
 * ({@code ESTALE} to {@code Revalidate}), never answer ENOENT from that state.
 *
 * <p>This test pins the state the fix keys on ({@link DirectoryInode#removalInProgress()}): it
 * kills {@code /b/t} the way a remover's first step does, then publishes {@code /b} without it as
 * the second. The ESTALE answer itself is exercised by the linearizability run; holding the state
 * open forever would only measure {@code Revalidate}'s bound ({@code MAX_TRIES} stale attempts,
 * then {@code EIO}). (No {@code Fsck}: the instance is left inconsistent.)
 *
 * <pre>
 * /b/t   empty directory, killed, then unbound from /b
 * </pre>
 */
@Timeout(60)
class RemovalInProgressTest {
    @Test
    void removalInProgress_holdsBetweenTheKillAndTheParentsPublish() {
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/b", 0755);
            t.mkdir("/b/t", 0755);
            DirectoryInode root = EngineInternals.namespace(vfs).rootMount().root();
            DirectoryInode b = (DirectoryInode) root.snapshotAcquire().lookup("b").inode();
            DirectoryInode bt = (DirectoryInode) b.snapshotAcquire().lookup("t").inode();
            assertFalse(bt.removalInProgress());
            assertTrue(bt.tryKill(bt.snapshotAcquire()), "a remover's first step");
            assertTrue(bt.removalInProgress());

            // the remover's second step: the parent no longer binds it
            var bs = b.snapshotAcquire();
            assertTrue(b.casSnapshot(bs, bs.without("t")));
            assertFalse(bt.removalInProgress());
            assertTrue(bt.isDead());
        }
    }
}
