package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.Versioned;
import dev.seqvfs.protocol.FileType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import scala.collection.Iterator;
import scala.collection.immutable.TreeMap;
import scala.collection.immutable.TreeMap$;
import scala.math.Ordering;

/**
 * One immutable version of a directory's entries: the persistent map a reader walks.
 *
 * <p>Two forms. A <b>small</b> directory (at most {@link #SMALL_MAX} entries) keeps its dentries in
 * one array in cookie order: a lookup scans it, comparing each dentry's hash code and packed name
 * words ({@link Dentry#matches}), so a walk through a small directory touches the array and the one
 * dentry it wants, and a change copies an array of a few references. A <b>large</b> one keeps two
 * persistent maps that share every entry: {@code names} (a {@link NameTable}, a hash trie of
 * dentries by name that the path walk can probe with a range of the path) for lookup, and {@code
 * order} (Scala's red-black {@code immutable.TreeMap}, cookie → {@link Dentry}) for readdir; every
 * change returns a new snapshot in O(log n), sharing structure with this one. A directory grows
 * into the large form past {@link #SMALL_MAX} entries and goes back when it shrinks to half of that
 * (the gap keeps a directory that hovers at the bound from converting at every change). Why: most
 * directories are small (the JDK's {@code src.zip} tree has a median of 9 entries a directory), and
 * the walk was bound by the trie's node-to-dentry hops (issue 9's profile of a 5-deep stat).
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>Exactly one form: {@code small} is non-null (and {@code names}, {@code order} null), or
 *       {@code names} and {@code order} are non-null and hold the same dentries.
 *   <li>{@code small} is sorted by cookie and holds no two equal names.
 *   <li>{@code seq} grows by one with each version; cookies grow and are never reused ({@code
 *       nextCookie} only increases), so a readdir cookie stays meaningful across versions: resuming
 *       after cookie {@code c} lists the entries whose cookie is greater than {@code c}.
 *   <li>{@code subdirs} counts the entries that are directories (a directory's link count is {@code
 *       2 + subdirs}).
 *   <li>A dead snapshot (after {@code rmdir}) is empty and is never replaced.
 * </ul>
 *
 * <p>A fork's directory (see {@code TreeFork}) starts as its source's snapshot, shared whole, with
 * a view ({@link Twins}) through which every lookup and listing shows each entry it still shares
 * with the source as the fork's twin of it, made on first sight; every version made from it carries
 * the view, and the fork's own entries are shown as themselves. The structure (array, trie, tree)
 * holds the raw entries; only {@link #lookup}, {@link #entriesAfter} and {@link #entries} show
 * them.
 *
 * <p>Besides its entries a snapshot carries what a fork of its superblock needs ({@link
 * Versioned}): the fork generation it was published in, and the snapshot it replaced if that one
 * belongs to an older generation, while an open fork may read it. Every version made from this one
 * ({@link #with}, {@link #without}, {@link #killed}) carries both; the directory's publisher retags
 * it when the generation moved on ({@link DirectoryInode}).
 *
 * <p>Thread-safe (immutable: arrays are never written after the constructor of the snapshot that
 * holds them returns; the link to the replaced version is only ever cleared, see {@link
 * Versioned}). Readers obtain it from {@link DirectoryInode#snapshotAcquire()}.
 */
public final class DirSnapshot implements Versioned<DirSnapshot> {
    private static final VarHandle PREV;

