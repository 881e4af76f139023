package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The store failing under a mounted persistfs (the segment log's writes failing, as a disk's would;
 * H2 shut down from another connection, which closes every connection of this JVM to it; PostgreSQL
 * refusing and cutting connections for two seconds): calls that needed it fail with {@code EIO} and
 * nothing else, nothing acknowledged is lost, and the file system serves again once the store works
 * again (the journal's entities restart with back-off; the data store opens a new connection after
 * a failure; the log seals its segment and goes on in a new one).
 */
class PersistfsStorageFaultTest {
    @TempDir Path data;

    /** Creates {@code path} with {@code body}, fsync'd: acknowledged if it returns. */
    private static void createSynced(VfsTask t, String path, String body) {
        int fd = t.open(path, OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY, 0644);
        try {
            t.write(fd, body.getBytes(StandardCharsets.UTF_8));
            t.fsync(fd);
        } finally {
            t.close(fd);
        }
    }

    private String schema;

    @AfterEach
    void dropSchema() throws java.sql.SQLException {
        if (schema != null) {
            PostgresTestServer.dropSchema(schema);
        }
    }

    /**
     * On the segment log, its next three batches failing before they are written; on the embedded
     * H2 store, H2 shut down from another connection; on PostgreSQL, the database refusing
     * connections for two seconds while every connection to it is terminated (what a server restart
     * looks like from the client).
     */
    @ParameterizedTest
    @ValueSource(strings = {"log", "h2", "postgresql"})
    void theStoreFailing_failsCallsWithEio_losesNothingAcknowledged_andServesAgain(String store)
            throws Exception {
        com.typesafe.config.Config config;
        if (!store.equals("postgresql")) {
            config =
                    com.typesafe.config.ConfigFactory.parseMap(
                                    java.util.Map.of(
                                            "seqvfs.root.options",
                                            "store=" + store + ",data_dir=" + data,
                                            // a failed journal write is answered at the timeout
                                            "seqvfs.persistfs.write-timeout",
                                            "3s"))
                            .withFallback(PersistfsRemountTest.config(data));
        } else {
            schema = PostgresTestServer.newSchema();
            config = PostgresTestServer.config(schema, "");
        }
        List<String> acked = new ArrayList<>();
        int failures = 0;
        java.util.concurrent.ScheduledExecutorService back =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try (SeqVfs vfs = SeqVfs.create(config)) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/a", 0755);
            for (int i = 0; i < 10; i++) {
                createSynced(t, "/a/before" + i, "b" + i);
                acked.add("/a/before" + i);
            }
            if (store.equals("log")) {
                PersistfsType.mounted(data).store.log().injectWriteFailures(3);
            } else if (store.equals("h2")) {
                try (java.sql.Connection c = PersistfsDataTest.db(data)) {
                    c.createStatement().execute("SHUTDOWN");
                }
            } else {
                refuseConnections(true);
                var unused =
                        back.schedule(
                                () -> {
                                    refuseConnections(false);
                                    return null;
                                },
                                2,
                                TimeUnit.SECONDS);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int after = 0;
            for (int i = 0; after < 10 && System.nanoTime() < deadline; i++) {
                String p = "/a/after" + i;
                try {
                    createSynced(t, p, "a" + i);
                    acked.add(p);
                    after++;
                } catch (VfsException e) {
                    assertEquals(Errno.EIO, e.errno(), "a call the outage failed: " + e);
                    failures++;
                    try {
                        t.unlink(p); // what the failed call left in memory, if anything
                    } catch (VfsException gone) {
                        // not there, or the journal still away
                    }
                }
            }
            assertEquals(10, after, "served again after the outage (" + failures + " EIO)");
        } finally {
            back.shutdownNow();
            if (store.equals("postgresql")) {
                refuseConnections(false);
            }
        }
        assertTrue(failures > 0, "the shutdown failed no call: it tested nothing");
        try (SeqVfs vfs = SeqVfs.create(config)) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            for (String p : acked) {
                int fd = t.open(p, OpenFlags.O_RDONLY);
                byte[] b = new byte[16];
                int n = t.read(fd, b, 0, b.length);
                t.close(fd);
                String name = p.substring(p.lastIndexOf('/') + 1);
                String want = (name.startsWith("before") ? "b" : "a") + name.replaceAll("\\D", "");
                assertArrayEquals(
                        want.getBytes(StandardCharsets.UTF_8),
                        java.util.Arrays.copyOf(b, n),
                        p + " was acknowledged");
            }
            assertEquals(List.of(), Fsck.check(vfs, true));
        }
    }

    /**
     * Makes the PostgreSQL database refuse new connections and terminates every other one to it
     * ({@code refuse}), or accepts them again.
     */
    private static void refuseConnections(boolean refuse) throws java.sql.SQLException {
        String db = PostgresTestServer.database();
        try (java.sql.Connection c = PostgresTestServer.connectMaintenance()) {
            c.createStatement().execute("ALTER DATABASE " + db + " ALLOW_CONNECTIONS " + !refuse);
            if (refuse) {
                c.createStatement()
                        .execute(
                                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                        + " WHERE datname = '"
                                        + db
                                        + "' AND pid <> pg_backend_pid()");
            }
        }
    }
}
