package dev.seqvfs.engine.dir;

import java.util.Arrays;
import java.util.function.UnaryOperator;

/**
 * A persistent hash array mapped trie from names to the {@link Dentry}s that carry them: the lookup
 * half of a {@link DirSnapshot}. Written for the path walk: a lookup takes a name as a range of a
 * longer string (a path) with its {@code String} hash code computed by the caller, so a walk looks
 * a component up without making a substring, and it makes no call that is not inlined (no boxing,
 * no callback, no shared {@code equals} call site).
 *
 * <h2>Structure</h2>
 *
 * A name's {@link String#hashCode()} is mixed ({@link #mix}, a bijection on {@code int}) and
 * consumed five bits per level from the low end. A {@link Node} holds a 32-bit bitmap and, in bit
 * order, one slot per set bit: a {@code Dentry} (the only name under that prefix), a deeper {@code
 * Node}, or a {@link Collision} (the only names under that prefix, and they all have one hash
 * code). Invariants, kept by every update:
 *
 * <ul>
 *   <li>a {@code Node} other than the root has at least two dentries under it, not all in one
 *       {@code Collision}: a lone {@code Dentry} or {@code Collision} is stored in the slot of its
 *       parent;
 *   <li>a {@code Collision} holds at least two dentries, all with the same hash code;
 *   <li>no two entries have equal names.
 * </ul>
 *
 * Updates copy the path from the root to the changed slot (O(log32 n)) and share the rest.
 *
 * <p>Immutable, and so thread-safe once published; arrays are never written after the constructor
 * of the object that holds them returns. Readers get tables through a {@link DirSnapshot}, which is
 * published with release and read with acquire.
 */
final class NameTable {
    private static final int BITS = 5;
    private static final int MASK = (1 << BITS) - 1;

    /** The empty table. */
    static final NameTable EMPTY = new NameTable(new Node(0, new Object[0]), 0);

    private final Node root;
    private final int size;

    private NameTable(Node root, int size) {
        this.root = root;
        this.size = size;
    }

    /** Returns the number of names. */
    int size() {
        return size;
    }

