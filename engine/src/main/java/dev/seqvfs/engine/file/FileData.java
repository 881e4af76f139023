package dev.seqvfs.engine.file;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.IdentityHashMap;

/**
 * One immutable version of a regular file's contents: a size in bytes and a radix tree of 4 KiB
 * pages indexed by page number, 64 children per node. Absent pages are holes and read as zeros.
 *
 * <p>The tree's shape is copy on write: a change that adds or drops pages copies the nodes above
 * them (O(depth) nodes, each 64 references), shares everything else, and the writer publishes the
 * new root with one release store; a version's nodes, depth and size never change. Page contents
 * are either copied too ({@link #write}, {@link #prepareWrite} in copy mode: a version's pages are
 * then never modified) or written in place by the file's one writer ({@link #prepareWrite} in
 * place, then {@link #copyIn}): a published page's bytes then change under readers, which the owner
 * of the file brackets with its sequence count (see {@code RegularInode}: a reader copies, then
 * validates the count, and retries). A page is written in place only while nothing else relies on
 * it staying as it is.
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>{@code depth} levels of nodes cover page numbers {@code < 64^depth}; a file of {@code size}
 *       bytes needs pages {@code < ceil(size / PAGE)}.
 *   <li>No byte at or past {@code size} is non-zero in any page (truncate zeroes the tail of the
 *       last page), so extending a file by a hole exposes zeros.
 *   <li>{@code pages} counts non-null pages: what the file is charged, times {@link #PAGE}.
 * </ul>
 *
 * <p>Thread-safe: the structure is immutable; page bytes change only through {@link #copyIn}, by
 * the one writer, under the protocol above.
 */
public final class FileData {
    /** Page size in bytes. */
    public static final int PAGE = 4096;

    private static final int SHIFT = 6;
    private static final int FANOUT = 1 << SHIFT;
    private static final int MASK = FANOUT - 1;

    /** Largest file size in bytes: tmpfs's {@code MAX_LFS_FILESIZE}, {@code LLONG_MAX}. */
    public static final long MAX_SIZE = Long.MAX_VALUE;

    private static final FileData EMPTY = new FileData(0, 0, null, 0);

    private final long size;
    private final int depth;
    private final Object root;
    private final long pages;

    private FileData(long size, int depth, Object root, long pages) {
        this.size = size;
        this.depth = depth;
        this.root = root;
        this.pages = pages;
    }

    /** {@return the empty file} */
    public static FileData empty() {
        return EMPTY;
    }

    /** {@return the size in bytes} */
    public long size() {
        return size;
    }

    /** {@return the number of allocated (non-hole) pages} */
    public long pages() {
        return pages;
    }

    /** {@return the allocated bytes ({@code pages * PAGE})} */
    public long allocatedBytes() {
        return pages * PAGE;
    }

    /**
     * Copies up to {@code len} bytes from {@code offset} into {@code dst}; holes read as zeros;
     * stops at {@link #size()}.
     *
     * @param offset the byte offset to read at
     * @param dst the buffer the bytes are read into
     * @param dstOff the index in {@code dst} of the first byte
     * @param len the number of bytes
     * @return the number of bytes copied, 0 at or past the end
     */
    public int read(long offset, byte[] dst, int dstOff, int len) {
        return copyOut(offset, dst, dstOff, len);
    }

    /**
     * {@link #read(long, byte[], int, int)} into a {@link ByteBuffer} (heap or direct), at absolute
     * index {@code dstIndex}; the buffer's position and limit are not used or changed. A direct
     * buffer takes the bytes straight from the pages, with no array between (a FUSE reply, a
     * channel's direct buffer).
     *
     * @param offset the byte offset to read at
     * @param dst the buffer the bytes are read into
     * @param dstIndex the index in {@code dst} of the first byte
     * @param len the number of bytes, at most {@code dst.capacity() - dstIndex}
     * @return the number of bytes copied, 0 at or past the end
     */
    public int read(long offset, ByteBuffer dst, int dstIndex, int len) {
        return copyOut(offset, dst, dstIndex, len);
    }

