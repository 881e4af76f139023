package dev.seqvfs.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * The version {@code -V} prints on every command: the Maven project version, which the build writes
 * into {@code dev/seqvfs/cli/version.properties} (resource filtering), or the jar manifest's {@code
 * Implementation-Version} when that resource is missing. Stateless.
 */
public final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"seqvfs " + version()};
    }

    /** Returns the project version, or {@code "unknown"}. */
    static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null && !v.isBlank() && !v.startsWith("${")) {
                    return v.strip();
                }
            }
        } catch (IOException e) {
            // fall back to the manifest
        }
        String v = VersionProvider.class.getPackage().getImplementationVersion();
        return v != null ? v : "unknown";
    }
}
