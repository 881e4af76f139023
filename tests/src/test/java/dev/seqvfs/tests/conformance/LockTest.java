package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Io.awaitParked;
import static dev.seqvfs.tests.conformance.Io.writeFile;
import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies advisory locks: {@code flock(2)} (shared and exclusive whole-file locks owned by the
 * open file description: duplicated descriptors share one, separate opens conflict even in one
 * process, a conversion drops the old lock first, the lock goes at the last close of the
 * description; {@code LOCK_NB} gives EWOULDBLOCK, which is EAGAIN) and the record locks of {@code
 * fcntl(2)} ({@code F_GETLK}, {@code F_SETLK}, {@code F_SETLKW}: byte ranges owned by the process,
 * {@code l_whence} {@code SEEK_SET}, {@code SEEK_CUR}, {@code SEEK_END}, negative {@code l_len},
 * length 0 to the end, splitting and merging of the owner's ranges, release when the process closes
 * any descriptor of the file or exits, waiting, EDEADLK). Errnos: EBADF (closed, {@code O_PATH}, a
 * lock type the access mode does not allow; {@code flock} on access mode 3), EINVAL (bad operation,
 * checked before the descriptor; bad type, whence or range; {@code F_GETLK} of {@code F_UNLCK}),
 * EOVERFLOW (a range past {@code LLONG_MAX}), EAGAIN, EDEADLK. Each process is a task ({@code
 * fs.task}); measured on Linux 6.18.
 *
 * <pre>
 * /f    regular file of 100 bytes, 0666, root
 * </pre>
 */