    /** The two reads' loop: page by page into {@code dst}, a {@code byte[]} or a buffer. */
    private int copyOut(long offset, Object dst, int dstOff, int len) {
        if (offset >= size || len <= 0) {
            return 0;
        }
        int n = (int) Math.min(len, size - offset);
        int done = 0;
        while (done < n) {
            long pos = offset + done;
            int inPage = (int) (pos % PAGE);
            int chunk = Math.min(n - done, PAGE - inPage);
            byte[] page = page(pos / PAGE);
            byte[] from = page == null ? ZERO_PAGE : page;
            int at = page == null ? 0 : inPage;
            if (dst instanceof byte[] a) {
                System.arraycopy(from, at, a, dstOff + done, chunk);
            } else {
                ((ByteBuffer) dst).put(dstOff + done, from, at, chunk);
            }
            done += chunk;
        }
        return n;
    }

    /** A page of zeros, never written: what a hole reads as. */
    private static final byte[] ZERO_PAGE = new byte[PAGE];

    /** Returns the page {@code pageNo}, or {@code null} for a hole. */
    byte[] page(long pageNo) {
        if (root == null || pageNo >= capacityPages(depth)) {
            return null;
        }
        Object node = root;
        for (int level = depth - 1; level >= 0; level--) {
            Object[] children = (Object[]) node;
            node = children[(int) ((pageNo >>> (level * SHIFT)) & MASK)];
            if (node == null) {
                return null;
            }
        }
        return (byte[]) node;
    }

    private static long capacityPages(int depth) {
        return depth >= 10 ? Long.MAX_VALUE : 1L << (SHIFT * depth);
    }

    /**
     * {@return a version with {@code len} bytes of {@code src} written at {@code offset}, extending
     * the size if the write ends past it} Copy mode: this version is left as it was.
     *
     * @param offset the byte offset to write at
     * @param src the buffer holding the bytes
     * @param srcOff the index in {@code src} of the first byte
     * @param len the number of bytes
     * @throws IllegalArgumentException if the write would end past {@link #MAX_SIZE}
     */
    public FileData write(long offset, byte[] src, int srcOff, int len) {
        if (len == 0) {
            return this;
        }
        FileData next = prepareWrite(offset, len, false);
        next.copyIn(offset, src, srcOff, len);
        return next.withSizeAtLeast(offset + len);
    }

    /**
     * {@return a version in which every page of {@code [offset, offset + len)} exists and may be
     * written with {@link #copyIn}} Holes get new zero pages (counted in {@link #pages()}); the
     * size is unchanged. In place ({@code inPlace}), pages that exist are kept, so {@link #copyIn}
     * changes them under readers of this version too; in copy mode each of them is replaced by a
     * copy (a new zero page when the range covers it whole: nothing to keep), so this version is
     * never changed. Allocates every page it needs before it returns: a failure ({@link
     * OutOfMemoryError}) leaves nothing changed.
     *
     * @param offset the byte offset of the range
     * @param len the length of the range in bytes, at least 1
     * @param inPlace whether existing pages are written in place
     * @throws IllegalArgumentException if the range would end past {@link #MAX_SIZE}
     */
    public FileData prepareWrite(long offset, long len, boolean inPlace) {
        return prepareWrite(offset, len, inPlace, null);
    }

    /**
     * {@return as {@link #prepareWrite(long, long, boolean)}, except that in place a page that
     * {@code shared} holds too (the same page object) is replaced by a copy, never kept} The pages
     * of a version shared with a fork ({@code SeqVfs.fork()}) are thereby copied on their first
     * write and never written in place; a write that covers such a page whole gets a new zero page
     * without copying the old one.
     *
     * @param offset the byte offset of the range
     * @param len the length of the range in bytes, at least 1
     * @param inPlace whether existing pages are written in place
     * @param shared the version whose pages must not be written, or {@code null} for none
     * @throws IllegalArgumentException if the range would end past {@link #MAX_SIZE}
     */
    public FileData prepareWrite(long offset, long len, boolean inPlace, FileData shared) {
        return prepareWrite(offset, len, inPlace, shared, null);
    }

