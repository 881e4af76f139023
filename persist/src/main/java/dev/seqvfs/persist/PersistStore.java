package dev.seqvfs.persist;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.seqvfs.persist.log.LogJournal;
import dev.seqvfs.persist.log.LogSnapshotStore;
import dev.seqvfs.persist.log.SegmentLog;
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
 * Where one persistent file system keeps its journal, snapshots and file contents: by default
 * persistfs's own segment log in the data directory ({@code D/seqvfs.log/}, {@link SegmentLog},
 * with the journal and snapshot plugins {@link LogJournal} and {@link LogSnapshotStore}); or an
 * embedded H2 database there ({@code D/seqvfs.mv.db}, mount option {@code store=h2}, and the kind
 * an older data directory holds), or a schema of a PostgreSQL server, both reached through {@code
 * pekko-persistence-jdbc}. Each store gets a journal and a snapshot plugin of its own (Pekko's
 * runtime plugin configuration, so one actor system can serve file systems in several data
 * directories).
 *
 * <p>H2:
 *
 * <p>The URL carries {@code WRITE_DELAY=0}: with H2's default delay a process kill lost
 * acknowledged writes (measured: 1,510 to 2,191 of 3,000 recovered); with it, all of them came
 * back. It also carries {@code MAX_COMPACT_TIME=0}: no compaction when the database closes. That
 * compaction (chunks moved to shrink the file) is where H2 went wrong under kills: on 2.3.232 a
 * kill after a clean close could leave a store that opened at an older state or not at all (H2
 * issue 4247), and 2.4.240 still failed an assertion in it ({@code FreeSpaceBitSet.allocate},
 * logged to {@code seqvfs.trace.db}); {@code EmbeddedStoreRollbackTest} is the check. Without it
 * the file does not shrink at close, but H2's background housekeeping still rewrites sparse chunks,
 * so the space freed is used again. The tables are those of the plugin's own schema script ({@code
 * schema/h2/h2-create-schema.sql}), created if absent when the store opens.
 *
 * <p>Thread-safe (immutable after it is opened).
 */
public final class PersistStore {
    private static final AtomicInteger NEXT = new AtomicInteger();

    /** The kinds of store. */
    enum Dialect {
        /** persistfs's own segment log in a data directory ({@link SegmentLog}). */
        LOG,
        /** Embedded H2 in a data directory. */
        H2,
        /** A PostgreSQL server, one schema per file system. */
        POSTGRESQL
    }

    private final Path dataDir;
    private final String url;
    private final String user;
    private final String password;
    private final Dialect dialect;
    private final String journalId;
    private final String snapshotId;
    private final Config journalConfig;
    private final Config snapshotConfig;

    /** The segment log of a {@link Dialect#LOG} store, else {@code null}. */
    private final SegmentLog log;

    /**
     * Whether the journal plugin appends lazily (an {@code async} mount on the log): the barriers
     * then force the log ({@link #force}).
     */
    private final boolean lazyJournal;

    /**
     * The dispatcher of the log store's plugins and of the entities that use them ({@code
     * seqvfs.persistfs.dispatcher}), or {@code null}: Pekko's defaults (the JDBC stores).
     */
    private final String dispatcher;

