package dev.seqvfs.engine;

import static dev.seqvfs.protocol.Inotify.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Poll;
import dev.seqvfs.protocol.VfsException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code inotify_init1(2)}, {@code inotify_add_watch(2)}, {@code inotify_rm_watch(2)} and reads of
 * the descriptor, as {@code inotify(7)} specifies them; the event streams of the same sequences
 * against the host kernel are compared in {@code InotifyDifferentialTest}.
 *
 * <pre>
 * /w/          watched
 *   a, b, d/   made by each test
 * /x/          a second watched directory (cross-directory renames)
 * </pre>
 */
class InotifyCallsTest {
    /** One decoded {@code struct inotify_event}. */
    record Ev(int wd, int mask, int cookie, String name) {
        @Override
        public String toString() {
            return "(" + wd + ",0x" + Integer.toHexString(mask) + "," + cookie + "," + name + ")";
        }
    }

    private SeqVfs vfs;
    private VfsTask t;

    @BeforeEach
    void setUp() {
        vfs = SeqVfs.create();
        t = vfs.newTask(Credentials.ROOT);
        t.mkdir("/w", 0755);
        t.mkdir("/x", 0755);
    }

    @AfterEach
    void tearDown() {
        vfs.close();
    }

    /** Decodes {@code n} bytes of records, checking each name's NUL padding to 16 bytes. */
    static List<Ev> decode(byte[] b, int n) {
        ByteBuffer bb = ByteBuffer.wrap(b, 0, n).order(ByteOrder.LITTLE_ENDIAN);
        List<Ev> out = new ArrayList<>();
        while (bb.hasRemaining()) {
            int wd = bb.getInt();
            int mask = bb.getInt();
            int cookie = bb.getInt();
            int len = bb.getInt();
            assertEquals(0, len % EVENT_SIZE, "len is padded to 16");
            String name = null;
            if (len > 0) {
                byte[] nb = new byte[len];
                bb.get(nb);
                int k = 0;
                while (nb[k] != 0) {
                    k++;
                }
                for (int i = k; i < len; i++) {
                    assertEquals(0, nb[i], "padding is NUL");
                }
                name = new String(nb, 0, k, java.nio.charset.StandardCharsets.UTF_8);
            }
            out.add(new Ev(wd, mask, cookie, name));
        }
        return out;
    }

    /** Reads everything queued on a non-blocking descriptor. */
    static List<Ev> drain(VfsTask t, int fd) {
        List<Ev> all = new ArrayList<>();
        byte[] b = new byte[65536];
        while (true) {
            int n;
            try {
                n = t.read(fd, b, 0, b.length);
            } catch (VfsException e) {
                assertEquals(Errno.EAGAIN, e.errno());
                return all;
            }
            all.addAll(decode(b, n));
        }
    }

    private static Errno errno(Runnable r) {
        return assertThrows(VfsException.class, r::run).errno();
    }