    static {
        try {
            PREV =
                    MethodHandles.lookup()
                            .findVarHandle(DirSnapshot.class, "prev", DirSnapshot.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Cookie of ".": readdir from 0 starts with it. */
    public static final long COOKIE_DOT = 1;

    /** Cookie of "..". */
    public static final long COOKIE_DOTDOT = 2;

    /** First cookie given to a real entry. */
    public static final long FIRST_COOKIE = 3;

    /** The most entries a directory keeps in the small (array) form. */
    static final int SMALL_MAX = 8;

    @SuppressWarnings("unchecked")
    private static final Ordering<Object> LONG_ORDER =
            (Ordering<Object>) (Ordering<?>) Ordering.Long$.MODULE$;

    private static final Dentry[] NO_ENTRIES = new Dentry[0];
    private static final DirSnapshot EMPTY =
            new DirSnapshot(0, NO_ENTRIES, null, null, FIRST_COOKIE, 0, false, 0, null, null);

    private final long seq;

    /** The entries in cookie order (the small form), or {@code null} (the large form). */
    private final Dentry[] small;

    private final NameTable names;
    private final TreeMap<Object, Dentry> order;
    private final long nextCookie;
    private final int subdirs;
    private final boolean dead;

    /** The fork generation it was published in ({@link Versioned}). */
    private final long gen;

    /**
     * The version it replaced in an older generation, while an open fork may read it ({@link
     * Versioned}): set before publication, cleared at most once after (release).
     */
    @SuppressWarnings("unused") // accessed through PREV
    private volatile DirSnapshot prev;

    /**
     * In a fork's directory, how it sees the entries it still shares with its source (the source's
     * dentries, bound to the source's inodes): each is shown as its twin, made on first sight
     * ({@link Twins}); {@code null} when every entry is this directory's own. Carried by every
     * version made from this one.
     */
    private final Twins twins;

    /**
     * A fork's view of the source's entries in its copy of a directory ({@code TreeFork}): the
     * fork's twin of each, the same object every time it is asked.
     */
    interface Twins {
        /**
         * {@return the dentry the fork shows for {@code d}, one of this snapshot's raw entries: its
         * twin, made on first sight, or {@code d} itself if it is the fork's own} Thread-safe;
         * never blocks for long (a map insert).
         *
         * @param d a raw entry
         */
        Dentry twinOf(Dentry d);
    }

    private DirSnapshot(
            long seq,
            Dentry[] small,
            NameTable names,
            TreeMap<Object, Dentry> order,
            long nextCookie,
            int subdirs,
            boolean dead,
            long gen,
            DirSnapshot prev,
            Twins twins) {
        this.seq = seq;
        this.small = small;
        this.names = names;
        this.order = order;
        this.nextCookie = nextCookie;
        this.subdirs = subdirs;
        this.dead = dead;
        this.gen = gen;
        PREV.set(this, prev);
        this.twins = twins;
    }

    /**
     * {@return a snapshot holding {@code entries} (in cookie order, distinct names), in the form
     * their number calls for}
     */
    private static DirSnapshot of(
            long seq,
            Dentry[] entries,
            long nextCookie,
            int subdirs,
            boolean dead,
            long gen,
            DirSnapshot prev,
            Twins twins) {
        if (entries.length <= SMALL_MAX) {
            return new DirSnapshot(
                    seq, entries, null, null, nextCookie, subdirs, dead, gen, prev, twins);
        }
        NameTable n = NameTable.EMPTY;
        TreeMap<Object, Dentry> o = TreeMap$.MODULE$.empty(LONG_ORDER);
        for (Dentry d : entries) {
            n = n.with(d);
            o = o.updated(d.cookie(), d);
        }
        return new DirSnapshot(seq, null, n, o, nextCookie, subdirs, dead, gen, prev, twins);
    }

    /** {@return the snapshot of a new, empty directory (version 0)} */
    public static DirSnapshot empty() {
        return EMPTY;
    }

    /** {@return the version number; each published change adds one} */
    public long seq() {
        return seq;
    }

    @Override
    public long gen() {
        return gen;
    }

    @Override
    public DirSnapshot prevAcquire() {
        return (DirSnapshot) PREV.getAcquire(this);
    }

    @Override
    public void dropPrev() {
        PREV.setRelease(this, null);
    }

    /**
     * {@return the same entries published in generation {@code newGen} with {@code newPrev} as the
     * version it replaced ({@link Versioned}): this snapshot if it already is, else a copy sharing
     * its entries (the same dentry objects)}
     *
     * @param newGen the generation
     * @param newPrev the older version a fork may read, or {@code null}
     */
    DirSnapshot withVersion(long newGen, DirSnapshot newPrev) {
        if (newGen == gen && newPrev == prevAcquire()) {
            return this;
        }
        return new DirSnapshot(
                seq, small, names, order, nextCookie, subdirs, dead, newGen, newPrev, twins);
    }

    /** {@return whether the directory has been removed ({@code rmdir}, or replaced by a rename)} */
    public boolean isDead() {
        return dead;
    }

    /** {@return the number of entries (without "." and "..")} */
    public int size() {
        Dentry[] sm = small;
        return sm != null ? sm.length : names.size();
    }

    /** {@return whether there are no entries} */
    public boolean isEmpty() {
        return size() == 0;
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
        return lookup(name, 0, name.length(), name.hashCode());
    }

    /**
     * {@return {@code d}, a raw entry (or {@code null}), as readers see it: in a fork's directory,
     * the twin of an entry it shares with its source ({@link Twins})}
     */
    private Dentry shown(Dentry d) {
        Twins t = twins;
        return t == null || d == null ? d : t.twinOf(d);
    }

    /**
     * {@return a fork's copy of {@code source} (the source directory's snapshot at the fork's
     * generation): the same entries, names, cookies and version number, shared, not copied, each
     * shown through {@code twins} as the fork's twin of it, made on first sight; generation 0 and
     * no older version (the fork's first state)} O(1).
     *
     * @param source the source's snapshot (itself a fork's, for a fork of a fork)
     * @param twins the fork's view of the entries
     */
    static DirSnapshot forked(DirSnapshot source, Twins twins) {
        return new DirSnapshot(
                source.seq,
                source.small,
                source.names,
                source.order,
                source.nextCookie,
                source.subdirs,
                source.dead,
                0,
                null,
                twins);
    }

    /**
     * {@return how this snapshot shows the entries it shares with its source ({@link Twins}), or
     * {@code null} if it shows its raw entries}
     */
    Twins twins() {
        return twins;
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
        return shown(findUnpacked(path, off, end, hash));
    }

    /**
     * {@return the raw entry named {@code path[off, end)} (not shown through {@link Twins}), or
     * {@code null}} Packs the name's first 16 chars as a dentry stores them, then {@link #find}s.
     */
    private Dentry findUnpacked(String path, int off, int end, int hash) {
        long a = 0;
        long b = 0;
        for (int i = 0, n = Math.min(end - off, 16); i < n; i++) {
            char ch = path.charAt(off + i);
            if (ch > 0xFF) {
                return null; // not internal form: equals no name
            }
            if (i < 8) {
                a |= (long) ch << (i << 3);
            } else {
                b |= (long) ch << ((i - 8) << 3);
            }
        }
        return find(path, off, end, hash, a, b);
    }

    /**
     * As {@link #lookup(String, int, int, int)}, for a caller that packed the name's first 16 chars
     * while it scanned them (the path walk): the name is not read again unless it is longer than
     * 16.
     *
     * @param path a string holding the name (internal form; the caller checked that no char of its
     *     first 16 is above {@code 0xFF})
     * @param off index of the name's first char
     * @param end index just past its last char
     * @param hash the name's {@link String#hashCode()}
     * @param a its chars 0 to 7, one per byte, low byte first, zero past the end
     * @param b its chars 8 to 15, likewise
     * @return the dentry, or {@code null} if absent
     */
    public Dentry lookup(String path, int off, int end, int hash, long a, long b) {
        return shown(find(path, off, end, hash, a, b));
    }

    /** The lookup of both forms: a scan of the small array, or the trie. */
    private Dentry find(String src, int off, int end, int hash, long a, long b) {
        Dentry[] sm = small;
        if (sm == null) {
            return names.get(src, off, end, hash, a, b);
        }
        int len = end - off;
        for (Dentry d : sm) {
            if (d.matches(src, off, len, hash, a, b)) {
                return d;
            }
        }
        return null;
    }

    /** {@return the index of {@code name} in the small array, or -1} */
    private static int indexOf(Dentry[] sm, String name) {
        int hash = name.hashCode();
        int len = name.length();
        for (int i = 0; i < sm.length; i++) {
            if (sm[i].matches(name, 0, len, hash)) {
                return i;
            }
        }
        return -1;
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
        Dentry d = new Dentry(name, inode, nextCookie, 0);
        int sub = inode.type() == FileType.DIRECTORY ? subdirs + 1 : subdirs;
        Dentry[] sm = small;
        if (sm != null) {
            int at = indexOf(sm, name);
            Dentry[] e;
            if (at < 0) {
                e = Arrays.copyOf(sm, sm.length + 1);
            } else {
                if (sm[at].inode().type() == FileType.DIRECTORY) {
                    sub--;
                }
                e = new Dentry[sm.length];
                System.arraycopy(sm, 0, e, 0, at);
                System.arraycopy(sm, at + 1, e, at, sm.length - at - 1);
            }
            e[e.length - 1] = d;
            return of(seq + 1, e, nextCookie + 1, sub, false, gen, prevAcquire(), twins);
        }
        Dentry old = findUnpacked(name, 0, name.length(), name.hashCode());
        TreeMap<Object, Dentry> o = order;
        if (old != null) {
            o = o.removed(old.cookie());
            if (old.inode().type() == FileType.DIRECTORY) {
                sub--;
            }
        }
        NameTable n = names.with(d);
        o = o.updated(nextCookie, d);
        return new DirSnapshot(
                seq + 1, null, n, o, nextCookie + 1, sub, false, gen, prevAcquire(), twins);
    }

    /**
     * {@return a version without {@code name}; this snapshot if it is absent}
     *
     * @param name the name, in internal form
     */
    public DirSnapshot without(String name) {
        Dentry[] sm = small;
        if (sm != null) {
            int at = indexOf(sm, name);
            if (at < 0) {
                return this;
            }
            int sub = sm[at].inode().type() == FileType.DIRECTORY ? subdirs - 1 : subdirs;
            Dentry[] e = new Dentry[sm.length - 1];
            System.arraycopy(sm, 0, e, 0, at);
            System.arraycopy(sm, at + 1, e, at, e.length - at);
            return new DirSnapshot(
                    seq + 1, e, null, null, nextCookie, sub, false, gen, prevAcquire(), twins);
        }
        Dentry old = findUnpacked(name, 0, name.length(), name.hashCode());
        if (old == null) {
            return this;
        }
        int sub = old.inode().type() == FileType.DIRECTORY ? subdirs - 1 : subdirs;
        if (names.size() - 1 <= SMALL_MAX / 2) {
            Dentry[] all = rawEntryArray();
            Dentry[] e = new Dentry[all.length - 1];
            for (int i = 0, k = 0; i < all.length; i++) {
                if (all[i] != old) {
                    e[k++] = all[i];
                }
            }
            return new DirSnapshot(
                    seq + 1, e, null, null, nextCookie, sub, false, gen, prevAcquire(), twins);
        }
        return new DirSnapshot(
                seq + 1,
                null,
                names.without(name),
                order.removed(old.cookie()),
                nextCookie,
                sub,
                false,
                gen,
                prevAcquire(),
                twins);
    }

    /**
     * {@return every raw entry in cookie order (not shown through {@link Twins}), in a new array as
     * long as {@link #size()}}
     */
    private Dentry[] rawEntryArray() {
        Dentry[] sm = small;
        if (sm != null) {
            return sm.clone();
        }
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
        return new DirSnapshot(
                seq + 1, NO_ENTRIES, null, null, nextCookie, 0, true, gen, prevAcquire(), null);
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
        Dentry[] sm = small;
        List<Dentry> out = new ArrayList<>(Math.min(max, size()));
        if (sm != null) {
            for (Dentry d : sm) {
                if (out.size() >= max) {
                    break;
                }
                if (d.cookie() > afterCookie) {
                    out.add(shown(d));
                }
            }
            return out;
        }
        Iterator<Dentry> it = order.valuesIteratorFrom(afterCookie + 1);
        while (it.hasNext() && out.size() < max) {
            out.add(shown(it.next()));
        }
        return out;
    }

    /** {@return every entry in cookie order (a copy)} */
    public List<Dentry> entries() {
        return entriesAfter(0, Integer.MAX_VALUE);
    }

    @Override
    public String toString() {
        return "DirSnapshot[seq=" + seq + ", size=" + size() + (dead ? ", dead" : "") + "]";
    }
}
