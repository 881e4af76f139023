package dev.seqvfs.persist;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;

/**
 * The child process of {@link EmbeddedStoreRollbackTest}: opens the embedded store of a data
 * directory by {@link PersistStore#h2Url} and, on two autocommit connections in turn, writes and
 * deletes rows of two tables of blobs ({@link #TABLES}) until it is killed. Before each statement
 * it prints {@code BEGIN table key version length}, after its commit {@code ACK table key version
 * length} (version {@code -1}: the row was deleted), flushing each line, so the parent knows what
 * was acknowledged and what was in flight. A row's blob is {@link #content} of its key, version and
 * length.
 */
public final class StoreKillWorkload {
    /** The keys {@code kill_rows} uses: {@code 0} to {@code KEYS - 1}. */
    static final int KEYS = 2_000;

    /** About how many rows {@code kill_log} keeps once it has grown. */
    static final int LOG_ROWS = 1_000;

    /** The tables: one of rows replaced at random, one appended to and trimmed like a journal. */
    static final String[] TABLES = {"kill_rows", "kill_log"};

    private StoreKillWorkload() {}

    /**
     * {@return the blob of row {@code key} at {@code version}, {@code length} bytes}
     *
     * @param key the row's key
     * @param version the row's version
     * @param length the blob's length in bytes
     */
    static byte[] content(int key, long version, int length) {
        byte[] b = new byte[length];
        new Random(key * 1_000_003L + version).nextBytes(b);
        return b;
    }

    /**
     * Runs the workload.
     *
     * @param args the data directory, the first version to write (the parent's round times a
     *     billion, so versions never repeat) and the random seed
     * @throws SQLException if a statement fails (printed as the child's failure)
     */
    public static void main(String[] args) throws SQLException {
        String url = PersistStore.h2Url(Path.of(args[0]).toAbsolutePath().normalize());
        long version = Long.parseLong(args[1]);
        Random r = new Random(Long.parseLong(args[2]));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (Connection a = DriverManager.getConnection(url, "sa", "");
                Connection b = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = a.createStatement()) {
                for (String t : TABLES) {
                    s.execute(
                            "CREATE TABLE IF NOT EXISTS "
                                    + t
                                    + " (k INT PRIMARY KEY, ver BIGINT NOT NULL,"
                                    + " v VARBINARY(1000000))");
                }
            }
            // kill_rows (connection a): rows replaced and deleted at random; kill_log
            // (connection b): appended to and trimmed from its oldest end, as a journal is
            int[] log = new int[2];
            try (Statement s = b.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT COALESCE(MIN(k), 0), COALESCE(MAX(k) + 1, 0)"
                                            + " FROM kill_log")) {
                rs.next();
                log[0] = rs.getInt(1);
                log[1] = rs.getInt(2);
            }
            PreparedStatement[] merge = {
                a.prepareStatement("MERGE INTO kill_rows (k, ver, v) KEY (k) VALUES (?, ?, ?)"),
                b.prepareStatement("MERGE INTO kill_log (k, ver, v) KEY (k) VALUES (?, ?, ?)")
            };
            PreparedStatement[] delete = {
                a.prepareStatement("DELETE FROM kill_rows WHERE k = ?"),
                b.prepareStatement("DELETE FROM kill_log WHERE k = ?")
            };
            out.println("READY");
            out.flush();
            for (int i = 0; ; i++) {
                int t = i & 1;
                int key;
                boolean del;
                if (t == 0) {
                    key = r.nextInt(KEYS);
                    del = r.nextInt(4) == 0;
                } else {
                    // grows to LOG_ROWS rows, then holds there
                    int live = log[1] - log[0];
                    del = live > 0 && r.nextInt(live >= LOG_ROWS ? 2 : 3) == 0;
                    key = del ? log[0]++ : log[1]++;
                }
                version++;
                if (del) {
                    out.println("BEGIN " + TABLES[t] + " " + key + " -1 0");
                    out.flush();
                    delete[t].setInt(1, key);
                    delete[t].executeUpdate();
                    out.println("ACK " + TABLES[t] + " " + key + " -1 0");
                } else {
                    // mostly small rows, now and then one that spans pages
                    int length = r.nextInt(32) == 0 ? 4_000 + r.nextInt(16_000) : r.nextInt(1_000);
                    String row = TABLES[t] + " " + key + " " + version + " " + length;
                    out.println("BEGIN " + row);
                    out.flush();
                    merge[t].setInt(1, key);
                    merge[t].setLong(2, version);
                    merge[t].setBytes(3, content(key, version, length));
                    merge[t].executeUpdate();
                    out.println("ACK " + row);
                }
                out.flush();
            }
        }
    }
}
