package dev.seqvfs.persist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A record, kept beside the embedded store and outside it, of where the store stood at its last
 * mount: {@code D/seqvfs.mark}, one line {@code fsid ino_high} (the file system's id and the
 * inode-number high-water mark the mount stored, see {@link PersistMeta}). A store whose high-water
 * mark is below the recorded one, or whose id differs, came back older than a mount that was made
 * on it: a <em>silent rollback</em> (H2 2.3.232 did this after a kill that followed a clean close,
 * see {@code EmbeddedStoreRollbackTest}; so does a database file restored from a backup). The mount
 * then fails instead of serving the older tree as if nothing were lost.
 *
 * <p>The mark only ever follows the store: a mount writes it after the store's new high-water mark
 * is committed and forced to the device ({@link PersistStore#force}), so neither a kill nor a power
 * loss can leave a mark ahead of a store that did not roll back. It is replaced atomically (a
 * temporary file, forced, renamed over it, the directory forced). Removing the file accepts the
 * loss: the next mount records the store as it is.
 *
 * <p>Stateless; each method does its file I/O on the calling thread (the mounting thread).
 */
final class StoreMark {
    /** The mark's file name in the data directory. */
    static final String FILE = "seqvfs.mark";

    private StoreMark() {}

    /**
     * Checks the store of data directory {@code dataDir} against its mark, if there is one.
     *
     * @param dataDir the data directory (absolute)
     * @param fsid the store's file-system id, {@code null} if it has none (a new database)
     * @param inoHigh the store's inode-number high-water mark (0 if none was stored)
     * @throws UncheckedIOException if the store is older than the mark says, naming both and the
     *     way to accept the loss; or if the mark cannot be read or makes no sense
     */
    static void check(Path dataDir, String fsid, long inoHigh) {
        Path f = dataDir.resolve(FILE);
        String line;
        try {
            line = Files.readString(f, StandardCharsets.UTF_8).trim();
        } catch (NoSuchFileException e) {
            return; // never mounted with a mark (a new directory, or one the mark was removed from)
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f, e);
        }
        String[] parts = line.split(" ");
        long marked;
        try {
            if (parts.length != 2) {
                throw new NumberFormatException(line);
            }
            marked = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            throw new UncheckedIOException(
                    new IOException(f + " is not a store mark (\"" + line + "\")", e));
        }
        if (fsid == null) {
            throw new UncheckedIOException(
                    new IOException(
                            "data directory "
                                    + dataDir
                                    + ": its store is new, but "
                                    + f
                                    + " says file system "
                                    + parts[0]
                                    + " was mounted here (was its store, seqvfs.log or seqvfs.mv.db,"
                                    + " removed or replaced?)."
                                    + " To start a new file system here, remove "
                                    + f));
        }
        if (!parts[0].equals(fsid) || inoHigh < marked) {
            throw new UncheckedIOException(
                    new IOException(
                            "data directory "
                                    + dataDir
                                    + ": the store is older than its last mount (a rollback: its"
                                    + " latest writes are lost); "
                                    + (parts[0].equals(fsid)
                                            ? "its inode high-water mark is "
                                                    + inoHigh
                                                    + ", the last mount stored "
                                                    + marked
                                            : "its file-system id is "
                                                    + fsid
                                                    + ", the last mount's was "
                                                    + parts[0])
                                    + " ("
                                    + f
                                    + "). To accept the loss and mount the store as it is,"
                                    + " remove "
                                    + f));
        }
    }

    /**
     * Records that the store of {@code dataDir} now has id {@code fsid} and high-water mark {@code
     * inoHigh}; the caller has committed that mark and forced the store to its device.
     *
     * @param dataDir the data directory (absolute)
     * @param fsid the store's file-system id
     * @param inoHigh the high-water mark just stored
     * @throws UncheckedIOException if the mark cannot be written
     */
    static void write(Path dataDir, String fsid, long inoHigh) {
        Path f = dataDir.resolve(FILE);
        Path tmp = dataDir.resolve(FILE + ".tmp");
        byte[] b = (fsid + " " + inoHigh + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            try (FileChannel ch =
                    FileChannel.open(
                            tmp,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE,
                            StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buf = ByteBuffer.wrap(b);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING);
            }
            try (FileChannel dir = FileChannel.open(dataDir, StandardOpenOption.READ)) {
                dir.force(true);
            } catch (IOException e) {
                // a directory that cannot be opened for force (not Linux): the rename stands
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + f, e);
        }
    }
}
