package dev.seqvfs.persist;

/**
 * Marks the messages, events and snapshots of the persistent type that leave the JVM's memory: the
 * configuration ({@code reference.conf} of this module) binds it to Pekko's {@code jackson-cbor}
 * serializer, so none of them goes through Java serialization.
 */
public interface CborSerializable {}
