package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Many threads creating and removing names in one shared directory and in their own directories: no
 * create or unlink is lost or doubled, link counts and the superblock's inode count stay exact
 * ({@code open(2)} with {@code O_CREAT | O_EXCL}, {@code mknod(2)}, {@code mkdir(2)}, {@code
 * unlink(2)}, {@code rmdir(2)}, {@code statfs(2)} {@code f_files} and {@code f_ffree}).
 *
 * <pre>
 * /shared/T_N      every thread's names, side by side
 * /pT/N            thread T's own directory
 * </pre>
 *
 * Each thread keeps a ledger of the names it made and has not removed (a tenth are directories).
 * Afterwards each directory lists exactly its ledgers' names, its link count is 2 plus its
 * subdirectories, {@code statfs} counts exactly the ledgers' inodes more than before, and after
 * every ledger name is removed {@code statfs} is back at its starting figures.
 */
class CreateUnlinkCountsTest {
    @RegisterExtension
    final VfsFixture fs = new VfsFixture("seqvfs.tmpfs.max-inodes = 10000000").checkingEndState();

    @Test
    void createAndUnlink_manyThreadsSharedAndOwnDirectories_countsExact() {
        VfsTask root = fs.root();
        root.mkdir("/shared", 0755);
        int n = Stress.threads();
        for (int i = 0; i < n; i++) {
            root.mkdir("/p" + i, 0755);
        }
        StatFs before = root.statfs("/");
        Set<String> sharedLedger = ConcurrentHashMap.newKeySet();
        List<Set<String>> own = new ArrayList<>();
        LongAdder calls = new LongAdder();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int id = i;
            Set<String> mine = new HashSet<>();
            own.add(mine);
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        Deque<String> shared = new ArrayDeque<>();
                        Deque<String> local = new ArrayDeque<>();
                        long seq = 0;
                        while (c.running()) {
                            boolean inShared = r.nextBoolean();
                            Deque<String> q = inShared ? shared : local;
                            String dir = inShared ? "/shared/" : "/p" + id + "/";
                            if (q.size() < 20 || (q.size() < 1000 && r.nextInt(100) < 55)) {
                                String name = id + "_" + seq++;
                                create(t, dir + name, r.nextInt(10));
                                q.add(name);
                            } else {
                                remove(t, dir + (r.nextBoolean() ? q.pollFirst() : q.pollLast()));
                            }
                            calls.increment();
                        }
                        sharedLedger.addAll(shared);
                        mine.addAll(local);
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "counts: %d calls by %d threads; %d names left in /shared%n",
                calls.sum(), n, sharedLedger.size());
        assertTrue(calls.sum() >= 100, "too few calls: " + calls.sum());

        long total = checkDirectory(root, "/shared", sharedLedger);
        for (int i = 0; i < n; i++) {
            total += checkDirectory(root, "/p" + i, own.get(i));
        }
        StatFs during = root.statfs("/");
        assertEquals(before.files(), during.files());
        assertEquals(
                before.ffree() - total,
                during.ffree(),
                "statfs counts every ledger inode exactly once");

        for (String name : sharedLedger) {
            remove(root, "/shared/" + name);
        }
        for (int i = 0; i < n; i++) {
            for (String name : own.get(i)) {
                remove(root, "/p" + i + "/" + name);
            }
        }
        assertEquals(before, root.statfs("/"), "statfs back at its starting figures");
    }

    /** Makes a regular file (by open or mknod) or, one time in ten, a directory. */
    private static void create(VfsTask t, String path, int dice) {
        if (dice == 0) {
            t.mkdir(path, 0755);
        } else if (dice < 5) {
            t.close(t.open(path, OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY, 0644));
        } else {
            t.mknod(path, Mode.S_IFREG | 0644, 0);
        }
    }

    private static void remove(VfsTask t, String path) {
        if (t.stat(path).isDirectory()) {
            t.rmdir(path);
        } else {
            t.unlink(path);
        }
    }

    /**
     * Checks that {@code dir} lists exactly {@code ledger} and its link count; returns the ledger
     * size.
     */
    private static long checkDirectory(VfsTask t, String dir, Set<String> ledger) {
        List<DirEntry> entries = t.readdir(dir);
        Set<String> names = new HashSet<>();
        int subdirs = 0;
        for (DirEntry e : entries) {
            names.add(e.name());
            if (e.type() == FileType.DIRECTORY) {
                subdirs++;
            }
        }
        assertEquals(ledger.size(), entries.size(), dir + ": entries listed");
        assertEquals(ledger, names, dir + ": names listed");
        assertEquals(2 + subdirs, t.stat(dir).nlink(), dir + ": link count");
        return ledger.size();
    }
}
