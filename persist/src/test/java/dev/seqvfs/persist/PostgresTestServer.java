package dev.seqvfs.persist;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server the persistfs tests on {@code store=postgresql} use: the one {@code
 * seqvfs.persistfs.postgresql} names ({@code SEQVFS_POSTGRESQL_URL}, {@code _USER}, {@code
 * _PASSWORD}). A test without a server is skipped, unless {@code SEQVFS_TEST_POSTGRESQL=required}
 * (what {@code .ci/run} sets once it has started one): then it fails. Each test takes a schema of
 * its own ({@link #newSchema}) and drops it after ({@link #dropSchema}).
 */
public final class PostgresTestServer {
    private static final Config PG = ConfigFactory.load().getConfig("seqvfs.persistfs.postgresql");

    private PostgresTestServer() {}

    /** {@return a new connection to the file systems' database} */
    public static Connection connect() throws SQLException {
        return DriverManager.getConnection(
                PG.getString("url"), PG.getString("user"), PG.getString("password"));
    }

    /**
     * {@return a connection to the server's {@code postgres} database (for what cannot be done from
     * inside the file systems' database: refusing its connections)}
     */
    public static Connection connectMaintenance() throws SQLException {
        String url = PG.getString("url");
        int slash = url.lastIndexOf('/');
        return DriverManager.getConnection(
                url.substring(0, slash + 1) + "postgres",
                PG.getString("user"),
                PG.getString("password"));
    }

    /** {@return the name of the file systems' database, from the URL} */
    public static String database() {
        String url = PG.getString("url");
        String db = url.substring(url.lastIndexOf('/') + 1);
        int q = db.indexOf('?');
        return q < 0 ? db : db.substring(0, q);
    }

    /**
     * {@return a fresh schema name for one test} Aborts the test (skipped) when no server answers,
     * or fails it if {@code SEQVFS_TEST_POSTGRESQL=required}.
     */
    public static String newSchema() {
        try (Connection c = connect()) {
            if (!c.isValid(5)) {
                throw new SQLException("connection not valid");
            }
        } catch (SQLException e) {
            if ("required".equals(System.getenv("SEQVFS_TEST_POSTGRESQL"))) {
                throw new AssertionError("PostgreSQL is required and not reachable: " + e, e);
            }
            Assumptions.abort("no PostgreSQL server at " + PG.getString("url") + ": " + e);
        }
        return "seqvfs_test_" + Long.toHexString(System.nanoTime());
    }

    /** Drops {@code schema} and everything in it, if it exists. */
    public static void dropSchema(String schema) throws SQLException {
        try (Connection c = connect()) {
            c.createStatement().execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    /**
     * {@return persistfs's mount options for {@code schema}, plus {@code extra} (comma-separated,
     * may be empty)}
     */
    public static String options(String schema, String extra) {
        return "store=postgresql,schema=" + schema + (extra.isEmpty() ? "" : "," + extra);
    }

    /**
     * {@return an instance's configuration: persistfs on {@code schema} as its root, mount options
     * {@code extra} added, no {@code /proc}}
     */
    public static Config config(String schema, String extra) {
        return ConfigFactory.parseMap(
                        Map.of(
                                "seqvfs.root.type",
                                "persistfs",
                                "seqvfs.root.options",
                                options(schema, extra),
                                "seqvfs.proc.mount",
                                "off"))
                .withFallback(ConfigFactory.load());
    }
}
