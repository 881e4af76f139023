package dev.seqvfs.persist;

import dev.seqvfs.engine.inode.InodeAttrs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The file contents and written-back attributes of one persistent file system, in two tables of the
 * journal's database: {@code seqvfs_file}, one row per inode written back (its attributes and
 * size), and {@code seqvfs_block}, the content in blocks of {@link #BLOCK} bytes by inode and block
 * index; a block no byte of which is allocated (a hole) has no row. A write-back writes the blocks
 * that changed ({@link DirtyBlocks}), not the whole file, so a 4 KiB change to a large file costs
 * one block, and a sparse file costs what it holds. The rows of an inode are deleted when it is
 * freed (its last name gone and its last descriptor closed).
 *
 * <p>Schema: the first version kept the whole content in {@code seqvfs_file.content}; such a row
 * still recovers ({@link Row#legacy}), and its next write-back moves it to blocks. New rows leave
 * that column empty.
 *
 * <p>One connection, used under this object's monitor; concurrent write-backs share transactions
 * (group commit, {@link #write}); every method blocks for its statements (run on a task's thread or
 * on {@link PersistfsOps}'s writer thread, never on an actor's). Durable against a process crash
 * once a method returns (H2 with {@code WRITE_DELAY=0} writes at every commit); against a power
 * loss only as far as H2's file writes are (it does not force them). Thread-safe.
 */
final class SqlDataStore implements DataStore {
    /**
     * The connection; replaced when the database went away ({@link #rollback}). Guarded by this.
     */
    private Connection c;

    private final PersistStore store;
    private final boolean h2;

    SqlDataStore(PersistStore store) {
        this.store = store;
        h2 = store.dialect() == PersistStore.Dialect.H2;
        String blob = h2 ? "BLOB" : "BYTEA";
        try {
            c = store.connect();
            try (Statement s = c.createStatement()) {
                s.execute(
                        "CREATE TABLE IF NOT EXISTS seqvfs_file (ino BIGINT PRIMARY KEY, mode INT NOT"
                                + " NULL, uid INT NOT NULL, gid INT NOT NULL, atime BIGINT NOT NULL,"
                                + " mtime BIGINT NOT NULL, ctime BIGINT NOT NULL, size BIGINT NOT"
                                + " NULL, content "
                                + blob
                                + " NOT NULL)");
                s.execute(
                        "CREATE TABLE IF NOT EXISTS seqvfs_block (ino BIGINT NOT NULL, idx BIGINT"
                                + " NOT NULL, data "
                                + blob
                                + " NOT NULL, PRIMARY KEY (ino, idx))");
                // schema 3: the extended attributes written back with the row
                s.execute("ALTER TABLE seqvfs_file ADD COLUMN IF NOT EXISTS xattrs " + blob);
            }
            c.setAutoCommit(false);
        } catch (SQLException e) {
            throw fail(e);
        }
    }

    private static UncheckedIOException fail(SQLException e) {
        return new UncheckedIOException(new IOException("file data table: " + e, e));
    }

    /**
     * One caller's write waiting for a transaction ({@link #write}). {@code done} and {@code
     * failure} are written by the leader that committed it, under this store's monitor, and read by
     * the caller under it.
     */
    private static final class Pending {
        final long ino;
        final List<Step> steps;
        final InodeAttrs a;
        boolean done;
        UncheckedIOException failure;

        Pending(long ino, List<Step> steps, InodeAttrs a) {
            this.ino = ino;
            this.steps = steps;
            this.a = a;
        }
    }

    /** Writes waiting for a transaction, in arrival order. */
    private final java.util.concurrent.ConcurrentLinkedQueue<Pending> waiting =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * Writes and the transactions that committed them, since this store opened. Guarded by this.
     */
    private long writesCommitted;

    private long transactions;

    /** {@return {writes committed, transactions that committed them}} For tests. */
    @Override
    public synchronized long[] groupCounts() {
        return new long[] {writesCommitted, transactions};
    }

    /** At most this many callers' writes per transaction. */
    static final int MAX_GROUP = 32;

    /** At most this many block bytes per transaction (more when one caller's batch is larger). */
    static final long MAX_GROUP_BYTES = 16L << 20;

    /**
     * Writes one batch of an inode's write-back, durable when this returns: its blocks and deleted
     * ranges, then, when {@code a} is given, its row (attributes and size) and the removal of every
     * block at or past the end of the file. Concurrent callers share transactions (group commit):
     * each queues its write, and whoever holds the connection next commits every write queued by
     * then (at most {@link #MAX_GROUP} writes, {@link #MAX_GROUP_BYTES} bytes, per transaction) and
     * answers their callers, so that 16 threads' {@code fsync}s cost a few commits rather than 16
     * in turn. A failed transaction fails every write in it.
     *
     * @param ino the inode number
     * @param steps blocks to write and ranges to delete
     * @param a the attributes to write back, or {@code null} (not the batch's last)
     * @throws UncheckedIOException if the transaction holding this write failed
     */
    @Override
    public void write(long ino, List<Step> steps, InodeAttrs a) {
        Pending me = new Pending(ino, steps, a);
        waiting.add(me);
        synchronized (this) {
            while (!me.done) {
                List<Pending> group = new ArrayList<>();
                long bytes = 0;
                Pending p;
                while (group.size() < MAX_GROUP
                        && bytes < MAX_GROUP_BYTES
                        && (p = waiting.poll()) != null) {
                    group.add(p);
                    for (Step st : p.steps) {
                        bytes += st.data() == null ? 0 : st.data().length;
                    }
                }
                UncheckedIOException failure = null;
                boolean committed = false;
                try {
                    for (Pending q : group) {
                        apply(q.ino, q.steps, q.a);
                    }
                    c.commit();
                    committed = true;
                    writesCommitted += group.size();
                    transactions++;
                } catch (SQLException e) {
                    rollback();
                    failure = fail(e);
                } finally {
                    if (!committed && failure == null) {
                        // an unchecked throwable is on its way out: every caller in the group
                        // fails rather than waits for a transaction that is gone
                        rollback();
                        failure =
                                new UncheckedIOException(
                                        new IOException("file data transaction aborted"));
                    }
                    for (Pending q : group) {
                        q.failure = failure;
                        q.done = true;
                    }
                }
            }
        }
        if (me.failure != null) {
            throw me.failure;
        }
    }

    /** One write's statements, in the open transaction. Caller holds this store's monitor. */
    private void apply(long ino, List<Step> steps, InodeAttrs a) throws SQLException {
        try (PreparedStatement put =
                        c.prepareStatement(
                                h2
                                        ? "MERGE INTO seqvfs_block KEY (ino, idx) VALUES (?, ?, ?)"
                                        : "INSERT INTO seqvfs_block (ino, idx, data) VALUES (?,"
                                                + " ?, ?) ON CONFLICT (ino, idx) DO UPDATE SET"
                                                + " data = EXCLUDED.data");
                PreparedStatement drop =
                        c.prepareStatement(
                                "DELETE FROM seqvfs_block WHERE ino = ? AND idx >= ? AND idx"
                                        + " < ?")) {
            for (Step s : steps) {
                if (s.data() != null) {
                    put.setLong(1, ino);
                    put.setLong(2, s.idx());
                    put.setBytes(3, s.data());
                    put.addBatch();
                } else {
                    drop.setLong(1, ino);
                    drop.setLong(2, s.idx());
                    drop.setLong(3, s.end());
                    drop.addBatch();
                }
            }
            drop.executeBatch();
            put.executeBatch();
        }
        if (a != null) {
            try (PreparedStatement p =
                    c.prepareStatement(
                            (h2 ? "MERGE INTO" : "INSERT INTO")
                                    + " seqvfs_file (ino, mode, uid, gid, atime, mtime, ctime,"
                                    + " size, content, xattrs) "
                                    + (h2 ? "KEY (ino) " : "")
                                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                                    + (h2
                                            ? ""
                                            : " ON CONFLICT (ino) DO UPDATE SET mode ="
                                                    + " EXCLUDED.mode, uid = EXCLUDED.uid, gid"
                                                    + " = EXCLUDED.gid, atime = EXCLUDED.atime,"
                                                    + " mtime = EXCLUDED.mtime, ctime ="
                                                    + " EXCLUDED.ctime, size = EXCLUDED.size,"
                                                    + " content = EXCLUDED.content, xattrs ="
                                                    + " EXCLUDED.xattrs"))) {
                p.setLong(1, ino);
                p.setInt(2, a.mode());
                p.setInt(3, a.uid());
                p.setInt(4, a.gid());
                p.setLong(5, a.atime());
                p.setLong(6, a.mtime());
                p.setLong(7, a.ctime());
                p.setLong(8, a.size());
                p.setBytes(9, new byte[0]);
                p.setBytes(10, a.xattrs().size() == 0 ? null : DataStore.encode(a.xattrs()));
                p.executeUpdate();
            }
            try (PreparedStatement p =
                    c.prepareStatement("DELETE FROM seqvfs_block WHERE ino = ? AND idx >= ?")) {
                p.setLong(1, ino);
                p.setLong(2, DataStore.blocks(a.size()));
                p.executeUpdate();
            }
        }
    }

    /**
     * After a failed statement: rolls back, and if the connection is gone (the database was shut
     * down, the server went away) opens a new one, so that the next call can succeed once the
     * database is back. The failed call itself fails ({@code EIO} above); what it was writing stays
     * dirty in memory and is written again.
     */
    private void rollback() {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is gone: nothing was committed
        }
        try {
            if (c.isValid(2)) {
                return;
            }
        } catch (SQLException ignored) {
            // not valid
        }
        try {
            c.close();
        } catch (SQLException ignored) {
            // already closed
        }
        try {
            Connection fresh = store.connect();
            fresh.setAutoCommit(false);
            c = fresh;
        } catch (SQLException ignored) {
            // still away: the next failure tries again
        }
    }

    /**
     * Deletes the rows of a freed inode, if it has any.
     *
     * @param ino the inode number
     */
    @Override
    public synchronized void delete(long ino) {
        try {
            try (PreparedStatement p =
                    c.prepareStatement("DELETE FROM seqvfs_file WHERE ino = ?")) {
                p.setLong(1, ino);
                p.executeUpdate();
            }
            try (PreparedStatement p =
                    c.prepareStatement("DELETE FROM seqvfs_block WHERE ino = ?")) {
                p.setLong(1, ino);
                p.executeUpdate();
            }
            c.commit();
        } catch (SQLException e) {
            rollback();
            throw fail(e);
        }
    }

    /** {@return every row, by inode number (recovery reads them all once)} */
    @Override
    public synchronized Map<Long, Row> loadAll() {
        Map<Long, Row> out = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery(
                                "SELECT ino, mode, uid, gid, atime, mtime, ctime, size, content,"
                                        + " xattrs FROM seqvfs_file")) {
            while (r.next()) {
                byte[] content = r.getBytes(9);
                long size = Math.max(r.getLong(8), content.length);
                out.put(
                        r.getLong(1),
                        new Row(
                                new InodeAttrs(
                                        r.getInt(2),
                                        1,
                                        r.getInt(3),
                                        r.getInt(4),
                                        0,
                                        size,
                                        0,
                                        r.getLong(5),
                                        r.getLong(6),
                                        r.getLong(7),
                                        DataStore.decode(r.getBytes(10))),
                                content));
            }
            c.commit();
        } catch (SQLException e) {
            rollback();
            throw fail(e);
        }
        return out;
    }

    /**
     * Reads every stored block, in inode and block order, and hands each to {@code each}
     * (recovery).
     *
     * @param each called with the inode number, the block index and its bytes
     */
    @Override
    public synchronized void loadBlocks(BlockSink each) {
        try (Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery(
                                "SELECT ino, idx, data FROM seqvfs_block ORDER BY ino, idx")) {
            while (r.next()) {
                each.block(r.getLong(1), r.getLong(2), r.getBytes(3));
            }
            c.commit();
        } catch (SQLException e) {
            rollback();
            throw fail(e);
        }
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
