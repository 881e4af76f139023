package dev.seqvfs.engine.logging;

import org.apache.pekko.event.Logging;
import org.apache.pekko.event.slf4j.Slf4jLogger;
import org.apache.pekko.japi.pf.UnitPFBuilder;
import scala.PartialFunction;
import scala.runtime.BoxedUnit;

/**
 * Pekko's {@link Slf4jLogger} without its start-up line. Pekko's logger actor answers {@code
 * InitializeLogger} by logging {@code INFO Slf4jLogger started} straight to SLF4J, past {@code
 * pekko.loglevel}, so an embedder whose backend logs at INFO saw that line from every actor system
 * the engine started although SeqVFS runs Pekko at {@code WARNING}. This one answers {@code
 * InitializeLogger} without logging and passes every log event on as {@link Slf4jLogger} does.
 *
 * <p>Named by {@code pekko.loggers} in {@code seqvfs-pekko.conf}; Pekko creates it by reflection,
 * hence public. Confined to its actor, as every actor.
 */
public final class QuietSlf4jLogger extends Slf4jLogger {
    /** Creates the logger actor (Pekko calls this, once per actor system). */
    public QuietSlf4jLogger() {}

    /**
     * Returns {@link Slf4jLogger}'s behavior, with {@code InitializeLogger} answered without the
     * start-up line.
     */
    @Override
    public PartialFunction<Object, BoxedUnit> receive() {
        return new UnitPFBuilder<Object>()
                .match(
                        Logging.InitializeLogger.class,
                        init -> sender().tell(Logging.loggerInitialized(), self()))
                .build()
                .orElse(super.receive());
    }
}
