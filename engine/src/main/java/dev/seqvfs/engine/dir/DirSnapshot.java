package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.protocol.FileType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import scala.collection.Iterator;
import scala.collection.immutable.TreeMap;
import scala.collection.immutable.TreeMap$;
import scala.math.Ordering;

/**
 * One immutable version of a directory's entries: the persistent map a reader walks.
 *
 * <p>Two persistent maps share every entry: {@code names} (a {@link NameTable}, a hash trie of
 * dentries by name that the path walk can probe with a range of the path) for lookup, and {@code
 * order} (Scala's red-black {@code immutable.TreeMap}, cookie → {@link Dentry}) for readdir. Every
 * change returns a new snapshot in O(log n), sharing structure with this one.
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>{@code names} and {@code order} hold the same dentries.
 *   <li>{@code seq} grows by one with each version; cookies grow and are never reused ({@code
 *       nextCookie} only increases), so a readdir cookie stays meaningful across versions: resuming
 *       after cookie {@code c} lists the entries whose cookie is greater than {@code c}.
 *   <li>{@code subdirs} counts the entries that are directories (a directory's link count is {@code
 *       2 + subdirs}).
 *   <li>A dead snapshot (after {@code rmdir}) is empty and is never replaced.
 * </ul>
 *
 * <p>Thread-safe (immutable). Readers obtain it from {@link DirectoryInode#snapshotAcquire()}.
 */
public final class DirSnapshot {
    /** Cookie of ".": readdir from 0 starts with it. */
    public static final long COOKIE_DOT = 1;

    /** Cookie of "..". */
    public static final long COOKIE_DOTDOT = 2;

    /** First cookie given to a real entry. */
    public static final long FIRST_COOKIE = 3;

    @SuppressWarnings("unchecked")
    private static final Ordering<Object> LONG_ORDER =
            (Ordering<Object>) (Ordering<?>) Ordering.Long$.MODULE$;

    private static final NameTable NO_NAMES = NameTable.EMPTY;
    private static final TreeMap<Object, Dentry> NO_ORDER = TreeMap$.MODULE$.empty(LONG_ORDER);
    private static final DirSnapshot EMPTY =
            new DirSnapshot(0, NO_NAMES, NO_ORDER, FIRST_COOKIE, 0, false);

    /**
     * The placeholder an unbuilt directory of a fork holds until its first read builds it ({@link
     * DirectoryInode#snapshotAcquire()}); compared by identity, never returned to a reader.
     */
    static final DirSnapshot UNBUILT =
            new DirSnapshot(0, NO_NAMES, NO_ORDER, FIRST_COOKIE, 0, false);

    private final long seq;
    private final NameTable names;
    private final TreeMap<Object, Dentry> order;
    private final long nextCookie;
    private final int subdirs;
    private final boolean dead;

    private DirSnapshot(
            long seq,
            NameTable names,
            TreeMap<Object, Dentry> order,
            long nextCookie,
            int subdirs,
            boolean dead) {
        this.seq = seq;
        this.names = names;
        this.order = order;
        this.nextCookie = nextCookie;
        this.subdirs = subdirs;
        this.dead = dead;
    }

    /** {@return the snapshot of a new, empty directory (version 0)} */
    public static DirSnapshot empty() {
        return EMPTY;
    }

    /** {@return the version number; each published change adds one} */
    public long seq() {
        return seq;
    }

    /** {@return whether the directory has been removed ({@code rmdir}, or replaced by a rename)} */
    public boolean isDead() {
        return dead;
    }

    /** {@return the number of entries (without "." and "..")} */
    public int size() {
        return names.size();
    }

    /** {@return whether there are no entries} */
    public boolean isEmpty() {
        return names.size() == 0;
    }

    /** {@return the number of entries that are directories} */
    public int subdirs() {
        return subdirs;
    }