    @Test
    void createWriteCloseUnlink_inAWatchedDirectory_arriveInOrderWithNames() {
        int fd = t.inotifyInit1(IN_NONBLOCK);
        int wd = t.inotifyAddWatch(fd, "/w", IN_ALL_EVENTS);
        int f = t.open("/w/a", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
        t.write(f, new byte[] {1});
        t.write(f, new byte[] {2}); // identical unread IN_MODIFY: merged, as Linux does
        t.close(f);
        t.chmod("/w/a", 0600);
        t.mkdir("/w/d", 0755);
        t.unlink("/w/a");
        t.rmdir("/w/d");
        assertEquals(
                List.of(
                        new Ev(wd, IN_CREATE, 0, "a"),
                        new Ev(wd, IN_OPEN, 0, "a"), // a create's open reports IN_OPEN too
                        new Ev(wd, IN_MODIFY, 0, "a"),
                        new Ev(wd, IN_CLOSE_WRITE, 0, "a"),
                        new Ev(wd, IN_ATTRIB, 0, "a"),
                        new Ev(wd, IN_CREATE | IN_ISDIR, 0, "d"),
                        new Ev(wd, IN_DELETE, 0, "a"),
                        new Ev(wd, IN_DELETE | IN_ISDIR, 0, "d")),
                drain(t, fd));
    }

    @Test
    void rename_acrossDirectories_pairsMovedFromAndMovedToByOneCookie_andMovesSelf() {
        t.close(t.open("/w/a", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
        int fd = t.inotifyInit1(IN_NONBLOCK);
        int w = t.inotifyAddWatch(fd, "/w", IN_MOVE);
        int x = t.inotifyAddWatch(fd, "/x", IN_MOVE);
        int a = t.inotifyAddWatch(fd, "/w/a", IN_MOVE_SELF);
        t.rename("/w/a", "/x/b");
        t.rename("/x/b", "/x/c");
        List<Ev> evs = drain(t, fd);
        assertEquals(6, evs.size(), evs.toString());
        int c1 = evs.get(0).cookie();
        int c2 = evs.get(3).cookie();
        assertNotEquals(0, c1);
        assertNotEquals(c1, c2);
        assertEquals(
                List.of(
                        new Ev(w, IN_MOVED_FROM, c1, "a"),
                        new Ev(x, IN_MOVED_TO, c1, "b"),
                        new Ev(a, IN_MOVE_SELF, 0, null),
                        new Ev(x, IN_MOVED_FROM, c2, "b"),
                        new Ev(x, IN_MOVED_TO, c2, "c"),
                        new Ev(a, IN_MOVE_SELF, 0, null)),
                evs);
    }

    @Test
    void rmdir_ofAWatchedDirectory_queuesDeleteSelfThenIgnored_andTheWatchIsGone() {
        t.mkdir("/w/d", 0755);
        int fd = t.inotifyInit1(IN_NONBLOCK);
        int d = t.inotifyAddWatch(fd, "/w/d", IN_ALL_EVENTS);
        t.rmdir("/w/d");
        assertEquals(
                List.of(new Ev(d, IN_DELETE_SELF, 0, null), new Ev(d, IN_IGNORED, 0, null)),
                drain(t, fd));
        assertEquals(Errno.EINVAL, errno(() -> t.inotifyRmWatch(fd, d)));
    }

    @Test
    void addWatch_sameInodeTwice_returnsTheSameWd_maskAddAdds_rmWatchQueuesIgnored() {
        int fd = t.inotifyInit1(IN_NONBLOCK);
        int wd = t.inotifyAddWatch(fd, "/w", IN_CREATE);
        assertEquals(wd, t.inotifyAddWatch(fd, "/w/../w", IN_DELETE)); // replaces: DELETE only
        t.mkdir("/w/d", 0755);
        assertEquals(wd, t.inotifyAddWatch(fd, "/w", IN_MASK_ADD | IN_CREATE));
        t.rmdir("/w/d");
        t.mkdir("/w/e", 0755);
        t.inotifyRmWatch(fd, wd);
        t.mkdir("/w/f", 0755);
        assertEquals(
                List.of(
                        new Ev(wd, IN_DELETE | IN_ISDIR, 0, "d"),
                        new Ev(wd, IN_CREATE | IN_ISDIR, 0, "e"),
                        new Ev(wd, IN_IGNORED, 0, null)),
                drain(t, fd));
        int wd2 = t.inotifyAddWatch(fd, "/w", IN_CREATE);
        assertNotEquals(wd, wd2, "a new watch gets a new descriptor");
        assertEquals(
                Errno.EEXIST, errno(() -> t.inotifyAddWatch(fd, "/w", IN_MASK_CREATE | IN_CREATE)));
    }

    @Test
    void errors_followInotifyUser() {
        int fd = t.inotifyInit1(0);
        assertEquals(Errno.EINVAL, errno(() -> t.inotifyInit1(OpenFlags.O_APPEND)));
        assertEquals(Errno.EINVAL, errno(() -> t.inotifyAddWatch(fd, "/w", 0)));
        assertEquals(
                Errno.EINVAL,
                errno(() -> t.inotifyAddWatch(fd, "/w", IN_CREATE | IN_MASK_ADD | IN_MASK_CREATE)));
        assertEquals(Errno.EBADF, errno(() -> t.inotifyAddWatch(99, "/w", IN_CREATE)));
        int[] p = t.pipe();
        assertEquals(Errno.EINVAL, errno(() -> t.inotifyAddWatch(p[0], "/w", IN_CREATE)));
        assertEquals(Errno.ENOENT, errno(() -> t.inotifyAddWatch(fd, "/nope", IN_CREATE)));
        t.close(t.open("/w/a", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
        assertEquals(
                Errno.ENOTDIR, errno(() -> t.inotifyAddWatch(fd, "/w/a", IN_ONLYDIR | IN_CREATE)));
        assertEquals(Errno.EINVAL, errno(() -> t.inotifyRmWatch(fd, 12345)));
        assertEquals(Errno.EINVAL, errno(() -> t.write(fd, new byte[8])));
    }

    @Test
    void read_tooSmallForTheNextEvent_isEINVAL_nonblockingEmptyIsEAGAIN_pollShowsReadiness() {
        int fd = t.inotifyInit1(IN_NONBLOCK);
        t.inotifyAddWatch(fd, "/w", IN_CREATE);
        assertEquals(Errno.EAGAIN, errno(() -> t.read(fd, new byte[64], 0, 64)));
        assertEquals(0, t.poll(new int[] {fd}, new int[] {Poll.POLLIN}, 0)[0]);
        t.mkdir("/w/abc", 0755);
        assertEquals(
                Poll.POLLIN, t.poll(new int[] {fd}, new int[] {Poll.POLLIN}, 0)[0] & Poll.POLLIN);
        // 16 bytes of header + "abc" NUL-padded to 16
        assertEquals(Errno.EINVAL, errno(() -> t.read(fd, new byte[31], 0, 31)));
        byte[] b = new byte[32];
        assertEquals(32, t.read(fd, b, 0, 32));
    }

    @Test
    void blockingRead_parksUntilAnotherTaskCreates() throws Exception {
        int fd = t.inotifyInit1(0);
        int wd = t.inotifyAddWatch(fd, "/w", IN_CREATE);
        CompletableFuture<List<Ev>> got =
                CompletableFuture.supplyAsync(
                        () -> {
                            byte[] b = new byte[256];
                            return decode(b, t.read(fd, b, 0, b.length));
                        });
        VfsTask other = vfs.newTask(Credentials.ROOT);
        other.mkdir("/w/late", 0755);
        assertEquals(
                List.of(new Ev(wd, IN_CREATE | IN_ISDIR, 0, "late")),
                got.get(10, TimeUnit.SECONDS));
        int a = t.async().inotifyInit1(0).join();
        int wa = t.async().inotifyAddWatch(a, "/w", IN_DELETE).join();
        byte[] b = new byte[256];
        CompletableFuture<Integer> pending = t.async().read(a, b, 0, b.length);
        other.rmdir("/w/late");
        assertEquals(
                List.of(new Ev(wa, IN_DELETE | IN_ISDIR, 0, "late")),
                decode(b, pending.get(10, TimeUnit.SECONDS)));
        t.async().inotifyRmWatch(a, wa).join();
    }

    @Test
    void aFullQueue_reportsOneOverflowWithWdMinusOne_andLosesNothingBefore() {
        int fd = t.inotifyInit1(IN_NONBLOCK);
        int wd = t.inotifyAddWatch(fd, "/w", IN_CREATE);
        int n = MAX_QUEUED_EVENTS + 10;
        for (int i = 0; i < n; i++) {
            t.mknod("/w/f" + i, 0100644, 0);
        }
        List<Ev> evs = drain(t, fd);
        assertEquals(MAX_QUEUED_EVENTS + 1, evs.size());
        for (int i = 0; i < MAX_QUEUED_EVENTS; i++) {
            assertEquals(new Ev(wd, IN_CREATE, 0, "f" + i), evs.get(i));
        }
        assertEquals(new Ev(-1, IN_Q_OVERFLOW, 0, null), evs.get(MAX_QUEUED_EVENTS));
        t.mknod("/w/after", 0100644, 0);
        assertEquals(List.of(new Ev(wd, IN_CREATE, 0, "after")), drain(t, fd));
    }
}