    private PersistStore(
            Path dataDir,
            String url,
            String user,
            String password,
            Dialect dialect,
            String schema,
            ActorSystem<?> system,
            SegmentLog log,
            boolean lazyJournal) {
        this.dataDir = dataDir;
        this.log = log;
        this.lazyJournal = log != null && lazyJournal;
        Config sysConfig = system.settings().config();
        this.dispatcher =
                log != null && sysConfig.hasPath("seqvfs.persistfs.dispatcher")
                        ? sysConfig.getString("seqvfs.persistfs.dispatcher")
                        : null;
        this.url = url;
        this.user = user;
        this.password = password;
        this.dialect = dialect;
        int n = NEXT.incrementAndGet();
        this.journalId = "seqvfs-persistfs-" + n + "-journal";
        this.snapshotId = "seqvfs-persistfs-" + n + "-snapshot";
        if (log != null) {
            // the plugins find the mount's open log by its id; the mount closes it. They run on
            // the entities' dispatcher (the engine's calling-thread one by default): an entity's
            // write reaches the log's queue on the thread that made it
            Map<String, Object> j = new java.util.HashMap<>();
            j.put("store-id", log.id());
            j.put("lazy", lazyJournal);
            if (dispatcher != null && system.settings().config().hasPath(dispatcher)) {
                j.put("plugin-dispatcher", dispatcher);
            }
            Map<String, Object> sn = new java.util.HashMap<>(j);
            j.put("class", LogJournal.class.getName());
            sn.put("class", LogSnapshotStore.class.getName());
            this.journalConfig = ConfigFactory.parseMap(j).atKey(journalId);
            this.snapshotConfig = ConfigFactory.parseMap(sn).atKey(snapshotId);
            return;
        }
        Config sys = system.settings().config();
        Map<String, Object> slick = new java.util.HashMap<>();
        boolean h2 = dialect == Dialect.H2;
        slick.put("slick.profile", h2 ? "slick.jdbc.H2Profile$" : "slick.jdbc.PostgresProfile$");
        slick.put("slick.db.url", url);
        slick.put("slick.db.user", user);
        slick.put("slick.db.password", password);
        slick.put("slick.db.driver", h2 ? "org.h2.Driver" : "org.postgresql.Driver");
        if (schema != null) {
            slick.put("tables.event_journal.schemaName", schema);
            slick.put("tables.event_tag.schemaName", schema);
            slick.put("tables.snapshot.schemaName", schema);
        }
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

    /** The name of an embedded H2 store's database file in its data directory. */
    static final String H2_FILE = "seqvfs.mv.db";

    /**
     * {@return the kind of embedded store in {@code dataDir}}: {@link Dialect#H2} if it holds an H2
     * database and no segment log, else {@link Dialect#LOG} (the default for a new one)
     *
     * @param dataDir the data directory
     */
    static Dialect embeddedKind(Path dataDir) {
        return Files.exists(dataDir.resolve(H2_FILE))
                        && !Files.exists(dataDir.resolve(SegmentLog.DIR))
                ? Dialect.H2
                : Dialect.LOG;
    }

    /**
     * Opens (creating if need be) the embedded store in {@code dataDir}, of the kind it holds
     * ({@link #embeddedKind}: the segment log unless it holds an H2 database).
     *
     * @param dataDir the data directory
     * @param system the actor system whose persistent actors will use the store
     * @return the store
     * @throws UncheckedIOException if the directory cannot be made or the store not opened
     */
    public static PersistStore open(Path dataDir, ActorSystem<?> system) {
        Path abs = dataDir.toAbsolutePath().normalize();
        return embeddedKind(abs) == Dialect.H2
                ? openH2(abs, system)
                : openLog(abs, SegmentLog.Settings.DEFAULT, system);
    }

    /**
     * Opens (creating if need be) the segment-log store in {@code dataDir} ({@code D/seqvfs.log/}),
     * recovering it (a torn tail after a crash is cut). Blocks for the disk, and up to 30 s while
     * another process holds it. {@link #close} closes it.
     *
     * @param dataDir the data directory
     * @param settings the log's segment size and compaction
     * @param system the actor system whose persistent actors will use the store
     * @return the store
     * @throws UncheckedIOException if the log cannot be made, locked or recovered (a corrupt
     *     segment)
     */
    public static PersistStore openLog(
            Path dataDir, SegmentLog.Settings settings, ActorSystem<?> system) {
        return openLog(dataDir, settings, false, system);
    }

    /**
     * Opens the segment-log store in {@code dataDir} as {@link #openLog(Path, SegmentLog.Settings,
     * ActorSystem)} does; with {@code lazyJournal} its journal plugin appends the events lazily (an
     * {@code async} mount: a write is acknowledged once written, and on the device at the next
     * barrier, which forces the log).
     *
     * @param dataDir the data directory
     * @param settings the log's segment size and compaction
     * @param lazyJournal whether the journal's appends are lazy
     * @param system the actor system whose persistent actors will use the store
     * @return the store
     * @throws UncheckedIOException if the log cannot be made, locked or recovered
     */
    public static PersistStore openLog(
            Path dataDir,
            SegmentLog.Settings settings,
            boolean lazyJournal,
            ActorSystem<?> system) {
        Objects.requireNonNull(dataDir, "dataDir");
        Path abs = dataDir.toAbsolutePath().normalize();
        SegmentLog log;
        try {
            Files.createDirectories(abs);
            log = SegmentLog.open(abs.resolve(SegmentLog.DIR), settings);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the segment log in " + abs, e);
        }
        return new PersistStore(
                abs, "log:" + abs, null, null, Dialect.LOG, null, system, log, lazyJournal);
    }

    /**
     * Opens (creating if need be) the embedded H2 store in {@code dataDir}: makes the directory and
     * the tables if absent. Blocks for the database's first connection (file I/O).
     *
     * @param dataDir the data directory
     * @param system the actor system whose persistent actors will use the store
     * @return the store
     * @throws UncheckedIOException if the directory cannot be made or the database not opened
     *     (another process holds it: H2 allows one writer process per file)
     */
    public static PersistStore openH2(Path dataDir, ActorSystem<?> system) {
        Objects.requireNonNull(dataDir, "dataDir");
        Path abs = dataDir.toAbsolutePath().normalize();
        try {
            Files.createDirectories(abs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make data directory " + abs, e);
        }
        String url = h2Url(abs);
        createSchema(url, "sa", "", "schema/h2/h2-create-schema.sql", null);
        return new PersistStore(abs, url, "sa", "", Dialect.H2, null, system, null, false);
    }

    /**
     * {@return the JDBC URL of the embedded store in data directory {@code dataDir}} (absolute and
     * normalised by the caller): {@code D/seqvfs.mv.db}, with {@code WRITE_DELAY=0} and {@code
     * MAX_COMPACT_TIME=0} (see the class comment).
     *
     * @param dataDir the data directory
     */
    static String h2Url(Path dataDir) {
        return "jdbc:h2:file:" + dataDir.resolve("seqvfs") + ";WRITE_DELAY=0;MAX_COMPACT_TIME=0";
    }

    /**
     * {@return whether {@code s} can name a file system's PostgreSQL schema: a letter or
     * underscore, then letters, digits and underscores, at most 63 in all (PostgreSQL's identifier
     * length); names are folded to lower case where they are used}
     *
     * @param s the candidate name
     */
    static boolean isSchemaName(String s) {
        return s.matches("[A-Za-z_][A-Za-z0-9_]{0,62}");
    }

    /**
     * Opens (creating if need be) a store in schema {@code schema} of the PostgreSQL database at
     * {@code url}: makes the schema and the tables if absent. Blocks for the database.
     *
     * @param url the database's JDBC URL ({@code jdbc:postgresql://HOST:PORT/DB})
     * @param user the role to connect as
     * @param password its password
     * @param schema the file system's schema: a letter or underscore, then letters, digits and
     *     underscores (at most 63)
     * @param system the actor system whose persistent actors will use the store
     * @return the store
     * @throws IllegalArgumentException for a schema name that is not such an identifier
     * @throws UncheckedIOException if the database cannot be reached or the schema not made
     */
    public static PersistStore openPostgres(
            String url, String user, String password, String schema, ActorSystem<?> system) {
        if (!isSchemaName(schema)) {
            throw new IllegalArgumentException("not a schema name: " + schema);
        }
        String s = schema.toLowerCase(java.util.Locale.ROOT);
        try (Connection c = DriverManager.getConnection(url, user, password);
                Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA IF NOT EXISTS " + s);
        } catch (SQLException e) {
            throw new UncheckedIOException(
                    new IOException("cannot reach the journal database " + url + ": " + e, e));
        }
        String scoped = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + s;
        createSchema(scoped, user, password, "schema/postgres/postgres-create-schema.sql", s);
        return new PersistStore(
                Path.of("/postgresql", s),
                scoped,
                user,
                password,
                Dialect.POSTGRESQL,
                s,
                system,
                null,
                false);
    }

    private static void createSchema(
            String url, String user, String password, String script, String schema) {
        String ddl;
        try (InputStream in = PersistStore.class.getClassLoader().getResourceAsStream(script)) {
            if (in == null) {
                throw new IllegalStateException(
                        "pekko-persistence-jdbc's " + script + " is missing");
            }
            ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (schema != null) {
            ddl = ddl.replace("public.", schema + ".");
        }
        try (Connection c =
                        schema == null
                                ? connectWaiting(url)
                                : DriverManager.getConnection(url, user, password);
                Statement s = c.createStatement()) {
            for (String stmt : ddl.split(";")) {
                String sql = stmt.strip();
                if (sql.isEmpty()) {
                    continue;
                }
                if (sql.startsWith("CREATE UNIQUE INDEX") || sql.startsWith("CREATE INDEX")) {
                    // PostgreSQL's script builds two indexes CONCURRENTLY, which a
                    // transaction-less script may do too; IF NOT EXISTS goes after it
                    sql =
                            sql.replaceFirst("INDEX (CONCURRENTLY )?", "INDEX $1IF NOT EXISTS ")
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

    /** {@return the JDBC URL of the database (for PostgreSQL, with the file system's schema)} */
    public String url() {
        return url;
    }

    /** {@return the SQL dialect of the database} */
    Dialect dialect() {
        return dialect;
    }

    /** {@return whether the journal's appends are lazy: a barrier must {@link #force} the log} */
    boolean lazyJournal() {
        return lazyJournal;
    }

    /**
     * {@return a future completed once everything this store's log wrote before is on the device}
     * (at once unless the journal is lazy). Never blocks.
     */
    java.util.concurrent.CompletableFuture<Void> forceAsync() {
        return lazyJournal
                ? log.force()
                : java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /** {@return the dispatcher of the entities on this store, or {@code null}: the default} */
    String pluginDispatcher() {
        return dispatcher;
    }

    /** {@return the segment log of a {@link Dialect#LOG} store, else {@code null}} */
    SegmentLog log() {
        return log;
    }

    /** {@return a new content store on this store: the log's, or tables of the database} */
    DataStore newDataStore() {
        return log != null ? new LogDataStore(log) : new SqlDataStore(this);
    }

    /**
     * Closes what this store holds open: the segment log of a {@link Dialect#LOG} store (what is
     * queued is written first); nothing for a database (each user closes its connections). Blocks
     * for the disk.
     */
    void close() {
        if (log != null) {
            log.close();
        }
    }

    /**
     * {@return what keeps this store open until it is closed, as a mount keeps it} For H2 a
     * connection (H2 closes a database with its last one, and reopened it between two journal
     * writes of a test without it); for the segment log the log itself (closing it closes the
     * store); for PostgreSQL nothing. Tests that use a store without a mount.
     *
     * @throws SQLException if H2's connection cannot be made
     */
    AutoCloseable holdOpen() throws SQLException {
        if (log != null) {
            return this::close;
        }
        if (dialect == Dialect.H2) {
            return connectWaiting(url);
        }
        return () -> {};
    }

    /** {@return a new connection to the database, as the store's user} */
    Connection connect() throws SQLException {
        if (log != null) {
            throw new IllegalStateException("a segment-log store has no database");
        }
        return dialect == Dialect.H2
                ? connectWaiting(url)
                : DriverManager.getConnection(url, user, password);
    }

    /**
     * Forces what the store has committed to its device: for H2 a {@code CHECKPOINT SYNC} (its
     * commits are written at once, {@code WRITE_DELAY=0}, but not forced); for PostgreSQL nothing
     * (a commit returns once its WAL is flushed); for the segment log, a force of what it wrote
     * lazily when its journal is lazy ({@code async}), else nothing (every other write is forced
     * before it is acknowledged). Blocks for the device.
     *
     * @throws UncheckedIOException if the database fails the statement
     */
    void force() {
        if (log != null) {
            if (lazyJournal) {
                SegmentLog.await(log.force());
            }
            return;
        }
        if (dialect != Dialect.H2) {
            return;
        }
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("CHECKPOINT SYNC");
        } catch (SQLException e) {
            throw new UncheckedIOException(
                    new IOException("journal database " + url + ": " + e, e));
        }
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