    /**
     * Looks a name up. O(log32 n); allocates nothing on a hit or a miss.
     *
     * @param name one component in internal form
     * @return the dentry, or {@code null} if absent
     */
    public Dentry lookup(String name) {
        return names.get(name, 0, name.length(), name.hashCode());
    }

    /**
     * Looks up the name {@code path[off, end)} without making a {@code String} of it: the same
     * answer as {@code lookup(path.substring(off, end))}. O(log32 n) plus one compare of the name's
     * chars; allocates nothing.
     *
     * @param path a string holding the name, typically a whole path (internal form)
     * @param off index of the name's first char
     * @param end index just past its last char
     * @param hash the name's {@link String#hashCode()}, as {@link #hash(String, int, int)} computes
     *     it (a walk computes it while it scans for the next {@code '/'}); a wrong value makes the
     *     lookup miss
     * @return the dentry, or {@code null} if absent
     * @throws IndexOutOfBoundsException if {@code [off, end)} is not a range of {@code path}
     */
    public Dentry lookup(String path, int off, int end, int hash) {
        Objects.checkFromToIndex(off, end, path.length());
        return names.get(path, off, end, hash);
    }

    /**
     * {@return {@code path.substring(off, end).hashCode()} without making the substring: {@code
     * s[0]*31^(n-1) + ... + s[n-1]}, as {@link String#hashCode()} specifies}
     *
     * @param path the string
     * @param off the index in the buffer of the first byte
     * @param end the index after the last char
     */
    public static int hash(String path, int off, int end) {
        int h = 0;
        for (int i = off; i < end; i++) {
            h = 31 * h + path.charAt(i);
        }
        return h;
    }

    /**
     * {@return a version with {@code name} bound to {@code inode}, replacing any existing binding
     * of that name} The new dentry gets the next cookie.
     *
     * @param name the name, in internal form
     * @param inode the inode
     */
    public DirSnapshot with(String name, Inode inode) {
        Dentry old = lookup(name);
        TreeMap<Object, Dentry> o = order;
        int sub = subdirs;
        if (old != null) {
            o = o.removed(old.cookie());
            if (old.inode().type() == FileType.DIRECTORY) {
                sub--;
            }
        }
        Dentry d = new Dentry(name, inode, nextCookie, 0);
        NameTable n = names.with(d);
        o = o.updated(nextCookie, d);
        if (inode.type() == FileType.DIRECTORY) {
            sub++;
        }
        return new DirSnapshot(seq + 1, n, o, nextCookie + 1, sub, false);
    }

    /**
     * {@return a version without {@code name}; this snapshot if it is absent}
     *
     * @param name the name, in internal form
     */
    public DirSnapshot without(String name) {
        Dentry old = lookup(name);
        if (old == null) {
            return this;
        }
        int sub = old.inode().type() == FileType.DIRECTORY ? subdirs - 1 : subdirs;
        return new DirSnapshot(
                seq + 1, names.without(name), order.removed(old.cookie()), nextCookie, sub, false);
    }

    /**
     * {@return a version with the same names, cookies, order and version number in which each entry
     * is bound to {@code twin}'s image of its inode, or dropped where that is {@code null}} A
     * fork's copy of a directory: no hashing, since the maps keep their shape ({@link
     * #twinnedInOrder}). {@code twin} is called once per entry, in cookie order.
     *
     * @param twin the fork's inode for a source entry, or {@code null} to leave the entry out
     */
    DirSnapshot twinned(java.util.function.Function<Dentry, Inode> twin) {
        Dentry[] entries = entryArray();
        Inode[] twins = new Inode[entries.length];
        for (int i = 0; i < entries.length; i++) {
            twins[i] = twin.apply(entries[i]);
        }
        return twinnedInOrder(twins);
    }

