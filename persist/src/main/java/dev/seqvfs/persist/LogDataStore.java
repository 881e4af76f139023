package dev.seqvfs.persist;

import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.persist.log.LogContent;
import dev.seqvfs.persist.log.SegmentLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link DataStore} of a file system on the segment log ({@link SegmentLog}): a write is one
 * atomic group of the log's records (its deleted ranges, its blocks, its row and the deletion of
 * the blocks past its end), forced with whatever else the log's writer has queued, the directories'
 * journal writes included (group commit: one {@code fdatasync} for every {@code fsync} waiting). A
 * row is encoded as a version byte (1), mode, uid, gid (ints), atime, mtime, ctime (ns), size
 * (bytes) (longs), then the extended attributes ({@link DataStore#encode}).
 *
 * <p>Thread-safe (the log is); every method blocks for the disk.
 */
final class LogDataStore implements DataStore {
    private static final byte ROW_VERSION = 1;

    private final SegmentLog log;
    private final LogContent content;

    LogDataStore(SegmentLog log) {
        this.log = log;
        this.content = log.content();
    }

    @Override
    public void write(long ino, List<Step> steps, InodeAttrs a) {
        List<LogContent.Op> ops = new ArrayList<>(steps.size() + 2);
        for (Step s : steps) {
            if (s.data() == null) {
                ops.add(new LogContent.DeleteBlocks(ino, s.idx(), s.end()));
            }
        }
        for (Step s : steps) {
            if (s.data() != null) {
                ops.add(new LogContent.PutBlock(ino, s.idx(), s.data()));
            }
        }
        if (a != null) {
            ops.add(new LogContent.PutRow(ino, encodeRow(a)));
            ops.add(new LogContent.DeleteBlocks(ino, DataStore.blocks(a.size()), Long.MAX_VALUE));
        }
        if (ops.isEmpty()) {
            return;
        }
        if (a == null) {
            // not the write-back's last batch: its last one forces this one too (the log keeps
            // its order), so a large file costs one force, not one per batch
            content.updateLazy(ops);
        } else {
            content.update(ops);
        }
    }

    /** {@return the row of attributes {@code a}, as stored} */
    static byte[] encodeRow(InodeAttrs a) {
        byte[] x = a.xattrs().size() == 0 ? new byte[0] : DataStore.encode(a.xattrs());
        return ByteBuffer.allocate(1 + 12 + 32 + x.length)
                .put(ROW_VERSION)
                .putInt(a.mode())
                .putInt(a.uid())
                .putInt(a.gid())
                .putLong(a.atime())
                .putLong(a.mtime())
                .putLong(a.ctime())
                .putLong(a.size())
                .put(x)
                .array();
    }

    /** {@return the attributes of a stored row (nlink 1, no blocks counted: recovery sets them)} */
    static InodeAttrs decodeRow(byte[] row) {
        ByteBuffer b = ByteBuffer.wrap(row);
        byte version = b.get();
        if (version != ROW_VERSION) {
            throw new IllegalArgumentException("row of version " + version);
        }
        int mode = b.getInt();
        int uid = b.getInt();
        int gid = b.getInt();
        long atime = b.getLong();
        long mtime = b.getLong();
        long ctime = b.getLong();
        long size = b.getLong();
        byte[] x = new byte[b.remaining()];
        b.get(x);
        return new InodeAttrs(
                mode,
                1,
                uid,
                gid,
                0,
                size,
                0,
                atime,
                mtime,
                ctime,
                x.length == 0 ? dev.seqvfs.engine.inode.Xattrs.EMPTY : DataStore.decode(x));
    }

    /**
     * {@inheritDoc} Lazily ({@link SegmentLog#appendLazy}): nobody waits for it, and a crash that
     * loses it leaves content that no name reaches, which the next mount deletes (and reports).
     */
    @Override
    public void delete(long ino) {
        content.updateLazy(List.of(new LogContent.DeleteInode(ino)));
    }

    @Override
    public Map<Long, Row> loadAll() {
        Map<Long, Row> out = new HashMap<>();
        for (long ino : content.inodes()) {
            byte[] row = content.row(ino);
            if (row != null) {
                out.put(ino, new Row(decodeRow(row), new byte[0]));
            }
        }
        return out;
    }

    @Override
    public void loadBlocks(BlockSink each) {
        for (long ino : content.inodes()) {
            content.blocks(ino, (idx, data) -> each.block(ino, idx, data));
        }
    }

    @Override
    public long[] groupCounts() {
        return log.groupCounts();
    }

    @Override
    public void close() {
        // the log is closed with the store (PersistStore.close)
    }
}
