package dev.seqvfs.persist;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Where one persistent file system keeps its journal and snapshots: an embedded H2 database in a
 * data directory ({@code D/seqvfs.mv.db}), reached through {@code pekko-persistence-jdbc} with a
 * journal and a snapshot plugin of its own (Pekko's runtime plugin configuration, so one actor
 * system can serve file systems in several data directories).
 *
 * <p>The URL carries {@code WRITE_DELAY=0}: with H2's default delay a process kill lost
 * acknowledged writes (measured: 1,510 to 2,191 of 3,000 recovered); with it, all of them came
 * back. The tables are those of the plugin's own schema script ({@code
 * schema/h2/h2-create-schema.sql}), created if absent when the store opens.
 *
 * <p>Thread-safe (immutable after {@link #open}).
 */
public final class PersistStore {
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final Path dataDir;
    private final String url;
    private final String journalId;
    private final String snapshotId;
    private final Config journalConfig;
    private final Config snapshotConfig;

    private PersistStore(Path dataDir, String url, ActorSystem<?> system) {
        this.dataDir = dataDir;
        this.url = url;
        int n = NEXT.incrementAndGet();
        this.journalId = "seqvfs-persistfs-" + n + "-journal";
        this.snapshotId = "seqvfs-persistfs-" + n + "-snapshot";
        Config sys = system.settings().config();
        Map<String, Object> slick = new java.util.HashMap<>();
        slick.put("slick.profile", "slick.jdbc.H2Profile$");
        slick.put("slick.db.url", url);
        slick.put("slick.db.user", "sa");
        slick.put("slick.db.password", "");
        slick.put("slick.db.driver", "org.h2.Driver");
        slick.put("slick.db.numThreads", 2);
        slick.put("slick.db.maxConnections", 2);
        slick.put("slick.db.minConnections", 0);
        // no pool and no kept-alive connection: the plugins live as long as the actor system, the
        // database only as long as the mount, whose own connection (DataStore) keeps it open; its
        // close releases the file for another process (H2 closes a database with its last
        // connection)
        slick.put("slick.db.connectionPool", "disabled");
        slick.put("slick.db.keepAliveConnection", false);
        Config journal =
                ConfigFactory.parseMap(slick)
                        // pekko-persistence-jdbc's writer batches the writes waiting for it; a low
                        // parallelism makes fewer, bigger commits (measured: the facts)
                        .withValue("parallelism", ConfigValueFactory.fromAnyRef(2))
                        .withFallback(sys.getConfig("jdbc-journal"));
        Config snapshot =
                ConfigFactory.parseMap(slick).withFallback(sys.getConfig("jdbc-snapshot-store"));
        this.journalConfig = journal.atKey(journalId);
        this.snapshotConfig = snapshot.atKey(snapshotId);
    }

    /**
     * Opens (creating if need be) the store in {@code dataDir}: makes the directory and the tables
     * if absent. Blocks for the database's first connection (file I/O).
     *
     * @param dataDir the data directory
     * @param system the actor system whose persistent actors will use the store
     * @return the store
     * @throws UncheckedIOException if the directory cannot be made or the database not opened
     *     (another process holds it: H2 allows one writer process per file)
     */
    public static PersistStore open(Path dataDir, ActorSystem<?> system) {
        Objects.requireNonNull(dataDir, "dataDir");
        Path abs = dataDir.toAbsolutePath().normalize();
        try {
            Files.createDirectories(abs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make data directory " + abs, e);
        }
        String url = "jdbc:h2:file:" + abs.resolve("seqvfs") + ";WRITE_DELAY=0";
        createSchema(url);
        return new PersistStore(abs, url, system);
    }

    private static void createSchema(String url) {
        String ddl;
        try (InputStream in =
                PersistStore.class
                        .getClassLoader()
                        .getResourceAsStream("schema/h2/h2-create-schema.sql")) {
            if (in == null) {
                throw new IllegalStateException("pekko-persistence-jdbc's H2 schema is missing");
            }
            ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Connection c = connectWaiting(url);
                Statement s = c.createStatement()) {
            for (String stmt : ddl.split(";")) {
                String sql = stmt.strip();
                if (sql.isEmpty()) {
                    continue;
                }
                if (sql.startsWith("CREATE UNIQUE INDEX") || sql.startsWith("CREATE INDEX")) {
                    sql =
                            sql.replaceFirst("INDEX ", "INDEX IF NOT EXISTS ")
                                    .replace("IF NOT EXISTS IF NOT EXISTS", "IF NOT EXISTS");
                }
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new UncheckedIOException(
                    new IOException("cannot open the journal database " + url + ": " + e, e));
        }
    }

    /**
     * H2's error code for a database file another process holds ({@code DATABASE_ALREADY_OPEN_1}).
     */
    private static final int H2_ALREADY_OPEN = 90020;

    /** How long an open waits for another process to let the database go, in milliseconds. */
    private static final long OPEN_WAIT_MILLIS = 30_000;

    /**
     * Opens a connection, waiting up to {@link #OPEN_WAIT_MILLIS} while another process still holds
     * the file (H2 allows one process per database file): the process that had it mounted may be
     * closing it this very moment.
     */
    static Connection connectWaiting(String url) throws SQLException {
        long deadline = System.nanoTime() + OPEN_WAIT_MILLIS * 1_000_000;
        while (true) {
            try {
                return DriverManager.getConnection(url, "sa", "");
            } catch (SQLException e) {
                if (e.getErrorCode() != H2_ALREADY_OPEN || System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** {@return the data directory (absolute)} */
    public Path dataDir() {
        return dataDir;
    }

    /** {@return the JDBC URL of the database} */
    public String url() {
        return url;
    }

    /** {@return the id of this store's journal plugin} */
    public String journalPluginId() {
        return journalId;
    }

    /** {@return the id of this store's snapshot plugin} */
    public String snapshotPluginId() {
        return snapshotId;
    }

    /** {@return the journal plugin's configuration, at the path of its id} */
    public Config journalPluginConfig() {
        return journalConfig;
    }

    /** {@return the snapshot plugin's configuration, at the path of its id} */
    public Config snapshotPluginConfig() {
        return snapshotConfig;
    }
}