@FileSystemContract
@Timeout(10)
class LockTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask a;
    VfsTask b;

    @BeforeEach
    void tree() {
        a = fs.root();
        writeFile(a, "/f", "x".repeat(100));
        a.chmod("/f", 0666);
        b = fs.task(0, 0);
    }

    @AfterEach
    void exitB() {
        b.close();
    }

    private static Flock range(int type, long start, long len) {
        return Flock.of(type, start, len);
    }

    /** F_GETLK by {@code who} for a write lock on {@code [start, start + len)}. */
    private static Flock probe(VfsTask who, int fd, long start, long len) {
        return who.fcntlLock(fd, Fcntl.F_GETLK, range(Flock.F_WRLCK, start, len));
    }

    // ---------------------------------------------------------------- flock

    @Test
    void flock_sharedLocks_coexistAcrossDescriptions() {
        int x = a.open("/f", OpenFlags.O_RDONLY);
        int y = a.open("/f", OpenFlags.O_RDONLY);
        a.flock(x, Flock.LOCK_SH);
        a.flock(y, Flock.LOCK_SH | Flock.LOCK_NB);
        assertErrno(Errno.EAGAIN, () -> a.flock(y, Flock.LOCK_EX | Flock.LOCK_NB));
        a.close(x);
        a.close(y);
    }

    @Test
    void flock_exclusive_conflictsWithAnyOtherDescriptionEvenInTheSameProcess() {
        int x = a.open("/f", OpenFlags.O_RDONLY);
        int y = a.open("/f", OpenFlags.O_RDONLY);
        int z = b.open("/f", OpenFlags.O_RDONLY);
        a.flock(x, Flock.LOCK_EX);
        assertErrno(Errno.EAGAIN, () -> a.flock(y, Flock.LOCK_SH | Flock.LOCK_NB));
        assertErrno(Errno.EAGAIN, () -> b.flock(z, Flock.LOCK_EX | Flock.LOCK_NB));
        a.flock(x, Flock.LOCK_UN);
        b.flock(z, Flock.LOCK_EX | Flock.LOCK_NB);
        a.close(x);
        a.close(y);
        b.close(z);
    }

    @Test
    void flock_duplicatedDescriptors_shareOneLock() {
        int x = a.open("/f", OpenFlags.O_RDONLY);
        int dup = a.dup(x);
        int other = a.open("/f", OpenFlags.O_RDONLY);
        a.flock(x, Flock.LOCK_EX);
        a.flock(dup, Flock.LOCK_EX | Flock.LOCK_NB);
        a.flock(dup, Flock.LOCK_UN);
        a.flock(other, Flock.LOCK_EX | Flock.LOCK_NB);
        a.close(x);
        a.close(dup);
        a.close(other);
    }

    @Test
    void flock_isReleasedAtTheLastCloseOfTheDescription() {
        int x = a.open("/f", OpenFlags.O_RDONLY);
        int dup = a.dup(x);
        int other = b.open("/f", OpenFlags.O_RDONLY);
        a.flock(x, Flock.LOCK_EX);
        a.close(x);
        assertErrno(Errno.EAGAIN, () -> b.flock(other, Flock.LOCK_SH | Flock.LOCK_NB));
        a.close(dup);
        b.flock(other, Flock.LOCK_SH | Flock.LOCK_NB);
        b.close(other);
    }

    @Test
    void flock_conversion_sharedToExclusiveAndBack() {
        int x = a.open("/f", OpenFlags.O_RDONLY);
        int other = b.open("/f", OpenFlags.O_RDONLY);
        a.flock(x, Flock.LOCK_SH);
        a.flock(x, Flock.LOCK_EX | Flock.LOCK_NB);
        assertErrno(Errno.EAGAIN, () -> b.flock(other, Flock.LOCK_SH | Flock.LOCK_NB));
        a.flock(x, Flock.LOCK_SH);
        b.flock(other, Flock.LOCK_SH | Flock.LOCK_NB);
        a.close(x);
        b.close(other);
    }

    @Test
    void flock_failedConversion_hasDroppedTheOldLock() {
        // flock(2): "the existing lock is first removed, and then a new lock is established".
        int x = a.open("/f", OpenFlags.O_RDONLY);
        int y = b.open("/f", OpenFlags.O_RDONLY);
        a.flock(x, Flock.LOCK_SH);
        b.flock(y, Flock.LOCK_SH);
        assertErrno(Errno.EAGAIN, () -> a.flock(x, Flock.LOCK_EX | Flock.LOCK_NB));
        b.flock(y, Flock.LOCK_EX | Flock.LOCK_NB);
        a.close(x);
        b.close(y);
    }

    @Test
    void flock_blocking_waitsUntilTheHolderUnlocks() throws Exception {
        int x = a.open("/f", OpenFlags.O_RDONLY);
        int y = b.open("/f", OpenFlags.O_RDONLY);
        a.flock(x, Flock.LOCK_EX);
        Thread waiter = new Thread(() -> b.flock(y, Flock.LOCK_EX));
        waiter.start();
        awaitParked(waiter);
        a.flock(x, Flock.LOCK_UN);
        waiter.join(10_000);
        assertErrno(Errno.EAGAIN, () -> a.flock(x, Flock.LOCK_SH | Flock.LOCK_NB));
        a.close(x);
        b.close(y);
    }

    @Test
    void flock_directoryAndWriteOnlyDescriptors_canBeLocked() {
        a.mkdir("/d", 0755);
        int d = a.open("/d", OpenFlags.O_RDONLY);
        int w = a.open("/f", OpenFlags.O_WRONLY);
        a.flock(d, Flock.LOCK_EX | Flock.LOCK_NB);
        a.flock(w, Flock.LOCK_EX | Flock.LOCK_NB);
        a.close(d);
        a.close(w);
    }

    @Test
    void flock_badOperation_failsWithEINVAL_beforeTheDescriptorIsLookedAt() {
        int x = a.open("/f", OpenFlags.O_RDONLY);
        assertErrno(Errno.EINVAL, () -> a.flock(x, 0));
        assertErrno(Errno.EINVAL, () -> a.flock(x, Flock.LOCK_SH | Flock.LOCK_EX));
        assertErrno(Errno.EINVAL, () -> a.flock(x, Flock.LOCK_NB));
        assertErrno(Errno.EINVAL, () -> a.flock(x, 16));
        a.flock(x, Flock.LOCK_UN | Flock.LOCK_NB);
        a.close(x);
        assertErrno(Errno.EINVAL, () -> a.flock(x, 0));
        assertErrno(Errno.EINVAL, () -> a.flock(99, Flock.LOCK_SH | Flock.LOCK_EX));
    }

    @Test
    void flock_closedOrPathDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> a.flock(99, Flock.LOCK_SH));
        int p = a.open("/f", OpenFlags.O_PATH);
        assertErrno(Errno.EBADF, () -> a.flock(p, Flock.LOCK_SH));
        a.close(p);
    }

    @Test
    void flock_accessModeThree_failsWithEBADFExceptToUnlock() {
        int x = a.open("/f", OpenFlags.O_ACCMODE);
        assertErrno(Errno.EBADF, () -> a.flock(x, Flock.LOCK_SH));
        assertErrno(Errno.EBADF, () -> a.flock(x, Flock.LOCK_EX | Flock.LOCK_NB));
        a.flock(x, Flock.LOCK_UN);
        a.close(x);
    }

    @Test
    void flockAndRecordLocks_doNotInteract() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.flock(x, Flock.LOCK_EX);
        b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 0));
        a.close(x);
        b.close(y);
    }

    // ---------------------------------------------------------------- F_SETLK / F_GETLK

    @Test
    void setlk_readLocksOfTwoProcesses_coexist_writeLockConflictsWithEAGAIN() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, 0, 10));
        b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_RDLCK, 5, 10));
        assertErrno(Errno.EAGAIN, () -> b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_WRLCK, 9, 1)));
        b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_WRLCK, 10, 5));
        assertErrno(Errno.EAGAIN, () -> a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, 12, 1)));
        a.close(x);
        b.close(y);
    }

    @Test
    void getlk_reportsTheBlockingLockWithItsOwnersPid() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDONLY);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 10, 20));
        Flock got =
                b.fcntlLock(
                        y, Fcntl.F_GETLK, new Flock(Flock.F_RDLCK, VfsTask.SEEK_END, -85, 1, 0));
        assertEquals(new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, 10, 20, a.pid()), got);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, 50, 0));
        assertEquals(
                new Flock(Flock.F_RDLCK, VfsTask.SEEK_SET, 50, 0, a.pid()), probe(b, y, 60, 1));
        a.close(x);
        b.close(y);
    }

    @Test
    void getlk_noConflict_answersFUnlckAndLeavesTheRestAsAsked() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, 0, 10));
        Flock asked = new Flock(Flock.F_RDLCK, VfsTask.SEEK_SET, 3, 4, 0);
        assertEquals(
                new Flock(Flock.F_UNLCK, VfsTask.SEEK_SET, 3, 4, 0),
                b.fcntlLock(y, Fcntl.F_GETLK, asked));
        // A process never conflicts with its own locks.
        assertEquals(Flock.F_UNLCK, probe(a, x, 0, 10).type());
        a.close(x);
        b.close(y);
    }

    @Test
    void setlk_whenceCurAndEnd_areRelativeToTheOffsetAndTheSize() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.lseek(x, 40, VfsTask.SEEK_SET);
        a.fcntlLock(x, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, VfsTask.SEEK_CUR, 2, 3, 0));
        a.fcntlLock(x, Fcntl.F_SETLK, new Flock(Flock.F_WRLCK, VfsTask.SEEK_END, -10, 5, 0));
        assertEquals(
                new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, 42, 3, a.pid()), probe(b, y, 0, 50));
        assertEquals(
                new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, 90, 5, a.pid()), probe(b, y, 50, 0));
        assertEquals(Flock.F_UNLCK, probe(b, y, 95, 0).type());
        a.close(x);
        b.close(y);
    }

    @Test
    void setlk_negativeLength_locksTheBytesBeforeStart() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 20, -5));
        assertEquals(new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, 15, 5, a.pid()), probe(b, y, 0, 0));
        assertEquals(Flock.F_UNLCK, probe(b, y, 20, 1).type());
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_UNLCK, 20, -20));
        assertEquals(Flock.F_UNLCK, probe(b, y, 0, 0).type());
        a.close(x);
        b.close(y);
    }

    @Test
    void setlk_lengthZero_coversTheFileAsItGrows() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 90, 0));
        assertErrno(
                Errno.EAGAIN,
                () -> b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_RDLCK, 1L << 40, 1)));
        a.close(x);
        b.close(y);
    }

    @Test
    void setlk_unlockingTheMiddle_splitsTheRange() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 100));
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_UNLCK, 40, 20));
        b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_WRLCK, 40, 20));
        assertEquals(
                new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, 0, 40, a.pid()), probe(b, y, 39, 1));
        assertEquals(
                new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, 60, 40, a.pid()), probe(b, y, 60, 1));
        a.close(x);
        b.close(y);
    }

    @Test
    void setlk_readLockInsideOwnWriteLock_splitsItIntoThree() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 100));
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, 40, 20));
        b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_RDLCK, 45, 10));
        Flock middle = b.fcntlLock(y, Fcntl.F_GETLK, range(Flock.F_WRLCK, 40, 1));
        assertEquals(new Flock(Flock.F_RDLCK, VfsTask.SEEK_SET, 40, 20, a.pid()), middle);
        assertEquals(
                new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, 60, 40, a.pid()), probe(b, y, 60, 1));
        assertErrno(Errno.EAGAIN, () -> b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_RDLCK, 39, 1)));
        a.close(x);
        b.close(y);
    }

    @Test
    void setlk_adjacentRangesOfOneType_merge() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 10));
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 20, 10));
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 10, 10));
        assertEquals(
                new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, 0, 30, a.pid()), probe(b, y, 15, 1));
        a.close(x);
        b.close(y);
    }

    @Test
    void setlk_upgradeOwnReadLock_toWrite() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, 0, 10));
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 10));
        assertErrno(Errno.EAGAIN, () -> b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_RDLCK, 5, 1)));
        a.close(x);
        b.close(y);
    }

    // ---------------------------------------------------------------- release

    @Test
    void recordLocks_closingAnyDescriptorOfTheFile_releasesThemAll() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int other = a.open("/f", OpenFlags.O_RDONLY);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 10));
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, 50, 10));
        a.close(other);
        b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 0));
        a.close(x);
        b.close(y);
    }

    @Test
    void recordLocks_closingADescriptorOfAnotherFile_keepsThem() {
        writeFile(a, "/g", "");
        int x = a.open("/f", OpenFlags.O_RDWR);
        int g = a.open("/g", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 10));
        a.close(g);
        assertEquals(Flock.F_WRLCK, probe(b, y, 0, 1).type());
        a.close(x);
        b.close(y);
    }

    @Test
    void recordLocks_closingADuplicate_releasesThem() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int dup = a.dup(x);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 10));
        a.close(dup);
        assertEquals(Flock.F_UNLCK, probe(b, y, 0, 10).type());
        a.close(x);
        b.close(y);
    }

    @Test
    void recordLocks_areReleasedWhenTheProcessExits() {
        VfsTask c = fs.task(0, 0);
        int x = c.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        c.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 0));
        c.close();
        b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 0));
        b.close(y);
    }

    @Test
    void recordLocks_threadsOfOneProcess_shareThem() {
        VfsTask thread = a.newThread();
        int x = a.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 10));
        thread.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 5, 10));
        assertEquals(Flock.F_UNLCK, probe(thread, x, 0, 0).type());
        thread.close();
        a.close(x);
    }

    // ---------------------------------------------------------------- waiting, EDEADLK

    @Test
    void setlkw_waitsUntilTheConflictingLockIsReleased() throws Exception {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 10));
        Thread waiter =
                new Thread(() -> b.fcntlLock(y, Fcntl.F_SETLKW, range(Flock.F_WRLCK, 5, 1)));
        waiter.start();
        awaitParked(waiter);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_UNLCK, 0, 0));
        waiter.join(10_000);
        assertEquals(new Flock(Flock.F_WRLCK, VfsTask.SEEK_SET, 5, 1, b.pid()), probe(a, x, 0, 0));
        a.close(x);
        b.close(y);
    }

    @Test
    void setlkw_waitThatWouldCloseACycle_failsWithEDEADLK() throws Exception {
        int x = a.open("/f", OpenFlags.O_RDWR);
        int y = b.open("/f", OpenFlags.O_RDWR);
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 1));
        b.fcntlLock(y, Fcntl.F_SETLK, range(Flock.F_WRLCK, 1, 1));
        CompletableFuture<Flock> bWaits = new CompletableFuture<>();
        Thread waiter =
                new Thread(
                        () -> {
                            try {
                                bWaits.complete(
                                        b.fcntlLock(y, Fcntl.F_SETLKW, range(Flock.F_WRLCK, 0, 1)));
                            } catch (VfsException e) {
                                bWaits.completeExceptionally(e);
                            }
                        });
        waiter.start();
        awaitParked(waiter);
        assertErrno(
                Errno.EDEADLK, () -> a.fcntlLock(x, Fcntl.F_SETLKW, range(Flock.F_WRLCK, 1, 1)));
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_UNLCK, 0, 1));
        assertEquals(Flock.F_WRLCK, bWaits.get(10, TimeUnit.SECONDS).type());
        a.close(x);
        b.close(y);
    }

    // ---------------------------------------------------------------- errors

    @Test
    void setlk_lockTypeNotAllowedByTheAccessMode_failsWithEBADF() {
        int r = a.open("/f", OpenFlags.O_RDONLY);
        int w = a.open("/f", OpenFlags.O_WRONLY);
        int n = a.open("/f", OpenFlags.O_ACCMODE);
        assertErrno(Errno.EBADF, () -> a.fcntlLock(r, Fcntl.F_SETLK, range(Flock.F_WRLCK, 0, 1)));
        assertErrno(Errno.EBADF, () -> a.fcntlLock(w, Fcntl.F_SETLKW, range(Flock.F_RDLCK, 0, 1)));
        assertErrno(Errno.EBADF, () -> a.fcntlLock(n, Fcntl.F_SETLK, range(Flock.F_RDLCK, 0, 1)));
        a.fcntlLock(r, Fcntl.F_SETLK, range(Flock.F_UNLCK, 0, 1));
        // F_GETLK asks about any type on any descriptor.
        assertEquals(
                Flock.F_UNLCK, a.fcntlLock(r, Fcntl.F_GETLK, range(Flock.F_WRLCK, 0, 1)).type());
        a.close(r);
        a.close(w);
        a.close(n);
    }

    @Test
    void recordLock_closedOrPathDescriptor_failsWithEBADF() {
        assertErrno(Errno.EBADF, () -> a.fcntlLock(99, Fcntl.F_SETLK, range(Flock.F_RDLCK, 0, 1)));
        assertErrno(Errno.EBADF, () -> a.fcntlLock(99, Fcntl.F_GETLK, range(Flock.F_RDLCK, 0, 1)));
        int p = a.open("/f", OpenFlags.O_PATH);
        assertErrno(Errno.EBADF, () -> a.fcntlLock(p, Fcntl.F_SETLK, range(Flock.F_UNLCK, 0, 1)));
        assertErrno(Errno.EBADF, () -> a.fcntlLock(p, Fcntl.F_GETLK, range(Flock.F_RDLCK, 0, 1)));
        a.close(p);
    }

    @Test
    void recordLock_badTypeWhenceOrRange_failsWithEINVAL() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        assertErrno(Errno.EINVAL, () -> a.fcntlLock(x, Fcntl.F_SETLK, range(9, 0, 1)));
        assertErrno(
                Errno.EINVAL,
                () -> a.fcntlLock(x, Fcntl.F_SETLK, new Flock(Flock.F_RDLCK, 7, 0, 1, 0)));
        assertErrno(Errno.EINVAL, () -> a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, -1, 1)));
        assertErrno(Errno.EINVAL, () -> a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, 5, -6)));
        a.lseek(x, 10, VfsTask.SEEK_SET);
        assertErrno(
                Errno.EINVAL,
                () ->
                        a.fcntlLock(
                                x,
                                Fcntl.F_SETLK,
                                new Flock(Flock.F_RDLCK, VfsTask.SEEK_CUR, -11, 0, 0)));
        assertErrno(Errno.EINVAL, () -> a.fcntlLock(x, Fcntl.F_GETLK, range(Flock.F_UNLCK, 0, 1)));
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, 5, -5));
        a.close(x);
    }

    @Test
    void recordLock_rangePastLlongMax_failsWithEOVERFLOW() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        assertErrno(
                Errno.EOVERFLOW,
                () -> a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, Long.MAX_VALUE, 2)));
        a.lseek(x, 10, VfsTask.SEEK_SET);
        assertErrno(
                Errno.EOVERFLOW,
                () ->
                        a.fcntlLock(
                                x,
                                Fcntl.F_SETLK,
                                new Flock(Flock.F_RDLCK, VfsTask.SEEK_CUR, Long.MAX_VALUE, 0, 0)));
        a.fcntlLock(x, Fcntl.F_SETLK, range(Flock.F_RDLCK, Long.MAX_VALUE, 1));
        a.close(x);
    }

    @Test
    void recordLock_unknownCommand_failsWithEINVAL() {
        int x = a.open("/f", OpenFlags.O_RDWR);
        assertErrno(Errno.EINVAL, () -> a.fcntlLock(x, Fcntl.F_DUPFD, range(Flock.F_RDLCK, 0, 1)));
        a.close(x);
    }
}
