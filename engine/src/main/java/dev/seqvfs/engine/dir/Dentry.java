package dev.seqvfs.engine.dir;

import dev.seqvfs.engine.inode.Inode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A directory entry ({@code struct dentry}): a name bound to an inode inside one {@link
 * DirSnapshot}, with the readdir cookie it was given when it was inserted.
 *
 * <p>Its binding is immutable. A new {@code Dentry} object is made for every insertion and never
 * re-inserted after its removal, so "the same {@code Dentry} object is still in the directory"
 * means "this binding has held continuously" — the property the optimistic walk's per-entry
 * validation relies on. Equality is identity.
 *
 * <h2>Concurrency: the forwarding reference</h2>
 *
 * One field is written after construction: {@code moved}, set when a rename removes this binding
 * and binds the same inode elsewhere (Linux moves the dentry itself, so {@code d_path} of an open
 * file follows it; SeqVFS makes a new dentry and leaves this forwarding reference in the old one).
 * The protocol:
 *
 * <ul>
 *   <li>Writer: the party publishing the rename ({@link RenamePlan#publishEntries}), after the
 *       snapshot holding the new dentry is published and before the snapshot that removes this one
 *       is, stores it with release ({@link #publishMovedRelease}). Each dentry is removed at most
 *       once, so the field is set once while the dentry is unbound; a rename whose snapshot CAS
 *       fails withdraws its forward (stores {@code null}) while the dentry is still bound, so no
 *       reader follows it.
 *   <li>Reader ({@code /proc/<pid>/fd/N}): first checks whether the dentry is still bound (its
 *       directory's snapshot, read with acquire, maps its name to this object); only if not, reads
 *       {@link #movedAcquire()}. The snapshot that removed the dentry was published with release
 *       after {@code moved} was stored, so a reader that saw the removal sees the forward: {@code
 *       null} then means the binding was unlinked (or replaced by a rename over it, or the
 *       directory removed). A cross-directory exchange removes one dentry before its new twin is
 *       published; the reader samples the rename sequence around its whole chain walk and retries
 *       when it moved, so it never shows that window.
 * </ul>
 *
 * Readers of the binding itself (walks) never read {@code moved}.
 */
public final class Dentry {
    private static final VarHandle MOVED;

    static {
        try {
            MOVED = MethodHandles.lookup().findVarHandle(Dentry.class, "moved", Moved.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The dentry is its own parent and in no directory (pipes, sockets, anon inodes; seeds 000,
     * 003).
     */
    public static final int DCACHE_DISCONNECTED = 1;

    /** The dentry is in no hash table: no lookup can find it. */
    public static final int DCACHE_UNHASHED = 1 << 1;

    /**
     * Where a renamed binding went: the directory and the dentry that bind the same inode after the
     * rename. Immutable.
     *
     * @param dir the new parent directory
     * @param dentry the new dentry in it
     */
    public record Moved(DirectoryInode dir, Dentry dentry) {}

    private final String name;
    private final Inode inode;
    private final long cookie;
    private final int flags;

    /**
     * {@code name.hashCode()}, beside the binding: a lookup compares it without the name's object.
     */
    private final int hash;

    /** {@code name.length()}. */
    private final int length;

    /**
     * The name's first 16 chars, one per byte (internal form: every char is below 256), 8 to a
     * long, low byte first, zero beyond its end: a lookup compares a name of up to 16 chars with
     * these two words, never loading the name's {@code String} and its array (the walk was bound by
     * those two cache misses per component).
     */
    private final long w0;

    private final long w1;

    @SuppressWarnings("unused") // accessed through MOVED
    private volatile Moved moved;

    /**
     * Makes an entry.
     *
     * @param name the component, in internal form (one char per byte)
     * @param inode the inode it names
     * @param cookie its position in readdir order, unique within the directory, never reused
     * @param flags {@code DCACHE_*} bits
     */
    public Dentry(String name, Inode inode, long cookie, int flags) {
        this.name = name;
        this.inode = inode;
        this.cookie = cookie;
        this.flags = flags;
        this.hash = name.hashCode();
        this.length = name.length();
        this.w0 = word(name, 0, length, 0);
        this.w1 = word(name, 0, length, 8);
    }

    /**
     * {@return chars {@code [off + from, off + from + 8)} of {@code s}, capped at {@code len}, one
     * per byte (internal form), low byte first, zero beyond the end}
     */
    static long word(String s, int off, int len, int from) {
        long w = 0;
        for (int i = from, end = Math.min(len, from + 8); i < end; i++) {
            w |= (long) (s.charAt(off + i) & 0xFF) << ((i - from) << 3);
        }
        return w;
    }

    /** {@return {@code name().hashCode()}, without loading the name} */
    public int hash() {
        return hash;
    }

    /**
     * {@return whether this dentry's name equals {@code src[off, off + len)}, whose {@link
     * String#hashCode()} is {@code hash}} Names of up to 16 chars are compared by their packed
     * words, without loading the name's {@code String}; longer ones char by char. Allocates
     * nothing.
     *
     * @param src a string holding the component (internal form)
     * @param off the component's first index
     * @param len its length
     * @param hash its hash code
     */
    public boolean matches(String src, int off, int len, int hash) {
        if (this.hash != hash || this.length != len) {
            return false;
        }
        long a = 0;
        long b = 0;
        for (int i = 0, n = Math.min(len, 16); i < n; i++) {
            char ch = src.charAt(off + i);
            if (ch > 0xFF) {
                return false; // not internal form: equals no stored name
            }
            if (i < 8) {
                a |= (long) ch << (i << 3);
            } else {
                b |= (long) ch << ((i - 8) << 3);
            }
        }
        return matches(src, off, len, hash, a, b);
    }

    /**
     * As {@link #matches(String, int, int, int)}, for a caller that packed the component's first 16
     * chars itself while it scanned them (the path walk), as a name stores them: chars 0 to 7 in
     * {@code a} and 8 to 15 in {@code b}, one per byte, low byte first, zero beyond the end. The
     * chars are not read again unless the name is longer than 16. The caller has checked that they
     * are in internal form (none above {@code 0xFF}): a component with such a char equals no stored
     * name.
     *
     * @param src a string holding the component (internal form)
     * @param off the component's first index
     * @param len its length
     * @param hash its hash code
     * @param a its chars 0 to 7, packed
     * @param b its chars 8 to 15, packed
     * @return whether this dentry's name is that component
     */
    public boolean matches(String src, int off, int len, int hash, long a, long b) {
        if (this.hash != hash || this.length != len || a != w0 || b != w1) {
            return false;
        }
        return len <= 16 || name.regionMatches(16, src, off + 16, len - 16);
    }

    /** {@return the component, in internal form} */
    public String name() {
        return name;
    }

    /** {@return the inode it names} */
    public Inode inode() {
        return inode;
    }

    /** {@return its readdir cookie} */
    public long cookie() {
        return cookie;
    }

    /** {@return its {@code DCACHE_*} bits} */
    public int flags() {
        return flags;
    }

    /** {@return whether this dentry is disconnected (its own parent)} */
    public boolean isDisconnected() {
        return (flags & DCACHE_DISCONNECTED) != 0;
    }

    /**
     * {@return where a rename moved this binding, with acquire; {@code null} if it was not moved
     * (still bound, or unlinked)} Meaningful only once the caller has seen the binding removed from
     * its directory's snapshot (see the class comment).
     */
    public Moved movedAcquire() {
        return (Moved) MOVED.getAcquire(this);
    }

    /**
     * Records, with release, where a rename moved this binding. Called by the rename's publisher
     * after publishing {@code to} and before publishing the snapshot that removes this dentry;
     * {@code null} withdraws a forward whose rename failed before it removed this dentry (the
     * binding still holds, so no reader follows it).
     */
    void publishMovedRelease(Moved to) {
        MOVED.setRelease(this, to);
    }

    @Override
    public String toString() {
        return "Dentry[" + name + " -> " + inode + ", cookie=" + cookie + "]";
    }
}
