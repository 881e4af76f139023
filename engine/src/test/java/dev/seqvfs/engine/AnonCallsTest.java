package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.anon.SocketEnd;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code pipe(2)}, {@code pipe2(2)}, {@code socket(2)}, {@code socketpair(2)}, {@code shutdown(2)}
 * through the task API: results and errno, and that creating and closing anonymous files returns
 * every count to its baseline (no inode leak), in both the new layout and the old
 * shared-pseudo-root one.
 */
class AnonCallsTest {
    private static Errno errno(Runnable r) {
        return assertThrows(VfsException.class, r::run).errno();
    }

    private static void withVfs(
            boolean sharedRoot, java.util.function.BiConsumer<SeqVfs, VfsTask> body) {
        try (SeqVfs vfs =
                SeqVfs.create(
                        ConfigFactory.parseString("seqvfs.anon.shared-root = " + sharedRoot))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            body.accept(vfs, t);
        }
    }

    @Test
    void pipe_dataFlowsThenEofThenEpipe_andTheInodeIsAFifo() {
        withVfs(
                false,
                (vfs, t) -> {
                    int[] p = t.pipe();
                    assertEquals(FileType.FIFO, t.fstat(p[0]).type());
                    assertEquals(t.fstat(p[0]).ino(), t.fstat(p[1]).ino());
                    assertEquals(3, t.write(p[1], new byte[] {1, 2, 3}));
                    byte[] b = new byte[8];
                    assertEquals(3, t.read(p[0], b, 0, 8));
                    assertEquals(Errno.ESPIPE, errno(() -> t.lseek(p[0], 0, VfsTask.SEEK_SET)));
                    assertEquals(Errno.EBADF, errno(() -> t.write(p[0], new byte[1])));
                    assertEquals(65536, t.fcntl(p[0], Fcntl.F_GETPIPE_SZ, 0));
                    assertEquals(1 << 17, t.fcntl(p[1], Fcntl.F_SETPIPE_SZ, 100_000));
                    t.close(p[1]);
                    assertEquals(0, t.read(p[0], b, 0, 8));
                    int[] q = t.pipe();
                    t.close(q[0]);
                    assertEquals(Errno.EPIPE, errno(() -> t.write(q[1], new byte[1])));
                    t.close(p[0]);
                    t.close(q[1]);
                    assertEquals(0, vfs.anonFs().liveInodes());
                });
    }

    @Test
    void pipe2_nonblockAndBadFlags() {
        withVfs(
                false,
                (vfs, t) -> {
                    int[] p = t.pipe2(OpenFlags.O_NONBLOCK | OpenFlags.O_CLOEXEC);
                    assertEquals(Errno.EAGAIN, errno(() -> t.read(p[0], new byte[1], 0, 1)));
                    assertEquals(Fcntl.FD_CLOEXEC, t.fcntl(p[1], Fcntl.F_GETFD, 0));
                    assertEquals(Errno.EINVAL, errno(() -> t.pipe2(OpenFlags.O_APPEND)));
                    t.close(p[0]);
                    t.close(p[1]);
                });
    }

