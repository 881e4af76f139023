package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.anon.AnonFs;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Falloc;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Chaos checked by its end state. Many threads run every namespace and data call at random over a
 * small shared tree (names collide all the time): each thread has a task of its own, some share
 * task objects, some make threads ({@code newThread()}, a shared descriptor table) and processes
 * ({@code fork()}, a copied one) that run a little and exit; renames are plain, {@code
 * RENAME_NOREPLACE} and {@code RENAME_EXCHANGE}, within and across directories and into a second
 * tmpfs mount with small limits (where {@code ENOSPC} and {@code EXDEV} are expected answers).
 * Descriptors stay open across steps, on files that get unlinked and directories that get removed.
 *
 * <p>A call may fail only with an errno the races explain ({@link #EXPECTED}). At the end every
 * task is closed and everything made is removed; then both superblocks' counters (inode slots and
 * blocks, from {@code statfs}) and the live anonymous inodes are back at their baseline, and the
 * whole-superblock {@code Fsck} (the fixture, every file closed) is clean: a leak of any kind fails
 * here, not in an outside check.
 */
class ChaosTest {
    private static final int DIRS = 3;
    private static final int NAMES = 4;

    /** What racing calls may legitimately answer. */
    private static final Set<Errno> EXPECTED =
            EnumSet.of(
                    Errno.ENOENT,
                    Errno.EEXIST,
                    Errno.ENOTEMPTY,
                    Errno.ENOTDIR,
                    Errno.EISDIR,
                    Errno.EINVAL, // a directory renamed into its own subtree
                    Errno.EXDEV,
                    Errno.ENOSPC,
                    Errno.EMFILE,
                    Errno.EAGAIN, // non-blocking pipe and lock calls
                    Errno.EBUSY, // the second mount's root
                    Errno.EMLINK,
                    Errno.ELOOP); // symlinks made at random point at one another

    @RegisterExtension
    final VfsFixture fs = new VfsFixture("seqvfs.tmpfs.max-inodes = 1000000").checkingEndState();

    @Test
    void everyCallAtRandom_endsWithEveryCounterAtItsBaseline() {
        VfsTask root = fs.root();
        AnonFs anon = EngineInternals.anonFs(fs.vfs());
        long anonBefore = anon.liveInodes();
        long[] rootBefore = VfsFixture.used(root, "/");
        root.mkdir("/m", 0777);
        root.mount("none", "/m", "tmpfs", 0, "size=256k,nr_inodes=64");
        long[] mountBefore = VfsFixture.used(root, "/m");
        List<String> tops = new ArrayList<>();
        for (int i = 0; i < DIRS; i++) {
            tops.add("/w" + i);
            root.mkdir("/w" + i, 0777);
        }
        tops.add("/m");
        int n = Stress.threads();
        VfsTask[] shared = {fs.vfs().newTask(Credentials.ROOT), fs.vfs().newTask(Credentials.ROOT)};
        Set<VfsTask> made = ConcurrentHashMap.newKeySet();
        made.add(shared[0]);
        made.add(shared[1]);
        LongAdder calls = new LongAdder();
        LongAdder failures = new LongAdder();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int w = 0; w < n; w++) {
            VfsTask own = w % 3 == 2 ? shared[w % 2] : fs.vfs().newTask(Credentials.ROOT);
            made.add(own);
            workers.add(
                    c -> {
                        Chaos chaos = new Chaos(own, tops, calls, failures, made);
                        while (c.running()) {
                            chaos.step();
                        }
                        chaos.closeAll();
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        for (VfsTask t : made) {
            t.close();
        }
        for (String top : tops) {
            fs.removeAllUnder(top);
            if (!top.equals("/m")) {
                root.rmdir(top);
            }
        }
        System.out.printf(
                "chaos: %d calls, %d failed with expected errnos%n", calls.sum(), failures.sum());
        assertTrue(calls.sum() > 0);
        assertEquals(
                mountBefore[0], VfsFixture.used(root, "/m")[0], "/m inode slots after the run");
        assertEquals(mountBefore[1], VfsFixture.used(root, "/m")[1], "/m blocks after the run");
        root.umount("/m");
        root.rmdir("/m");
        assertEquals(
                rootBefore[0], VfsFixture.used(root, "/")[0], "root inode slots after the run");
        assertEquals(rootBefore[1], VfsFixture.used(root, "/")[1], "root blocks after the run");
        assertEquals(anonBefore, anon.liveInodes(), "live anonymous inodes after the run");
    }

    /** One worker's random calls, with the descriptors it holds between steps. */
    private static final class Chaos {
        private final VfsTask task;
        private final List<String> tops;
        private final LongAdder calls;
        private final LongAdder failures;
        private final Set<VfsTask> made;

        /** Descriptors of regular files open for reading and writing. */
        private final List<Integer> files = new ArrayList<>();

        /** Every descriptor this worker holds (files' included). */
        private final List<Integer> fds = new ArrayList<>();

        private final ThreadLocalRandom r = ThreadLocalRandom.current();

        Chaos(
                VfsTask task,
                List<String> tops,
                LongAdder calls,
                LongAdder failures,
                Set<VfsTask> made) {
            this.task = task;
            this.tops = tops;
            this.calls = calls;
            this.failures = failures;
            this.made = made;
        }

        /** A random path: a top directory, then up to two names of a small pool. */
        private String path() {
            StringBuilder p = new StringBuilder(tops.get(r.nextInt(tops.size())));
            int depth = 1 + r.nextInt(2);
            for (int i = 0; i < depth; i++) {
                p.append('/').append(r.nextBoolean() ? "d" : "f").append(r.nextInt(NAMES));
            }
            return p.toString();
        }

        void step() {
            calls.increment();
            try {
                call(task);
            } catch (VfsException e) {
                // link(2) of a directory is EPERM (the pool's names are files or directories)
                boolean linkOfDir = e.errno() == Errno.EPERM && e.operation() == Syscall.LINK;
                if (!EXPECTED.contains(e.errno()) && !linkOfDir) {
                    throw new AssertionError("unexpected " + e.errno() + ": " + e.getMessage(), e);
                }
                failures.increment();
            }
        }

        private void call(VfsTask t) {
            switch (r.nextInt(24)) {
                case 0, 1 -> t.mkdir(path(), 0777);
                case 2 -> t.rmdir(path());
                case 3 -> t.unlink(path());
                case 4, 5 -> t.rename(path(), path());
                case 6 ->
                        t.renameat2(
                                VfsTask.AT_FDCWD,
                                path(),
                                VfsTask.AT_FDCWD,
                                path(),
                                OpenFlags.RENAME_EXCHANGE);
                case 7 ->
                        t.renameat2(
                                VfsTask.AT_FDCWD,
                                path(),
                                VfsTask.AT_FDCWD,
                                path(),
                                OpenFlags.RENAME_NOREPLACE);
                case 8 -> t.link(path(), path());
                case 9 -> t.symlink(path(), path());
                case 10, 11 -> {
                    int fd = t.open(path(), OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0666);
                    if (t.fstat(fd).type() == FileType.REGULAR) {
                        files.add(fd);
                    }
                    keep(fd);
                }
                case 12 -> keep(t.open(path(), OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY));
                case 13 -> {
                    int fd = held();
                    if (fd >= 0) {
                        t.write(fd, new byte[1 + r.nextInt(9000)]);
                    }
                }
                case 14 -> {
                    int fd = held();
                    if (fd >= 0) {
                        t.pread(fd, new byte[4096], 0, 4096, r.nextInt(8192));
                    }
                }
                case 15 -> {
                    int fd = held();
                    if (fd >= 0) {
                        t.fallocate(
                                fd,
                                r.nextBoolean() ? 0 : Falloc.FALLOC_FL_KEEP_SIZE,
                                0,
                                1 + r.nextInt(20_000));
                    }
                }
                case 16 -> t.truncate(path(), r.nextInt(10_000));
                case 17 -> {
                    t.stat(path());
                    t.readdir(tops.get(r.nextInt(tops.size())));
                }
                case 18 -> {
                    t.chmod(path(), 0600 | r.nextInt(0100));
                    t.utimensat(VfsTask.AT_FDCWD, path(), null, null, 0);
                }
                case 19 -> {
                    int[] p = t.pipe2(OpenFlags.O_NONBLOCK);
                    fds.add(p[0]);
                    fds.add(p[1]);
                    t.write(p[1], new byte[1 + r.nextInt(100)]);
                    keep(t.dup(p[0]));
                }
                case 20 -> {
                    int[] s = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
                    keep(s[0]);
                    keep(s[1]);
                }
                case 21 -> {
                    int fd = held();
                    if (fd >= 0) {
                        if (r.nextBoolean()) {
                            int d = t.dup(fd);
                            files.add(d);
                            keep(d);
                        } else {
                            t.flock(fd, Flock.LOCK_EX | Flock.LOCK_NB);
                            t.fcntlLock(fd, Fcntl.F_SETLK, Flock.of(Flock.F_WRLCK, 0, 100));
                        }
                    }
                }
                case 22 -> {
                    // A thread of this task (shared table) or a process (copied table) that
                    // runs a few calls of its own and exits, closing what it alone holds.
                    VfsTask child = r.nextBoolean() ? t.newThread() : t.fork();
                    made.add(child);
                    try {
                        for (int i = 0; i < 3; i++) {
                            try {
                                call2(child);
                            } catch (VfsException e) {
                                if (!EXPECTED.contains(e.errno())) {
                                    throw e;
                                }
                            }
                        }
                    } finally {
                        child.close();
                        made.remove(child);
                    }
                }
                default -> closeOne();
            }
        }

        /**
         * What a short-lived child does: namespace calls by path and a file it opens and closes.
         */
        private void call2(VfsTask child) {
            switch (r.nextInt(4)) {
                case 0 -> child.mkdir(path(), 0777);
                case 1 -> child.rename(path(), path());
                case 2 -> child.unlink(path());
                default -> {
                    int fd = child.open(path(), OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0666);
                    child.write(fd, new byte[100]);
                    if (r.nextBoolean()) {
                        child.close(fd); // else the child's exit closes it
                    }
                }
            }
        }

        private void keep(int fd) {
            fds.add(fd);
            if (fds.size() > 12) {
                closeOne();
            }
        }

        /** {@return one of the regular files this worker holds open, or -1} */
        private int held() {
            return files.isEmpty() ? -1 : files.get(r.nextInt(files.size()));
        }

        private void closeOne() {
            if (!fds.isEmpty()) {
                Integer fd = fds.remove(r.nextInt(fds.size()));
                files.remove(fd);
                task.close(fd);
            }
        }

        void closeAll() {
            while (!fds.isEmpty()) {
                closeOne();
            }
        }
    }
}
