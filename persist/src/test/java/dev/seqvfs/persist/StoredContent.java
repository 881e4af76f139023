package dev.seqvfs.persist;

import dev.seqvfs.persist.log.LogContent;
import dev.seqvfs.persist.log.SegmentLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * What a data directory's store holds of file contents, read beside the file system (mounted or
 * not), whichever its kind: the segment log (shared with the mount in this JVM when it is mounted,
 * {@link SegmentLog#open}) or H2 (another connection). For tests of the write-back.
 */
final class StoredContent {
    private StoredContent() {}

    private static boolean h2(Path data) {
        return PersistStore.embeddedKind(data.toAbsolutePath().normalize())
                == PersistStore.Dialect.H2;
    }

    private static SegmentLog log(Path data) {
        try {
            return SegmentLog.open(
                    data.toAbsolutePath().normalize().resolve(SegmentLog.DIR),
                    SegmentLog.Settings.DEFAULT);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@return the content of {@code ino} as written back (its row's size, its blocks), or {@code
     * null} if it has no row}
     */
    static byte[] row(Path data, long ino) throws Exception {
        if (h2(data)) {
            return PersistfsDataTest.h2Row(data, ino);
        }
        try (SegmentLog log = log(data)) {
            LogContent c = log.content();
            byte[] row = c.row(ino);
            if (row == null) {
                return null;
            }
            byte[] out = new byte[(int) LogDataStore.decodeRow(row).size()];
            c.blocks(
                    ino,
                    (idx, b) ->
                            System.arraycopy(
                                    b,
                                    0,
                                    out,
                                    (int) idx * DataStore.BLOCK,
                                    Math.min(b.length, out.length - (int) idx * DataStore.BLOCK)));
            return out;
        }
    }

    /** {@return how many content blocks {@code ino} has stored} */
    static long blocks(Path data, long ino) throws Exception {
        if (h2(data)) {
            return PersistfsDataTest.h2Blocks(data, ino);
        }
        try (SegmentLog log = log(data)) {
            return log.content().blockCount(ino);
        }
    }

    /** {@return how many inodes have a written-back row} */
    static long rows(Path data) throws Exception {
        if (h2(data)) {
            try (java.sql.Connection c = PersistfsDataTest.db(data);
                    java.sql.ResultSet r =
                            c.createStatement().executeQuery("SELECT COUNT(*) FROM seqvfs_file")) {
                r.next();
                return r.getLong(1);
            }
        }
        try (SegmentLog log = log(data)) {
            long n = 0;
            for (long ino : log.content().inodes()) {
                if (log.content().row(ino) != null) {
                    n++;
                }
            }
            return n;
        }
    }
}
