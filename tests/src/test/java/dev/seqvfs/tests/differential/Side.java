package dev.seqvfs.tests.differential;

import java.util.List;

/**
 * One side of the differential test: something that makes namespace calls and reports their results
 * in a canonical text form, so that the two sides compare as strings.
 *
 * <p>Canonical forms (built by {@link Outcomes}): {@code "0"} for success without data, the
 * descriptor number for {@code open}, the errno's name for a failure ({@code "ENOENT"}), a stat
 * record with the inode named by order of first appearance ({@code "#3"}) instead of its number,
 * quoted strings for {@code readlink} and {@code getcwd}.
 */
interface Side extends AutoCloseable {
    /** Makes the call and returns its canonical result. */
    String apply(Op op);

    /**
     * Returns the whole tree from {@code "/"}, one line per name in name order, each inode named by
     * order of appearance in the walk (hard links share a name).
     */
    List<String> tree();

    /** Returns a short name for reports ("host", "vfs"). */
    String name();

    @Override
    void close();
}
