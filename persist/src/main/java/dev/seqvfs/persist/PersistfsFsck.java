package dev.seqvfs.persist;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Stat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The offline check of a persistfs data directory ({@code seqvfs fsck --data-dir D}): mounts it as
 * the root of an instance of its own, which runs the same recovery a mount does (rolling forward a
 * move between directories a crash left half-written, collecting the content of inodes no name
 * reaches), then reports what that recovery corrected, what it had to keep out (a directory with a
 * second name: a cycle or a half-applied rename; an inode number above the stored high-water mark:
 * numbers that may have been given twice), and every invariant {@link Fsck} finds broken in the
 * recovered tree (link counts, dangling entries, directories reachable twice, inode and block
 * accounting). Each finding names its inode and, where a name reaches it, its path.
 *
 * <p>Like {@code e2fsck} replaying a journal, the check writes what recovery writes (the missing
 * half of a move, the deletion of unreachable content); it changes nothing else. The data directory
 * must not be mounted meanwhile (by another process: the store allows one, and waits 30 s for it;
 * in this JVM: {@code EBUSY}). A segment log's recovery checks every frame's CRC: a corrupt segment
 * (not a torn tail, which a crash leaves and recovery cuts) fails the mount with {@code EIO}.
 *
 * <p>A file system on PostgreSQL is checked the same way, by its schema ({@link #checkPostgresql}).
 *
 * <p>Not thread-safe: one check at a time per data directory.
 */
public final class PersistfsFsck {
    private PersistfsFsck() {}

    /**
     * The outcome of one check.
     *
     * @param corrected what recovery found wrong and corrected, one line each ({@code inode N
     *     (PATH): what})
     * @param problems what is wrong and was not corrected, one line each
     * @param files regular files, symbolic links and other non-directories checked
     * @param directories directories checked, the root included
     */
    public record Report(
            List<String> corrected, List<String> problems, long files, long directories) {
        /**
         * {@return the exit status {@code fsck(8)} gives this outcome} 0 for a clean tree, 1 when
         * everything found was corrected, 4 when problems are left
         */
        public int exitStatus() {
            return !problems.isEmpty() ? 4 : corrected.isEmpty() ? 0 : 1;
        }
    }

    /**
     * Checks the file system in {@code dataDir}.
     *
     * @param dataDir a persistfs data directory (it holds {@code seqvfs.log/} or {@code
     *     seqvfs.mv.db})
     * @param config settings over the defaults ({@code seqvfs.persistfs.*}), or an empty config
     * @return the report
     * @throws IllegalArgumentException if {@code dataDir} holds no persistfs database
     * @throws com.typesafe.config.ConfigException if the directory cannot be mounted: the message
     *     names the errno ({@code EBUSY}: mounted in this JVM; {@code EIO}: the database could not
     *     be opened or its journals not recovered, or it is older than its last mount ({@code
     *     seqvfs.mark}: a rollback), with the cause)
     */
    public static Report check(Path dataDir, Config config) {
        Path dir = dataDir.toAbsolutePath().normalize();
        if (!Files.isDirectory(dir.resolve(dev.seqvfs.persist.log.SegmentLog.DIR))
                && !Files.isRegularFile(dir.resolve(PersistStore.H2_FILE))) {
            throw new IllegalArgumentException(
                    dir
                            + " is not a persistfs data directory (no "
                            + dev.seqvfs.persist.log.SegmentLog.DIR
                            + " nor "
                            + PersistStore.H2_FILE
                            + " in it)");
        }
        return check("data_dir=" + dir, dir, config);
    }

    /**
     * Checks the file system in schema {@code schema} of the PostgreSQL database {@code
     * seqvfs.persistfs.postgresql} names (the mount option {@code store=postgresql,schema=NAME}).
     *
     * @param schema the file system's schema
     * @param config settings over the defaults ({@code seqvfs.persistfs.*}), or an empty config
     * @return the report
     * @throws IllegalArgumentException if {@code schema} is not a schema name, the database cannot
     *     be reached, or the schema holds no persistfs file system (no journal table in it)
     * @throws com.typesafe.config.ConfigException if the file system cannot be mounted (the message
     *     names the errno, as for a data directory)
     */
    public static Report checkPostgresql(String schema, Config config) {
        if (!PersistStore.isSchemaName(schema)) {
            throw new IllegalArgumentException("not a schema name: " + schema);
        }
        String s = schema.toLowerCase(java.util.Locale.ROOT);
        Config pg =
                config.withFallback(ConfigFactory.load()).getConfig("seqvfs.persistfs.postgresql");
        String url = pg.getString("url");
        try (java.sql.Connection c =
                        java.sql.DriverManager.getConnection(
                                url, pg.getString("user"), pg.getString("password"));
                java.sql.PreparedStatement q =
                        c.prepareStatement(
                                "SELECT 1 FROM information_schema.tables"
                                        + " WHERE table_schema = ? AND table_name = ?")) {
            q.setString(1, s);
            q.setString(2, "event_journal");
            try (java.sql.ResultSet r = q.executeQuery()) {
                if (!r.next()) {
                    throw new IllegalArgumentException(
                            "schema "
                                    + s
                                    + " of "
                                    + url
                                    + " holds no persistfs file system (no event_journal table)");
                }
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalArgumentException("cannot reach PostgreSQL at " + url + ": " + e, e);
        }
        return check("store=postgresql,schema=" + s, Path.of("/postgresql", s), config);
    }

    /**
     * Mounts the file system {@code options} name, keyed {@code key} in this JVM, and checks it.
     */
    private static Report check(String options, Path key, Config config) {
        Config c =
                ConfigFactory.parseMap(
                                Map.of(
                                        "seqvfs.proc.mount",
                                        "off",
                                        "seqvfs.persistfs.writeback-interval",
                                        "0s",
                                        "seqvfs.root.type",
                                        PersistfsType.NAME,
                                        "seqvfs.root.options",
                                        options))
                        .withFallback(config)
                        .withFallback(ConfigFactory.load());
        try (SeqVfs vfs = SeqVfs.create(c)) {
            PersistfsOps ops = PersistfsType.mounted(key);
            Map<Long, String> paths = new HashMap<>();
            long[] counts = new long[2];
            try (VfsTask t = vfs.newTask(Credentials.ROOT)) {
                t.chdir("/");
                paths.put(t.lstat(".").ino(), "/");
                counts[1]++;
                walk(t, "", t.lstat(".").dev(), paths, counts);
            }
            List<String> corrected = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            if (ops != null) {
                for (PersistfsOps.Finding f : List.copyOf(ops.corrected)) {
                    corrected.add(line(f, paths));
                }
                for (PersistfsOps.Finding f : List.copyOf(ops.problems)) {
                    problems.add(line(f, paths));
                }
            }
            problems.addAll(Fsck.check(vfs, true));
            return new Report(List.copyOf(corrected), List.copyOf(problems), counts[0], counts[1]);
        }
    }

    private static String line(PersistfsOps.Finding f, Map<Long, String> paths) {
        String p = paths.get(f.ino());
        return "inode " + f.ino() + (p == null ? "" : " (" + p + ")") + ": " + f.what();
    }

    /** Records the path of every inode under the working directory (the first name found). */
    private static void walk(
            VfsTask t, String prefix, long dev, Map<Long, String> paths, long[] counts) {
        for (DirEntry e : t.readdir(".")) {
            String name = e.name();
            if (name.equals(".") || name.equals("..")) {
                continue;
            }
            Stat s = t.lstat(name);
            if (s.dev() != dev) {
                continue;
            }
            String path = prefix + "/" + name;
            paths.putIfAbsent(s.ino(), path);
            if (s.type() == FileType.DIRECTORY) {
                counts[1]++;
                t.chdir(name);
                walk(t, path, dev, paths, counts);
                t.chdir("..");
            } else {
                counts[0]++;
            }
        }
    }
}
