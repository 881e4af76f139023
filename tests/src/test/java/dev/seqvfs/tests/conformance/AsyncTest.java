package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.exists;
import static dev.seqvfs.tests.conformance.Sys.names;
import static dev.seqvfs.tests.conformance.Sys.touch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specifies the {@code ...Async} twins of {@link VfsTask}: each completes with the result of its
 * blocking form and leaves the same tree, and each failure (whether found before any message is
 * sent, in the walk, or by an actor) completes the stage exceptionally with the {@link
 * VfsException} as the cause, never throws from the call itself.
 *
 * <pre>
 * /d/        0755
 * /d/f       regular file
 * </pre>
 */
@FileSystemContract
class AsyncTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture();
    VfsTask t;

    @BeforeEach
    void tree() {
        t = fs.root();
        t.mkdir("/d", 0755);
        touch(t, "/d/f");
    }

    private static <T> T done(CompletionStage<T> s) throws Exception {
        return s.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * Asserts that the stage fails with a VfsException cause of {@code errno}, by join, get and
     * whenComplete.
     */
    private static void assertFails(Errno errno, CompletableFuture<?> f) {
        Throwable joined = assertThrows(CompletionException.class, f::join).getCause();
        assertInstanceOf(VfsException.class, joined);
        assertEquals(errno, ((VfsException) joined).errno());
        Throwable got =
                assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS))
                        .getCause();
        assertEquals(errno, ((VfsException) got).errno());
        AtomicReference<Throwable> seen = new AtomicReference<>();
        var unused = f.whenComplete((v, e) -> seen.set(e));
        Throwable e = seen.get();
        Throwable cause = e instanceof CompletionException ? e.getCause() : e;
        assertEquals(errno, ((VfsException) cause).errno());
    }

    @Test
    void openAsync_completesWithTheDescriptorOpenWouldReturn() throws Exception {
        int fd = done(t.async().open("/d/g", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0600));
        assertEquals(0, fd);
        assertEquals(t.stat("/d/g").ino(), t.fstat(fd).ino());
        assertEquals(0600, t.stat("/d/g").permissions());
        int at = done(t.async().openat(VfsTask.AT_FDCWD, "/d/f", OpenFlags.O_RDONLY, 0));
        assertEquals(1, at);
        done(t.async().close(fd));
        done(t.async().close(at));
        assertEquals(0, t.open("/d/f", OpenFlags.O_RDONLY));
        t.close(0);
    }

    @Test
    void openAsync_failures_completeExceptionally() {
        assertFails(Errno.ENOENT, t.async().open("/d/missing", OpenFlags.O_RDONLY, 0));
        assertFails(
                Errno.EEXIST,
                t.async()
                        .open(
                                "/d/f",
                                OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY,
                                0));
        assertFails(
                Errno.EINVAL, t.async().open("/d", OpenFlags.O_CREAT | OpenFlags.O_DIRECTORY, 0));
        assertFails(Errno.EBADF, t.async().openat(99, "f", OpenFlags.O_RDONLY, 0));
        assertFails(Errno.EBADF, t.async().close(99));
    }

    @Test
    void mkdirAsync_createsAndFailsLikeMkdir() throws Exception {
        done(t.async().mkdir("/d/x", 0700));
        done(t.async().mkdirat(VfsTask.AT_FDCWD, "/d/y", 0755));
        assertEquals(0700, t.stat("/d/x").permissions());
        assertTrue(t.stat("/d/y").isDirectory());
        assertFails(Errno.EEXIST, t.async().mkdir("/d/x", 0755));
        assertFails(Errno.ENOENT, t.async().mkdir("/missing/x", 0755));
        assertFails(Errno.ENOTDIR, t.async().mkdir("/d/f/x", 0755));
        assertFails(Errno.EACCES, fs.task(1000, 1000).async().mkdir("/d/z", 0755));
    }

    @Test
    void mknodSymlinkLinkAsync_createAndFail() throws Exception {
        done(t.async().mknodat(VfsTask.AT_FDCWD, "/d/p", Mode.S_IFIFO | 0644, 0));
        done(t.async().symlinkat("f", VfsTask.AT_FDCWD, "/d/l"));
        done(t.async().linkat(VfsTask.AT_FDCWD, "/d/f", VfsTask.AT_FDCWD, "/d/h", 0));
        assertEquals(Set.of("f", "h", "l", "p"), names(t, "/d"));
        assertEquals(2, t.stat("/d/f").nlink());
        assertFails(
                Errno.EPERM, t.async().mknodat(VfsTask.AT_FDCWD, "/d/q", Mode.S_IFDIR | 0755, 0));
        assertFails(Errno.EEXIST, t.async().symlinkat("x", VfsTask.AT_FDCWD, "/d/l"));
        assertFails(Errno.ENOENT, t.async().symlinkat("", VfsTask.AT_FDCWD, "/d/m"));
        assertFails(
                Errno.EPERM, t.async().linkat(VfsTask.AT_FDCWD, "/d", VfsTask.AT_FDCWD, "/e", 0));
        assertFails(
                Errno.EINVAL,
                t.async().linkat(VfsTask.AT_FDCWD, "/d/f", VfsTask.AT_FDCWD, "/e", 0x1));
    }

    @Test
    void unlinkRmdirAsync_removeAndFail() throws Exception {
        t.mkdir("/d/sub", 0755);
        done(t.async().unlink("/d/f"));
        done(t.async().rmdir("/d/sub"));
        assertEquals(Set.of(), names(t, "/d"));
        assertFails(Errno.ENOENT, t.async().unlink("/d/f"));
        assertFails(Errno.EBUSY, t.async().rmdir("/"));
        t.mkdir("/d/sub", 0755);
        touch(t, "/d/sub/x");
        assertFails(Errno.ENOTEMPTY, t.async().rmdir("/d/sub"));
        assertFails(Errno.EISDIR, t.async().unlinkat(VfsTask.AT_FDCWD, "/d", 0));
        assertFails(Errno.EINVAL, t.async().unlinkat(VfsTask.AT_FDCWD, "/d", 0x1));
    }

    @Test
    void renameAsync_sameAndCrossDirectory_moveAndFail() throws Exception {
        t.mkdir("/e", 0755);
        done(t.async().rename("/d/f", "/d/g"));
        done(t.async().renameat2(VfsTask.AT_FDCWD, "/d/g", VfsTask.AT_FDCWD, "/e/g", 0));
        assertTrue(exists(t, "/e/g"));
        assertFalse(exists(t, "/d/g"));
        assertFails(Errno.EINVAL, t.async().rename("/d", "/d/x"));
        assertFails(Errno.ENOENT, t.async().rename("/d/missing", "/d/x"));
        assertFails(
                Errno.EEXIST,
                t.async()
                        .renameat2(
                                VfsTask.AT_FDCWD,
                                "/e",
                                VfsTask.AT_FDCWD,
                                "/d",
                                OpenFlags.RENAME_NOREPLACE));
        assertFails(Errno.ENOTEMPTY, t.async().rename("/d", "/e"));
    }

    @Test
    void attributeAsync_changeAndFail() throws Exception {
        done(t.async().fchmodat(VfsTask.AT_FDCWD, "/d/f", 0600, 0));
        done(t.async().fchownat(VfsTask.AT_FDCWD, "/d/f", 7, 8, 0));
        done(
                t.async()
                        .utimensat(
                                VfsTask.AT_FDCWD,
                                "/d/f",
                                new Timespec(5, 6),
                                new Timespec(7, 8),
                                0));
        done(t.async().fchmodat(VfsTask.AT_FDCWD, "/d", 0700, 0));
        assertEquals(0600, t.stat("/d/f").permissions());
        assertEquals(7, t.stat("/d/f").uid());
        assertEquals(7_000_000_008L, t.stat("/d/f").mtimeNanos());
        assertEquals(0700, t.stat("/d").permissions());
        VfsTask u = fs.task(1000, 1000);
        assertFails(Errno.EPERM, u.async().fchmodat(VfsTask.AT_FDCWD, "/", 0777, 0));
        assertFails(Errno.EPERM, u.async().fchownat(VfsTask.AT_FDCWD, "/", 1000, -1, 0));
        assertFails(
                Errno.EINVAL,
                t.async().utimensat(VfsTask.AT_FDCWD, "/d/f", new Timespec(0, -5), null, 0));
        assertFails(Errno.ENOENT, t.async().fchmodat(VfsTask.AT_FDCWD, "/missing", 0600, 0));
    }

    @Test
    void mountAsync_mountsAndFails() throws Exception {
        done(t.async().mount("none", "/d", "tmpfs", 0, "nr_inodes=4"));
        assertEquals(4, t.statfs("/d").files());
        done(t.async().mount(null, "/d", null, MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY, null));
        assertFails(Errno.EROFS, t.async().mkdir("/d/x", 0755));
        assertFails(Errno.ENODEV, t.async().mount("none", "/", "nofs", 0, null));
        assertFails(Errno.EPERM, fs.task(1, 1).async().mount("none", "/", "tmpfs", 0, null));
        t.umount("/d");
    }

    @Test
    void manyAsyncCallsInFlight_allComplete() throws Exception {
        List<CompletableFuture<Void>> fs1 = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            fs1.add(t.async().mkdir("/d/n" + i, 0755));
        }
        CompletableFuture.allOf(fs1.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.SECONDS);
        assertEquals(201, names(t, "/d").size());
        assertEquals(202, t.stat("/d").nlink());
    }

    @Test
    void asyncCalls_composeIntoAPipeline() throws Exception {
        int fd =
                done(
                        t.async()
                                .mkdir("/d/p", 0755)
                                .thenCompose(
                                        v ->
                                                t.async()
                                                        .open(
                                                                "/d/p/x",
                                                                OpenFlags.O_CREAT
                                                                        | OpenFlags.O_WRONLY,
                                                                0644))
                                .thenCompose(
                                        x ->
                                                t.async()
                                                        .rename("/d/p/x", "/d/p/y")
                                                        .thenApply(v -> x)));
        assertEquals(t.stat("/d/p/y").ino(), t.fstat(fd).ino());
        t.close(fd);
        CompletableFuture<Void> failing =
                t.async().mkdir("/d/p", 0755).thenCompose(v -> t.async().rmdir("/d/p"));
        assertFails(Errno.EEXIST, failing);
        assertTrue(exists(t, "/d/p/y"));
    }
}
