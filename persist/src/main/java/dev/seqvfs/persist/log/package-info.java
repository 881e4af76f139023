/**
 * persistfs's own store: an append-only log of segment files with one force per batch (group
 * commit), holding the directories' journals and snapshots ({@link
 * dev.seqvfs.persist.log.LogJournal} and {@link dev.seqvfs.persist.log.LogSnapshotStore}, Pekko
 * Persistence plugins) and the files' contents ({@link dev.seqvfs.persist.log.LogContent}). Every
 * record carries a CRC; a torn tail after a crash is cut at recovery; dead records are reclaimed by
 * compaction. {@link dev.seqvfs.persist.log.SegmentLog} says how.
 */
package dev.seqvfs.persist.log;
