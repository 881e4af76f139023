package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code seqvfs fsck --data-dir}'s check ({@link PersistfsFsck}): a clean tree reports nothing
 * (exit 0); a move a crash left half-written is reported as corrected, with its inode and path
 * (exit 1), and is clean at the next check; a directory given a second name (what a half-applied
 * rename or a cycle would leave) is reported and kept out (exit 4); a directory that holds no file
 * system is refused.
 */
class PersistfsFsckTest {
    @TempDir Path data;

    @Test
    void aCleanTree_reportsNothing_andCountsWhatItChecked() {
        try (SeqVfs vfs = SeqVfs.create(PersistfsRemountTest.config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/d", 0755);
            t.close(t.open("/d/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.link("/d/f", "/g");
            t.symlink("d/f", "/s");
        }
        PersistfsFsck.Report r = PersistfsFsck.check(data, ConfigFactory.empty());
        assertEquals(List.of(), r.problems());
        assertEquals(List.of(), r.corrected());
        assertEquals(0, r.exitStatus());
        assertEquals(3, r.files(), "two names of one file and a symlink");
        assertEquals(
                3, r.directories(), "the root, /d, and /proc (the first instance's mount point)");
    }

    @Test
    void aHalfWrittenMove_isCorrected_namingItsInodeAndPath_andTheNextCheckIsClean()
            throws Exception {
        Map<String, EntryRecord> r = PersistfsRemountTest.files(data, "/p/f");
        long p = r.get("/p").ino();
        long q = r.get("/q").ino();
        EntryRecord moved = r.get("/p/f");
        PersistfsRemountTest.appendByHand(
                data,
                Map.of(q, List.of(new DirEvent.EntryMovedIn("f", moved, 77, p, "f", null, null))));
        PersistfsFsck.Report first = PersistfsFsck.check(data, ConfigFactory.empty());
        assertEquals(List.of(), first.problems());
        assertEquals(1, first.corrected().size(), first.corrected().toString());
        String line = first.corrected().get(0);
        assertTrue(line.startsWith("inode " + moved.ino() + " (/q/f): "), line);
        assertTrue(line.contains("rolled forward"), line);
        assertEquals(1, first.exitStatus());
        PersistfsFsck.Report second = PersistfsFsck.check(data, ConfigFactory.empty());
        assertEquals(List.of(), second.corrected());
        assertEquals(List.of(), second.problems());
        assertEquals(0, second.exitStatus());
    }

    @Test
    void aDirectoryWithASecondName_isAnErrorLeft_andKeptOut() throws Exception {
        Map<String, EntryRecord> r = PersistfsRemountTest.files(data);
        long q = r.get("/q").ino();
        EntryRecord dirP = r.get("/p");
        // /q/again names /p's directory too: a directory reachable twice
        PersistfsRemountTest.appendByHand(
                data, Map.of(q, List.of(new DirEvent.EntryAdded("again", dirP))));
        PersistfsFsck.Report rep = PersistfsFsck.check(data, ConfigFactory.empty());
        assertEquals(4, rep.exitStatus());
        assertEquals(1, rep.problems().size(), rep.problems().toString());
        String line = rep.problems().get(0);
        assertTrue(line.startsWith("inode " + dirP.ino() + " (/p): "), line);
        assertTrue(line.contains("second name again"), line);
    }

    @Test
    void aDirectoryWithoutAFileSystem_isRefused() {
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> PersistfsFsck.check(data.resolve("none"), ConfigFactory.empty()));
        assertTrue(e.getMessage().contains("not a persistfs data directory"), e.getMessage());
    }

    /**
     * On PostgreSQL ({@link PersistfsFsck#checkPostgresql}): a clean tree in its schema reports
     * nothing and counts what it checked; a schema that holds no file system is refused (and not
     * made).
     */
    @Test
    void onPostgresql_aCleanSchemaReportsNothing_andASchemaWithoutAFileSystemIsRefused()
            throws Exception {
        String schema = PostgresTestServer.newSchema();
        try {
            try (SeqVfs vfs = SeqVfs.create(PostgresTestServer.config(schema, ""))) {
                VfsTask t = vfs.newTask(Credentials.ROOT);
                t.mkdir("/d", 0755);
                t.close(t.open("/d/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
                t.link("/d/f", "/g");
            }
            PersistfsFsck.Report r = PersistfsFsck.checkPostgresql(schema, ConfigFactory.empty());
            assertEquals(List.of(), r.problems());
            assertEquals(List.of(), r.corrected());
            assertEquals(0, r.exitStatus());
            assertEquals(2, r.files(), "two names of one file");
            assertEquals(2, r.directories(), "the root and /d");
            String none = schema + "_none";
            IllegalArgumentException e =
                    assertThrows(
                            IllegalArgumentException.class,
                            () -> PersistfsFsck.checkPostgresql(none, ConfigFactory.empty()));
            assertTrue(e.getMessage().contains("holds no persistfs file system"), e.getMessage());
        } finally {
            PostgresTestServer.dropSchema(schema);
        }
    }
}
