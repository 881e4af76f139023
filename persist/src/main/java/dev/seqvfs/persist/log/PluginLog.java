package dev.seqvfs.persist.log;

import com.typesafe.config.Config;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import scala.concurrent.ExecutionContext;

/**
 * What the segment log's two Pekko plugins ({@link LogJournal}, {@link LogSnapshotStore}) set up
 * alike from their configuration section: the log they write (a registered one shared with the
 * mount, {@code store-id}, or one of their own opened at {@code dir}, which they then close), the
 * serializer of their records, and the dispatcher their reads run on. Immutable; made by a plugin's
 * constructor.
 *
 * @param log the segment log
 * @param owned whether the plugin opened it (and so closes it in {@code postStop})
 */
record PluginLog(SegmentLog log, boolean owned) {
    /**
     * The log a plugin's section names: {@code store-id} (a log the mount registered, not owned) or
     * {@code dir} (opened here with the section's settings, owned).
     *
     * @param config the plugin's section
     * @return the log
     * @throws UncheckedIOException if a log of its own cannot be opened
     */
    static PluginLog of(Config config) {
        if (config.hasPath("store-id")) {
            return new PluginLog(SegmentLog.byId(config.getInt("store-id")), false);
        }
        try {
            return new PluginLog(
                    SegmentLog.open(
                            Path.of(config.getString("dir")), SegmentLog.Settings.from(config)),
                    true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Closes the log if the plugin opened it (its {@code postStop}). */
    void release() {
        if (owned) {
            log.close();
        }
    }

    /**
     * {@return the serializer Pekko's serialization binds to {@code c}}
     *
     * @param system the plugin's actor system
     * @param c the record class (a {@code PersistentRepr}, a {@code Snapshot})
     * @throws IllegalStateException if none is bound
     */
    static Serializer serializer(ActorSystem system, Class<?> c) {
        try {
            return SerializationExtension.get(system).serializerFor(c);
        } catch (NotSerializableException e) {
            throw new IllegalStateException("no serializer for " + c.getName(), e);
        }
    }

    /**
     * {@return the dispatcher a plugin's reads run on: Pekko's blocking-I/O one}
     *
     * @param system the plugin's actor system
     */
    static ExecutionContext reads(ActorSystem system) {
        return system.dispatchers().lookup("pekko.actor.default-blocking-io-dispatcher");
    }
}
