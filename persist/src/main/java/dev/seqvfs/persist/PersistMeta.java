package dev.seqvfs.persist;

import dev.seqvfs.persist.log.LogContent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

/**
 * The few values a persistent file system keeps beside its journals, in the same store (the segment
 * log's metadata records, or a table of the database, {@code seqvfs_meta}, key to value): its id
 * ({@code fsid}, a UUID that names its journals' persistence ids) and the inode-number high-water
 * mark ({@code ino_high}): no number at or above it was ever given, so a remount continues above it
 * and never reuses a number.
 *
 * <p>On a database, plain JDBC on its own connection per call; every method blocks for one
 * statement (or one forced log write), so callers run it off any actor's thread (the mounting
 * thread, or {@link PersistfsOps}'s writer thread). Thread-safe.
 */
final class PersistMeta {
    private final PersistStore store;
    private final String url;

    PersistMeta(PersistStore store) {
        this.store = store;
        this.url = store.url();
        if (store.log() != null) {
            return;
        }
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE IF NOT EXISTS seqvfs_meta (k VARCHAR(64) PRIMARY KEY, v"
                            + " VARCHAR(255) NOT NULL)");
        } catch (SQLException e) {
            throw fail(e);
        }
    }

    private Connection connect() throws SQLException {
        return store.connect();
    }

    private UncheckedIOException fail(SQLException e) {
        return new UncheckedIOException(new IOException("journal database " + url + ": " + e, e));
    }

    /** {@return the value of {@code k}, or {@code null}} */
    String get(String k) {
        if (store.log() != null) {
            return store.log().content().meta(k);
        }
        try (Connection c = connect();
                PreparedStatement p = c.prepareStatement("SELECT v FROM seqvfs_meta WHERE k = ?")) {
            p.setString(1, k);
            try (ResultSet r = p.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        } catch (SQLException e) {
            throw fail(e);
        }
    }

    /** Sets {@code k} to {@code v}, durably (one committed statement). */
    void put(String k, String v) {
        if (store.log() != null) {
            store.log().content().update(List.of(new LogContent.PutMeta(k, v)));
            return;
        }
        try (Connection c = connect();
                PreparedStatement p =
                        c.prepareStatement(
                                store.dialect() == PersistStore.Dialect.H2
                                        ? "MERGE INTO seqvfs_meta KEY (k) VALUES (?, ?)"
                                        : "INSERT INTO seqvfs_meta (k, v) VALUES (?, ?) ON"
                                                + " CONFLICT (k) DO UPDATE SET v = EXCLUDED.v")) {
            p.setString(1, k);
            p.setString(2, v);
            p.executeUpdate();
        } catch (SQLException e) {
            throw fail(e);
        }
    }

    /** {@return the file system's id, made and stored on the first call} */
    String fsid() {
        String id = get("fsid");
        if (id == null) {
            id = UUID.randomUUID().toString();
            put("fsid", id);
        }
        return id;
    }

    /** {@return the inode-number high-water mark, 0 if none was stored} */
    long inoHigh() {
        String v = get("ino_high");
        return v == null ? 0 : Long.parseLong(v);
    }

    /** Stores the inode-number high-water mark. */
    void inoHigh(long v) {
        put("ino_high", Long.toString(v));
    }
}
