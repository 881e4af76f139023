package dev.seqvfs.actors.inode;

import dev.seqvfs.actors.file.FileData;
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

    private final ReentrantLock writeLock = new ReentrantLock();
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

    /** The data pages are charged against the superblock's byte limit. */
    @Override
    public long chargedBytes() {
        return dataAcquire().allocatedBytes();
    }
}
