package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * persistfs on PostgreSQL ({@code store=postgresql,schema=NAME}): the same journals, blocks and
 * rows in a schema of their own, and what a first instance made is what a second one recovers, in
 * both namespace modes. Needs a PostgreSQL server at {@code seqvfs.persistfs.postgresql.url}
 * ({@code SEQVFS_POSTGRESQL_URL}); {@code .ci/run} starts one and sets {@code
 * SEQVFS_TEST_POSTGRESQL=required}, which turns a server that cannot be reached into a failure
 * instead of a skipped test.
 */
class PersistfsPostgresTest {
    private String schema;

    @BeforeEach
    void server() {
        schema = PostgresTestServer.newSchema();
    }

    @AfterEach
    void dropSchema() throws SQLException {
        if (schema != null) {
            PostgresTestServer.dropSchema(schema);
        }
    }

    private Config config(String mode) {
        return PostgresTestServer.config(schema, mode);
    }

    @Test
    void aTreeWithDataAttributesAndMoves_isRecoveredFromItsSchema_inBothModes() throws Exception {
        byte[] mib = new byte[1 << 20];
        new java.util.Random(11).nextBytes(mib);
        for (String mode : List.of("", "async")) {
            String top = "/m" + mode;
            try (SeqVfs vfs = SeqVfs.create(config(mode))) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                t.mkdir(top, 0755);
                t.mkdir(top + "/a", 0750);
                t.mkdir(top + "/b", 0755);
                int fd = t.open(top + "/a/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0640);
                t.write(fd, mib);
                t.fsetxattr(fd, "user.k", "v".getBytes(StandardCharsets.UTF_8), 0);
                t.fsync(fd);
                t.close(fd);
                t.link(top + "/a/f", top + "/a/g");
                t.rename(top + "/a/g", top + "/b/g");
                t.symlink("../a/f", top + "/b/s");
                for (int i = 0; i < 100; i++) {
                    t.close(t.open(top + "/b/n" + i, OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
                }
                t.unlink(top + "/b/n7");
                t.sync();
            }
            try (SeqVfs vfs = SeqVfs.create(config(""))) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                assertEquals(2, t.stat(top + "/a/f").nlink());
                assertEquals(t.stat(top + "/a/f").ino(), t.stat(top + "/b/g").ino());
                assertEquals(0750, t.stat(top + "/a").mode() & 07777);
                assertEquals("../a/f", t.readlink(top + "/b/s"));
                assertEquals(101, t.readdir(top + "/b").size(), "g, s and 99 of the 100");
                byte[] got = new byte[mib.length];
                int fd = t.open(top + "/b/g", OpenFlags.O_RDONLY);
                assertEquals(mib.length, t.read(fd, got, 0, got.length));
                t.close(fd);
                assertArrayEquals(mib, got);
                assertArrayEquals(
                        "v".getBytes(StandardCharsets.UTF_8), t.getxattr(top + "/a/f", "user.k"));
                assertEquals(List.of(), Fsck.check(vfs, true));
            }
        }
        // the journal and the content are in the file system's schema, nowhere else
        try (Connection c = PostgresTestServer.connect();
                var r =
                        c.createStatement()
                                .executeQuery(
                                        "SELECT COUNT(*) FROM "
                                                + schema
                                                + ".event_journal, "
                                                + schema
                                                + ".seqvfs_block WHERE event_journal.ordering = 1")) {
            r.next();
            assertEquals(32, r.getLong(1), "a MiB file per mode: 16 blocks of 64 KiB each");
        }
    }
}
