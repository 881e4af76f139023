package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Record locks on behalf of a {@link LockOwner} (a FUSE client's {@code lock_owner}): owners
 * conflict with each other through one task and one descriptor, the same owner's ranges merge,
 * {@code F_GETLK} reports the holder's pid from its request, a close of the descriptor leaves them,
 * {@code F_SETLKW} waits for another owner and {@code EDEADLK} spans owners.
 */
class LockOwnerTest {
    SeqVfs vfs;
    VfsTask server;
    int fd;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create();
        server = vfs.newTask(Credentials.ROOT);
        fd = server.open("/f", O_CREAT | O_RDWR, 0644);
    }

    @AfterEach
    void down() {
        server.close();
        vfs.close();
    }

    private static Errno errno(Runnable r) {
        return assertThrows(VfsException.class, r::run).errno();
    }

    @Test
    void twoOwners_throughOneDescriptor_conflict_andGetlkReportsTheHoldersPid() {
        LockOwner p1 = new LockOwner("1");
        LockOwner p2 = new LockOwner("2");
        server.fcntlLock(fd, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, 0, 0, 10, 101), p1);
        assertEquals(
                Errno.EAGAIN,
                errno(
                        () ->
                                server.fcntlLock(
                                        fd,
                                        Fcntl.F_SETLK,
                                        new Flock(Flock.F_RDLCK, 0, 5, 1, 102),
                                        p2)));
        Flock got = server.fcntlLock(fd, Fcntl.F_GETLK, new Flock(Flock.F_RDLCK, 0, 0, 0, 102), p2);
        assertEquals(new Flock(Flock.F_WRLCK, 0, 0, 10, 101), got);
        // the same owner's ranges never conflict: it extends its own lock
        server.fcntlLock(fd, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, 0, 5, 10, 101), p1);
        // and the task's own (descriptor-table) locks are a third owner
        assertEquals(
                Errno.EAGAIN,
                errno(() -> server.fcntlLock(fd, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 0, 1))));
    }

    @Test
    void closingTheDescriptor_leavesTheOwnersLocks_untilItUnlocks() {
        LockOwner p1 = new LockOwner("1");
        LockOwner p2 = new LockOwner("2");
        server.fcntlLock(fd, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, 0, 0, 0, 101), p1);
        int other = server.open("/f", O_RDONLY);
        server.close(fd);
        assertEquals(
                Errno.EAGAIN,
                errno(
                        () ->
                                server.fcntlLock(
                                        other,
                                        Fcntl.F_SETLK,
                                        new Flock(Flock.F_RDLCK, 0, 0, 0, 102),
                                        p2)));
        server.fcntlLock(other, Fcntl.F_SETLK, new Flock(Flock.F_UNLCK, 0, 0, 0, 101), p1);
        server.fcntlLock(other, Fcntl.F_SETLK, new Flock(Flock.F_RDLCK, 0, 0, 0, 102), p2);
        fd = server.open("/f", O_RDWR); // for down()
    }

    @Test
    void setlkw_waitsForAnotherOwner_andACycleOfOwnersIsEDEADLK() throws Exception {
        LockOwner p1 = new LockOwner("1");
        LockOwner p2 = new LockOwner("2");
        server.fcntlLock(fd, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, 0, 0, 1, 101), p1);
        server.fcntlLock(fd, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, 0, 1, 1, 102), p2);
        CompletableFuture<Flock> waiting =
                server.async()
                        .fcntlLock(fd, Fcntl.F_SETLKW, new Flock(Flock.F_WRLCK, 0, 1, 1, 101), p1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (vfs.lockWaitGraph().size() == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertFalse(waiting.isDone(), "p1 waits for p2");
        assertEquals(
                Errno.EDEADLK,
                errno(
                        () ->
                                server.fcntlLock(
                                        fd,
                                        Fcntl.F_SETLKW,
                                        new Flock(Flock.F_WRLCK, 0, 0, 1, 102),
                                        p2)));
        server.fcntlLock(fd, Fcntl.F_SETLK, new Flock(Flock.F_UNLCK, 0, 1, 1, 102), p2);
        assertEquals(Flock.F_WRLCK, waiting.get(10, TimeUnit.SECONDS).type());
    }

    @Test
    void nullOwner_isEFAULT() {
        assertEquals(
                Errno.EFAULT,
                errno(
                        () ->
                                server.fcntlLock(
                                        fd, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 0, 0), null)));
    }
}
