package dev.seqvfs.persist.log;

import java.util.Arrays;

/**
 * Where the live events of one persistence id are: their sequence numbers in increasing order, each
 * with its frame's location ({@link SegmentLog#loc}) and length in bytes. Sequence numbers normally
 * come in increasing order (Pekko numbers a persistent actor's events one by one), so a put is an
 * append; a copy made by compaction replaces an entry in place; a deletion takes a prefix off.
 *
 * <p>Not thread-safe: its owner ({@link LogIndex.Journal}) guards it with its monitor.
 */
final class EventIndex {
    private long[] seqs = new long[8];
    private long[] locs = new long[8];
    private int[] sizes = new int[8];

    /** The live entries are {@code [head, tail)}. */
    private int head;

    private int tail;

    /** Receives the location and length of a frame an update made dead. */
    interface Dropped {
        /**
         * One frame dropped.
         *
         * @param loc its location
         * @param size its length in bytes
         */
        void dropped(long loc, int size);
    }

    /** {@return how many events are live} */
    int size() {
        return tail - head;
    }

    /** {@return the highest live sequence number, 0 if none} */
    long last() {
        return tail == head ? 0 : seqs[tail - 1];
    }

    /** {@return the position of {@code seq}, or {@code -(insertion point) - 1}} */
    private int search(long seq) {
        return Arrays.binarySearch(seqs, head, tail, seq);
    }

    /**
     * Records event {@code seq} at {@code loc}, replacing (and reporting dropped) an entry of the
     * same number.
     */
    void put(long seq, long loc, int size, Dropped dropped) {
        if (tail == head || seq > seqs[tail - 1]) {
            grow();
            seqs[tail] = seq;
            locs[tail] = loc;
            sizes[tail] = size;
            tail++;
            return;
        }
        int i = search(seq);
        if (i >= 0) {
            dropped.dropped(locs[i], sizes[i]);
            locs[i] = loc;
            sizes[i] = size;
            return;
        }
        int at = -i - 1;
        grow();
        System.arraycopy(seqs, at, seqs, at + 1, tail - at);
        System.arraycopy(locs, at, locs, at + 1, tail - at);
        System.arraycopy(sizes, at, sizes, at + 1, tail - at);
        seqs[at] = seq;
        locs[at] = loc;
        sizes[at] = size;
        tail++;
    }

    /** {@return the location of event {@code seq}, or -1 if it is not live} */
    long locOf(long seq) {
        int i = search(seq);
        return i >= 0 ? locs[i] : -1;
    }

    /**
     * Moves event {@code seq} from {@code from} to {@code to}; {@return whether it was at {@code
     * from}}
     */
    boolean move(long seq, long from, long to) {
        int i = search(seq);
        if (i < 0 || locs[i] != from) {
            return false;
        }
        locs[i] = to;
        return true;
    }

    /** Drops every event up to and including {@code to}, reporting each. */
    void deleteTo(long to, Dropped dropped) {
        while (head < tail && seqs[head] <= to) {
            dropped.dropped(locs[head], sizes[head]);
            head++;
        }
        if (head == tail) {
            head = 0;
            tail = 0;
        }
    }

    /**
     * {@return up to {@code max} live events with numbers in {@code [from, to]}, in order, as
     * triples {sequence number, location, length}}
     */
    long[][] range(long from, long to, long max) {
        if (from > to || max <= 0) {
            return new long[0][];
        }
        int i = search(from);
        int start = i >= 0 ? i : -i - 1;
        int n = 0;
        for (int j = start; j < tail && seqs[j] <= to && n < max; j++) {
            n++;
        }
        long[][] out = new long[n][];
        for (int k = 0; k < n; k++) {
            out[k] = new long[] {seqs[start + k], locs[start + k], sizes[start + k]};
        }
        return out;
    }

    private void grow() {
        if (tail < seqs.length) {
            return;
        }
        if (head > seqs.length / 2) {
            int n = tail - head;
            System.arraycopy(seqs, head, seqs, 0, n);
            System.arraycopy(locs, head, locs, 0, n);
            System.arraycopy(sizes, head, sizes, 0, n);
            head = 0;
            tail = n;
            return;
        }
        seqs = Arrays.copyOf(seqs, seqs.length * 2);
        locs = Arrays.copyOf(locs, locs.length * 2);
        sizes = Arrays.copyOf(sizes, sizes.length * 2);
    }
}
