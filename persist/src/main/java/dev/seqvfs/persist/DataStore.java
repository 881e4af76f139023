package dev.seqvfs.persist;

import dev.seqvfs.engine.inode.InodeAttrs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * The regular files' contents and attributes of one persistent file system, as last written back
 * ({@code fsync}, {@code fdatasync}, {@code syncfs}, {@code sync}): one row per inode in a table of
 * the journal's database ({@code seqvfs_file}), the whole content as one value. A row is deleted
 * when its inode is freed (its last name gone and its last descriptor closed).
 *
 * <p>One connection, used under this object's monitor; every method blocks for its statement (run
 * on a task's thread or on {@link PersistfsOps}'s writer thread, never on an actor's). Durable
 * against a process crash once a method returns (H2 with {@code WRITE_DELAY=0} writes at every
 * commit); against a power loss only as far as H2's file writes are (it does not force them).
 * Thread-safe.
 */
final class DataStore implements AutoCloseable {
    /** One row: the attributes written back with the content. */
    record Row(InodeAttrs attrs, byte[] content) {}

    private final Connection c;

    /** The version of the copy last written for each inode ({@link #write}); guarded by this. */
    private final java.util.Map<Long, Long> written = new java.util.HashMap<>();

    DataStore(String url) {
        try {
            c = DriverManager.getConnection(url, "sa", "");
            try (Statement s = c.createStatement()) {
                s.execute(
                        "CREATE TABLE IF NOT EXISTS seqvfs_file (ino BIGINT PRIMARY KEY, mode INT NOT"
                                + " NULL, uid INT NOT NULL, gid INT NOT NULL, atime BIGINT NOT NULL,"
                                + " mtime BIGINT NOT NULL, ctime BIGINT NOT NULL, size BIGINT NOT"
                                + " NULL, content BLOB NOT NULL)");
            }
        } catch (SQLException e) {
            throw fail(e);
        }
    }

    private static UncheckedIOException fail(SQLException e) {
        return new UncheckedIOException(new IOException("file data table: " + e, e));
    }

    /**
     * Writes back one file: its attributes and all of its content, replacing the row it had.
     *
     * @param ino the inode number
     * @param a its attributes
     * @param content its bytes ({@code a.size()} of them)
     * @param version when the copy was taken, from one counter for all files ({@link
     *     PersistfsOps#writeBack}); a copy older than the one last written for {@code ino} is not
     *     written (two write-backs of one file racing: the newer copy holds everything the older
     *     one does)
     */
    synchronized void write(long ino, InodeAttrs a, byte[] content, long version) {
        Long last = written.get(ino);
        if (last != null && last > version) {
            return;
        }
        written.put(ino, version);
        try (PreparedStatement p =
                c.prepareStatement(
                        "MERGE INTO seqvfs_file KEY (ino) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            p.setLong(1, ino);
            p.setInt(2, a.mode());
            p.setInt(3, a.uid());
            p.setInt(4, a.gid());
            p.setLong(5, a.atime());
            p.setLong(6, a.mtime());
            p.setLong(7, a.ctime());
            p.setLong(8, content.length);
            p.setBytes(9, content);
            p.executeUpdate();
        } catch (SQLException e) {
            throw fail(e);
        }
    }

    /**
     * Deletes the row of a freed inode, if it has one.
     *
     * @param ino the inode number
     */
    synchronized void delete(long ino) {
        written.remove(ino);
        try (PreparedStatement p = c.prepareStatement("DELETE FROM seqvfs_file WHERE ino = ?")) {
            p.setLong(1, ino);
            p.executeUpdate();
        } catch (SQLException e) {
            throw fail(e);
        }
    }

    /** {@return every row, by inode number (recovery reads them all once)} */
    synchronized Map<Long, Row> loadAll() {
        Map<Long, Row> out = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery(
                                "SELECT ino, mode, uid, gid, atime, mtime, ctime, size, content"
                                        + " FROM seqvfs_file")) {
            while (r.next()) {
                byte[] content = r.getBytes(9);
                out.put(
                        r.getLong(1),
                        new Row(
                                new InodeAttrs(
                                        r.getInt(2),
                                        1,
                                        r.getInt(3),
                                        r.getInt(4),
                                        0,
                                        content.length,
                                        (content.length + 511) / 512,
                                        r.getLong(5),
                                        r.getLong(6),
                                        r.getLong(7),
                                        dev.seqvfs.engine.inode.Xattrs.EMPTY),
                                content));
            }
        } catch (SQLException e) {
            throw fail(e);
        }
        return out;
    }

    @Override
    public synchronized void close() {
        try {
            c.close();
        } catch (SQLException e) {
            throw fail(e);
        }
    }
}
