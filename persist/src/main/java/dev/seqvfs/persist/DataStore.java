package dev.seqvfs.persist;

import dev.seqvfs.engine.inode.InodeAttrs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The file contents and written-back attributes of one persistent file system: one row per inode
 * written back (its attributes and size) and its content in blocks of {@link #BLOCK} bytes by inode
 * and block index; a block no byte of which is allocated (a hole) is not stored. A write-back
 * writes the blocks that changed ({@link DirtyBlocks}), not the whole file, so a 4 KiB change to a
 * large file costs one block, and a sparse file costs what it holds. An inode's row and blocks are
 * deleted when it is freed (its last name gone and its last descriptor closed).
 *
 * <p>Two stores: {@link LogDataStore} on the segment log (the embedded default) and {@link
 * SqlDataStore} on H2 or PostgreSQL.
 *
 * <p>Contract of every implementation: each {@link #write} is atomic (after a crash all of it or
 * none) and durable when it returns; concurrent writes share the device's forces or the database's
 * commits (group commit); a write that fails throws {@link UncheckedIOException} and leaves nothing
 * acknowledged (the caller keeps the blocks dirty and answers {@code EIO}). Write-backs of one
 * inode are ordered by the caller ({@link PersistfsOps}: one at a time per inode). Every method
 * blocks for the store; callers run them on a task's thread or the writer thread, never on an
 * actor's. Thread-safe.
 */
interface DataStore extends AutoCloseable {
    /** Bytes per stored block of content: 16 pages. */
    int BLOCK = 64 * 1024;

    /**
     * One inode's written-back row.
     *
     * @param attrs the attributes written back (size included)
     * @param legacy the whole content in a row of the first schema, else an empty array
     */
    record Row(InodeAttrs attrs, byte[] legacy) {}

    /**
     * One step of a write-back: a block to write, or a range of block indices to delete.
     *
     * @param idx the block index (write), or the first index of the range (delete)
     * @param end the end of the range, exclusive (delete), or -1 (write)
     * @param data the block's bytes (write; at most {@link #BLOCK}), else {@code null}
     */
    record Step(long idx, long end, byte[] data) {}

    /** Receives stored blocks ({@link #loadBlocks}). */
    interface BlockSink {
        /**
         * One block.
         *
         * @param ino the inode number
         * @param idx the block index
         * @param data its bytes
         */
        void block(long ino, long idx, byte[] data);
    }

    /**
     * Writes one batch of an inode's write-back, atomically and durably when this returns: its
     * deleted ranges, its blocks, then, when {@code a} is given, its row (attributes and size) and
     * the removal of every block at or past the end of the file.
     *
     * @param ino the inode number
     * @param steps blocks to write and ranges to delete
     * @param a the attributes to write back, or {@code null} (not the batch's last)
     * @throws UncheckedIOException if the write failed (nothing of it acknowledged)
     */
    void write(long ino, List<Step> steps, InodeAttrs a);

    /**
     * Deletes the row and blocks of a freed inode, if it has any, durably.
     *
     * @param ino the inode number
     * @throws UncheckedIOException if the store failed
     */
    void delete(long ino);

    /**
     * {@return every row, by inode number (recovery reads them all once)}
     *
     * @throws UncheckedIOException if the store failed
     */
    Map<Long, Row> loadAll();

    /**
     * Reads every stored block, in inode and block order, and hands each to {@code each}
     * (recovery).
     *
     * @param each called with the inode number, the block index and its bytes
     * @throws UncheckedIOException if the store failed
     */
    void loadBlocks(BlockSink each);

    /** {@return {writes committed, commits (or forces) that committed them}} For tests. */
    long[] groupCounts();

    /** Releases what this store holds (not the store's database or log: {@link PersistStore}). */
    @Override
    void close();

    /**
     * {@return {@code x} as stored: a count, then each name (its bytes: UTF-8, any byte that is not
     * UTF-8 kept as it is) and value, each with its length}
     */
    static byte[] encode(dev.seqvfs.engine.inode.Xattrs x) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream o = new java.io.DataOutputStream(b)) {
            o.writeInt(x.size());
            for (String n : x.names()) {
                // the name's own bytes: a byte that is not UTF-8 is kept (surrogateescape)
                byte[] name =
                        dev.seqvfs.protocol.PathNames.toBytes(
                                dev.seqvfs.protocol.PathNames.toInternal(n, null));
                byte[] v = x.get(n);
                o.writeInt(name.length);
                o.write(name);
                o.writeInt(v.length);
                o.write(v);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.toByteArray();
    }

    /** {@return the attributes {@link #encode} stored, none for {@code null}} */
    static dev.seqvfs.engine.inode.Xattrs decode(byte[] bytes) {
        dev.seqvfs.engine.inode.Xattrs x = dev.seqvfs.engine.inode.Xattrs.EMPTY;
        if (bytes == null) {
            return x;
        }
        try (java.io.DataInputStream in =
                new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                byte[] name = new byte[in.readInt()];
                in.readFully(name);
                byte[] v = new byte[in.readInt()];
                in.readFully(v);
                x =
                        x.with(
                                dev.seqvfs.protocol.PathNames.toExternal(
                                        new String(
                                                name,
                                                java.nio.charset.StandardCharsets.ISO_8859_1)),
                                v);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return x;
    }

    /** {@return how many blocks hold {@code size} bytes} */
    static long blocks(long size) {
        return size / BLOCK + (size % BLOCK == 0 ? 0 : 1);
    }
}
