package dev.seqvfs.engine;

import dev.seqvfs.engine.anon.AnonFs;
import dev.seqvfs.engine.dir.DirQueue;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.file.PagePool;
import dev.seqvfs.engine.inode.RegularInode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.engine.mount.Namespace;
import dev.seqvfs.engine.sb.Superblock;

/**
 * The test suites' door into an instance's internals, which the library keeps package-private: it
 * lives in the test sources only, in the engine's package, so that white-box checks (mount pins,
 * anonymous-inode counts, a FIFO's pipe) can read what no embedder can reach. Not part of any
 * published artifact.
 */
public final class EngineInternals {
    private EngineInternals() {}

    /** Returns the instance's mount namespace. */
    public static Namespace namespace(SeqVfs vfs) {
        return vfs.namespace();
    }

    /** Returns how many descriptors of {@code t}'s table are reserved by opens in progress. */
    public static int reservedDescriptors(VfsTask t) {
        return t.context().files().reservedCount();
    }

    /**
     * Returns how many descriptor credits (unnamed reservations an open takes without a message)
     * the pool of {@code t}'s table holds now.
     */
    public static int descriptorCredits(VfsTask t) {
        return t.context().files().creditsAvailable();
    }

    /**
     * Makes {@code t}'s descriptor-table actor run {@code hook} before each publication ({@code
     * null} removes it).
     */
    public static void beforeFdTablePublish(VfsTask t, Runnable hook) {
        t.context().files().installBeforePublishHook(hook);
    }

    /**
     * Returns {@code {batches, shared}}: the batches {@code t}'s descriptor-table actor published,
     * and how many of them applied more than one command.
     */
    public static long[] fdTableBatches(VfsTask t) {
        return t.context().files().batchCounts();
    }

    /**
     * Switches the readers' validation of regular files' sequence counts off ({@code false}) or
     * back on, in this JVM ({@link RegularInode#validateReadsForTesting}).
     */
    public static void validateDataReads(boolean on) {
        RegularInode.validateReadsForTesting(on);
    }

    /** {@code fallocate(2)} on {@code t}'s descriptor {@code fd} ({@link VfsTask#fallocate}). */
    public static void fallocate(VfsTask t, int fd, int mode, long offset, long len) {
        t.fallocate(fd, mode, offset, len);
    }

    /**
     * Installs {@code h} as the writer hooks of the superblock mounted at the instance's root
     * ({@link Superblock#installHooks}); {@code null} removes them.
     */
    public static void installRootHooks(SeqVfs vfs, WriterHooks h) {
        vfs.namespace().rootMount().superblock().installHooks(h);
    }

    /**
     * Returns {published batches, batches of more than one command} of the combining queue of the
     * directory {@code name} in the root ({@code DirQueue}), or two zeros if it never had one.
     */
    public static long[] rootDirBatches(SeqVfs vfs, String name) {
        DirectoryInode d =
                (DirectoryInode)
                        vfs.namespace().rootMount().root().snapshotAcquire().lookup(name).inode();
        DirQueue q = d.commandQueueIfAny();
        return q == null ? new long[2] : q.batchCounts();
    }

    /**
     * Returns the free-page cache of the superblock mounted at the instance's root ({@link
     * Superblock#pagePool}), or {@code null} if it keeps none.
     */
    public static PagePool rootPagePool(SeqVfs vfs) {
        return vfs.namespace().rootMount().superblock().pagePool();
    }

    /** Returns the instance's anonymous-inode file system (pipes, sockets). */
    public static AnonFs anonFs(SeqVfs vfs) {
        return vfs.anonFs();
    }
}
