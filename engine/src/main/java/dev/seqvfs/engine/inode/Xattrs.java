package dev.seqvfs.engine.inode;

import java.util.Arrays;
import java.util.List;

/**
 * One immutable version of an inode's extended attributes ({@code xattr(7)}): names (full, with
 * their namespace prefix, {@code "user.mime"}) mapped to values (0 to {@link
 * dev.seqvfs.protocol.Xattr#XATTR_SIZE_MAX} bytes), kept sorted by name as tmpfs's {@code
 * simple_xattrs} tree keeps them, so {@code listxattr} lists them in that order.
 *
 * <p>Part of {@link InodeAttrs}, so it has the attributes' one writer and is published with them
 * (see {@code CONCURRENCY.md}): a change builds a new version with {@link #with} or {@link
 * #without}; nothing mutates one in place. Values are copied in and out, so no caller holds an
 * array another can change. Most inodes have none: {@link #EMPTY} is shared.
 *
 * <p>Lookups are a binary search over the names (an inode has a handful); a set or remove copies
 * the two arrays (O(n)).
 */
public final class Xattrs {
    /** No extended attributes. */
    public static final Xattrs EMPTY = new Xattrs(new String[0], new byte[0][]);

    private final String[] names;
    private final byte[][] values;

    private Xattrs(String[] names, byte[][] values) {
        this.names = names;
        this.values = values;
    }

    /** {@return how many attributes there are} */
    public int size() {
        return names.length;
    }

    /**
     * {@return the space the attributes take, in bytes: for each, 40 plus its name's UTF-8 length
     * plus its value's (Linux's {@code simple_xattr_space})} What a superblock's attribute space is
     * charged ({@link InodeOwner#chargeXattrSpace}).
     */
    public long space() {
        long n = 0;
        for (int i = 0; i < names.length; i++) {
            n +=
                    40
                            + names[i].getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                            + values[i].length;
        }
        return n;
    }

    /**
     * {@return a copy of the value of {@code name}, or {@code null} if there is none}
     *
     * @param name the full name, prefix included
     */
    public byte[] get(String name) {
        int i = Arrays.binarySearch(names, name);
        return i < 0 ? null : values[i].clone();
    }

    /**
     * {@return whether {@code name} has a value}
     *
     * @param name the full name, prefix included
     */
    public boolean contains(String name) {
        return Arrays.binarySearch(names, name) >= 0;
    }

    /** {@return the names, in order} */
    public List<String> names() {
        return List.of(names);
    }

    /**
     * {@return a version with {@code name} set to a copy of {@code value}}
     *
     * @param name the full name, prefix included
     * @param value the value
     */
    public Xattrs with(String name, byte[] value) {
        int i = Arrays.binarySearch(names, name);
        if (i >= 0) {
            byte[][] v = values.clone();
            v[i] = value.clone();
            return new Xattrs(names, v);
        }
        int at = -i - 1;
        String[] n = new String[names.length + 1];
        byte[][] v = new byte[values.length + 1][];
        System.arraycopy(names, 0, n, 0, at);
        System.arraycopy(values, 0, v, 0, at);
        n[at] = name;
        v[at] = value.clone();
        System.arraycopy(names, at, n, at + 1, names.length - at);
        System.arraycopy(values, at, v, at + 1, values.length - at);
        return new Xattrs(n, v);
    }

    /**
     * {@return a version without {@code name} (this one if it has none)}
     *
     * @param name the full name, prefix included
     */
    public Xattrs without(String name) {
        int i = Arrays.binarySearch(names, name);
        if (i < 0) {
            return this;
        }
        if (names.length == 1) {
            return EMPTY;
        }
        String[] n = new String[names.length - 1];
        byte[][] v = new byte[values.length - 1][];
        System.arraycopy(names, 0, n, 0, i);
        System.arraycopy(values, 0, v, 0, i);
        System.arraycopy(names, i + 1, n, i, names.length - i - 1);
        System.arraycopy(values, i + 1, v, i, values.length - i - 1);
        return new Xattrs(n, v);
    }

    @Override
    public String toString() {
        return "Xattrs" + Arrays.toString(names);
    }
}
