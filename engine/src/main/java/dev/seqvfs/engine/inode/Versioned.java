package dev.seqvfs.engine.inode;

/**
 * One published version of a piece of state that a fork of its superblock may still have to read
 * after the state changed ({@code SeqVfs.fork()}, issue 15): an immutable value tagged with the
 * <em>fork generation</em> of its superblock in which it was published, and linked to the version
 * it replaced when that one belongs to an older generation. The snapshotting file systems' scheme
 * (btrfs and ZFS tag every block with the transaction generation that wrote it, and a snapshot
 * keeps the blocks older than its own generation): a fork bumps the superblock's generation from
 * {@code k - 1} to {@code k} and then reads, of each object, the newest version tagged below {@code
 * k}; the writer that first replaces a version after the bump keeps it reachable through {@link
 * #prevAcquire()} of the new one.
 *
 * <p>Implemented by {@code DirSnapshot} (a directory's entries), {@link InodeAttrs} (an inode's
 * attributes). A file's data keeps the same chain in its inode, under the file's write lock ({@link
 * RegularInode}).
 *
 * <h2>Concurrency</h2>
 *
 * {@link #gen()} is final. The link to the older version is set before the version is published
 * (the publishing CAS or release store orders it) and changes once at most afterwards: {@link
 * #dropPrev()} clears it (release) when no fork still open can read past this version ({@link
 * #prevFor}). Readers load it with acquire; a reader that finds it cleared belongs to a fork that
 * was closed (a live fork never walks past the version that is the newest below its generation),
 * and gets the oldest version left.
 *
 * @param <V> the implementing type
 */
public interface Versioned<V extends Versioned<V>> {
    /**
     * The generation of an {@link InodeAttrs} made and not yet published by an inode: the inode's
     * constructor tags it with its superblock's current generation (a new inode is in no fork taken
     * before).
     */
    long UNTAGGED = -1;

    /** {@return the fork generation in which this version was published} */
    long gen();

    /**
     * {@return the version this one replaced, if that one was published in an older generation and
     * a fork may still read it (acquire); else {@code null}}
     */
    V prevAcquire();

    /** Clears the link to older versions (release store): no open fork reads past this one. */
    void dropPrev();

    /**
     * {@return the version a fork taken when the generation went to {@code k} reads: the newest
     * version in {@code cur}'s chain published below generation {@code k}} O(the generations in
     * which the object changed since); lock-free, allocates nothing. If the chain was cut above
     * (only for a fork that was closed meanwhile), the oldest version left.
     *
     * @param cur the current version (acquire)
     * @param k the fork's generation: the superblock's generation just after the fork
     * @param <V> the versioned type
     */
    static <V extends Versioned<V>> V at(V cur, long k) {
        V v = cur;
        while (v.gen() >= k) {
            V p = v.prevAcquire();
            if (p == null) {
                return v;
            }
            v = p;
        }
        return v;
    }

    /**
     * {@return the link to older versions that the version replacing {@code cur} in generation
     * {@code gen} must carry, and cuts the chain below what the oldest open fork reads} The
     * writer's side of the protocol, called between reading {@code cur} and publishing its
     * replacement, with {@code gen} and {@code oldest} read in that order (the generation first: a
     * fork registers its generation before it bumps it, so a writer that sees the bump sees the
     * fork): {@code null} if no fork is open ({@code oldest > gen}); {@code cur} itself if it
     * belongs to an older generation than {@code gen} (a fork taken since may read it); else what
     * {@code cur} carries. The chain below the newest version that the oldest open fork reads is
     * dropped ({@link #dropPrev()}), so it holds one version per generation in which the object
     * changed, and only while a fork may read it.
     *
     * @param cur the version being replaced
     * @param gen the superblock's generation now, in which the replacement is published
     * @param oldest the generation of the oldest open fork of the superblock ({@code
     *     Long.MAX_VALUE}: none)
     * @param <V> the versioned type
     */
    static <V extends Versioned<V>> V prevFor(V cur, long gen, long oldest) {
        if (oldest > gen) {
            return null;
        }
        V p = cur.gen() < gen ? cur : cur.prevAcquire();
        for (V v = p; v != null; v = v.prevAcquire()) {
            if (v.gen() < oldest) {
                if (v.prevAcquire() != null) {
                    v.dropPrev();
                }
                break;
            }
        }
        return p;
    }
}
