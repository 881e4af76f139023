/**
 * Pekko logging plumbing: {@link dev.seqvfs.engine.logging.QuietSlf4jLogger}, the logger actor that
 * {@code pekko.loggers} in {@code seqvfs-pekko.conf} names for the actor systems the engine starts.
 */
package dev.seqvfs.engine.logging;
