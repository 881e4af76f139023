package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Writers racing {@code mount -o remount,ro}: while the superblock is read-only nothing on it may
 * change, since Linux's {@code sb_prepare_remount_readonly} refuses ({@code EBUSY}) while a file is
 * open for writing or a write holds the mount ({@code mnt_want_write}), and a write that starts
 * after the remount fails with {@code EROFS}.
 *
 * <pre>
 * /m            a tmpfs
 * /m/f&lt;i&gt;       worker i's file: opened O_WRONLY, written, closed; chmod; truncate by path
 * /m/d&lt;i&gt;_&lt;n&gt;   worker i's directories: mkdir, rmdir
 * </pre>
 *
 * The remounter loops: remount ro; on success it reads every file's size, mode and mtime and the
 * listing of {@code /m}, lets the workers run, reads them again (they must be equal: nothing landed
 * on the read-only superblock), then remounts rw. Every worker error must be {@code EROFS}; at the
 * end fsck (the fixture) is clean.
 */
@SuppressWarnings("ThreadPriorityCheck") // Thread.yield makes contention, not ordering
class RemountWritersRaceTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    private static List<String> snapshot(VfsTask t, int workers) {
        List<String> s = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            Stat st = t.stat("/m/f" + i);
            s.add(
                    "f"
                            + i
                            + " size="
                            + st.size()
                            + " mode="
                            + Integer.toOctalString(st.permissions())
                            + " mtime="
                            + st.mtimeNanos());
        }
        List<String> names = new ArrayList<>();
        for (DirEntry e : t.readdir("/m")) {
            names.add(e.name());
        }
        names.sort(null);
        s.add(names.toString());
        return s;
    }

    @Test
    void remountReadOnly_racingWriters_eitherEBUSYOrNothingChangesWhileReadOnly() {
        VfsTask root = fs.root();
        root.mkdir("/m", 0755);
        root.mount("none", "/m", "tmpfs", 0, null);
        int workers = Stress.threads() - 1;
        for (int i = 0; i < workers; i++) {
            root.mknod("/m/f" + i, dev.seqvfs.protocol.Mode.S_IFREG | 0644, 0);
        }
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        LongAdder readOnlyRounds = new LongAdder();
        LongAdder busy = new LongAdder();
        LongAdder writes = new LongAdder();
        LongAdder erofs = new LongAdder();
        AtomicInteger ids = new AtomicInteger();
        List<Stress.Worker> all = new ArrayList<>();
        all.add(
                c -> {
                    VfsTask t = fs.vfs().newTask(dev.seqvfs.protocol.Credentials.ROOT);
                    while (c.running() && violations.size() < 5) {
                        try {
                            t.mount(
                                    null,
                                    "/m",
                                    null,
                                    MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY,
                                    null);
                        } catch (VfsException e) {
                            if (e.errno() != Errno.EBUSY) {
                                violations.add("remount ro: " + e.errno());
                            }
                            busy.increment();
                            continue;
                        }
                        readOnlyRounds.increment();
                        List<String> before = snapshot(t, workers);
                        Thread.yield();
                        List<String> after = snapshot(t, workers);
                        if (!before.equals(after)) {
                            violations.add("changed while read-only: " + before + " -> " + after);
                        }
                        t.mount(null, "/m", null, MountFlags.MS_REMOUNT, null);
                        // Let the workers get some writes in before the next attempt.
                        long target = writes.sum() + workers;
                        while (writes.sum() < target && c.running()) {
                            Thread.yield();
                        }
                    }
                });
        for (int w = 0; w < workers; w++) {
            all.add(
                    c -> {
                        int id = ids.getAndIncrement();
                        VfsTask t = fs.vfs().newTask(dev.seqvfs.protocol.Credentials.ROOT);
                        String f = "/m/f" + id;
                        byte[] data = new byte[16];
                        for (int n = 0; c.running() && violations.size() < 5; n++) {
                            try {
                                switch (n % 4) {
                                    case 0 -> {
                                        int fd = t.open(f, OpenFlags.O_WRONLY | OpenFlags.O_APPEND);
                                        try {
                                            t.write(fd, data);
                                        } finally {
                                            t.close(fd);
                                        }
                                    }
                                    case 1 -> t.chmod(f, (n & 4) == 0 ? 0600 : 0644);
                                    case 2 -> t.truncate(f, n % 97);
                                    default -> {
                                        String d = "/m/d" + id + "_" + n;
                                        t.mkdir(d, 0755);
                                        t.rmdir(d);
                                    }
                                }
                                writes.increment();
                            } catch (VfsException e) {
                                if (e.errno() != Errno.EROFS) {
                                    violations.add(
                                            "worker " + id + " op " + (n % 4) + ": " + e.errno());
                                }
                                erofs.increment();
                                Thread.yield(); // read-only for now: let the remounter run
                            }
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), all);
        System.out.printf(
                "remount ro vs writers: %d read-only rounds, %d EBUSY, %d writes, %d EROFS%n",
                readOnlyRounds.sum(), busy.sum(), writes.sum(), erofs.sum());
        assertEquals(List.of(), List.copyOf(violations));
        assertTrue(readOnlyRounds.sum() > 0 && writes.sum() > 0, "the race did not run");
        List<String> leftover = new ArrayList<>();
        for (DirEntry e : root.readdir("/m")) {
            if (e.name().startsWith("d")) {
                leftover.add(e.name());
            }
        }
        // A worker stopped between mkdir and rmdir (or got EROFS on the rmdir) leaves its
        // directory.
        for (String d : leftover) {
            root.rmdir("/m/" + d);
        }
        for (int i = 0; i < workers; i++) {
            root.unlink("/m/f" + i);
        }
        root.umount("/m");
    }
}
