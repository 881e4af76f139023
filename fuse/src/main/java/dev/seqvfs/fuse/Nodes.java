package dev.seqvfs.fuse;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The kernel's node ids and what they stand for: one engine inode each, held by an {@code O_PATH}
 * descriptor of the server's shared descriptor table, so that the node stays usable whatever
 * happens to its names (unlinked while open, renamed, the opening name gone while another hard link
 * remains: the inode is reached through the descriptor, never by a path). Every request on a node
 * is made relative to that descriptor ({@code fstatat(fd, "", AT_EMPTY_PATH)}, {@code reopen(fd)},
 * {@code unlinkat(fd, name)}, ...).
 *
 * <p><b>Lifecycle</b> (the kernel's, {@code fuse.h}): each entry reply (LOOKUP, CREATE, MKNOD,
 * MKDIR, SYMLINK, LINK) that names a node counts one lookup of it; FORGET and BATCH_FORGET give
 * counts back; at zero the kernel has forgotten the id, the node is dead and its descriptor closed.
 * Node ids are never reused within a mount, so a late request for a dead id finds nothing ({@code
 * ESTALE}); a later lookup of the same inode makes a new node. The root ({@link FuseAbi#ROOT_ID})
 * is never forgotten. At most one live node stands for an inode ({@code (st_dev, st_ino)}, a pair
 * that cannot be reused while the node's descriptor holds the inode), so hard links share a node as
 * they share a kernel inode.
 *
 * <p><b>Concurrency.</b> Two concurrent maps: id → node and inode → node. A node's lookup count and
 * its states (live → dead) are guarded by the node's monitor; {@link #ref} fails on a dead node, so
 * a lookup racing the last FORGET makes a new node instead of reviving an id the kernel forgot. A
 * new node is published by id first, then by inode, so that no reply can name an id that {@link
 * #get} does not find yet. Thread-safe.
 */
final class Nodes {
    /** One node: an id the kernel knows and the {@code O_PATH} descriptor of its inode. */
    static final class Node {
        final long id;
        final int fd;
        final long dev;
        final long ino;

        /** Lookups the kernel holds (guarded by this). */
        private long lookups;

        /** Set once, when the count reached zero (guarded by this). */
        private boolean dead;

        Node(long id, int fd, long dev, long ino, long lookups) {
            this.id = id;
            this.fd = fd;
            this.dev = dev;
            this.ino = ino;
            this.lookups = lookups;
        }

        /** Adds one lookup; {@code false} if the node is dead (its id forgotten). */
        synchronized boolean ref() {
            if (dead) {
                return false;
            }
            lookups++;
            return true;
        }

        /** Gives back {@code n} lookups; {@code true} if that killed the node (live → dead). */
        synchronized boolean unref(long n) {
            if (dead) {
                return false;
            }
            lookups -= n;
            if (lookups <= 0) {
                dead = true;
                return true;
            }
            return false;
        }

        @Override
        public String toString() {
            return "node " + id + " (ino " + ino + ", fd " + fd + ")";
        }
    }

    private record Key(long dev, long ino) {}

    private final VfsTask server;
    private final ConcurrentHashMap<Long, Node> byId = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Key, Node> byInode = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(FuseAbi.ROOT_ID + 1);
    private final Node root;

    /**
     * Makes the table with the root node: {@code O_PATH} of the server task's {@code "/"}.
     *
     * @param server the task whose descriptor table holds every node's descriptor
     */
    Nodes(VfsTask server) {
        this.server = server;
        int fd = server.open("/", OpenFlags.O_PATH | OpenFlags.O_DIRECTORY | OpenFlags.O_CLOEXEC);
        Stat st = server.fstat(fd);
        root = new Node(FuseAbi.ROOT_ID, fd, st.dev(), st.ino(), 1);
        byId.put(root.id, root);
        byInode.put(new Key(st.dev(), st.ino()), root);
    }

    /** {@return the root node} */
    Node root() {
        return root;
    }

    /** {@return the live node {@code id}, or {@code null} (never made, or forgotten)} */
    Node get(long id) {
        return byId.get(id);
    }

    /** {@return the number of live nodes, the root included} */
    int size() {
        return byId.size();
    }

    /**
     * Returns the node of the inode {@code st} describes, which {@code name} in {@code parent}
     * names now, with one more lookup: the live node of that inode if there is one, else a new node
     * with a descriptor opened ({@code O_PATH | O_NOFOLLOW}) by {@code caller} through that name.
     * If the name changed meanwhile, the node is that of what the descriptor opened.
     *
     * @throws dev.seqvfs.protocol.VfsException as {@code openat} fails ({@code ENOENT} if the name
     *     went away, {@code EACCES}, {@code EMFILE}); no lookup is counted then
     */
    Node lookup(VfsTask caller, Node parent, CharSequence name, Stat st) {
        Node n = byInode.get(new Key(st.dev(), st.ino()));
        if (n != null && n.ref()) {
            return n;
        }
        int fd =
                caller.openat(
                        parent.fd,
                        name,
                        OpenFlags.O_PATH | OpenFlags.O_NOFOLLOW | OpenFlags.O_CLOEXEC,
                        0);
        return install(fd);
    }

    /**
     * Returns the node of the inode open on {@code fd} (any descriptor of the shared table), with
     * one more lookup; a new node gets an {@code O_PATH} descriptor of its own ({@code reopen}).
     */
    Node ofDescriptor(int fd, Stat st) {
        Node n = byInode.get(new Key(st.dev(), st.ino()));
        if (n != null && n.ref()) {
            return n;
        }
        return install(server.reopen(fd, OpenFlags.O_PATH | OpenFlags.O_CLOEXEC));
    }

    /**
     * Makes {@code fd} (a fresh {@code O_PATH} descriptor) a node with one lookup, or, if another
     * thread made a live node of the same inode meanwhile, closes {@code fd} and counts a lookup of
     * that one.
     */
    private Node install(int fd) {
        Stat st;
        try {
            st = server.fstat(fd);
        } catch (RuntimeException e) {
            server.close(fd);
            throw e;
        }
        Key k = new Key(st.dev(), st.ino());
        while (true) {
            Node existing = byInode.get(k);
            if (existing != null) {
                if (existing.ref()) {
                    server.close(fd);
                    return existing;
                }
                byInode.remove(k, existing); // dead: its forget is removing it
                continue;
            }
            Node n = new Node(nextId.getAndIncrement(), fd, st.dev(), st.ino(), 1);
            byId.put(n.id, n);
            if (byInode.putIfAbsent(k, n) == null) {
                return n;
            }
            byId.remove(n.id);
        }
    }

    /**
     * Gives back {@code count} lookups of node {@code id} ({@code FORGET}); at zero the node is
     * dropped and its descriptor closed. An unknown id (already forgotten) and the root are
     * ignored.
     */
    void forget(long id, long count) {
        Node n = byId.get(id);
        if (n == null || n == root) {
            return;
        }
        if (n.unref(count)) {
            byInode.remove(new Key(n.dev, n.ino), n);
            byId.remove(n.id, n);
            try {
                server.close(n.fd);
            } catch (RuntimeException e) {
                // the instance is closing: its descriptors go with it
            }
        }
    }

    /** Closes every node's descriptor (the session has ended: the kernel holds no id any more). */
    void closeAll() {
        for (Node n : byId.values()) {
            if (byId.remove(n.id, n)) {
                try {
                    server.close(n.fd);
                } catch (RuntimeException e) {
                    // the instance may be closed already; its descriptors went with it
                }
            }
        }
        byInode.clear();
    }
}
