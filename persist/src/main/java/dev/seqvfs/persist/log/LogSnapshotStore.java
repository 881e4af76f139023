package dev.seqvfs.persist.log;

import com.typesafe.config.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.dispatch.Futures;
import org.apache.pekko.persistence.SelectedSnapshot;
import org.apache.pekko.persistence.SnapshotMetadata;
import org.apache.pekko.persistence.SnapshotSelectionCriteria;
import org.apache.pekko.persistence.serialization.Snapshot;
import org.apache.pekko.persistence.snapshot.japi.SnapshotStore;
import org.apache.pekko.serialization.Serializer;
import scala.concurrent.ExecutionContext;
import scala.concurrent.Future;
import scala.concurrent.Promise;

/**
 * A Pekko Persistence snapshot-store plugin on a {@link SegmentLog}: a snapshot is one {@link
 * LogRecord#SNAPSHOT} record (the snapshot wrapped in Pekko's {@code Snapshot} and serialized by
 * its serializer), the latest one of a persistence id and sequence number wins, and a deletion is a
 * tombstone ({@link LogRecord#SNAPSHOT_DELETED}, {@link LogRecord#SNAPSHOTS_DELETED}). Checked by
 * {@code pekko-persistence-tck}'s {@code JavaSnapshotStoreSpec}.
 *
 * <p>Configuration as {@link LogJournal}'s ({@code store-id} or {@code dir}).
 *
 * <h2>Threads and supervision</h2>
 *
 * Saves serialize on the plugin's actor and queue to the log's writer as lazy appends ({@link
 * SegmentLog#appendLazy}: forced by the next forced batch or within the log's commit interval,
 * which is enough, as the only thing that relies on a snapshot, the deletion of the events before
 * it, is written after it); loads read on Pekko's {@code default-blocking-io-dispatcher}, newest
 * matching snapshot first, an unreadable one skipped (logged) for the next older. Supervised by
 * Pekko's persistence extension (a failure restarts it; an owned log is closed in {@code
 * postStop}).
 */
public final class LogSnapshotStore extends SnapshotStore {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(LogSnapshotStore.class);

    private final SegmentLog log;
    private final PluginLog source;
    private final Serializer serializer;
    private final ExecutionContext reads;

    /**
     * Makes the plugin (Pekko calls this with the plugin's configuration).
     *
     * @param config the plugin's section
     * @throws UncheckedIOException if a log of its own ({@code dir}) cannot be opened
     */
    public LogSnapshotStore(Config config) {
        source = PluginLog.of(config);
        log = source.log();
        serializer = PluginLog.serializer(context().system(), Snapshot.class);
        reads = PluginLog.reads(context().system());
    }

    @Override
    public void postStop() throws Exception {
        try {
            super.postStop();
        } finally {
            source.release();
        }
    }

    @Override
    public Future<Optional<SelectedSnapshot>> doLoadAsync(
            String persistenceId, SnapshotSelectionCriteria criteria) {
        return Futures.future(
                () ->
                        log.read(
                                () -> {
                                    for (LogIndex.Snap s : log.index.snapshots(persistenceId)) {
                                        if (s.seq() > criteria.maxSequenceNr()
                                                || s.ts() > criteria.maxTimestamp()
                                                || s.seq() < criteria.minSequenceNr()
                                                || s.ts() < criteria.minTimestamp()) {
                                            continue;
                                        }
                                        try {
                                            Object data = snapshot(log.body(s.loc(), s.size()));
                                            return Optional.of(
                                                    SelectedSnapshot.create(
                                                            new SnapshotMetadata(
                                                                    persistenceId, s.seq(), s.ts()),
                                                            data));
                                        } catch (IOException | RuntimeException e) {
                                            LOG.warn(
                                                    "snapshot {} of {} unreadable, trying an older"
                                                            + " one: {}",
                                                    s.seq(),
                                                    persistenceId,
                                                    e.toString());
                                        }
                                    }
                                    return Optional.<SelectedSnapshot>empty();
                                }),
                reads);
    }

    /** {@return the snapshot stored in the body of a {@link LogRecord#SNAPSHOT}} */
    private Object snapshot(ByteBuffer body) {
        LogRecord.getString(body);
        body.getLong();
        body.getLong();
        byte[] payload = new byte[body.remaining()];
        body.get(payload);
        return ((Snapshot) serializer.fromBinary(payload)).data();
    }

    @Override
    public Future<Void> doSaveAsync(SnapshotMetadata metadata, Object snapshot) {
        byte[] bytes;
        try {
            bytes = serializer.toBinary(new Snapshot(snapshot));
        } catch (Exception e) { // thrown by Scala unchecked
            return Futures.failed(e);
        }
        return written(
                LogRecord.snapshot(
                        metadata.persistenceId(),
                        metadata.sequenceNr(),
                        metadata.timestamp(),
                        bytes));
    }

    @Override
    public Future<Void> doDeleteAsync(SnapshotMetadata metadata) {
        return written(
                LogRecord.snapshotDeleted(
                        metadata.persistenceId(), metadata.sequenceNr(), metadata.timestamp()));
    }

    @Override
    public Future<Void> doDeleteAsync(String persistenceId, SnapshotSelectionCriteria criteria) {
        return written(
                LogRecord.snapshotsDeleted(
                        persistenceId,
                        criteria.minSequenceNr(),
                        criteria.maxSequenceNr(),
                        criteria.minTimestamp(),
                        criteria.maxTimestamp()));
    }

    /** {@return a future completed once {@code r} is durable} */
    private Future<Void> written(LogRecord r) {
        Promise<Void> done = Futures.promise();
        // lazy: nothing waits for a snapshot to be on the device; the events' deletion that
        // follows it is written after it, so a crash that keeps the deletion keeps the snapshot
        CompletableFuture<Void> w = log.appendLazy(List.of(r));
        w.whenComplete(
                (ok, failure) -> {
                    if (failure == null) {
                        done.success(null);
                    } else {
                        done.failure(LogJournal.cause(failure));
                    }
                });
        return done.future();
    }
}
