package dev.seqvfs.persist.log;

import com.typesafe.config.Config;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.dispatch.Futures;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.japi.AsyncWriteJournal;
import org.apache.pekko.serialization.Serializer;
import scala.concurrent.ExecutionContext;
import scala.concurrent.Future;
import scala.concurrent.Promise;

/**
 * A Pekko Persistence journal plugin on a {@link SegmentLog}: each event is one {@link
 * LogRecord#EVENT} record (the {@code PersistentRepr} serialized by Pekko's own serializer, its
 * sender left out), each {@code AtomicWrite} one atomic group, and a deletion one marker ({@link
 * LogRecord#EVENTS_DELETED}) that the log keeps while it is the id's latest, so that the highest
 * sequence number of an id whose events were all deleted survives a restart. Checked by {@code
 * pekko-persistence-tck}'s {@code JavaJournalSpec}.
 *
 * <p>Configuration (the plugin's section): {@code class = "dev.seqvfs.persist.log.LogJournal"} and
 * either {@code store-id = N} (the open log of a persistfs mount, {@link SegmentLog#byId}; the
 * mount closes it) or {@code dir = PATH} (a log the plugin opens itself and closes when it stops),
 * with the log's settings ({@link SegmentLog.Settings#from}) beside it.
 *
 * <h2>Threads and supervision</h2>
 *
 * Writes never block the plugin's actor: records are serialized on it and queued to the log's
 * writer thread, whose completion (after the batch is forced: group commit with every other
 * journal, the snapshot stores and the file contents of the same log) completes the returned
 * future. Replays read the segment files on Pekko's {@code default-blocking-io-dispatcher}. The
 * actor is created and supervised by Pekko's persistence extension (the default strategy: a failure
 * restarts it; an owned log is closed in {@code postStop} and opened again by the new instance). A
 * write whose event cannot be serialized is rejected alone ({@code WriteMessageRejected}); a failed
 * log write fails the whole call (the persistent actors stop or restart, as their supervision
 * says).
 */
public final class LogJournal extends AsyncWriteJournal {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LogJournal.class);

    private final SegmentLog log;
    private final PluginLog source;

    /**
     * Whether events are appended lazily ({@code lazy = on}: an {@code async} mount's journals).
     */
    private final boolean lazy;

    private final Serializer serializer;
    private final ExecutionContext reads;

    /**
     * Makes the plugin (Pekko calls this with the plugin's configuration).
     *
     * @param config the plugin's section
     * @throws UncheckedIOException if a log of its own ({@code dir}) cannot be opened
     */
    public LogJournal(Config config) {
        source = PluginLog.of(config);
        log = source.log();
        lazy = config.hasPath("lazy") && config.getBoolean("lazy");
        serializer = PluginLog.serializer(context().system(), PersistentRepr.class);
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
    public Future<Iterable<Optional<Exception>>> doAsyncWriteMessages(
            Iterable<AtomicWrite> messages) {
        List<Optional<Exception>> results = new ArrayList<>();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (AtomicWrite w : messages) {
            List<LogRecord> group = new ArrayList<>();
            Exception rejected = null;
            for (PersistentRepr p : scala.jdk.javaapi.CollectionConverters.asJava(w.payload())) {
                try {
                    PersistentRepr stored =
                            p.update(
                                    p.sequenceNr(),
                                    p.persistenceId(),
                                    p.deleted(),
                                    ActorRef.noSender(),
                                    p.writerUuid());
                    group.add(
                            LogRecord.event(
                                    p.persistenceId(),
                                    p.sequenceNr(),
                                    serializer.toBinary(stored)));
                } catch (Exception e) { // NotSerializableException, thrown by Scala unchecked
                    LOG.error(
                            "event {} of {} rejected: it cannot be serialized",
                            p.sequenceNr(),
                            p.persistenceId(),
                            e);
                    rejected = e;
                    break;
                }
            }
            if (rejected != null) {
                results.add(Optional.of(rejected));
            } else {
                results.add(Optional.empty());
                writes.add(lazy ? log.appendLazy(group) : log.append(group));
            }
        }
        Promise<Iterable<Optional<Exception>>> done = Futures.promise();
        CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]))
                .whenComplete(
                        (ok, failure) -> {
                            if (failure == null) {
                                done.success(results);
                            } else {
                                done.failure(cause(failure));
                            }
                        });
        return done.future();
    }

    /** {@return the failure of a log write, without the CompletionException around it} */
    static Throwable cause(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException && t.getCause() != null
                ? t.getCause()
                : t;
    }

    @Override
    public Future<Void> doAsyncDeleteMessagesTo(String persistenceId, long toSequenceNr) {
        // the marker names what existed: events numbered later are not deleted by it
        long to = Math.min(toSequenceNr, log.index.highestSequenceNr(persistenceId));
        if (to <= 0) {
            return Futures.successful(null);
        }
        Promise<Void> done = Futures.promise();
        // lazy: a deletion lost in a crash only leaves events that a snapshot already covers
        log.appendLazy(List.of(LogRecord.eventsDeleted(persistenceId, to)))
                .whenComplete(
                        (ok, failure) -> {
                            if (failure == null) {
                                done.success(null);
                            } else {
                                done.failure(cause(failure));
                            }
                        });
        return done.future();
    }

    @Override
    public Future<Void> doAsyncReplayMessages(
            String persistenceId,
            long fromSequenceNr,
            long toSequenceNr,
            long max,
            Consumer<PersistentRepr> replayCallback) {
        return Futures.future(
                () ->
                        log.read(
                                () -> {
                                    for (long[] e :
                                            log.index.events(
                                                    persistenceId,
                                                    fromSequenceNr,
                                                    toSequenceNr,
                                                    max)) {
                                        replayCallback.accept(event(log.body(e[1], (int) e[2])));
                                    }
                                    return null;
                                }),
                reads);
    }

    /** {@return the event stored in the body of an {@link LogRecord#EVENT}} */
    private PersistentRepr event(ByteBuffer body) {
        LogRecord.getString(body); // persistence id
        body.getLong(); // sequence number
        byte[] payload = new byte[body.remaining()];
        body.get(payload);
        return (PersistentRepr) serializer.fromBinary(payload);
    }

    @Override
    public Future<Long> doAsyncReadHighestSequenceNr(String persistenceId, long fromSequenceNr) {
        return Futures.successful(log.index.highestSequenceNr(persistenceId));
    }
}