    @Test
    void readAsync_onEmptyPipe_completesWhenWritten() throws Exception {
        try (SeqVfs vfs = SeqVfs.create()) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            int[] p = t.pipe();
            byte[] b = new byte[4];
            CompletableFuture<Integer> r = t.async().read(p[0], b, 0, 4);
            assertFalse(r.isDone());
            t.write(p[1], new byte[] {7});
            assertEquals(1, r.get(5, TimeUnit.SECONDS));
            assertEquals(7, b[0]);
            t.close(p[0]);
            t.close(p[1]);
        }
    }

    @Test
    void socket_unconnected_isASocketInodeThatCannotTransfer_andBadArgumentsFail() {
        withVfs(
                false,
                (vfs, t) -> {
                    int s = t.socket(SocketFlags.AF_INET, SocketFlags.SOCK_STREAM, 0);
                    assertEquals(FileType.SOCKET, t.fstat(s).type());
                    assertEquals(Errno.ENOTCONN, errno(() -> t.read(s, new byte[1], 0, 1)));
                    assertEquals(
                            Errno.EAFNOSUPPORT,
                            errno(() -> t.socket(99, SocketFlags.SOCK_STREAM, 0)));
                    assertEquals(Errno.EINVAL, errno(() -> t.socket(SocketFlags.AF_UNIX, 42, 0)));
                    assertEquals(
                            Errno.ENOTSOCK,
                            errno(() -> t.shutdown(t.pipe()[0], SocketEnd.SHUT_WR)));
                    t.closeRange(0, -1, 0);
                    assertEquals(0, vfs.anonFs().liveInodes());
                });
    }

    @Test
    void socketpair_bidirectional_andShutdownAndCloseEndTheStream() {
        withVfs(
                false,
                (vfs, t) -> {
                    int[] sv = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
                    byte[] b = new byte[4];
                    t.write(sv[0], new byte[] {1, 2});
                    assertEquals(2, t.read(sv[1], b, 0, 4));
                    t.write(sv[1], new byte[] {3});
                    assertEquals(1, t.read(sv[0], b, 0, 4));
                    assertEquals(3, b[0]);
                    t.shutdown(sv[0], SocketEnd.SHUT_WR);
                    assertEquals(0, t.read(sv[1], b, 0, 4));
                    assertEquals(Errno.EPIPE, errno(() -> t.write(sv[0], new byte[1])));
                    t.write(sv[1], new byte[] {9});
                    assertEquals(1, t.read(sv[0], b, 0, 4));
                    t.close(sv[1]);
                    assertEquals(0, t.read(sv[0], b, 0, 4));
                    t.close(sv[0]);
                    assertEquals(
                            Errno.EOPNOTSUPP,
                            errno(
                                    () ->
                                            t.socketpair(
                                                    SocketFlags.AF_INET,
                                                    SocketFlags.SOCK_STREAM,
                                                    0)));
                });
    }

    @Test
    void manySocketCloseCycles_bothLayouts_returnEveryCountToBaseline() {
        for (boolean shared : new boolean[] {false, true}) {
            withVfs(
                    shared,
                    (vfs, t) -> {
                        for (int i = 0; i < 100_000; i++) {
                            t.close(t.socket(SocketFlags.AF_INET, SocketFlags.SOCK_STREAM, 0));
                        }
                        int[] p = t.pipe();
                        assertEquals(1, vfs.anonFs().liveInodes());
                        assertEquals(shared ? 1 : 0, vfs.anonFs().pseudoRootChildren());
                        t.close(p[0]);
                        t.close(p[1]);
                        assertEquals(0, vfs.anonFs().liveInodes());
                        assertEquals(0, vfs.anonFs().pseudoRootChildren());
                        assertEquals(100_001, vfs.anonFs().createdInodes());
                        int[] r = t.pipe2(OpenFlags.O_CLOEXEC);
                        int d = t.dup(r[0]);
                        assertEquals(
                                0, t.fcntl(d, Fcntl.F_GETFD, 0), "dup must not copy FD_CLOEXEC");
                        assertEquals(1, vfs.anonFs().liveInodes());
                        t.closeRange(0, -1, 0);
                        assertEquals(0, vfs.anonFs().liveInodes());
                    });
        }
    }

    @Test
    void pipeData_writtenInOrder_readsBackIdentical() {
        withVfs(
                false,
                (vfs, t) -> {
                    int[] p = t.pipe();
                    byte[] data = new byte[50_000];
                    new java.util.Random(1).nextBytes(data);
                    t.write(p[1], data);
                    byte[] got = new byte[data.length];
                    int n = 0;
                    while (n < got.length) {
                        n += t.read(p[0], got, n, got.length - n);
                    }
                    assertArrayEquals(data, got);
                    t.close(p[0]);
                    t.close(p[1]);
                });
    }

    @Test
    void eventfd_countsWritesAndResetsOnRead_semaphoreModeDecrements_andNonblockIsEAGAIN() {
        withVfs(
                false,
                (vfs, t) -> {
                    int efd = t.eventfd(0, OpenFlags.O_NONBLOCK);
                    byte[] b = new byte[8];
                    assertEquals(Errno.EAGAIN, errno(() -> t.read(efd, b, 0, 8)));
                    byte[] three = {3, 0, 0, 0, 0, 0, 0, 0};
                    t.write(efd, three);
                    t.write(efd, three);
                    assertEquals(8, t.read(efd, b, 0, 8));
                    assertEquals(6, b[0]);
                    assertEquals(Errno.EINVAL, errno(() -> t.read(efd, b, 0, 4)));
                    int sem = t.eventfd(2, 1 | OpenFlags.O_NONBLOCK);
                    t.read(sem, b, 0, 8);
                    assertEquals(1, b[0]);
                    t.read(sem, b, 0, 8);
                    assertEquals(Errno.EAGAIN, errno(() -> t.read(sem, b, 0, 8)));
                    assertEquals("anon_inode:[eventfd]", t.readlink("/proc/self/fd/" + efd));
                    t.close(efd);
                    t.close(sem);
                    assertEquals(0, vfs.anonFs().liveInodes());
                });
    }
}
