package dev.seqvfs.actors.dir;

import dev.seqvfs.actors.inode.Inode;
import dev.seqvfs.protocol.FileType;
import java.util.ArrayList;
import java.util.List;
import scala.collection.Iterator;
import scala.collection.immutable.HashMap;
import scala.collection.immutable.TreeMap;
import scala.math.Ordering;

/**
 * One immutable version of a directory's entries: the persistent map a reader walks.
 *
 * <p>Two persistent maps share every entry: {@code names} (Scala's CHAMP
 * {@code immutable.HashMap}, name → {@link Dentry}) for lookup, and {@code order}
 * (Scala's red-black {@code immutable.TreeMap}, cookie → {@link Dentry}) for readdir.
 * Every change returns a new snapshot in O(log n), sharing structure with this one.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>{@code names} and {@code order} hold the same dentries.</li>
 *   <li>{@code seq} grows by one with each version; cookies grow and are never reused
 *       ({@code nextCookie} only increases), so a readdir cookie stays meaningful across
 *       versions: resuming after cookie {@code c} lists the entries whose cookie is
 *       greater than {@code c}.</li>
 *   <li>{@code subdirs} counts the entries that are directories (a directory's link count
 *       is {@code 2 + subdirs}).</li>
 *   <li>A dead snapshot (after {@code rmdir}) is empty and is never replaced.</li>
 * </ul>
 *
 * <p>Thread-safe (immutable). Readers obtain it from
 * {@link DirectoryInode#snapshotAcquire()}.
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
            (Ordering<Object>) (Ordering<?>) scala.math.Ordering.Long$.MODULE$;
    private static final HashMap<String, Dentry> NO_NAMES = scala.collection.immutable.HashMap$.MODULE$.empty();
    private static final TreeMap<Object, Dentry> NO_ORDER = scala.collection.immutable.TreeMap$.MODULE$.empty(LONG_ORDER);
    private static final DirSnapshot EMPTY =
            new DirSnapshot(0, NO_NAMES, NO_ORDER, FIRST_COOKIE, 0, false);

    private final long seq;
    private final HashMap<String, Dentry> names;
    private final TreeMap<Object, Dentry> order;
    private final long nextCookie;
    private final int subdirs;
    private final boolean dead;

    private DirSnapshot(long seq, HashMap<String, Dentry> names, TreeMap<Object, Dentry> order,
                        long nextCookie, int subdirs, boolean dead) {
        this.seq = seq;
        this.names = names;
        this.order = order;
        this.nextCookie = nextCookie;
        this.subdirs = subdirs;
        this.dead = dead;
    }

    /** Returns the snapshot of a new, empty directory (version 0). */
    public static DirSnapshot empty() {
        return EMPTY;
    }

    /** Returns the version number; each published change adds one. */
    public long seq() {
        return seq;
    }

    /** Returns whether the directory has been removed ({@code rmdir}, or replaced by a rename). */
    public boolean isDead() {
        return dead;
    }

    /** Returns the number of entries (without "." and ".."). */
    public int size() {
        return names.size();
    }

    /** Returns whether there are no entries. */
    public boolean isEmpty() {
        return names.isEmpty();
    }

    /** Returns the number of entries that are directories. */
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
        return names.getOrElse(name, NULL_SUPPLIER);
    }

    private static final scala.Function0<Dentry> NULL_SUPPLIER = () -> null;

    /**
     * Returns a version with {@code name} bound to {@code inode}, replacing any existing
     * binding of that name. The new dentry gets the next cookie.
     */
    public DirSnapshot with(String name, Inode inode) {
        Dentry old = lookup(name);
        HashMap<String, Dentry> n = names;
        TreeMap<Object, Dentry> o = order;
        int sub = subdirs;
        if (old != null) {
            o = o.removed(old.cookie());
            if (old.inode().type() == FileType.DIRECTORY) {
                sub--;
            }
        }
        Dentry d = new Dentry(name, inode, nextCookie, 0);
        n = n.updated(name, d);
        o = o.updated(nextCookie, d);
        if (inode.type() == FileType.DIRECTORY) {
            sub++;
        }
        return new DirSnapshot(seq + 1, n, o, nextCookie + 1, sub, false);
    }

    /** Returns a version without {@code name}; this snapshot if it is absent. */
    public DirSnapshot without(String name) {
        Dentry old = lookup(name);
        if (old == null) {
            return this;
        }
        int sub = old.inode().type() == FileType.DIRECTORY ? subdirs - 1 : subdirs;
        return new DirSnapshot(seq + 1, names.removed(name), order.removed(old.cookie()),
                nextCookie, sub, false);
    }

    /** Returns the dead, empty version a removed directory publishes, once. */
    public DirSnapshot killed() {
        if (dead) {
            throw new IllegalStateException("directory snapshot already dead");
        }
        return new DirSnapshot(seq + 1, NO_NAMES, NO_ORDER, nextCookie, 0, true);
    }

    /**
     * Lists up to {@code max} entries whose cookie is greater than {@code afterCookie}, in
     * cookie order.
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

    /** Returns every entry in cookie order (a copy). */
    public List<Dentry> entries() {
        return entriesAfter(0, Integer.MAX_VALUE);
    }

    @Override
    public String toString() {
        return "DirSnapshot[seq=" + seq + ", size=" + names.size() + (dead ? ", dead" : "") + "]";
    }
}
