package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * persistfs as the root of an instance: what the namespace calls made is what the next instance on
 * the same data directory finds (names, types, modes, owners, link counts, inode numbers, symbolic
 * links), and fsck is clean on both sides.
 */
class PersistfsRemountTest {
    @TempDir Path data;

    static Config config(Path data) {
        return PersistfsType.rootConfig(data);
    }

    /** Every path under {@code dir} to its lstat, in name order. */
    static Map<String, String> tree(VfsTask t, String dir) {
        Map<String, String> out = new TreeMap<>();
        for (DirEntry e : t.readdir(dir)) {
            if (e.name().equals(".") || e.name().equals("..") || e.name().equals("proc")) {
                // (procfs is mounted on /proc: computed, not stored)
                continue;
            }
            String p = (dir.equals("/") ? "" : dir) + "/" + e.name();
            Stat s = t.lstat(p);
            String link = s.isSymlink() ? " -> " + t.readlink(p) : "";
            out.put(
                    p,
                    "ino="
                            + s.ino()
                            + " mode="
                            + Integer.toOctalString(s.mode())
                            + " nlink="
                            + s.nlink()
                            + " uid="
                            + s.uid()
                            + " gid="
                            + s.gid()
                            + link);
            if (s.isDirectory()) {
                out.putAll(tree(t, p));
            }
        }
        return out;
    }

