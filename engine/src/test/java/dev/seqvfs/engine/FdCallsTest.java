package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CLOEXEC;
import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The descriptor-table calls ({@code dup(2)}, {@code dup2(2)}, {@code dup3(2)}, {@code fcntl(2)},
 * {@code close_range(2)}, fork/exec/threads): lowest-free allocation, sharing of open file
 * descriptions, close-on-exec, RLIMIT_NOFILE, and a race of dup2 against lock-free readers of the
 * table.
 */
class FdCallsTest {
    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.fd.rlimit-nofile = 64"));
        t = vfs.newTask(Credentials.ROOT);
    }

    @AfterEach
    void down() {
        vfs.close();
    }

    private static Errno errno(Runnable r) {
        return assertThrows(VfsException.class, r::run).errno();
    }

    @Test
    void dup_returnsLowestFree_andSharesTheOffset() {
        int a = t.open("/f", O_CREAT | O_RDWR, 0644);
        int b = t.open("/f", O_RDWR);
        t.close(a);
        int c = t.dup(b);
        assertEquals(a, c);
        t.write(b, new byte[7]);
        assertEquals(7, t.lseek(c, 0, VfsTask.SEEK_CUR));
        t.close(b);
        t.close(c);
    }

    @Test
    void dup2_ontoOpenFd_replacesItAndReleasesTheOldFile() {
        int a = t.open("/a", O_CREAT | O_RDWR, 0644);
        int b = t.open("/b", O_CREAT | O_RDWR, 0644);
        long inoA = t.fstat(a).ino();
        assertEquals(b, t.dup2(a, b));
        assertEquals(inoA, t.fstat(b).ino());
        t.unlink("/b");
        assertEquals(b, t.dup2(b, b));
        assertEquals(Errno.EINVAL, errno(() -> t.dup3(b, b, 0)));
        assertEquals(Errno.EBADF, errno(() -> t.dup2(99, 3)));
        assertEquals(Errno.EBADF, errno(() -> t.dup2(a, 64)));
        t.close(a);
        t.close(b);
    }

    @Test
    void fcntl_getSetFdAndFl_andDupfdHonoursTheMinimum() {
        int fd = t.open("/f", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(fd, Fcntl.F_GETFD, 0));
        t.fcntl(fd, Fcntl.F_SETFD, 0);
        assertEquals(0, t.fcntl(fd, Fcntl.F_GETFD, 0));
        assertEquals(O_RDWR, t.fcntl(fd, Fcntl.F_GETFL, 0) & OpenFlags.O_ACCMODE);
        t.fcntl(fd, Fcntl.F_SETFL, OpenFlags.O_APPEND | OpenFlags.O_RDONLY);
        assertEquals(
                O_RDWR | OpenFlags.O_APPEND | OpenFlags.O_LARGEFILE, t.fcntl(fd, Fcntl.F_GETFL, 0));
        int d = t.fcntl(fd, Fcntl.F_DUPFD_CLOEXEC, 10);
        assertEquals(10, d);
        assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(d, Fcntl.F_GETFD, 0));
        assertEquals(Errno.EINVAL, errno(() -> t.fcntl(fd, Fcntl.F_DUPFD, 64)));
        assertEquals(Errno.EINVAL, errno(() -> t.fcntl(fd, 9999, 0)));
        assertEquals(Errno.EBADF, errno(() -> t.fcntl(77, Fcntl.F_GETFD, 0)));
        t.close(fd);
        t.close(d);
    }

    @Test
    void open_pastRlimitNofile_failsWithEMFILE_andLeaksNothing() {
        t.close(t.open("/f", O_CREAT | O_RDWR, 0644));
        int[] fds = new int[64];
        for (int i = 0; i < 64; i++) {
            fds[i] = t.open("/f", O_RDONLY);
        }
        assertEquals(Errno.EMFILE, errno(() -> t.open("/f", O_RDONLY)));
        assertEquals(Errno.EMFILE, errno(() -> t.dup(fds[0])));
        t.closeRange(0, -1, 0);
        assertEquals(Errno.EBADF, errno(() -> t.close(fds[5])));
        assertEquals(
                0,
                vfs.namespace()
                        .rootMount()
                        .root()
                        .snapshotAcquire()
                        .lookup("f")
                        .inode()
                        .openCount());
    }

    @Test
    void fork_copiesTheTable_sharingDescriptions_andExecClosesCloexec() {
        int a = t.open("/f", O_CREAT | O_RDWR, 0644);
        int b = t.open("/f", O_RDWR | O_CLOEXEC);
        VfsTask child = t.fork();
        child.write(a, new byte[3]);
        assertEquals(3, t.lseek(a, 0, VfsTask.SEEK_CUR));
        child.exec();
        assertEquals(Errno.EBADF, errno(() -> child.fstat(b)));
        child.close(a);
        assertTrue(t.fstat(a).isRegular());
        child.close();
        t.close(a);
        t.close(b);
    }

    @Test
    void newThread_sharesTheTable_andItsExitKeepsTheTableOpen() {
        VfsTask thread = t.newThread();
        int fd = thread.open("/f", O_CREAT | O_RDWR, 0644);
        assertTrue(t.fstat(fd).isRegular());
        thread.close();
        assertTrue(t.fstat(fd).isRegular());
        t.close(fd);
    }

    @Test
    void newThreadWithCredentials_sharesTheTable_butEachCallIsCheckedWithItsOwnCredentials() {
        int fd = t.open("/secret", O_CREAT | O_RDWR, 0600);
        t.mkdir("/d", 0700);
        VfsTask user = t.newThread(Credentials.of(1000, 1000));
        assertEquals(1000, user.cred().uid());
        // the same descriptor, seen from both
        assertEquals(t.fstat(fd).ino(), user.fstat(fd).ino());
        // an open by the user's thread is checked as the user's
        assertEquals(Errno.EACCES, errno(() -> user.open("/secret", O_RDONLY)));
        assertEquals(Errno.EACCES, errno(() -> user.reopen(fd, O_RDONLY)));
        int mine = user.open("/mine", O_CREAT | O_RDWR, 0644);
        assertEquals(1000, t.fstat(mine).uid(), "created with the thread's credentials");
        user.close();
        assertTrue(t.fstat(mine).isRegular(), "the thread's exit keeps the shared table");
        t.close(mine);
        t.close(fd);
    }

    @Test
    void newThreadWithCredentials_ofANonRootTask_isEPERM_unlessTheSame() {
        VfsTask user = vfs.newTask(Credentials.of(1000, 1000));
        assertEquals(Errno.EPERM, errno(() -> user.newThread(Credentials.ROOT)));
        assertEquals(Errno.EPERM, errno(() -> user.newThread(Credentials.of(1000, 1000, 0))));
        VfsTask same = user.newThread(Credentials.of(1000, 1000));
        same.close();
        user.close();
    }

    @Test
    void dup2RacingFget_readersSeeTheOldFileOrTheNewOneNeverAnother() throws Exception {
        int a = t.open("/a", O_CREAT | O_RDWR, 0644);
        int b = t.open("/b", O_CREAT | O_RDWR, 0644);
        long inoA = t.fstat(a).ino();
        long inoB = t.fstat(b).ino();
        int target = t.dup(a);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> bad = new AtomicReference<>();
        Thread[] readers = new Thread[3];
        for (int r = 0; r < readers.length; r++) {
            readers[r] =
                    new Thread(
                            () -> {
                                try {
                                    while (!stop.get()) {
                                        long ino = t.fstat(target).ino();
                                        if (ino != inoA && ino != inoB) {
                                            bad.set("fd " + target + " showed inode " + ino);
                                        }
                                    }
                                } catch (RuntimeException e) {
                                    bad.set("fstat of fd " + target + " failed: " + e);
                                }
                            });
            readers[r].start();
        }
        VfsTask writer = t.newThread();
        for (int i = 0; i < 20_000; i++) {
            writer.dup2((i & 1) == 0 ? b : a, target);
        }
        stop.set(true);
        for (Thread r : readers) {
            r.join();
        }
        writer.close();
        assertEquals(null, bad.get());
        t.close(a);
        t.close(b);
        t.close(target);
    }

    @Test
    void fchown_changesOwnerThroughTheDescriptor_andNeedsAnOpenNonPathFd() {
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        t.fchown(fd, 1000, 1000);
        assertEquals(1000, t.stat("/f").uid());
        assertEquals(1000, t.stat("/f").gid());
        int path = t.open("/f", OpenFlags.O_PATH);
        assertEquals(Errno.EBADF, errno(() -> t.fchown(path, 0, 0)));
        assertEquals(Errno.EBADF, errno(() -> t.fchown(99, 0, 0)));
        t.close(fd);
        t.close(path);
    }
}
