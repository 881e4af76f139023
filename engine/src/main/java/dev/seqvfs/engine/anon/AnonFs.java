package dev.seqvfs.engine.anon;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeOwner;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsClock;
import dev.seqvfs.protocol.VfsException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The internal superblock of anonymous inodes (pipefs, sockfs and anon_inodefs in one).
 *
 * <h2>Concurrency</h2>
 *
 * New layout (default): an inode number comes from the calling thread's batch of {@link #BATCH}
 * numbers (one shared atomic add per batch); the live and created counts are {@link LongAdder}s;
 * the dentry is its own parent, in no list. Nothing shared is written on the create/close path
 * except one striped counter cell. Old layout ({@code shared-root}): one shared {@link AtomicLong}
 * for inode numbers and one for the live count (Linux's {@code last_ino} and {@code nr_inodes} of
 * 2008), and every dentry attached to the {@link PseudoRoot} under its lock.
 */
public final class AnonFs implements InodeOwner {
    /** Inode numbers a thread takes at a time. */
    public static final int BATCH = 1024;

    private final long dev;
    private final VfsClock clock;
    private final boolean sharedRoot;
    private final AtomicLong batches = new AtomicLong(1);
    private final ThreadLocal<long[]> batch = ThreadLocal.withInitial(() -> new long[2]);
    private final LongAdder live = new LongAdder();
    private final LongAdder created = new LongAdder();
    private final AtomicLong sharedLastIno = new AtomicLong();
    private final AtomicLong sharedLive = new AtomicLong();
    private final PseudoRoot root = new PseudoRoot();

    /**
     * Creates the anonymous file system.
     *
     * @param dev its device id
     * @param clock time source
     * @param sharedRoot whether to use the old shared-pseudo-root layout
     */
    public AnonFs(long dev, VfsClock clock, boolean sharedRoot) {
        this.dev = dev;
        this.clock = clock;
        this.sharedRoot = sharedRoot;
    }

    @Override
    public long dev() {
        return dev;
    }

    @Override
    public long now() {
        return clock.nowNanos();
    }

    /** {@return whether the old shared-root layout is in use} */
    public boolean sharedRoot() {
        return sharedRoot;
    }

    /**
     * Creates an anonymous inode and its disconnected dentry.
     *
     * @param mode type and permission bits ({@code S_IFIFO | 0600}, {@code S_IFSOCK | 0777}, ...)
     * @param uid owner
     * @param gid group
     * @param kind {@code "pipe"}, {@code "socket"} or {@code "[name]"}
     * @param fileOps what an open of the inode through {@code /proc/<pid>/fd/N} does ({@code
     *     i_fop})
     * @return the new inode, its dentry set
     */
    public AnonInode create(int mode, int uid, int gid, String kind, FileOperations fileOps) {
        long ino;
        if (sharedRoot) {
            ino = sharedLastIno.incrementAndGet();
            sharedLive.incrementAndGet();
        } else {
            long[] b = batch.get();
            if (b[0] == b[1]) {
                b[0] = batches.getAndAdd(BATCH);
                b[1] = b[0] + BATCH;
            }
            ino = b[0]++;
            live.increment();
        }
        created.increment();
        AnonInode inode =
                new AnonInode(
                        ino,
                        this,
                        InodeAttrs.create(mode, 1, uid, gid, 0, 0, clock.nowNanos()),
                        kind,
                        fileOps);
        Dentry d =
                new Dentry(
                        inode.linkName(),
                        inode,
                        0,
                        Dentry.DCACHE_DISCONNECTED | Dentry.DCACHE_UNHASHED);
        inode.setDentry(d);
        if (sharedRoot) {
            root.attach(d);
        }
        return inode;
    }

    /** {@code st_blksize} of pipes and sockets: a page, as Linux reports it. */
    @Override
    public int blockSize() {
        return 4096;
    }

    /** Anonymous inodes hold no file data: nothing is ever charged. */
    @Override
    public void chargeBytes(long bytes, Syscall op) {
        throw new IllegalStateException("anonymous inodes hold no file data (" + op + ")");
    }

    @Override
    public void unchargeBytes(long bytes) {
        throw new IllegalStateException("anonymous inodes hold no file data");
    }

    @Override
    public long availableBytes() {
        return 0;
    }

    /**
     * The operations of an anonymous inode that cannot be opened again by path: a socket's or an
     * anonymous file's {@code /proc/<pid>/fd/N} is {@code ENXIO}, as Linux.
     */
    public static final FileOperations NOT_REOPENABLE =
            new FileOperations() {
                @Override
                public FileOperations open(Inode inode, int flags) {
                    throw new VfsException(Errno.ENXIO, Syscall.OPEN, null);
                }
            };

    /**
     * {@return the disconnected dentry of {@code i} if it is an anonymous inode, else {@code null}}
     *
     * @param i an inode
     */
    public static Dentry dentryOf(Inode i) {
        return i instanceof AnonInode a ? a.dentry() : null;
    }

    @Override
    public void inodeFreed(Inode inode) {
        if (sharedRoot) {
            root.detach(((AnonInode) inode).dentry());
            sharedLive.decrementAndGet();
        } else {
            live.decrement();
        }
    }

    /** {@return the number of anonymous inodes alive (a sum of striped cells; exact when quiet)} */
    public long liveInodes() {
        return sharedRoot ? sharedLive.get() : live.sum();
    }

    /** {@return the number of anonymous inodes ever created} */
    public long createdInodes() {
        return created.sum();
    }

    /** {@return the number of dentries hanging off the pseudo-root (old layout; 0 otherwise)} */
    public int pseudoRootChildren() {
        return root.size();
    }
}