    @Test
    void namespaceCalls_surviveTheInstance_andANewOneRecoversTheSameTree() {
        Map<String, String> before;
        long firstNewIno;
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/a", 0755);
            t.mkdir("/a/b", 0700);
            t.close(t.open("/a/b/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0640));
            t.close(t.open("/a/gone", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.unlink("/a/gone");
            t.link("/a/b/f", "/a/hard");
            t.symlink("b/f", "/a/sym");
            t.mknod("/a/fifo", Mode.S_IFIFO | 0600, 0);
            t.chmod("/a/b/f", 0604);
            t.chown("/a/sym", 1000, 1000);
            t.mkdir("/a/x", 0755);
            t.rename("/a/x", "/a/y");
            t.mkdir("/d", 0755);
            t.rmdir("/d");
            t.close(t.open("/a/r1", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.close(t.open("/a/r2", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.rename("/a/r1", "/a/r2");
            before = tree(t, "/");
            assertEquals(List.of(), Fsck.check(vfs, true));
            firstNewIno = 0;
        }
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(before, tree(t, "/"));
            assertEquals(List.of(), Fsck.check(vfs, true));
            // numbers are never given twice: a new file's number is above every recovered one
            t.close(t.open("/new", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            long newIno = t.stat("/new").ino();
            for (String v : before.values()) {
                long ino = Long.parseLong(v.substring(4, v.indexOf(' ')));
                assertTrue(newIno > ino, "new inode " + newIno + " reuses or precedes " + v);
            }
            assertTrue(newIno > firstNewIno);
        }
    }

    @Test
    void renamesBetweenDirectories_surviveTheInstance() {
        Map<String, String> before;
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/p", 0755);
            t.mkdir("/q", 0755);
            t.mkdir("/p/sub", 0700);
            t.close(t.open("/p/sub/inner", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.close(t.open("/p/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.rename("/p/f", "/q/f"); // a file
            t.rename("/p/sub", "/q/sub"); // a directory with what it holds
            t.close(t.open("/p/victim", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0600));
            t.link("/p/victim", "/p/victim-too");
            t.close(t.open("/q/over", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0640));
            t.rename("/q/over", "/p/victim"); // replaces a file that keeps another name
            t.mkdir("/p/emptydir", 0755);
            t.mkdir("/q/d", 0711);
            t.rename("/q/d", "/p/emptydir"); // replaces an empty directory
            t.close(t.open("/p/swap", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0604));
            t.mkdir("/q/swapdir", 0750);
            t.renameat2(
                    VfsTask.AT_FDCWD,
                    "/p/swap",
                    VfsTask.AT_FDCWD,
                    "/q/swapdir",
                    OpenFlags.RENAME_EXCHANGE);
            before = tree(t, "/");
            assertTrue(before.containsKey("/q/sub/inner"), before.toString());
            assertTrue(before.get("/p/swap").contains("mode=40750"), before.toString());
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
        assertRecovers(before, 2);
    }

    /**
     * The newest attributes of a hard-linked inode, recorded only where it lost a name, outlive
     * that directory's removal: chmod and chown through one name, unlink that name, remove its
     * directory; the other name shows them after a remount (the crash test found it, seed
     * 10282892423585, with {@code rmdir}). The directory goes every way one can: {@code rmdir};
     * removed after it was itself emptied of a subdirectory that recorded them ({@code nested}:
     * they pass up twice); replaced by a rename within its parent ({@code rename-within}), or by a
     * rename from another directory ({@code rename-across}: the move's journal, not the
     * directory's).
     */
    @ParameterizedTest
    @ValueSource(strings = {"rmdir", "nested", "rename-within", "rename-across"})
    void attributesRecordedUnderARemovedName_surviveEveryWayItsDirectoryGoes(String how) {
        Map<String, String> before;
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/x", 0755);
            t.mkdir("/y", 0755);
            String dir = how.equals("nested") ? "/x/s" : "/x";
            if (how.equals("nested")) {
                t.mkdir(dir, 0755);
            }
            t.close(t.open(dir + "/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.link(dir + "/f", "/y/h");
            t.chmod(dir + "/f", 0627);
            t.chown(dir + "/f", 7, 8);
            t.unlink(dir + "/f");
            switch (how) {
                case "rmdir" -> t.rmdir("/x");
                case "nested" -> {
                    t.rmdir("/x/s");
                    t.rmdir("/x");
                }
                case "rename-within" -> {
                    t.mkdir("/z", 0700);
                    t.rename("/z", "/x");
                }
                default -> {
                    t.mkdir("/y/z", 0700);
                    t.rename("/y/z", "/x");
                }
            }
            before = tree(t, "/");
            assertEquals(
                    "mode=100627 nlink=1 uid=7 gid=8",
                    before.get("/y/h").replaceAll("ino=\\d+ ", ""));
        }
        assertRecovers(before, 2);
    }

    /**
     * The same when the rmdir races the unlink: one thread unlinks the directory's last name while
     * another retries rmdir until it succeeds, round after round, so that the rmdir often comes
     * microseconds after the unlink was published, before its directory's journal had it (the
     * removal then waits for it: {@code DirectoryInode}'s {@code unjournaled}). Every other name
     * shows its chmod after a remount.
     */
    @Test
    void rmdirRacingTheLastUnlink_losesNoAttributesRecordedThere() throws Exception {
        int rounds = 150;
        Map<String, String> before;
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            VfsTask remover = vfs.newTask(Credentials.ROOT);
            t.mkdir("/y", 0755);
            java.util.concurrent.ExecutorService pool =
                    java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                for (int i = 0; i < rounds; i++) {
                    String x = "/x" + i;
                    t.mkdir(x, 0755);
                    t.close(t.open(x + "/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
                    t.link(x + "/f", "/y/h" + i);
                    t.chmod(x + "/f", 0600 | (i % 64));
                    java.util.concurrent.Future<Integer> rmdir =
                            pool.submit(
                                    () -> {
                                        for (int tries = 1; ; tries++) {
                                            try {
                                                remover.rmdir(x);
                                                return tries;
                                            } catch (VfsException e) {
                                                assertEquals(Errno.ENOTEMPTY, e.errno(), x);
                                            }
                                        }
                                    });
                    t.unlink(x + "/f");
                    rmdir.get(60, java.util.concurrent.TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            before = tree(t, "/");
            for (int i = 0; i < rounds; i++) {
                assertEquals(
                        "mode=" + Integer.toOctalString(Mode.S_IFREG | 0600 | (i % 64)),
                        before.get("/y/h" + i).replaceAll("ino=\\d+ ", "").split(" ")[0]);
            }
        }
        assertRecovers(before, 1);
    }

    /** Mounts the data directory {@code times} times in turn: each finds {@code before}. */
    private void assertRecovers(Map<String, String> before, int times) {
        for (int i = 0; i < times; i++) {
            try (SeqVfs vfs = SeqVfs.create(config(data))) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                assertEquals(before, tree(t, "/"), "mount " + (i + 1));
                assertEquals(List.of(), Fsck.check(vfs, true));
            }
        }
    }

    /**
     * Threads moving files between directories while others create, unlink and rename within them:
     * every move is serialized by the coordinator, each answered once both halves are durable, and
     * the next instance recovers exactly the tree the last one showed.
     */
    @Test
    void concurrentMovesBetweenDirectories_recoverTheTreeTheyLeft() throws Exception {
        Map<String, String> before;
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask setup = vfs.newTask(Credentials.ROOT);
            String[] dirs = {"/a", "/b", "/c"};
            for (String d : dirs) {
                setup.mkdir(d, 0755);
            }
            int threads = 4;
            java.util.concurrent.ExecutorService pool =
                    java.util.concurrent.Executors.newFixedThreadPool(threads);
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int w = 0; w < threads; w++) {
                int me = w;
                done.add(
                        pool.submit(
                                () -> {
                                    java.util.Random r = new java.util.Random(me);
                                    try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
                                        // this thread's files, each in one directory at a time
                                        String[] where = new String[8];
                                        for (int i = 0; i < where.length; i++) {
                                            where[i] = dirs[r.nextInt(dirs.length)];
                                            t.close(
                                                    t.open(
                                                            where[i] + "/w" + me + "-" + i,
                                                            OpenFlags.O_CREAT | OpenFlags.O_WRONLY,
                                                            0644));
                                        }
                                        for (int op = 0; op < 150; op++) {
                                            int i = r.nextInt(where.length);
                                            String name = "/w" + me + "-" + i;
                                            String to = dirs[r.nextInt(dirs.length)];
                                            t.rename(where[i] + name, to + name);
                                            where[i] = to;
                                            String tmp = to + "/tmp" + me;
                                            t.close(
                                                    t.open(
                                                            tmp,
                                                            OpenFlags.O_CREAT | OpenFlags.O_WRONLY,
                                                            0600));
                                            if (r.nextBoolean()) {
                                                t.unlink(tmp);
                                            } else {
                                                t.rename(tmp, to + "/kept" + me + "-" + op);
                                            }
                                        }
                                    }
                                    return null;
                                }));
            }
            for (var f : done) {
                f.get(120, java.util.concurrent.TimeUnit.SECONDS);
            }
            pool.shutdown();
            before = tree(setup, "/");
            assertTrue(before.size() > threads * 8, before.toString());
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
        assertRecovers(before, 1);
    }

    /**
     * A crash between the two halves of a move (only the target parent's {@link
     * DirEvent.EntryMovedIn} durable) is rolled forward at the next mount: the name is gone from
     * the source, once, and the tree is whole.
     */
    @Test
    void aMoveWhoseSecondHalfIsMissing_isRolledForwardAtTheNextMount() throws Exception {
        Map<String, EntryRecord> r = files("/p/f");
        long p = r.get("/p").ino();
        long q = r.get("/q").ino();
        EntryRecord moved = r.get("/p/f");
        // what a crash right after the first half leaves: /q/f durable, /p/f not yet removed
        appendByHand(
                Map.of(q, List.of(new DirEvent.EntryMovedIn("f", moved, 77, p, "f", null, null))));
        for (int i = 0; i < 2; i++) {
            try (SeqVfs vfs = SeqVfs.create(config(data))) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                List<String> want = new java.util.ArrayList<>(List.of("/p", "/q", "/q/f"));
                if (i == 1) {
                    want.add(1, "/p/g0");
                }
                assertEquals(want, List.copyOf(tree(t, "/").keySet()));
                assertEquals(1, t.stat("/q/f").nlink());
                assertEquals(List.of(), Fsck.check(vfs, true));
                // the next move is numbered above the recovered one: its halves are not mistaken
                // for old ones at the next mount
                t.close(t.open("/q/g" + i, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0640));
                t.rename("/q/g" + i, "/p/g" + i);
            }
        }
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(
                    List.of("/p", "/p/g0", "/p/g1", "/q", "/q/f"),
                    List.copyOf(tree(t, "/").keySet()));
        }
    }

    @Test
    void aForkOfAnInstanceWithADurableRoot_isEinval_forItWouldWriteTheSameJournals() {
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsException e = assertThrows(VfsException.class, vfs::fork);
            assertEquals(Errno.EINVAL, e.errno());
        }
    }

    @Test
    void aSecondMountOfTheSameDataDirectory_isEbusy() {
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/mnt", 0755);
            VfsException e =
                    assertThrows(
                            VfsException.class,
                            () -> t.mount(null, "/mnt", "persistfs", 0, "data_dir=" + data));
            assertEquals(Errno.EBUSY, e.errno());
        }
    }

    /**
     * Appends {@code events} to the journals of the directories they are keyed by (inode numbers),
     * with nothing mounted: what a crash at a chosen moment leaves.
     */
    private void appendByHand(Map<Long, List<DirEvent>> events) throws Exception {
        appendByHand(data, events);
    }

    /**
     * Appends {@code events} to the journals of the directories they are keyed by, in the data
     * directory {@code data} (not mounted), as a crash or a bug could have left them.
     */
    static void appendByHand(Path data, Map<Long, List<DirEvent>> events) throws Exception {
        org.apache.pekko.actor.typed.ActorSystem<Void> sys =
                org.apache.pekko.actor.typed.ActorSystem.create(
                        org.apache.pekko.actor.typed.javadsl.Behaviors.empty(),
                        "by-hand",
                        com.typesafe.config.ConfigFactory.load());
        AutoCloseable held = null;
        try {
            PersistStore store = PersistStore.open(data, sys);
            // held open between the writes, as a mount holds it
            held = store.holdOpen();
            String fsid = new PersistMeta(store).fsid();
            for (Map.Entry<Long, List<DirEvent>> x : events.entrySet()) {
                var e =
                        sys.systemActorOf(
                                DirectoryEntity.create(store, fsid, x.getKey(), 1000),
                                "d" + x.getKey(),
                                org.apache.pekko.actor.typed.Props.empty());
                org.apache.pekko.actor.typed.javadsl.AskPattern
                        .<DirectoryEntity.Command, DirectoryEntity.Appended>ask(
                                e,
                                r -> new DirectoryEntity.Append(x.getValue(), r),
                                java.time.Duration.ofSeconds(20),
                                sys.scheduler())
                        .toCompletableFuture()
                        .get(20, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            sys.terminate();
            sys.getWhenTerminated()
                    .toCompletableFuture()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
            if (held != null) {
                held.close();
            }
        }
    }

    /**
     * A roll-forward removes the source name only while it still binds the moved inode: a name
     * bound again after a move whose second half failed is left alone.
     */
    @Test
    void aRolledForwardMove_leavesANameBoundAgainAlone() throws Exception {
        Map<String, EntryRecord> r = files("/p/f", "/p/other");
        long p = r.get("/p").ino();
        long q = r.get("/q").ino();
        EntryRecord moved = r.get("/p/f");
        EntryRecord other = r.get("/p/other");
        // the first half durable; then p's "f" bound to another inode (its "other" renamed)
        appendByHand(
                Map.of(q, List.of(new DirEvent.EntryMovedIn("f", moved, 77, p, "f", null, null))));
        appendByHand(Map.of(p, List.of(new DirEvent.EntryRenamed("other", "f"))));
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(List.of("/p", "/p/f", "/q", "/q/f"), List.copyOf(tree(t, "/").keySet()));
            assertEquals(other.ino(), t.stat("/p/f").ino());
            assertEquals(moved.ino(), t.stat("/q/f").ino());
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }

    /**
     * Makes directories {@code /p} and {@code /q} and the files {@code paths} in an instance,
     * closes it, and returns a journal record of each (the directories too) by path.
     */
    private Map<String, EntryRecord> files(String... paths) {
        return files(data, paths);
    }

    /** As {@link #files(String...)}, in the data directory {@code data}. */
    static Map<String, EntryRecord> files(Path data, String... paths) {
        Map<String, EntryRecord> out = new TreeMap<>();
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/p", 0755);
            t.mkdir("/q", 0755);
            List<String> all = new java.util.ArrayList<>(List.of("/p", "/q"));
            for (String f : paths) {
                t.close(t.open(f, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0640));
                all.add(f);
            }
            for (String f : all) {
                Stat st = t.stat(f);
                out.put(f, new EntryRecord(st.ino(), st.mode(), 0, 0, 0, 1, 2, 3, null));
            }
        }
        return out;
    }
}