    /**
     * {@return as {@link #prepareWrite(long, long, boolean, FileData)}, taking the new pages from
     * {@code pool} while it has any} A page from the pool is zeroed unless the write covers it
     * whole; a copy of an existing page is copied into it.
     *
     * @param offset the byte offset of the range
     * @param len the length of the range in bytes, at least 1
     * @param inPlace whether existing pages are written in place
     * @param shared the version whose pages must not be written, or {@code null} for none
     * @param pool the free pages to use first, or {@code null}
     * @throws IllegalArgumentException if the range would end past {@link #MAX_SIZE}
     */
    public FileData prepareWrite(
            long offset, long len, boolean inPlace, FileData shared, PagePool pool) {
        // MAX_SIZE is Long.MAX_VALUE: a write ends past it exactly when offset + len overflows.
        if (offset < 0 || len <= 0 || offset + len < 0) {
            throw new IllegalArgumentException("write past the maximum file size");
        }
        long end = offset + len;
        long firstPage = offset / PAGE;
        long lastPage = (end - 1) / PAGE;
        int d = depth;
        Object r = root;
        while (capacityPages(d) <= lastPage) {
            Object[] up = new Object[FANOUT];
            up[0] = r;
            r = r == null ? null : up;
            d++;
        }
        long newPages = pages;
        Builder b = null;
        for (long pageNo = firstPage; pageNo <= lastPage; pageNo++) {
            byte[] old = page(pageNo);
            if (old != null && inPlace && (shared == null || shared.page(pageNo) != old)) {
                continue;
            }
            boolean whole = pageNo * PAGE >= offset && (pageNo + 1) * PAGE <= end;
            byte[] fresh = newPage(pool, old == null && !whole);
            if (old != null && !whole) {
                System.arraycopy(old, 0, fresh, 0, PAGE);
            }
            if (old == null) {
                newPages++;
            }
            if (b == null) {
                b = new Builder(d, r);
            }
            b.set(pageNo, fresh);
        }
        if (b == null && d == depth) {
            return this;
        }
        return new FileData(size, d, b == null ? r : b.root, newPages);
    }

    /**
     * {@return a page from {@code pool}, zeroed if {@code zero}, or a new zero page when the pool
     * is empty or absent}
     */
    private static byte[] newPage(PagePool pool, boolean zero) {
        byte[] p = pool == null ? null : pool.take();
        if (p == null) {
            return new byte[PAGE];
        }
        if (zero) {
            Arrays.fill(p, (byte) 0);
        }
        return p;
    }

    /**
     * Offers to {@code pool} every page of this version, at page number {@code fromPage} or above,
     * that {@code next} does not hold at the same number (the same object): the pages a truncate
     * dropped or replaced. The caller, the file's one writer, has published {@code next} inside the
     * file's sequence count, and nothing else (a fork, a stable reader, a loader) holds this
     * version. O(pages visited).
     *
     * @param next the version published in place of this one
     * @param fromPage the first page number that may have been dropped
     * @param pool where the pages go
     * @return how many pages the pool kept
     */
    public int releaseDropped(FileData next, long fromPage, PagePool pool) {
        int[] kept = {0};
        visit(
                root,
                depth,
                0,
                Math.max(0, fromPage),
                (pageNo, page) -> {
                    if (next.page(pageNo) != page && pool.offer(page)) {
                        kept[0]++;
                    }
                });
        return kept[0];
    }

    /** What {@link #visit} calls for each page. */
    @FunctionalInterface
    private interface PageVisitor {
        void page(long pageNo, byte[] page);
    }

    /**
     * Calls {@code v} for each page numbered {@code from} or above under {@code node}, in order.
     */
    private static void visit(Object node, int level, long base, long from, PageVisitor v) {
        if (node == null) {
            return;
        }
        if (level == 0) {
            if (base >= from) {
                v.page(base, (byte[]) node);
            }
            return;
        }
        Object[] children = (Object[]) node;
        long childSpan = capacityPages(level - 1);
        for (int i = 0; i < FANOUT; i++) {
            long b = base + i * childSpan;
            if (b + childSpan > from) {
                visit(children[i], level - 1, b, from, v);
            }
        }
    }

    /**
     * {@return how many pages of {@code [offset, offset + len)} this version shares with {@code
     * shared} (the same page object in both)} O(pages of the range x depth); allocates nothing.
     *
     * @param offset the byte offset of the range
     * @param len the length of the range in bytes
     * @param shared the other version
     */
    public long sharedPages(long offset, long len, FileData shared) {
        if (len <= 0 || offset < 0 || offset + len < 0) {
            return 0;
        }
        long n = 0;
        long lastPage = (offset + len - 1) / PAGE;
        for (long pageNo = offset / PAGE; pageNo <= lastPage; pageNo++) {
            byte[] p = page(pageNo);
            if (p != null && shared.page(pageNo) == p) {
                n++;
            }
        }
        return n;
    }

