package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every call's error names that call ({@link Syscall}) and every path argument it was given, in the
 * order the call takes them, as {@code strace} shows a call: {@code link("/f", "/d")} fails with
 * {@code link "/f" -> "/d": EEXIST}, {@code openat(77, "x", ...)} with {@code open "x": EBADF},
 * {@code pwrite} with {@code pwrite}, not {@code write}. One row per public call of {@link
 * VfsTask}, each run through the blocking view and through its {@link AsyncVfsTask} twin; a call
 * without a row fails the test. After {@link SeqVfs#close()} every row fails with {@code EIO},
 * still naming its call and paths (a newcomer found {@code request: EIO}).
 *
 * <p>The {@code *at} forms are named by their base call, as {@link Syscall} has them ({@code
 * openat} is {@code open}, {@code unlinkat(AT_REMOVEDIR)} is {@code rmdir}); {@code mount} names
 * its source only when it is a path ({@code MS_BIND}); {@code readdir}, a library routine, fails as
 * the {@code open} it starts with. Calls a healthy task cannot make fail (a task's {@code umask},
 * {@code getcwd}, {@code pipe}, {@code fork}) are made by a task that has exited ({@code ESRCH}).
 *
 * <pre>
 * /d   directory
 * /f   regular file, open read-write on descriptor F
 * 77   not open
 * </pre>
 */
class ErrorLabelsTest {
    private static final int BAD = 77;

    SeqVfs vfs;
    VfsTask t;
    VfsTask gone;
    int fdF;

    @BeforeEach
    void up() {
        vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"));
        t = vfs.newTask(Credentials.ROOT);
        gone = vfs.newTask(Credentials.ROOT);
        gone.close();
        t.mkdir("/d", 0755);
        fdF = t.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
    }

    @AfterEach
    void down() {
        t.close();
        vfs.close();
    }

    /** One failing call: who makes it, what it must say, and the call by name and arguments. */
    private record Row(
            boolean exited,
            Errno errno,
            Syscall op,
            String path,
            String other,
            String method,
            Object... args) {
        @Override
        public String toString() {
            return method + "/" + args.length;
        }
    }

    private Row row(Errno errno, Syscall op, String path, String other, String m, Object... a) {
        return new Row(false, errno, op, path, other, m, a);
    }

    private Row exited(Syscall op, String m, Object... a) {
        return new Row(true, Errno.ESRCH, op, null, null, m, a);
    }

    private List<Row> rows() {
        byte[] b = new byte[1];
        byte[][] iov = {new byte[1]};
        Flock wr = new Flock(Flock.F_WRLCK, 0, 0, 0, 0);
        int reg = Mode.S_IFREG | 0644;
        return List.of(
                row(Errno.ENOENT, Syscall.OPEN, "/nope", null, "open", "/nope", 0),
                row(Errno.ENOENT, Syscall.OPEN, "/nope", null, "open", "/nope", 0, 0),
                row(Errno.EBADF, Syscall.OPEN, "x", null, "openat", BAD, "x", 0, 0),
                row(Errno.EBADF, Syscall.OPEN, null, null, "reopen", BAD, 0),
                row(Errno.EBADF, Syscall.CLOSE, null, null, "close", BAD),
                row(Errno.EBADF, Syscall.GETDENTS, null, null, "getdents", BAD, 10),
                row(Errno.EBADF, Syscall.LSEEK, null, null, "lseek", BAD, 0L, 0),
                row(Errno.ENOENT, Syscall.OPEN, "/nope", null, "readdir", "/nope"),
                row(Errno.EBADF, Syscall.READ, null, null, "read", BAD, b, 0, 1),
                row(Errno.EINVAL, Syscall.PREAD, null, null, "pread", fdF, b, 0, 1, -1L),
                row(
                        Errno.EINVAL,
                        Syscall.PREAD,
                        null,
                        null,
                        "pread",
                        fdF,
                        java.nio.ByteBuffer.allocate(1),
                        -1L),
                row(Errno.EBADF, Syscall.READV, null, null, "readv", BAD, iov),
                row(Errno.EBADF, Syscall.WRITE, null, null, "write", BAD, b, 0, 1),
                row(Errno.EBADF, Syscall.WRITE, null, null, "write", BAD, b),
                row(
                        Errno.EINVAL,
                        Syscall.PWRITE,
                        null,
                        null,
                        "pwrite",
                        fdF,
                        new byte[10],
                        0,
                        10,
                        Long.MAX_VALUE - 5),
                row(Errno.EBADF, Syscall.WRITEV, null, null, "writev", BAD, iov),
                row(Errno.EBADF, Syscall.FTRUNCATE, null, null, "ftruncate", BAD, 0L),
                row(Errno.ENOENT, Syscall.TRUNCATE, "/nope", null, "truncate", "/nope", 0L),
                row(Errno.EBADF, Syscall.FSYNC, null, null, "fsync", BAD),
                row(Errno.EBADF, Syscall.FDATASYNC, null, null, "fdatasync", BAD),
                row(Errno.EBADF, Syscall.SYNCFS, null, null, "syncfs", BAD),
                exited(Syscall.SYNC, "sync"),
                row(Errno.EBADF, Syscall.FALLOCATE, null, null, "fallocate", BAD, 0, 0L, 1L),
                row(Errno.EINVAL, Syscall.POLL, null, null, "poll", new int[1], new int[0], 0L),
                row(Errno.EBADF, Syscall.FLOCK, null, null, "flock", BAD, Flock.LOCK_EX),
                row(Errno.EBADF, Syscall.FCNTL, null, null, "fcntlLock", BAD, Fcntl.F_SETLK, wr),
                row(
                        Errno.EBADF,
                        Syscall.FCNTL,
                        null,
                        null,
                        "fcntlLock",
                        BAD,
                        Fcntl.F_SETLK,
                        wr,
                        new LockOwner("t")),
                exited(Syscall.PIPE, "pipe"),
                row(Errno.EINVAL, Syscall.PIPE2, null, null, "pipe2", -1),
                row(
                        Errno.EAFNOSUPPORT,
                        Syscall.SOCKET,
                        null,
                        null,
                        "socket",
                        -1,
                        SocketFlags.SOCK_STREAM,
                        0),
                row(
                        Errno.EOPNOTSUPP,
                        Syscall.SOCKETPAIR,
                        null,
                        null,
                        "socketpair",
                        SocketFlags.AF_INET,
                        SocketFlags.SOCK_STREAM,
                        0),
                row(
                        Errno.EINVAL,
                        Syscall.ANON_INODE_GETFD,
                        null,
                        null,
                        "anonInodeGetFd",
                        null,
                        null,
                        0),
                row(Errno.EINVAL, Syscall.EVENTFD, null, null, "eventfd", -1L, 0),
                row(Errno.EINVAL, Syscall.INOTIFY_INIT1, null, null, "inotifyInit1", -1),
                row(
                        Errno.EBADF,
                        Syscall.INOTIFY_ADD_WATCH,
                        "/d",
                        null,
                        "inotifyAddWatch",
                        BAD,
                        "/d",
                        0x100),
                row(Errno.EBADF, Syscall.INOTIFY_RM_WATCH, null, null, "inotifyRmWatch", BAD, 1),
                row(Errno.EBADF, Syscall.SHUTDOWN, null, null, "shutdown", BAD, 0),
                row(Errno.EEXIST, Syscall.MKDIR, "/d", null, "mkdir", "/d", 0755),
                row(Errno.EBADF, Syscall.MKDIR, "x", null, "mkdirat", BAD, "x", 0755),
                row(Errno.EEXIST, Syscall.MKNOD, "/d", null, "mknod", "/d", reg, 0L),
                row(Errno.EBADF, Syscall.MKNOD, "x", null, "mknodat", BAD, "x", reg, 0L),
                row(Errno.EEXIST, Syscall.SYMLINK, "tgt", "/d", "symlink", "tgt", "/d"),
                row(Errno.EBADF, Syscall.SYMLINK, "tgt", "x", "symlinkat", "tgt", BAD, "x"),
                row(Errno.EEXIST, Syscall.LINK, "/f", "/d", "link", "/f", "/d"),
                row(Errno.EBADF, Syscall.LINK, "a", "b", "linkat", BAD, "a", BAD, "b", 0),
                row(Errno.ENOENT, Syscall.UNLINK, "/nope", null, "unlink", "/nope"),
                row(Errno.EBADF, Syscall.UNLINK, "x", null, "unlinkat", BAD, "x", 0),
                row(
                        Errno.ENOTDIR,
                        Syscall.RMDIR,
                        "/f",
                        null,
                        "unlinkat",
                        OpenFlags.AT_FDCWD,
                        "/f",
                        OpenFlags.AT_REMOVEDIR),
                row(Errno.ENOTDIR, Syscall.RMDIR, "/f", null, "rmdir", "/f"),
                row(Errno.ENOENT, Syscall.RENAME, "/nope", "/x", "rename", "/nope", "/x"),
                row(Errno.EBADF, Syscall.RENAME, "a", "b", "renameat2", BAD, "a", BAD, "b", 0),
                row(Errno.EINVAL, Syscall.READLINK, "/f", null, "readlink", "/f"),
                row(Errno.EBADF, Syscall.READLINK, "x", null, "readlinkat", BAD, "x"),
                row(Errno.ENOENT, Syscall.STAT, "/nope", null, "stat", "/nope"),
                row(Errno.ENOENT, Syscall.LSTAT, "/nope", null, "lstat", "/nope"),
                row(Errno.EBADF, Syscall.STAT, "x", null, "fstatat", BAD, "x", 0),
                row(Errno.EBADF, Syscall.FSTAT, null, null, "fstat", BAD),
                row(Errno.ENOENT, Syscall.CHMOD, "/nope", null, "chmod", "/nope", 0644),
                row(Errno.EBADF, Syscall.CHMOD, "x", null, "fchmodat", BAD, "x", 0644, 0),
                row(Errno.EBADF, Syscall.FCHMOD, null, null, "fchmod", BAD, 0644),
                row(Errno.EBADF, Syscall.FCHOWN, null, null, "fchown", BAD, 0, 0),
                row(Errno.ENOENT, Syscall.CHOWN, "/nope", null, "chown", "/nope", 0, 0),
                row(Errno.ENOENT, Syscall.LCHOWN, "/nope", null, "lchown", "/nope", 0, 0),
                row(Errno.EBADF, Syscall.CHOWN, "x", null, "fchownat", BAD, "x", 0, 0, 0),
                row(
                        Errno.EBADF,
                        Syscall.UTIMENSAT,
                        "x",
                        null,
                        "utimensat",
                        BAD,
                        "x",
                        null,
                        null,
                        0),
                row(Errno.ENOENT, Syscall.ACCESS, "/nope", null, "access", "/nope", 0),
                row(Errno.EBADF, Syscall.ACCESS, "x", null, "faccessat", BAD, "x", 0, 0),
                row(
                        Errno.ENOENT,
                        Syscall.SETXATTR,
                        "/nope",
                        null,
                        "setxattr",
                        "/nope",
                        "user.a",
                        b,
                        0),
                row(
                        Errno.ENOENT,
                        Syscall.LSETXATTR,
                        "/nope",
                        null,
                        "lsetxattr",
                        "/nope",
                        "user.a",
                        b,
                        0),
                row(Errno.EBADF, Syscall.FSETXATTR, null, null, "fsetxattr", BAD, "user.a", b, 0),
                row(Errno.ENOENT, Syscall.GETXATTR, "/nope", null, "getxattr", "/nope", "user.a"),
                row(Errno.ENODATA, Syscall.LGETXATTR, "/f", null, "lgetxattr", "/f", "user.a"),
                row(Errno.EBADF, Syscall.FGETXATTR, null, null, "fgetxattr", BAD, "user.a"),
                row(Errno.ENOENT, Syscall.LISTXATTR, "/nope", null, "listxattr", "/nope"),
                row(Errno.ENOENT, Syscall.LLISTXATTR, "/nope", null, "llistxattr", "/nope"),
                row(Errno.EBADF, Syscall.FLISTXATTR, null, null, "flistxattr", BAD),
                row(Errno.ENODATA, Syscall.REMOVEXATTR, "/f", null, "removexattr", "/f", "user.a"),
                row(
                        Errno.ENOENT,
                        Syscall.LREMOVEXATTR,
                        "/nope",
                        null,
                        "lremovexattr",
                        "/nope",
                        "user.a"),
                row(Errno.EBADF, Syscall.FREMOVEXATTR, null, null, "fremovexattr", BAD, "user.a"),
                row(
                        Errno.EBADF,
                        Syscall.SETXATTR,
                        "x",
                        null,
                        "setxattrat",
                        BAD,
                        "x",
                        0,
                        "user.a",
                        b,
                        0),
                row(Errno.EBADF, Syscall.GETXATTR, "x", null, "getxattrat", BAD, "x", 0, "user.a"),
                row(Errno.EBADF, Syscall.LISTXATTR, "x", null, "listxattrat", BAD, "x", 0),
                row(
                        Errno.EBADF,
                        Syscall.REMOVEXATTR,
                        "x",
                        null,
                        "removexattrat",
                        BAD,
                        "x",
                        0,
                        "user.a"),
                row(Errno.ENOENT, Syscall.STATFS, "/nope", null, "statfs", "/nope"),
                row(Errno.EBADF, Syscall.FSTATFS, null, null, "fstatfs", BAD),
                exited(Syscall.UMASK, "umask", 022),
                row(Errno.ENOTDIR, Syscall.CHDIR, "/f", null, "chdir", "/f"),
                row(Errno.EBADF, Syscall.FCHDIR, null, null, "fchdir", BAD),
                exited(Syscall.GETCWD, "getcwd"),
                row(
                        Errno.ENOENT,
                        Syscall.MOUNT,
                        "/nope",
                        null,
                        "mount",
                        "none",
                        "/nope",
                        "tmpfs",
                        0L,
                        null),
                row(
                        Errno.ENOENT,
                        Syscall.MOUNT,
                        "/nope",
                        "/d",
                        "mount",
                        "/nope",
                        "/d",
                        null,
                        MountFlags.MS_BIND,
                        null),
                row(Errno.EINVAL, Syscall.UMOUNT, "/d", null, "umount", "/d"),
                row(Errno.EINVAL, Syscall.UMOUNT, "/d", null, "umount2", "/d", 0),
                row(Errno.EBADF, Syscall.DUP, null, null, "dup", BAD),
                row(Errno.EBADF, Syscall.DUP2, null, null, "dup2", BAD, 3),
                row(Errno.EBADF, Syscall.DUP3, null, null, "dup3", BAD, 3, 0),
                row(Errno.EBADF, Syscall.FCNTL, null, null, "fcntl", BAD, Fcntl.F_GETFD, 0L),
                row(Errno.EINVAL, Syscall.CLOSE_RANGE, null, null, "closeRange", 5, 3, 0),
                exited(Syscall.FORK, "fork"),
                exited(Syscall.CLONE, "newThread"),
                exited(Syscall.CLONE, "newThread", Credentials.ROOT),
                exited(Syscall.EXECVE, "exec"));
    }

    /** The task's identity and lifecycle, which cannot fail: {@code close()} is its exit. */
    private static final Set<String> NO_ERRORS = Set.of("async/0", "pid/0", "cred/0", "close/0");

    private static Method find(Class<?> c, Row r) {
        Method found = null;
        for (Method m : c.getMethods()) {
            if (m.getName().equals(r.method()) && m.getParameterCount() == r.args().length) {
                if (found != null) {
                    throw new AssertionError("two " + r + " in " + c.getSimpleName());
                }
                found = m;
            }
        }
        if (found == null) {
            throw new AssertionError("no " + r + " in " + c.getSimpleName());
        }
        return found;
    }

    private static VfsException blocking(VfsTask task, Row r) throws Exception {
        try {
            Object v = find(VfsTask.class, r).invoke(task, r.args());
            throw new AssertionError(r + " returned " + v);
        } catch (InvocationTargetException e) {
            return assertInstanceOf(VfsException.class, e.getCause(), r.toString());
        }
    }

    /** The async twin's failure; {@code null} for the calls that have none (lifecycle). */
    private static VfsException async(VfsTask task, Row r) throws Exception {
        if (Set.of("fork", "newThread", "exec").contains(r.method())) {
            return null;
        }
        Object f;
        try {
            f = find(AsyncVfsTask.class, r).invoke(task.async(), r.args());
        } catch (InvocationTargetException e) {
            throw new AssertionError("async " + r + " threw instead of failing its future", e);
        }
        try {
            Object v = ((CompletableFuture<?>) f).get(10, TimeUnit.SECONDS);
            throw new AssertionError("async " + r + " completed with " + v);
        } catch (ExecutionException e) {
            return assertInstanceOf(VfsException.class, e.getCause(), "async " + r);
        }
    }

    private static void assertLabel(Row r, Errno errno, VfsException e, String view) {
        String what = view + " " + r + ": " + e.getMessage();
        assertEquals(errno, e.errno(), what);
        assertEquals(r.op(), e.operation(), what);
        assertEquals(r.path(), e.path(), what);
        assertEquals(r.other(), e.otherPath(), what);
    }

    @Test
    void everyCall_failsNamingItsOwnCallAndEveryPathArgument() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Row r : rows()) {
            VfsTask task = r.exited() ? gone : t;
            for (String view : List.of("blocking", "async")) {
                VfsException e = view.equals("blocking") ? blocking(task, r) : async(task, r);
                if (e == null) {
                    continue;
                }
                try {
                    assertLabel(r, r.errno(), e, view);
                } catch (AssertionError a) {
                    wrong.add(a.getMessage());
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void everyCall_afterClose_failsWithEIO_stillNamingItsCallAndPaths() throws Exception {
        vfs.close();
        List<String> wrong = new ArrayList<>();
        for (Row r : rows()) {
            VfsTask task = r.exited() ? gone : t;
            for (String view : List.of("blocking", "async")) {
                VfsException e = view.equals("blocking") ? blocking(task, r) : async(task, r);
                if (e == null) {
                    continue;
                }
                try {
                    assertLabel(r, Errno.EIO, e, view);
                } catch (AssertionError a) {
                    wrong.add(a.getMessage());
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void theTable_hasARowForEveryPublicCall() {
        Set<String> rows = new TreeSet<>();
        for (Row r : rows()) {
            rows.add(r.toString());
        }
        Set<String> missing = new TreeSet<>();
        for (Method m : VfsTask.class.getDeclaredMethods()) {
            String key = m.getName() + "/" + m.getParameterCount();
            if (Modifier.isPublic(m.getModifiers())
                    && !Modifier.isStatic(m.getModifiers())
                    && !NO_ERRORS.contains(key)
                    && !rows.contains(key)) {
                missing.add(key);
            }
        }
        assertEquals(Set.of(), missing, "public calls without a row");
        assertTrue(rows.size() > 70, "rows: " + rows.size());
    }
}
