package dev.seqvfs.cli;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.persist.PersistfsFsck;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code seqvfs fsck --data-dir D} (or {@code --data-options store=postgresql,schema=NAME}): checks
 * a persistent file system offline ({@link PersistfsFsck}) and prints one line per finding, each
 * naming its inode and path, then a summary. Exit status as {@code fsck(8)}'s: 0 no errors, 1
 * errors corrected (by the recovery a mount runs), 4 errors left uncorrected, 8 an operational
 * error (no data directory there, or it cannot be opened), 2 bad input.
 */
@Command(
        name = "fsck",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        versionProvider = VersionProvider.class,
        description = {
            "Check a persistent file system (persistfs) offline: recover it as a mount does (a move"
                    + " between directories that a crash left half-written is rolled forward), then"
                    + " check that no rename is half-applied, no entry dangles, every link count is"
                    + " right, no directory is reachable twice, and no inode number was given twice.",
            "Exit status: 0 clean, 1 errors corrected, 4 errors left, 8 operational error.",
            "Example: seqvfs fsck --data-dir /var/lib/seqvfs",
            "         seqvfs fsck --data-options store=postgresql,schema=builds"
        })
final class FsckCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
            names = "--data-dir",
            paramLabel = "D",
            description =
                    "The data directory of the file system (not mounted meanwhile); required"
                            + " unless --data-options names a PostgreSQL store.")
    Path dataDir;

    @Option(
            names = "--data-options",
            paramLabel = "OPTS",
            description =
                    "The file system's store, as its mount options say it: store=postgresql,"
                            + "schema=NAME checks schema NAME of the database"
                            + " seqvfs.persistfs.postgresql names (SEQVFS_POSTGRESQL_URL);"
                            + " other mount options are accepted and ignored.")
    String dataOptions;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String store = "log";
        String schema = "seqvfs";
        if (dataOptions != null) {
            for (String opt : dataOptions.split(",")) {
                int eq = opt.indexOf('=');
                String k = eq < 0 ? opt : opt.substring(0, eq);
                String v = eq < 0 ? "" : opt.substring(eq + 1);
                if (k.equals("store")) {
                    store = v;
                } else if (k.equals("schema")) {
                    schema = v;
                }
            }
            if (!store.equals("log") && !store.equals("h2") && !store.equals("postgresql")) {
                err.println(
                        "seqvfs fsck: --data-options "
                                + dataOptions
                                + ": store="
                                + store
                                + " is none of log, h2, postgresql");
                err.flush();
                return 2;
            }
        }
        boolean pg = store.equals("postgresql");
        if (!pg && dataDir == null) {
            err.println("seqvfs fsck: --data-dir D is required (unless store=postgresql)");
            err.flush();
            return 2;
        }
        PersistfsFsck.Report r;
        try {
            r =
                    pg
                            ? PersistfsFsck.checkPostgresql(schema, ConfigFactory.load())
                            : PersistfsFsck.check(dataDir, ConfigFactory.load());
        } catch (RuntimeException e) {
            // an operational error (fsck(8)'s 8): the whole chain of causes on one line, so the
            // root one (a corrupt segment, a store held by another process) is in it
            err.println("seqvfs fsck: " + Causes.line(e));
            err.flush();
            return 8;
        } catch (OutOfMemoryError e) {
            err.println("seqvfs fsck: " + Causes.heapTooSmall(dataDir));
            err.flush();
            return 8;
        }
        for (String c : r.corrected()) {
            out.println("corrected: " + c);
        }
        for (String p : r.problems()) {
            out.println("error: " + p);
        }
        out.printf(
                "%s: %d files, %d directories; %d corrected, %d errors%n",
                pg ? "postgresql schema " + schema : dataDir.toAbsolutePath().normalize(),
                r.files(),
                r.directories(),
                r.corrected().size(),
                r.problems().size());
        out.flush();
        return r.exitStatus();
    }
}