    /**
     * Copies {@code len} bytes of {@code src} into this version's pages at {@code offset}, in
     * place; the size is unchanged ({@link #withSizeAtLeast}). Every page of the range must exist
     * ({@link #prepareWrite}); allocates nothing. Only the file's one writer calls this, inside its
     * sequence count when the pages are published.
     *
     * @param offset the byte offset to write at
     * @param src the buffer holding the bytes
     * @param srcOff the index in {@code src} of the first byte
     * @param len the number of bytes
     * @throws IllegalStateException if a page of the range is a hole
     */
    public void copyIn(long offset, byte[] src, int srcOff, int len) {
        int done = 0;
        while (done < len) {
            long pos = offset + done;
            long pageNo = pos / PAGE;
            int inPage = (int) (pos % PAGE);
            int chunk = Math.min(len - done, PAGE - inPage);
            byte[] page = page(pageNo);
            if (page == null) {
                throw new IllegalStateException("copyIn into hole page " + pageNo);
            }
            System.arraycopy(src, srcOff + done, page, inPage, chunk);
            done += chunk;
        }
    }

    /**
     * {@return this version with its size raised to {@code newSize} if it is smaller (the same
     * tree), else this version}
     *
     * @param newSize the size in bytes the file must have at least
     */
    public FileData withSizeAtLeast(long newSize) {
        return newSize <= size ? this : new FileData(newSize, depth, root, pages);
    }

    /**
     * {@return whether the {@code len} bytes at {@code offset} lie within one page that is
     * allocated (not a hole)} Such a range can be written in place with {@link #copyIn} without
     * {@link #prepareWrite}. Allocates nothing.
     *
     * @param offset the byte offset of the range, not negative
     * @param len the length of the range in bytes, 1 to {@link #PAGE}
     */
    public boolean withinOnePage(long offset, int len) {
        return len > 0 && len <= PAGE - (int) (offset % PAGE) && page(offset / PAGE) != null;
    }

    /**
     * {@return whether page {@code pageNo} is allocated (not a hole)}
     *
     * @param pageNo the page number ({@code offset / PAGE})
     */
    public boolean hasPage(long pageNo) {
        return page(pageNo) != null;
    }

    /**
     * {@code fallocate(2)} modes 0 and {@code FALLOC_FL_KEEP_SIZE}: a version in which every page
     * of {@code [offset, offset + len)} is allocated (holes become zero-filled pages, data is
     * kept), and, unless {@code keepSize}, the size is at least {@code offset + len}.
     *
     * @param offset the first byte of the range
     * @param len the length of the range in bytes
     * @param keepSize {@code FALLOC_FL_KEEP_SIZE}: the size does not grow
     * @return the new version
     * @throws IllegalArgumentException if the range is empty, negative or ends past {@link
     *     #MAX_SIZE}
     */
    public FileData allocate(long offset, long len, boolean keepSize) {
        if (offset < 0 || len <= 0 || offset + len < 0) {
            throw new IllegalArgumentException("bad range " + offset + "+" + len);
        }
        long end = offset + len;
        long lastPage = (end - 1) / PAGE;
        int d = depth;
        Object r = root;
        while (capacityPages(d) <= lastPage) {
            Object[] up = new Object[FANOUT];
            up[0] = r;
            r = r == null ? null : up;
            d++;
        }
        FileData grown = new FileData(size, d, r, pages);
        Builder b = new Builder(d, r);
        long added = 0;
        for (long pg = offset / PAGE; pg <= lastPage; pg++) {
            if (grown.page(pg) == null) {
                b.set(pg, new byte[PAGE]);
                added++;
            }
        }
        return new FileData(
                keepSize ? size : Math.max(size, end), d, added == 0 ? r : b.root, pages + added);
    }

    /**
     * {@code fallocate(2)} with {@code FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE}: a version in
     * which {@code [offset, offset + len)} reads as zeros: whole pages in the range are dropped
     * (they become holes and are no longer charged), partial ones zeroed. The size does not change.
     * The range is not cut at the end of the file: pages allocated past it ({@code
     * FALLOC_FL_KEEP_SIZE}) are punched too, as {@code shmem_truncate_range} does. Visits only
     * allocated pages.
     *
     * @param offset the first byte of the range
     * @param len the length of the range in bytes
     * @return the new version, or this one if nothing changes
     */
    public FileData punchHole(long offset, long len) {
        if (offset < 0 || len <= 0) {
            throw new IllegalArgumentException("bad range " + offset + "+" + len);
        }
        long end = offset + len < 0 ? MAX_SIZE : offset + len;
        if (root == null) {
            return this;
        }
        Builder b = new Builder(depth, root);
        long dropped = 0;
        long lastPage = (end - 1) / PAGE;
        for (long pg = nextPresent(offset / PAGE);
                pg >= 0 && pg <= lastPage;
                pg = nextPresent(pg + 1)) {
            byte[] old = page(pg);
            long pageStart = pg * PAGE;
            int from = (int) Math.max(0, offset - pageStart);
            int to = (int) Math.min(PAGE, end - pageStart);
            if (from == 0 && to == PAGE) {
                b.set(pg, null);
                dropped++;
            } else {
                byte[] z = old.clone();
                Arrays.fill(z, from, to, (byte) 0);
                b.set(pg, z);
            }
        }
        return new FileData(size, depth, b.root, pages - dropped);
    }

