package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.persist.log.SegmentLog;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store that comes back older than its last mount (a silent rollback, the class {@link
 * EmbeddedStoreRollbackTest} is named after, here made by putting back a copy of the store: the
 * segment log's directory, or H2's database file) fails its mount with {@code EIO} and a message
 * naming the data directory and the mark ({@link StoreMark}), again at each try, and mounts as it
 * is, with what the older store held, once the mark is removed.
 */
class StoreMarkTest {
    @TempDir Path dir;

    /** The embedded store of this case: {@code log} (the default) or {@code h2}. */
    private String store;

    private String options(Path data) {
        return "store=" + store + ",data_dir=" + data;
    }

    private void create(Path data, String name) {
        try (SeqVfs vfs =
                SeqVfs.create(
                        ConfigFactory.parseMap(
                                        java.util.Map.of("seqvfs.root.options", options(data)))
                                .withFallback(PersistfsType.rootConfig(data)))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.close(t.open(name, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
        }
    }

    /** Mounts {@code data} at {@code /mnt} of a tmpfs instance, runs {@code body}, unmounts. */
    private void onMount(Path data, java.util.function.Consumer<VfsTask> body) {
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.load())) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/mnt", 0755);
            t.mount(null, "/mnt", PersistfsType.NAME, 0, options(data));
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
    private String refusedMount(Path data) {
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.load())) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/mnt", 0755);
            VfsException e =
                    assertThrows(
                            VfsException.class,
                            () -> t.mount(null, "/mnt", PersistfsType.NAME, 0, options(data)));
            assertEquals(Errno.EIO, e.errno());
            // nothing was mounted: /mnt is still the tmpfs directory
            t.close(t.open("/mnt/x", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            return String.valueOf(e.getCause());
        }
    }

    /** {@return the store's file or directory in data directory {@code data}} */
    private Path storeIn(Path data) {
        return data.resolve(store.equals("h2") ? PersistStore.H2_FILE : SegmentLog.DIR);
    }

    /** Copies {@code from} (a file, or a directory and its files) to {@code to}, replacing it. */
    private static void copy(Path from, Path to) throws Exception {
        delete(to);
        if (Files.isDirectory(from)) {
            Files.createDirectories(to);
            try (var s = Files.list(from)) {
                for (Path p : s.toList()) {
                    Files.copy(p, to.resolve(p.getFileName()));
                }
            }
        } else {
            Files.copy(from, to);
        }
    }

    /** Deletes {@code p} (a file, or a directory and its files), if it is there. */
    private static void delete(Path p) throws Exception {
        if (Files.isDirectory(p)) {
            try (var s = Files.list(p)) {
                for (Path x : s.toList()) {
                    Files.delete(x);
                }
            }
        }
        Files.deleteIfExists(p);
    }

    @ParameterizedTest
    @ValueSource(strings = {"log", "h2"})
    void aStoreOlderThanTheLastMount_failsTheMount_untilTheMarkIsRemoved(String kind)
            throws Exception {
        store = kind;
        Path data = dir.resolve("data");
        Path old = dir.resolve("old");
        create(data, "/a");
        copy(storeIn(data), old);
        create(data, "/b");
        assertTrue(Files.isRegularFile(data.resolve(StoreMark.FILE)), "no mark was written");
        copy(old, storeIn(data));
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

    @ParameterizedTest
    @ValueSource(strings = {"log", "h2"})
    void aStoreOfAnotherFileSystem_underTheMark_failsTheMount(String kind) throws Exception {
        store = kind;
        Path data = dir.resolve("data");
        Path other = dir.resolve("other");
        create(data, "/a");
        create(other, "/z");
        copy(storeIn(other), storeIn(data));
        String why = refusedMount(data);
        assertTrue(why.contains("file-system id"), why);
    }

    @ParameterizedTest
    @ValueSource(strings = {"log", "h2"})
    void aRemovedStore_underTheMark_failsTheMount_sayingSo_untilTheMarkIsRemoved(String kind)
            throws Exception {
        store = kind;
        Path data = dir.resolve("data");
        create(data, "/a");
        delete(storeIn(data));
        String why = refusedMount(data);
        assertTrue(why.contains("its store is new"), why);
        Files.delete(data.resolve(StoreMark.FILE));
        onMount(data, t -> assertThrows(VfsException.class, () -> t.stat("/mnt/a")));
    }

    @Test
    void aMarkThatIsNotOne_failsTheMount_namingIt() throws Exception {
        store = "log";
        Path data = dir.resolve("data");
        create(data, "/a");
        Files.writeString(data.resolve(StoreMark.FILE), "garbage\n");
        String why = refusedMount(data);
        assertTrue(why.contains("is not a store mark"), why);
    }
}
