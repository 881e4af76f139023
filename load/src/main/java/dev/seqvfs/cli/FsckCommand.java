package dev.seqvfs.cli;

import com.typesafe.config.ConfigException;
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
 * {@code seqvfs fsck --data-dir D}: checks a persistent file system offline ({@link PersistfsFsck})
 * and prints one line per finding, each naming its inode and path, then a summary. Exit status as
 * {@code fsck(8)}'s: 0 no errors, 1 errors corrected (by the recovery a mount runs), 4 errors left
 * uncorrected, 8 an operational error (no data directory there, or it cannot be opened), 2 bad
 * input.
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
            "Example: seqvfs fsck --data-dir /var/lib/seqvfs"
        })
final class FsckCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
            names = "--data-dir",
            paramLabel = "D",
            required = true,
            description = "The data directory of the file system (not mounted meanwhile).")
    Path dataDir;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PersistfsFsck.Report r;
        try {
            r = PersistfsFsck.check(dataDir, ConfigFactory.load());
        } catch (IllegalArgumentException | ConfigException e) {
            err.println("seqvfs fsck: " + e.getMessage());
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
                dataDir.toAbsolutePath().normalize(),
                r.files(),
                r.directories(),
                r.corrected().size(),
                r.problems().size());
        out.flush();
        return r.exitStatus();
    }
}