    /**
     * Returns a version of {@code newSize} bytes. Growing adds a hole and keeps every page (pages
     * allocated past the old end now lie inside). Otherwise every page from the one past the new
     * end on is dropped, pages allocated past the end included, even when the size stays the same
     * ({@code shmem_setattr} truncates the page cache whenever the size does not grow), and the
     * tail of the last page is zeroed when the size shrinks.
     *
     * @param newSize the new size in bytes
     * @return the new version, or this one if nothing changes
     */
    public FileData truncate(long newSize) {
        if (newSize < 0) { // no long is past MAX_SIZE (Long.MAX_VALUE)
            throw new IllegalArgumentException("bad size " + newSize);
        }
        if (newSize > size) {
            return new FileData(newSize, depth, root, pages);
        }
        if (newSize == 0) {
            return size == 0 && pages == 0 ? this : EMPTY;
        }
        // shmem_setattr: a size that does not grow truncates the page cache from the new size
        // on, so pages allocated past the end (fallocate with FALLOC_FL_KEEP_SIZE) go even
        // when the size stays the same.
        long keepPages = (newSize + PAGE - 1) / PAGE;
        long[] dropped = new long[1];
        Object r =
                depth == 0
                        ? (keepPages >= 1 ? root : null)
                        : prune(root, depth, 0, keepPages, dropped);
        if (depth == 0 && keepPages < 1 && root != null) {
            dropped[0] = 1;
        }
        if (newSize == size && dropped[0] == 0) {
            return this;
        }
        Builder b = new Builder(depth, r);
        int tail = (int) (newSize % PAGE);
        if (tail != 0 && newSize < size) {
            byte[] last = new FileData(newSize, depth, b.root, 0).page(keepPages - 1);
            if (last != null) {
                byte[] z = last.clone();
                Arrays.fill(z, tail, PAGE, (byte) 0);
                b.set(keepPages - 1, z);
            }
        }
        return new FileData(newSize, depth, b.root, pages - dropped[0]);
    }

    /**
     * {@code SEEK_DATA}: the first offset at or after {@code from} that lies in an allocated page,
     * or -1 if there is none before the end. Skips absent subtrees.
     *
     * @param from the byte offset to start at
     * @return the offset, or -1
     */
    public long nextData(long from) {
        long start = Math.max(0, from);
        if (start >= size) {
            return -1;
        }
        long p =
                depth == 0
                        ? (root != null && start / PAGE == 0 ? 0 : -1)
                        : firstPage(root, depth, 0, start / PAGE, true);
        if (p < 0 || p * PAGE >= size) {
            return -1;
        }
        return Math.max(start, p * PAGE);
    }

    /**
     * {@code SEEK_HOLE}: the first offset at or after {@code from} in a hole, or {@link #size()}
     * (the implicit hole at the end). Skips absent subtrees.
     *
     * @param from the byte offset to start at
     * @return the offset
     */
    public long nextHole(long from) {
        long start = Math.max(0, from);
        if (start >= size) {
            return size;
        }
        long p =
                depth == 0
                        ? (root == null || start / PAGE > 0 ? start / PAGE : 1)
                        : firstPage(root, depth, 0, start / PAGE, false);
        if (p < 0 || p >= size / PAGE + 1) {
            // no hole inside the tree, or one past the size (where p * PAGE may not fit a long):
            // the implicit hole at the end
            return size;
        }
        return Math.min(size, Math.max(start, p * PAGE));
    }

