package dev.seqvfs.engine.inode;

import dev.seqvfs.engine.file.FileData;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A regular file: an inode whose contents are a published {@link FileData}.
 *
 * <h2>Concurrency</h2>
 * {@code data} is read with acquire ({@link #dataAcquire()}) by readers, who never lock,
 * and replaced with release ({@link #publishDataRelease}) only by a holder of
 * {@link #writeLock()} (the per-inode write lock of DESIGN.md, "File data"), which
 * serializes writers, truncates and {@code O_APPEND} offset choices. A writer publishes
 * the data first and the attributes (size, blocks, mtime, ctime) second, both under the
 * lock, so the attributes' size never runs ahead of the data.
 */
public class RegularInode extends Inode {
    private static final VarHandle DATA;

    static {
        try {
            DATA = MethodHandles.lookup().findVarHandle(RegularInode.class, "data", FileData.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The terminal value of {@link #charged}: the inode was freed and returned its charge. */
    private static final long FREED_MARK = Long.MIN_VALUE;

    private final ReentrantLock writeLock = new ReentrantLock();
    /**
     * Bytes charged to the superblock on this file's behalf: the ledger that makes the
     * last free and a racing write agree. Changed by CAS only; {@link #chargedBytes()}
     * swaps it to {@link #FREED_MARK} once, atomically taking what it must return.
     */
    private final java.util.concurrent.atomic.AtomicLong charged = new java.util.concurrent.atomic.AtomicLong();
    @SuppressWarnings("unused") // accessed through DATA
    private volatile FileData data;

    /** Creates an empty regular file. */
    public RegularInode(long ino, InodeOwner owner, InodeOperations ops, InodeAttrs attrs) {
        super(ino, owner, ops, attrs);
        DATA.setRelease(this, FileData.empty());
    }

    /** Loads the current contents (acquire). Never blocks. */
    public FileData dataAcquire() {
        return (FileData) DATA.getAcquire(this);
    }

    /** Publishes new contents (release); the caller holds {@link #writeLock()}. */
    public void publishDataRelease(FileData d) {
        if (!writeLock.isHeldByCurrentThread()) {
            throw new IllegalStateException("publishing data of " + this + " without its write lock");
        }
        DATA.setRelease(this, d);
    }

    /** Returns the per-inode write lock. Held for the length of one write, never across a message. */
    public ReentrantLock writeLock() {
        return writeLock;
    }

    /**
     * Records that {@code delta} bytes were charged (or, negative, returned) for this file.
     *
     * @return {@code false} if the file was freed meanwhile: the caller must return the
     *         {@code delta} it charged (or must not return the one it would have), since the
     *         free already settled this file's account
     */
    public boolean addCharge(long delta) {
        while (true) {
            long c = charged.get();
            if (c == FREED_MARK) {
                return false;
            }
            if (charged.compareAndSet(c, c + delta)) {
                return true;
            }
        }
    }

    /**
     * Returns, once, the bytes this file holds against the superblock's limit, and closes
     * its account: later {@link #addCharge} calls fail. Called when the inode is freed.
     */
    @Override
    public long chargedBytes() {
        long c = charged.getAndSet(FREED_MARK);
        return c == FREED_MARK ? 0 : c;
    }
}
