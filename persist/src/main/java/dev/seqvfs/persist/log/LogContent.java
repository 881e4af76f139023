package dev.seqvfs.persist.log;

import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The file contents and metadata of a {@link SegmentLog} (persistfs's content store on the log): an
 * inode's row (its attributes, encoded by the caller) and its content blocks, keyed by inode number
 * and block index, and string metadata. Changes are groups of {@link Op}s appended atomically with
 * everything else queued (group commit); reads go through the log's index to the segment files.
 *
 * <p>Thread-safe, as the log is. {@link #update} and the readers block for the disk.
 */
public final class LogContent {
    private final SegmentLog log;

    LogContent(SegmentLog log) {
        this.log = log;
    }

    /** One change to the stored file contents or metadata ({@link #update}). */
    public sealed interface Op permits PutBlock, DeleteBlocks, PutRow, DeleteInode, PutMeta {}

    /**
     * Stores block {@code idx} of inode {@code ino}.
     *
     * @param ino the inode number
     * @param idx the block index
     * @param data its bytes
     */
    public record PutBlock(long ino, long idx, byte[] data) implements Op {}

    /**
     * Deletes the blocks of inode {@code ino} with indices in {@code [from, to)}.
     *
     * @param ino the inode number
     * @param from the first index
     * @param to the end, exclusive
     */
    public record DeleteBlocks(long ino, long from, long to) implements Op {}

    /**
     * Stores inode {@code ino}'s row (its attributes, as the caller encodes them).
     *
     * @param ino the inode number
     * @param row the encoded row
     */
    public record PutRow(long ino, byte[] row) implements Op {}

    /**
     * Deletes inode {@code ino}'s row and blocks.
     *
     * @param ino the inode number
     */
    public record DeleteInode(long ino) implements Op {}

    /**
     * Sets metadata key {@code key} to {@code value}.
     *
     * @param key the key
     * @param value the value
     */
    public record PutMeta(String key, String value) implements Op {}

    /**
     * Queues {@code ops} as one atomic group (at recovery all of them or none), written with
     * whatever else is queued (group commit).
     *
     * @param ops the changes, in order
     * @return completes once they are forced and visible to the readers below; fails with the
     *     writer's {@code IOException} (nothing acknowledged) or if the log is closed
     */
    public CompletableFuture<Void> updateAsync(List<Op> ops) {
        return log.append(records(ops));
    }

    private static List<LogRecord> records(List<Op> ops) {
        List<LogRecord> group = new ArrayList<>(ops.size());
        for (Op op : ops) {
            LogRecord r;
            if (op instanceof PutBlock b) {
                r = LogRecord.block(b.ino(), b.idx(), b.data());
            } else if (op instanceof DeleteBlocks d) {
                r = LogRecord.blocksDeleted(d.ino(), d.from(), d.to());
            } else if (op instanceof PutRow w) {
                r = LogRecord.file(w.ino(), w.row());
            } else if (op instanceof DeleteInode d) {
                r = LogRecord.inodeDeleted(d.ino());
            } else {
                PutMeta m = (PutMeta) op;
                r = LogRecord.meta(m.key(), m.value());
            }
            group.add(r);
        }
        return group;
    }

    /**
     * Writes {@code ops} as one atomic group and waits until they are written, not forced
     * (uninterruptibly): they are on the device after the next forced write or {@link
     * SegmentLog#force} (a crash keeps a prefix of the log, so a forced write after them makes them
     * durable too).
     *
     * @param ops the changes, in order
     * @throws UncheckedIOException if the write failed or the log is closed
     */
    public void updateLazy(List<Op> ops) {
        log.appendAndWait(records(ops), false);
    }

    /**
     * Writes {@code ops} as one atomic group and waits until they are durable (uninterruptibly).
     *
     * @param ops the changes, in order
     * @throws UncheckedIOException if the write failed (nothing acknowledged) or the log is closed
     */
    public void update(List<Op> ops) {
        log.appendAndWait(records(ops), true);
    }

    /**
     * {@return the value of metadata key {@code key}, or {@code null}}
     *
     * @param key the key
     */
    public String meta(String key) {
        return log.index.meta(key);
    }

    /** {@return the inode numbers with a stored row or block, in increasing order} */
    public long[] inodes() {
        return log.index.inodes();
    }

    /**
     * {@return inode {@code ino}'s stored row, or {@code null}} Blocks for the disk.
     *
     * @param ino the inode number
     * @throws UncheckedIOException if the read fails or the frame is corrupt
     */
    public byte[] row(long ino) {
        return log.read(
                () -> {
                    LogIndex.Slot s = log.index.row(ino);
                    if (s == null) {
                        return null;
                    }
                    ByteBuffer b = log.body(s.loc(), s.size());
                    b.getLong();
                    byte[] out = new byte[b.remaining()];
                    b.get(out);
                    return out;
                });
    }

    /** Receives stored blocks ({@link #blocks}). */
    public interface BlockSink {
        /**
         * One block.
         *
         * @param idx its index
         * @param data its bytes
         */
        void block(long idx, byte[] data);
    }

    /**
     * Reads inode {@code ino}'s stored blocks in index order, each handed to {@code sink}. Blocks
     * for the disk.
     *
     * @param ino the inode number
     * @param sink receives each block
     * @throws UncheckedIOException if a read fails or a frame is corrupt
     */
    public void blocks(long ino, BlockSink sink) {
        log.read(
                () -> {
                    for (java.util.Map.Entry<Long, LogIndex.Slot> e :
                            log.index.blocks(ino).entrySet()) {
                        ByteBuffer b = log.body(e.getValue().loc(), e.getValue().size());
                        b.position(16);
                        byte[] out = new byte[b.remaining()];
                        b.get(out);
                        sink.block(e.getKey(), out);
                    }
                    return null;
                });
    }

    /**
     * {@return how many blocks inode {@code ino} has stored}
     *
     * @param ino the inode number
     */
    public int blockCount(long ino) {
        return log.index.blocks(ino).size();
    }
}
