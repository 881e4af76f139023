package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that comes back older than its last mount (a silent rollback, the class {@link
 * EmbeddedStoreRollbackTest} is named after, here made by putting back a copy of the database file)
 * fails its mount with {@code EIO} and a message naming the data directory and the mark ({@link
 * StoreMark}), again at each try, and mounts as it is, with what the older store held, once the
 * mark is removed.
 */
class StoreMarkTest {
    @TempDir Path dir;

    private static void create(Path data, String name) {
        try (SeqVfs vfs = SeqVfs.create(PersistfsType.rootConfig(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.close(t.open(name, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
        }
    }

    /** Mounts {@code data} at {@code /mnt} of a tmpfs instance, runs {@code body}, unmounts. */
    private static void onMount(Path data, java.util.function.Consumer<VfsTask> body) {
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.load())) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/mnt", 0755);
            t.mount(null, "/mnt", PersistfsType.NAME, 0, "data_dir=" + data);
            try {
                body.accept(t);
            } finally {
                t.umount("/mnt");
            }
        }
    }

    /**
     * Mounts {@code data} at {@code /mnt} of a tmpfs instance, expecting {@code EIO}; checks that
     * nothing was mounted there; returns the refusal's cause as text.
     */
    private static String refusedMount(Path data) {
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.load())) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/mnt", 0755);
            VfsException e =
                    assertThrows(
                            VfsException.class,
                            () -> t.mount(null, "/mnt", PersistfsType.NAME, 0, "data_dir=" + data));
            assertEquals(Errno.EIO, e.errno());
            // nothing was mounted: /mnt is still the tmpfs directory
            t.close(t.open("/mnt/x", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            return String.valueOf(e.getCause());
        }
    }

    @Test
    void aDatabaseFileOlderThanTheLastMount_failsTheMount_untilTheMarkIsRemoved() throws Exception {
        Path data = dir.resolve("data");
        Path old = dir.resolve("old.mv.db");
        create(data, "/a");
        Files.copy(data.resolve("seqvfs.mv.db"), old);
        create(data, "/b");
        assertTrue(Files.isRegularFile(data.resolve(StoreMark.FILE)), "no mark was written");
        Files.copy(old, data.resolve("seqvfs.mv.db"), StandardCopyOption.REPLACE_EXISTING);
        String why = refusedMount(data);
        assertTrue(
                why.contains("older than its last mount")
                        && why.contains(data.toString())
                        && why.contains("remove " + data.resolve(StoreMark.FILE)),
                why);
        // a second try says the same
        assertEquals(why, refusedMount(data));
        // the offline check mounts as a mount does, and says the same
        com.typesafe.config.ConfigException fsck =
                assertThrows(
                        com.typesafe.config.ConfigException.class,
                        () -> PersistfsFsck.check(data, ConfigFactory.empty()));
        assertTrue(
                fsck.getMessage().contains("EIO")
                        && fsck.getMessage().contains("older than its last mount"),
                fsck.getMessage());
        Files.delete(data.resolve(StoreMark.FILE));
        onMount(
                data,
                t -> {
                    assertEquals(0644, t.stat("/mnt/a").mode() & 07777);
                    VfsException gone = assertThrows(VfsException.class, () -> t.stat("/mnt/b"));
                    assertEquals(Errno.ENOENT, gone.errno());
                });
        // the mount that accepted the loss recorded the store anew: it mounts again
        onMount(data, t -> assertEquals(0644, t.stat("/mnt/a").mode() & 07777));
    }

    @Test
    void aDatabaseOfAnotherFileSystem_underTheMark_failsTheMount() throws Exception {
        Path data = dir.resolve("data");
        Path other = dir.resolve("other");
        create(data, "/a");
        create(other, "/z");
        Files.copy(
                other.resolve("seqvfs.mv.db"),
                data.resolve("seqvfs.mv.db"),
                StandardCopyOption.REPLACE_EXISTING);
        String why = refusedMount(data);
        assertTrue(why.contains("file-system id"), why);
    }

    @Test
    void aRemovedDatabase_underTheMark_failsTheMount_sayingSo_untilTheMarkIsRemoved()
            throws Exception {
        Path data = dir.resolve("data");
        create(data, "/a");
        Files.delete(data.resolve("seqvfs.mv.db"));
        String why = refusedMount(data);
        assertTrue(why.contains("its database is new"), why);
        Files.delete(data.resolve(StoreMark.FILE));
        onMount(data, t -> assertThrows(VfsException.class, () -> t.stat("/mnt/a")));
    }

    @Test
    void aMarkThatIsNotOne_failsTheMount_namingIt() throws Exception {
        Path data = dir.resolve("data");
        create(data, "/a");
        Files.writeString(data.resolve(StoreMark.FILE), "garbage\n");
        String why = refusedMount(data);
        assertTrue(why.contains("is not a store mark"), why);
    }
}
