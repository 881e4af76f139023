package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The namespace modes of persistfs: with {@code dirsync} (the default) each namespace call is its
 * own journal write, answered after it; with {@code async} the calls are answered first, so one
 * thread's calls in a row coalesce into far fewer journal writes (the journal queue's group
 * commit), and {@code fsync} of the directory and {@code sync} wait for them; what was synced is
 * there after a remount.
 */
class PersistfsAsyncTest {
    private static final int FILES = 400;

    @TempDir Path data;

    private Config config(String mode) {
        return ConfigFactory.parseMap(
                        Map.of(
                                "seqvfs.root.options",
                                "data_dir="
                                        + data.toAbsolutePath()
                                        + (mode.isEmpty() ? "" : "," + mode),
                                "seqvfs.proc.mount",
                                "off"))
                .withFallback(PersistfsType.rootConfig(data));
    }

    /** Creates {@link #FILES} files in {@code /dir} one after another; returns the appends sent. */
    private long createAll(VfsTask t, String dir) {
        t.mkdir(dir, 0755);
        long ino = t.stat(dir).ino();
        JournalQueue q = PersistfsType.mounted(data).queue(ino);
        long before = q.appends.get();
        for (int i = 0; i < FILES; i++) {
            t.close(t.open(dir + "/f" + i, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
        }
        return q.appends.get() - before;
    }

    @Test
    void dirsync_writesEachCallApart_async_coalescesThem_andSyncMakesThemDurable() {
        long dirsync;
        long async;
        try (SeqVfs vfs = SeqVfs.create(config(""))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            dirsync = createAll(t, "/a");
        }
        try (SeqVfs vfs = SeqVfs.create(config("async"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            String shown = PersistfsType.mounted(data).showOptions(null);
            assertTrue(shown.startsWith(",async,"), shown); // what /proc/mounts shows after rw
            async = createAll(t, "/b");
            t.sync();
            JournalQueue q = PersistfsType.mounted(data).queue(t.stat("/b").ino());
            assertTrue(q.idle(), "sync waited for the journal");
        }
        // each create (open, then a close that changes nothing) is one journal write or more
        assertTrue(dirsync >= FILES, "dirsync: " + dirsync + " appends for " + FILES + " creates");
        assertTrue(
                async < FILES / 2,
                "async: " + async + " appends for " + FILES + " creates (dirsync " + dirsync + ")");
        try (SeqVfs vfs = SeqVfs.create(config(""))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(FILES, t.readdir("/a").size());
            assertEquals(FILES, t.readdir("/b").size());
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }

    @Test
    void async_fsyncOfTheDirectory_waitsForItsJournal_andARenameBetweenDirectoriesIsWhole() {
        try (SeqVfs vfs = SeqVfs.create(config("async"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/d", 0755);
            t.mkdir("/e", 0755);
            for (int i = 0; i < 50; i++) {
                t.close(t.open("/d/f" + i, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            }
            t.rename("/d/f0", "/e/moved");
            int fd = t.open("/d", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
            t.fsync(fd);
            t.close(fd);
            assertTrue(
                    PersistfsType.mounted(data).queue(t.stat("/d").ino()).idle(),
                    "fsync of /d waited for its journal");
            int root = t.open("/", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
            t.fsync(root);
            t.close(root);
        }
        try (SeqVfs vfs = SeqVfs.create(config("async"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(49, t.readdir("/d").size());
            assertEquals(List.of("moved"), t.readdir("/e").stream().map(e -> e.name()).toList());
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }

    /**
     * An {@code fsync} of a file on an {@code async} mount takes the file's newest name along
     * (ext4's commit takes a new file's directory entry with it): when it returns, that name's
     * journal write is done, so the name is durable with the content, while other directories'
     * writes go on.
     */
    @Test
    void async_fsyncOfAFile_waitsForItsNamesJournalWrite() {
        try (SeqVfs vfs = SeqVfs.create(config("async"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            PersistfsOps ops = PersistfsType.mounted(data);
            t.mkdir("/d", 0755);
            t.mkdir("/e", 0755);
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 20; i++) {
                    t.close(
                            t.open(
                                    "/d/f" + round + "-" + i,
                                    OpenFlags.O_CREAT | OpenFlags.O_WRONLY,
                                    0644));
                }
                int fd = t.open("/e/x" + round, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
                long ino = t.fstat(fd).ino();
                if ((round & 1) == 0) {
                    t.write(fd, new byte[] {1, 2, 3}); // a write-back that forces, or none
                }
                t.fsync(fd);
                assertTrue(
                        !ops.namePendingNow(ino),
                        "round " + round + ": /e/x" + round + "'s name not written after fsync");
                t.close(fd);
            }
        }
        try (SeqVfs vfs = SeqVfs.create(config("async"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(400, t.readdir("/d").size());
            assertEquals(20, t.readdir("/e").size());
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }

    /**
     * An {@code fsync} of a file made in new directories on an {@code async} mount takes the names
     * of those directories along too (ext4's commit takes every directory entry of the path): with
     * the root directory's journal held back, the fsync of {@code /n/m/f} does not return until
     * {@code /n}'s name is written, and then neither {@code /n} nor {@code /n/m} waits for a write.
     */
    @Test
    void async_fsyncOfAFileInNewDirectories_waitsForTheirNamesToo() throws Exception {
        try (SeqVfs vfs = SeqVfs.create(config("async"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            PersistfsOps ops = PersistfsType.mounted(data);
            CompletableFuture<Void> release = new CompletableFuture<>();
            ops.queue(t.stat("/").ino()).holdUntil(release);
            t.mkdir("/n", 0755);
            t.mkdir("/n/m", 0755);
            long top = t.stat("/n").ino();
            long mid = t.stat("/n/m").ino();
            int fd = t.open("/n/m/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
            t.write(fd, new byte[] {4, 5, 6});
            assertTrue(ops.namePendingNow(top), "/n's name is held back");
            CompletableFuture<Void> synced = CompletableFuture.runAsync(() -> t.fsync(fd));
            Thread.sleep(300);
            assertFalse(synced.isDone(), "fsync returned while /n's name was not written");
            release.complete(null);
            synced.get(10, TimeUnit.SECONDS);
            assertFalse(ops.namePendingNow(top));
            assertFalse(ops.namePendingNow(mid));
            t.close(fd);

            // the same for an fsync of a new directory in a new directory
            CompletableFuture<Void> release2 = new CompletableFuture<>();
            ops.queue(t.stat("/").ino()).holdUntil(release2);
            t.mkdir("/p", 0755);
            t.mkdir("/p/q", 0755);
            int dfd = t.open("/p/q", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
            CompletableFuture<Void> dirSynced = CompletableFuture.runAsync(() -> t.fsync(dfd));
            Thread.sleep(300);
            assertFalse(dirSynced.isDone(), "fsync of /p/q returned before /p's name was written");
            release2.complete(null);
            dirSynced.get(10, TimeUnit.SECONDS);
            assertFalse(ops.namePendingNow(t.stat("/p").ino()));
            t.close(dfd);
        }
        try (SeqVfs vfs = SeqVfs.create(config("async"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(3, t.stat("/n/m/f").size());
            assertEquals(0, t.readdir("/p/q").size());
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }

    @Test
    void async_anUnmountWithoutSync_writesWhatTheJournalQueuesHold() {
        try (SeqVfs vfs = SeqVfs.create(config("async"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/u", 0755);
            for (int i = 0; i < FILES; i++) {
                t.close(t.open("/u/f" + i, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            }
            // no sync: close() is the unmount, which sends what is queued before it stops
        }
        try (SeqVfs vfs = SeqVfs.create(config(""))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(FILES, t.readdir("/u").size());
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }
}
