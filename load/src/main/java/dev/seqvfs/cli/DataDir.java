package dev.seqvfs.cli;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;

/**
 * {@code --data-dir D}: runs the engine on the persistent type ({@code persistfs}) with its journal
 * in {@code D} (made if absent), instead of tmpfs: sets {@code seqvfs.root.type} and {@code
 * seqvfs.root.options} as system properties, which every configuration the command line loads reads
 * first.
 */
final class DataDir {
    private DataDir() {}

    /**
     * Makes the instances this process creates mount {@code persistfs} on {@code dir} as their
     * root.
     *
     * @param dir the data directory
     */
    static void use(Path dir) {
        DataDir.dir = dir.toAbsolutePath().normalize();
        set();
    }

    /**
     * Adds persistfs mount options ({@code --data-options}: {@code async}, {@code sync}, {@code
     * snapshot_every=N}) to the data directory's mount.
     *
     * @param options comma-separated options
     */
    static void options(String options) {
        DataDir.options = options;
        set();
    }

    private static Path dir;
    private static String options = "";

    private static void set() {
        if (dir == null) {
            return; // --data-options alone: applied once --data-dir is given
        }
        System.setProperty("seqvfs.root.type", "persistfs");
        System.setProperty(
                "seqvfs.root.options",
                "data_dir=" + dir + (options.isEmpty() ? "" : "," + options));
        ConfigFactory.invalidateCaches();
    }
}
