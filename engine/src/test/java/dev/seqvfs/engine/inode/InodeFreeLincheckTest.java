package dev.seqvfs.engine.inode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.seqvfs.engine.file.RegularFileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.testing.LincheckBudget;
import dev.seqvfs.protocol.Mode;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Freeing an {@link Inode} under Lincheck's model checker: the last unlink and the last close race
 * (Dekker over the link count and the open count). Forbidden outcomes: the inode freed twice, freed
 * while it still has a link or an open file description, or never freed once both are gone.
 */
class InodeFreeLincheckTest {
    /** An owner that checks, at the instant of each free, that it is allowed. */
    private static final class Owner implements InodeOwner {
        final AtomicInteger frees = new AtomicInteger();
        volatile String violation;

        @Override
        public long dev() {
            return 1;
        }

        @Override
        public long now() {
            return 0;
        }

        @Override
        public int blockSize() {
            return 4096;
        }

        @Override
        public void chargeBytes(long bytes, dev.seqvfs.protocol.Syscall op) {}

        @Override
        public void unchargeBytes(long bytes) {}

        @Override
        public long availableBytes() {
            return Long.MAX_VALUE;
        }

        @Override
        public void inodeFreed(Inode inode) {
            frees.incrementAndGet();
            if (inode.attrsAcquire().nlink() != 0 || inode.openCount() != 0) {
                violation =
                        "freed with nlink "
                                + inode.attrsAcquire().nlink()
                                + ", open "
                                + inode.openCount();
            }
        }
    }

    private static RegularInode inode(Owner owner, int nlink) {
        return new RegularInode(
                2,
                owner,
                InodeOperations.GENERIC,
                RegularFileOperations.INSTANCE,
                InodeAttrs.create(Mode.S_IFREG | 0644, nlink, 0, 0, 0, 0, 0));
    }

    @Test
    void lastUnlink_racingLastClose_freesExactlyOnce() {
        Lincheck.runConcurrentTest(
                LincheckBudget.invocations(1_000),
                () -> {
                    Owner owner = new Owner();
                    RegularInode ino = inode(owner, 1);
                    ino.openAcquire();
                    Thread unlink = new Thread(() -> ino.dropLinks(1, 1));
                    Thread close = new Thread(ino::openRelease);
                    unlink.start();
                    close.start();
                    join(unlink, close);
                    assertEquals(null, owner.violation);
                    assertEquals(1, owner.frees.get(), "freed exactly once when both are gone");
                    assertSame(InodeState.FREED, ino.state());
                });
    }

    /**
     * Two names and one open file, each dropped by its own thread; the closer first dups its
     * descriptor (the open count goes 1, 2, 1, 0): only the last of the three drops frees the
     * inode, and the dup must not make a free early or twice.
     */
    @Test
    void twoUnlinksAndADuppedClose_racing_freeExactlyOnceAfterTheLast() {
        Lincheck.runConcurrentTest(
                LincheckBudget.invocations(1_000),
                () -> {
                    Owner owner = new Owner();
                    RegularInode ino = inode(owner, 2);
                    ino.openAcquire();
                    Thread u1 = new Thread(() -> ino.dropLinks(1, 1));
                    Thread u2 = new Thread(() -> ino.dropLinks(1, 1));
                    Thread close =
                            new Thread(
                                    () -> {
                                        ino.openAcquire();
                                        ino.openRelease();
                                        ino.openRelease();
                                    });
                    u1.start();
                    u2.start();
                    close.start();
                    join(u1, u2, close);
                    assertEquals(null, owner.violation);
                    assertEquals(1, owner.frees.get());
                    assertEquals(0, ino.attrsAcquire().nlink());
                    assertEquals(0, ino.openCount());
                });
    }

    static void join(Thread... ts) {
        for (Thread t : ts) {
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