    /**
     * {@return a version with the same names, cookies, order and version number in which the {@code
     * i}-th entry in cookie order ({@link #entryArray()}) is bound to {@code twins[i]}, or dropped
     * where that is {@code null}} What {@link #twinned(java.util.function.Function)} does, for a
     * caller that already holds the entries in order (a fork's build of a directory, {@code
     * TreeFork}): no hashing; each entry found by its cookie, in O(1) when the cookies are dense
     * (spread over at most 4n values, as a directory that was filled and not thinned out has them),
     * else by binary search.
     *
     * @param twins the fork's inode for each entry, in cookie order, as long as {@link #size()}
     */
    DirSnapshot twinnedInOrder(Inode[] twins) {
        int n = names.size();
        if (twins.length != n) {
            throw new IllegalArgumentException(twins.length + " twins for " + n + " entries");
        }
        long[] cookies = new long[n];
        Dentry[] copies = new Dentry[n];
        List<String> dropped = new ArrayList<>(0);
        Iterator<Dentry> it = order.valuesIterator();
        for (int i = 0; i < n; i++) {
            Dentry d = it.next();
            cookies[i] = d.cookie();
            if (twins[i] == null) {
                dropped.add(d.name());
            } else {
                copies[i] = new Dentry(d.name(), twins[i], d.cookie(), d.flags());
            }
        }
        // Cookies are given in order and rarely skipped: when they are dense, index by them.
        long min = n == 0 ? 0 : cookies[0];
        long span = n == 0 ? 0 : cookies[n - 1] - min + 1;
        int[] at = span <= 4L * n ? new int[(int) span] : null;
        if (at != null) {
            for (int i = 0; i < n; i++) {
                at[(int) (cookies[i] - min)] = i;
            }
        }
        java.util.function.UnaryOperator<Dentry> copyOf =
                d -> {
                    int i =
                            at != null
                                    ? at[(int) (d.cookie() - min)]
                                    : java.util.Arrays.binarySearch(cookies, d.cookie());
                    Dentry c = copies[i];
                    return c == null ? d : c;
                };
        NameTable nt = names.mapped(copyOf);
        TreeMap<Object, Dentry> o = order.transform((k, d) -> copyOf.apply(d));
        DirSnapshot out = new DirSnapshot(seq, nt, o, nextCookie, subdirs, dead);
        for (String name : dropped) {
            DirSnapshot w = out.without(name);
            out = new DirSnapshot(seq, w.names, w.order, nextCookie, w.subdirs, dead);
        }
        return out;
    }

    /** {@return every entry in cookie order, in a new array as long as {@link #size()}} */
    Dentry[] entryArray() {
        Dentry[] out = new Dentry[names.size()];
        Iterator<Dentry> it = order.valuesIterator();
        for (int i = 0; i < out.length; i++) {
            out[i] = it.next();
        }
        return out;
    }

    /** {@return the dead, empty version a removed directory publishes, once} */
    public DirSnapshot killed() {
        if (dead) {
            throw new IllegalStateException("directory snapshot already dead");
        }
        return new DirSnapshot(seq + 1, NO_NAMES, NO_ORDER, nextCookie, 0, true);
    }

    /**
     * Lists up to {@code max} entries whose cookie is greater than {@code afterCookie}, in cookie
     * order.
     *
     * @param afterCookie 0 (or {@link #COOKIE_DOTDOT}) to start at the first real entry
     * @param max most entries to return
     * @return the entries, possibly empty
     */
    public List<Dentry> entriesAfter(long afterCookie, int max) {
        List<Dentry> out = new ArrayList<>(Math.min(max, Math.max(0, names.size())));
        Iterator<Dentry> it = order.valuesIteratorFrom(afterCookie + 1);
        while (it.hasNext() && out.size() < max) {
            out.add(it.next());
        }
        return out;
    }

    /** {@return every entry in cookie order (a copy)} */
    public List<Dentry> entries() {
        return entriesAfter(0, Integer.MAX_VALUE);
    }

    @Override
    public String toString() {
        return "DirSnapshot[seq=" + seq + ", size=" + names.size() + (dead ? ", dead" : "") + "]";
    }
}
