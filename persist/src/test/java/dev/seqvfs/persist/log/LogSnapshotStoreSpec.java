package dev.seqvfs.persist.log;

import org.apache.pekko.persistence.japi.snapshot.JavaSnapshotStoreSpec;

/**
 * {@code pekko-persistence-tck}'s snapshot-store spec on {@link LogSnapshotStore}, over a log of
 * its own in a temporary directory with small segments. Run by {@link LogPluginTckTest}.
 */
public class LogSnapshotStoreSpec extends JavaSnapshotStoreSpec {
    /** Makes the spec on a new temporary directory. */
    public LogSnapshotStoreSpec() {
        super(LogJournalSpec.config("snapshot", "seqvfs-log-snapshot", LogSnapshotStore.class));
    }
}