    /**
     * {@return how many pages of {@code [offset, offset + len)} are not allocated: the pages a
     * {@link #write} or {@link #allocate} of that range adds} Counts without allocating anything,
     * so a caller can charge a write before building it; visits only allocated pages of the range.
     *
     * @param offset the first byte of the range
     * @param len the length of the range in bytes (0 or more; a range past {@link #MAX_SIZE} is cut
     *     there)
     */
    public long missingPages(long offset, long len) {
        if (offset < 0 || len < 0) {
            throw new IllegalArgumentException("bad range " + offset + "+" + len);
        }
        if (len == 0) {
            return 0;
        }
        long end = offset + len < 0 ? MAX_SIZE : offset + len;
        long first = offset / PAGE;
        long last = (end - 1) / PAGE;
        long present = 0;
        for (long pg = nextPresent(first); pg >= 0 && pg <= last; pg = nextPresent(pg + 1)) {
            present++;
        }
        return last - first + 1 - present;
    }

    /** Returns the first allocated page number {@code >= from}, or -1. Skips absent subtrees. */
    private long nextPresent(long from) {
        if (depth == 0) {
            return root != null && from == 0 ? 0 : -1;
        }
        return firstPage(root, depth, 0, from, true);
    }

    /**
     * Returns the first page number {@code >= from} under {@code node} (covering pages {@code base
     * .. base + 64^level - 1}) that is present ({@code present}) or absent, or -1 if none.
     */
    private static long firstPage(Object node, int level, long base, long from, boolean present) {
        long span = capacityPages(level);
        if (from >= base + span) {
            return -1;
        }
        if (node == null) {
            return present ? -1 : Math.max(base, from);
        }
        if (level == 0) {
            return present ? Math.max(base, from) : -1;
        }
        Object[] children = (Object[]) node;
        long childSpan = capacityPages(level - 1);
        int i = (int) Math.max(0, (from - base) / childSpan);
        for (; i < FANOUT; i++) {
            long p = firstPage(children[i], level - 1, base + i * childSpan, from, present);
            if (p >= 0) {
                return p;
            }
        }
        return -1;
    }

    /** Returns a copy of {@code node} without pages {@code >= keep}, counting those dropped. */
    private static Object prune(Object node, int level, long base, long keep, long[] dropped) {
        if (node == null) {
            return null;
        }
        long span = capacityPages(level);
        if (base + span <= keep) {
            return node;
        }
        if (level == 0) {
            dropped[0]++;
            return null;
        }
        if (base >= keep) {
            dropped[0] += countPages(node, level);
            return null;
        }
        Object[] copy = ((Object[]) node).clone();
        long childSpan = capacityPages(level - 1);
        boolean any = false;
        for (int i = 0; i < FANOUT; i++) {
            copy[i] = prune(copy[i], level - 1, base + i * childSpan, keep, dropped);
            any |= copy[i] != null;
        }
        return any ? copy : null;
    }

    private static long countPages(Object node, int level) {
        if (node == null) {
            return 0;
        }
        if (level == 0) {
            return 1;
        }
        long n = 0;
        for (Object c : (Object[]) node) {
            n += countPages(c, level - 1);
        }
        return n;
    }

    /**
     * Path-copying builder: copies each node the first time it is touched. The nodes it made are
     * remembered per level (the last one, which consecutive pages share) before the identity set is
     * consulted, so a sequential write of many pages hashes almost nothing.
     */
    private static final class Builder {
        final int depth;
        Object root;
        private final Object[] lastOwned;
        private IdentityHashMap<Object, Boolean> fresh;

        Builder(int depth, Object root) {
            this.depth = depth;
            this.root = root;
            this.lastOwned = new Object[depth + 1];
        }

        void set(long pageNo, byte[] page) {
            if (depth == 0) {
                root = page;
                return;
            }
            root = own(root, depth);
            Object[] node = (Object[]) root;
            for (int level = depth - 1; level > 0; level--) {
                int i = (int) ((pageNo >>> (level * SHIFT)) & MASK);
                Object child = own(node[i], level);
                node[i] = child;
                node = (Object[]) child;
            }
            node[(int) (pageNo & MASK)] = page;
        }

        private Object own(Object node, int level) {
            if (node != null
                    && (lastOwned[level] == node || (fresh != null && fresh.containsKey(node)))) {
                lastOwned[level] = node;
                return node;
            }
            Object[] copy = node == null ? new Object[FANOUT] : ((Object[]) node).clone();
            if (fresh == null) {
                fresh = new IdentityHashMap<>();
            }
            fresh.put(copy, Boolean.TRUE);
            lastOwned[level] = copy;
            return copy;
        }
    }
}
