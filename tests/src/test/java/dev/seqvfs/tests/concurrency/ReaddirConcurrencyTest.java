package dev.seqvfs.tests.concurrency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code getdents64(2)} resumed by cookie while other threads change the directory: every name that
 * stays in the directory throughout the listing appears exactly once, with its inode number and
 * type, and no name appears twice ({@code readdir(3)}: a file added or removed during the listing
 * may or may not be returned; SeqVFS's {@link DirEntry} contract: cookies stay valid across
 * versions).
 *
 * <pre>
 * /r/u000 .. /r/u119   untouched (every tenth a directory)
 * /r/c_T_N, /r/n_T_N, /r/m_T_N   touched: created, renamed within /r, moved out to /o
 * /o                              and back under fresh names, removed
 * </pre>
 *
 * Every touched name is fresh (thread id and counter), so a name is inserted into {@code /r} at
 * most once: seeing one twice in one listing is always wrong. Readers list in chunks of three; some
 * listings close their descriptor after each chunk, open a new one and {@code lseek} it to the last
 * cookie ({@code seekdir}).
 */
class ReaddirConcurrencyTest {
    private static final int UNTOUCHED = 120;

    @RegisterExtension final VfsFixture fs = new VfsFixture().checkingEndState();

    @Test
    void getdents_resumedByCookieWhileOthersChangeDirectory_listsUntouchedNamesExactlyOnce() {
        VfsTask root = fs.root();
        root.mkdir("/r", 0755);
        root.mkdir("/o", 0755);
        Map<String, Long> untouched = new HashMap<>();
        Map<String, FileType> types = new HashMap<>();
        for (int i = 0; i < UNTOUCHED; i++) {
            String name = String.format("u%03d", i);
            if (i % 10 == 0) {
                root.mkdir("/r/" + name, 0755);
                types.put(name, FileType.DIRECTORY);
            } else {
                root.mknod("/r/" + name, Mode.S_IFREG | 0644, 0);
                types.put(name, FileType.REGULAR);
            }
            untouched.put(name, root.stat("/r/" + name).ino());
        }
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        LongAdder listings = new LongAdder();
        LongAdder changes = new LongAdder();
        LongAdder reopened = new LongAdder();
        int n = Stress.threads();
        List<Stress.Worker> workers = new ArrayList<>();
        for (int i = 0; i < n / 2; i++) {
            final int id = i;
            workers.add(c -> mutate(c, id, changes));
        }
        for (int i = n / 2; i < n; i++) {
            workers.add(
                    c -> {
                        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
                        while (c.running() && violations.size() < 10) {
                            boolean reopen = ThreadLocalRandom.current().nextBoolean();
                            list(t, reopen, untouched, types, violations);
                            listings.increment();
                            if (reopen) {
                                reopened.increment();
                            }
                        }
                    });
        }
        Stress.run(Stress.sliceNanos(), workers);
        System.out.printf(
                "readdir: %d listings (%d resumed through new descriptors), %d changes%n",
                listings.sum(), reopened.sum(), changes.sum());
        assertEquals(List.of(), List.copyOf(violations));
        assertTrue(
                listings.sum() >= 10 && changes.sum() >= 100,
                "the race did not run: "
                        + listings.sum()
                        + " listings, "
                        + changes.sum()
                        + " changes");
        assertEquals(
                untouched.keySet(),
                names(root.readdir("/r")).keySet(),
                "at quiescence /r holds only u*");
    }

    /** Creates, renames within, moves out of and back into /r, and removes fresh names. */
    private void mutate(Stress.Control c, int id, LongAdder changes) {
        VfsTask t = fs.vfs().newTask(Credentials.ROOT);
        Deque<String> inR = new ArrayDeque<>();
        Deque<String> inO = new ArrayDeque<>();
        long seq = 0;
        ThreadLocalRandom r = ThreadLocalRandom.current();
        while (c.running()) {
            int op = r.nextInt(6);
            if (op == 0 || inR.isEmpty()) {
                String name = "c_" + id + "_" + seq++;
                if (r.nextBoolean()) {
                    t.mknod("/r/" + name, Mode.S_IFREG | 0644, 0);
                } else {
                    t.close(
                            t.open(
                                    "/r/" + name,
                                    OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY,
                                    0644));
                }
                inR.add(name);
            } else if (op == 1) {
                String name = inR.poll();
                String to = "n_" + id + "_" + seq++;
                t.rename("/r/" + name, "/r/" + to);
                inR.add(to);
            } else if (op == 2) {
                String name = inR.poll();
                t.rename("/r/" + name, "/o/" + name);
                inO.add(name);
            } else if (op == 3 && !inO.isEmpty()) {
                String name = inO.poll();
                String to = "m_" + id + "_" + seq++;
                t.rename("/o/" + name, "/r/" + to);
                inR.add(to);
            } else {
                t.unlink("/r/" + inR.poll());
            }
            changes.increment();
        }
        while (!inR.isEmpty()) {
            t.unlink("/r/" + inR.poll());
        }
        while (!inO.isEmpty()) {
            t.unlink("/o/" + inO.poll());
        }
    }

    private static void list(
            VfsTask t,
            boolean reopen,
            Map<String, Long> untouched,
            Map<String, FileType> types,
            ConcurrentLinkedQueue<String> violations) {
        int fd = t.open("/r", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        List<DirEntry> all = new ArrayList<>();
        try {
            while (true) {
                List<DirEntry> chunk = t.getdents(fd, 3);
                if (chunk.isEmpty()) {
                    break;
                }
                if (chunk.size() > 3) {
                    violations.add("getdents(fd, 3) returned " + chunk.size() + " entries");
                }
                all.addAll(chunk);
                if (reopen) {
                    long cookie = chunk.get(chunk.size() - 1).cookie();
                    t.close(fd);
                    fd = t.open("/r", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
                    t.lseek(fd, cookie, VfsTask.SEEK_SET);
                }
            }
        } finally {
            t.close(fd);
        }
        if (all.size() < 2 || !all.get(0).name().equals(".") || !all.get(1).name().equals("..")) {
            violations.add(
                    "listing does not start with . and ..: "
                            + all.subList(0, Math.min(3, all.size())));
            return;
        }
        Map<String, Integer> seen = new HashMap<>();
        Set<String> reported = new HashSet<>();
        for (DirEntry e : all.subList(2, all.size())) {
            String name = e.name();
            if (seen.merge(name, 1, Integer::sum) > 1 && reported.add(name)) {
                violations.add("listing returned " + name + " twice");
            }
            Long ino = untouched.get(name);
            if (ino != null) {
                if (ino != e.ino() || types.get(name) != e.type()) {
                    violations.add(
                            "listing returned "
                                    + name
                                    + " as "
                                    + e.ino()
                                    + "/"
                                    + e.type()
                                    + ", expected "
                                    + ino
                                    + "/"
                                    + types.get(name));
                }
            } else if (!name.matches("[cnm]_\\d+_\\d+")) {
                violations.add("listing returned a name never created: " + name);
            }
        }
        for (String u : untouched.keySet()) {
            if (!seen.containsKey(u)) {
                violations.add("listing missed untouched " + u);
            }
        }
    }

    private static Map<String, DirEntry> names(List<DirEntry> entries) {
        Map<String, DirEntry> m = new HashMap<>();
        for (DirEntry e : entries) {
            m.put(e.name(), e);
        }
        return m;
    }
}