    /**
     * Spreads a {@code String} hash code over all 32 bits (a bijection: equal results mean equal
     * hash codes).
     */
    static int mix(int h) {
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /**
     * Finds the dentry named {@code src[off, end)}.
     *
     * @param src the string holding the name (a path, or the name itself)
     * @param off first char of the name
     * @param end index just past its last char
     * @param hash {@code src.substring(off, end).hashCode()}
     * @param a the name's chars 0 to 7, packed as {@link Dentry#matches(String, int, int, int,
     *     long, long)} takes them
     * @param b its chars 8 to 15, packed
     * @return the dentry, or {@code null}
     */
    Dentry get(String src, int off, int end, int hash, long a, long b) {
        int len = end - off;
        int h = mix(hash);
        Node node = root;
        for (int shift = 0; ; shift += BITS) {
            int bit = 1 << ((h >>> shift) & MASK);
            int map = node.bitmap;
            if ((map & bit) == 0) {
                return null;
            }
            Object e = node.slots[Integer.bitCount(map & (bit - 1))];
            if (e instanceof Dentry d) {
                return d.matches(src, off, len, hash, a, b) ? d : null;
            }
            if (e instanceof Node n) {
                node = n;
                continue;
            }
            for (Dentry d : ((Collision) e).entries) {
                if (d.matches(src, off, len, hash, a, b)) {
                    return d;
                }
            }
            return null;
        }
    }

    /** Returns a table with {@code d} bound to its name, replacing any dentry of that name. */
    NameTable with(Dentry d) {
        String name = d.name();
        int hash = d.hash();
        boolean[] added = new boolean[1];
        Node r = insert(root, d, name, hash, mix(hash), 0, added);
        return new NameTable(r, added[0] ? size + 1 : size);
    }

    /**
     * Returns a table of the same shape in which each dentry is replaced by {@code f}'s image,
     * which must carry the same name (a fork's copy of a directory). O(n), with no hashing: one new
     * node per node.
     */
    NameTable mapped(UnaryOperator<Dentry> f) {
        return new NameTable(mapNode(root, f), size);
    }

    private static Node mapNode(Node n, UnaryOperator<Dentry> f) {
        Object[] s = new Object[n.slots.length];
        for (int i = 0; i < s.length; i++) {
            Object e = n.slots[i];
            if (e instanceof Dentry d) {
                s[i] = f.apply(d);
            } else if (e instanceof Node c) {
                s[i] = mapNode(c, f);
            } else {
                Dentry[] old = ((Collision) e).entries;
                Dentry[] mapped = new Dentry[old.length];
                for (int k = 0; k < old.length; k++) {
                    mapped[k] = f.apply(old[k]);
                }
                s[i] = new Collision(mapped);
            }
        }
        return new Node(n.bitmap, s);
    }

    /** Returns a table without {@code name}; this table if it is absent. */
    NameTable without(String name) {
        int hash = name.hashCode();
        int len = name.length();
        if (get(name, 0, len, hash, Dentry.word(name, 0, len, 0), Dentry.word(name, 0, len, 8))
                == null) {
            return this;
        }
        Object r = remove(root, name, hash, mix(hash), 0);
        // the root stays a Node even when one entry is left
        Node n =
                r instanceof Node rn
                        ? rn
                        : new Node(1 << (mix(hashOf(r)) & MASK), new Object[] {r});
        return new NameTable(n, size - 1);
    }

    private static Node insert(
            Node node, Dentry d, String name, int hash, int h, int shift, boolean[] added) {
        int bit = 1 << ((h >>> shift) & MASK);
        int idx = Integer.bitCount(node.bitmap & (bit - 1));
        if ((node.bitmap & bit) == 0) {
            added[0] = true;
            Object[] s = new Object[node.slots.length + 1];
            System.arraycopy(node.slots, 0, s, 0, idx);
            s[idx] = d;
            System.arraycopy(node.slots, idx, s, idx + 1, node.slots.length - idx);
            return new Node(node.bitmap | bit, s);
        }
        Object e = node.slots[idx];
        Object replacement;
        if (e instanceof Node n) {
            replacement = insert(n, d, name, hash, h, shift + BITS, added);
        } else if (e instanceof Dentry old) {
            if (old.name().equals(name)) {
                replacement = d;
            } else {
                added[0] = true;
                replacement = pair(old, d, shift + BITS);
            }
        } else {
            Collision c = (Collision) e;
            if (c.hash() == hash) {
                replacement = c.with(d, added);
            } else {
                added[0] = true;
                replacement = pair(c, d, shift + BITS);
            }
        }
        Object[] s = node.slots.clone();
        s[idx] = replacement;
        return new Node(node.bitmap, s);
    }

    /**
     * Returns the name hash code of a slot's lone entry: a {@code Dentry} or a {@code Collision}.
     */
    private static int hashOf(Object lone) {
        return lone instanceof Dentry d ? d.hash() : ((Collision) lone).hash();
    }

    /**
     * Builds the smallest sub-trie, from {@code shift} on, holding {@code a} (a dentry or a
     * collision) and the dentry {@code b}, whose name is not in {@code a}.
     */
    private static Object pair(Object a, Dentry b, int shift) {
        int ha = hashOf(a);
        int hb = b.hash();
        if (ha == hb) {
            // a is a dentry here: a collision of b's hash code takes b through Collision.with
            return new Collision(new Dentry[] {(Dentry) a, b});
        }
        int ma = mix(ha);
        int mb = mix(hb);
        // the mixed hashes differ, so some level below 32 bits tells them apart
        int ia = (ma >>> shift) & MASK;
        int ib = (mb >>> shift) & MASK;
        if (ia == ib) {
            return new Node(1 << ia, new Object[] {pair(a, b, shift + BITS)});
        }
        return ia < ib
                ? new Node((1 << ia) | (1 << ib), new Object[] {a, b})
                : new Node((1 << ia) | (1 << ib), new Object[] {b, a});
    }

    /**
     * Removes {@code name}, which is present under {@code node}. Returns the new node, or the
     * single remaining entry (a {@code Dentry} or {@code Collision}) when only one is left directly
     * under it and it holds nothing deeper, for the caller to inline.
     */
    private static Object remove(Node node, String name, int hash, int h, int shift) {
        int bit = 1 << ((h >>> shift) & MASK);
        int idx = Integer.bitCount(node.bitmap & (bit - 1));
        Object e = node.slots[idx];
        Object replacement;
        if (e instanceof Dentry) {
            replacement = null;
        } else if (e instanceof Node n) {
            replacement = remove(n, name, hash, h, shift + BITS);
        } else {
            replacement = ((Collision) e).without(name);
        }
        if (replacement == null) {
            if (node.slots.length == 2) {
                Object other = node.slots[1 - idx];
                if (!(other instanceof Node)) {
                    return other;
                }
            }
            Object[] s = new Object[node.slots.length - 1];
            System.arraycopy(node.slots, 0, s, 0, idx);
            System.arraycopy(node.slots, idx + 1, s, idx, s.length - idx);
            return new Node(node.bitmap & ~bit, s);
        }
        if (node.slots.length == 1 && !(replacement instanceof Node)) {
            return replacement;
        }
        Object[] s = node.slots.clone();
        s[idx] = replacement;
        return new Node(node.bitmap, s);
    }

    /** One level of the trie. */
    private static final class Node {
        final int bitmap;
        final Object[] slots;

        Node(int bitmap, Object[] slots) {
            this.bitmap = bitmap;
            this.slots = slots;
        }
    }

    /** Dentries whose names have equal hash codes, in insertion order. */
    private static final class Collision {
        final Dentry[] entries;

        Collision(Dentry[] entries) {
            this.entries = entries;
        }

        /** The hash code every name here shares. */
        int hash() {
            return entries[0].hash();
        }

        Collision with(Dentry d, boolean[] added) {
            for (int i = 0; i < entries.length; i++) {
                if (entries[i].name().equals(d.name())) {
                    Dentry[] e = entries.clone();
                    e[i] = d;
                    return new Collision(e);
                }
            }
            added[0] = true;
            Dentry[] e = Arrays.copyOf(entries, entries.length + 1);
            e[entries.length] = d;
            return new Collision(e);
        }

        /** Returns the collision without {@code name} (present), or the lone dentry left. */
        Object without(String name) {
            int n = entries.length;
            Dentry[] e = new Dentry[n - 1];
            for (int i = 0, k = 0; i < n; i++) {
                if (!entries[i].name().equals(name)) {
                    e[k++] = entries[i];
                }
            }
            return e.length == 1 ? e[0] : new Collision(e);
        }
    }
}
