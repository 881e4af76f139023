package dev.seqvfs.nio;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_DELETE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;
import static java.nio.file.StandardWatchEventKinds.OVERFLOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code WatchService} on the engine's inotify, and the cases the in-memory peers' users
 * reported against Jimfs (its polling watch service), each test named after the issue it answers.
 * Every wait is bounded ({@code poll} with a timeout, {@code get} with one); nothing sleeps.
 *
 * <pre>
 * /w/      watched by each test
 * /other/  a second watched directory (cancel)
 * </pre>
 */
class SeqVfsWatchServiceTest {
    private static final long BOUND_S = 30;

    private SeqVfsFileSystem fs;
    private SeqVfsFileSystem other; // another task of the same engine: the changes' author
    private WatchService ws;
    private Path w;

    @BeforeEach
    void setUp() throws Exception {
        fs = SeqVfsFileSystem.builder().build();
        other = SeqVfsFileSystem.builder().engine(fs.engine()).build();
        w = Files.createDirectory(fs.getPath("/w"));
        ws = fs.newWatchService();
    }

    @AfterEach
    void tearDown() throws Exception {
        ws.close();
        other.close();
        fs.close();
    }

    private record Seen(WatchEvent.Kind<?> kind, String name) {}

    /** Takes keys until {@code n} events arrived (OVERFLOW counts as one), each key reset. */
    private List<Seen> collect(WatchKey expected, int n) throws Exception {
        List<Seen> out = new ArrayList<>();
        while (out.size() < n) {
            WatchKey k = ws.poll(BOUND_S, TimeUnit.SECONDS);
            assertNotNull(k, "no event within " + BOUND_S + " s; so far " + out.size());
            assertSame(expected, k);
            for (WatchEvent<?> e : k.pollEvents()) {
                for (int i = 0; i < e.count(); i++) {
                    out.add(
                            new Seen(
                                    e.kind(), e.context() == null ? null : e.context().toString()));
                }
                if (e.kind() == OVERFLOW) {
                    return out;
                }
            }
            k.reset();
        }
        return out;
    }

    @Test
    void everyChangeMadeByAnotherTask_arrivesInOrder() throws Exception {
        WatchKey key = w.register(ws, ENTRY_CREATE, ENTRY_DELETE, ENTRY_MODIFY);
        Path ow = other.getPath("/w");
        Files.writeString(ow.resolve("a"), "1"); // create, then modify (the write)
        Files.createDirectory(ow.resolve("d"));
        Files.move(ow.resolve("a"), ow.resolve("b"), StandardCopyOption.ATOMIC_MOVE);
        Files.delete(ow.resolve("d"));
        Files.delete(ow.resolve("b"));
        assertEquals(
                List.of(
                        new Seen(ENTRY_CREATE, "a"),
                        new Seen(ENTRY_MODIFY, "a"),
                        new Seen(ENTRY_CREATE, "d"),
                        new Seen(ENTRY_DELETE, "a"),
                        new Seen(ENTRY_CREATE, "b"),
                        new Seen(ENTRY_DELETE, "d"),
                        new Seen(ENTRY_DELETE, "b")),
                collect(key, 7));
        assertNull(ws.poll(), "nothing more");
    }

    @Test
    void aBurstOf100000Creates_losesNothingOrReportsOverflow() throws Exception {
        WatchKey key = w.register(ws, ENTRY_CREATE);
        int n = 100_000;
        CompletableFuture<Void> writer =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                Path ow = other.getPath("/w");
                                for (int i = 0; i < n; i++) {
                                    Files.createFile(ow.resolve("f" + i));
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        });
        List<Seen> seen = collect(key, n);
        writer.get(BOUND_S * 4, TimeUnit.SECONDS);
        if (seen.get(seen.size() - 1).kind() == OVERFLOW) {
            // reported, so the loss is known: everything before it is distinct and a create
            assertEquals(seen.size() - 1, new HashSet<>(seen.subList(0, seen.size() - 1)).size());
        } else {
            assertEquals(n, seen.size());
            Set<String> names = new HashSet<>();
            for (Seen s : seen) {
                assertEquals(ENTRY_CREATE, s.kind());
                names.add(s.name());
            }
            assertEquals(n, names.size(), "every create, once");
            for (int i = 0; i < n; i += 9973) {
                assertTrue(names.contains("f" + i));
            }
        }
    }

    @Test
    void jimfs43_jimfs68_fastCreateDeletePairs_doNotVanish() throws Exception {
        WatchKey key = w.register(ws, ENTRY_CREATE, ENTRY_DELETE);
        Path ow = other.getPath("/w");
        int pairs = 1000;
        for (int i = 0; i < pairs; i++) {
            Path p = ow.resolve("tmp");
            Files.createFile(p);
            Files.delete(p);
        }
        List<Seen> seen = collect(key, 2 * pairs);
        for (int i = 0; i < pairs; i++) {
            assertEquals(new Seen(ENTRY_CREATE, "tmp"), seen.get(2 * i), "pair " + i);
            assertEquals(new Seen(ENTRY_DELETE, "tmp"), seen.get(2 * i + 1), "pair " + i);
        }
    }

    @Test
    void jimfs277_deletingTheWatchedDirectory_wakesTake_andTheKeyIsInvalid() throws Exception {
        Path d = Files.createDirectory(fs.getPath("/w/d"));
        WatchKey key = d.register(ws, ENTRY_CREATE);
        CompletableFuture<WatchKey> taken =
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return ws.take();
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        });
        Files.delete(other.getPath("/w/d"));
        assertSame(key, taken.get(BOUND_S, TimeUnit.SECONDS));
        assertFalse(key.isValid());
        assertFalse(key.reset());
    }

    @Test
    void close_wakesTake_withClosedWatchServiceException() throws Exception {
        w.register(ws, ENTRY_CREATE);
        CompletableFuture<WatchKey> taken =
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return ws.take();
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        });
        ws.close();
        Throwable t =
                assertThrows(
                                java.util.concurrent.ExecutionException.class,
                                () -> taken.get(BOUND_S, TimeUnit.SECONDS))
                        .getCause();
        assertTrue(t instanceof ClosedWatchServiceException, String.valueOf(t));
        assertThrows(ClosedWatchServiceException.class, ws::poll);
        assertThrows(ClosedWatchServiceException.class, () -> w.register(ws, ENTRY_CREATE));
    }

    @Test
    void cancel_removesTheWatch_laterChangesSignalNothing() throws Exception {
        Path o = Files.createDirectory(fs.getPath("/other"));
        WatchKey key = w.register(ws, ENTRY_CREATE);
        WatchKey sentinel = o.register(ws, ENTRY_CREATE);
        key.cancel();
        assertFalse(key.isValid());
        Files.createFile(other.getPath("/w/after-cancel"));
        Files.createFile(other.getPath("/other/sentinel"));
        // the sentinel's event comes after the cancelled directory's would have
        assertSame(sentinel, ws.poll(BOUND_S, TimeUnit.SECONDS));
        assertNull(ws.poll());
    }

    @Test
    void register_sameDirectoryTwice_returnsTheSameKey_aFileIsNotADirectory() throws Exception {
        WatchKey a = w.register(ws, ENTRY_CREATE);
        assertSame(a, w.register(ws, ENTRY_CREATE, ENTRY_DELETE));
        Path f = Files.createFile(w.resolve("f"));
        assertThrows(NotDirectoryException.class, () -> f.register(ws, ENTRY_CREATE));
        assertEquals(w, a.watchable());
    }
}
