package dev.seqvfs.persist.log;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.pekko.persistence.CapabilityFlag;
import org.apache.pekko.persistence.japi.journal.JavaJournalSpec;

/**
 * {@code pekko-persistence-tck}'s journal spec on {@link LogJournal}, over a log of its own in a
 * temporary directory with small segments (64 KiB, so that the spec's writes cross segments).
 * Rejecting an event that cannot be serialized is on. Run by {@link LogPluginTckTest}.
 */
public class LogJournalSpec extends JavaJournalSpec {
    /** Makes the spec on a new temporary directory. */
    public LogJournalSpec() {
        super(config("journal", "seqvfs-log-journal", LogJournal.class));
    }

    /**
     * {@return the configuration of a spec whose {@code kind} plugin is {@code cls} on a new
     * temporary log directory}
     */
    static Config config(String kind, String id, Class<?> cls) {
        Path dir;
        try {
            dir = Files.createTempDirectory("seqvfs-tck-" + kind + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ConfigFactory.parseString(
                        "pekko.persistence."
                                + (kind.equals("journal") ? "journal" : "snapshot-store")
                                + ".plugin = "
                                + id
                                + "\n"
                                + id
                                + " { class = \""
                                + cls.getName()
                                + "\", segment-size = 64k, prealloc = 16k, compact-min = 0 }\n"
                                + "pekko.loglevel = WARNING\n")
                .withValue(id + ".dir", ConfigValueFactory.fromAnyRef(dir.toString()))
                .withFallback(ConfigFactory.load());
    }

    @Override
    public CapabilityFlag supportsRejectingNonSerializableObjects() {
        return CapabilityFlag.on();
    }
}
