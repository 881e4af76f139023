package dev.seqvfs.tests.conformance;

import static dev.seqvfs.tests.conformance.Sys.assertErrno;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.engine.EngineInternals;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.fdtable.OpenFile;
import dev.seqvfs.engine.fs.StreamFileOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.WriterHooks;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Falloc;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.tests.support.VfsFixture;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * File data is charged before it is allocated: a write or {@code fallocate} that does not fit the
 * mount allocates nothing and says {@code ENOSPC} (or writes what fits), whatever its size; one
 * whose pages the heap cannot hold says {@code ENOMEM} and leaves the file as it was (a newcomer's
 * {@code fallocate(fd, 0, 0, 1L << 40)} on a {@code size=64k} mount ran the heap out instead; Linux
 * 6.18 tmpfs answers {@code ENOSPC} at once).
 */
class DataAllocationTest {
    @RegisterExtension final VfsFixture fs = new VfsFixture("seqvfs.tmpfs.max-bytes = 65536");

    @AfterEach
    void removeHooks() {
        EngineInternals.installRootHooks(fs.vfs(), null);
    }

    @Test
    void fallocate_farPastTheMountsSize_failsWithENOSPCAndAllocatesNothing() {
        VfsTask t = fs.root();
        int fd = t.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
        long free = t.statfs("/").bfree();
        for (long len : new long[] {1L << 40, Long.MAX_VALUE, 100L << 20, 1L << 62}) {
            assertErrno(Errno.ENOSPC, () -> t.fallocate(fd, 0, 0, len));
            assertErrno(Errno.ENOSPC, () -> t.fallocate(fd, Falloc.FALLOC_FL_KEEP_SIZE, 0, len));
        }
        assertEquals(0, t.fstat(fd).size());
        assertEquals(0, t.fstat(fd).blocks());
        assertEquals(free, t.statfs("/").bfree());
        t.close(fd);
    }

    @Test
    void write_largerThanTheMount_writesWhatFits() {
        VfsTask t = fs.root();
        int fd = t.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
        assertEquals(65536, t.write(fd, new byte[64 << 20]));
        assertErrno(Errno.ENOSPC, () -> t.write(fd, new byte[1]));
        t.close(fd);
    }

    @Test
    void allocationFailureInAWrite_failsWithENOMEM_andLeavesTheFileAsItWas() {
        VfsTask t = fs.root();
        int fd = t.open("/f", OpenFlags.O_CREAT | OpenFlags.O_RDWR, 0644);
        byte[] first = new byte[5000];
        Arrays.fill(first, (byte) 'a');
        assertEquals(5000, t.write(fd, first));
        StatFs before = t.statfs("/");
        failAllocations();
        byte[] more = new byte[10_000];
        Arrays.fill(more, (byte) 'b');
        assertErrno(Errno.ENOMEM, () -> t.write(fd, more));
        assertErrno(Errno.ENOMEM, () -> t.pwrite(fd, more, 0, more.length, 2000));
        assertErrno(Errno.ENOMEM, () -> t.fallocate(fd, 0, 0, 40_000));
        EngineInternals.installRootHooks(fs.vfs(), null);
        assertEquals(5000, t.fstat(fd).size());
        assertEquals(5000, t.lseek(fd, 0, 1), "the offset did not move");
        assertEquals(before.bfree(), t.statfs("/").bfree(), "nothing stays charged");
        byte[] back = new byte[6000];
        assertEquals(5000, t.pread(fd, back, 0, back.length, 0));
        assertArrayEquals(first, Arrays.copyOf(back, 5000));
        // and the instance serves again once memory is back
        assertEquals(10_000, t.write(fd, more));
        assertEquals(15_000, t.fstat(fd).size());
        t.close(fd);
    }

    @Test
    void allocationFailureInAStreamWrite_failsWithENOMEM_andTheFileServesAfter() {
        VfsTask t = fs.root();
        boolean[] full = {true};
        int[] written = {0};
        StreamFileOperations ops =
                new StreamFileOperations() {
                    @Override
                    public int read(OpenFile f, byte[] dst, int off, int len, boolean nonblock) {
                        return 0;
                    }

                    @Override
                    public int write(OpenFile f, byte[] src, int off, int len, boolean nonblock) {
                        if (full[0]) {
                            throw new OutOfMemoryError("test: the buffer cannot be allocated");
                        }
                        written[0] += len;
                        return len;
                    }

                    @Override
                    public CompletableFuture<Integer> readAsync(
                            OpenFile f, byte[] dst, int off, int len) {
                        return CompletableFuture.completedFuture(0);
                    }

                    @Override
                    public CompletableFuture<Integer> writeAsync(
                            OpenFile f, byte[] src, int off, int len) {
                        return CompletableFuture.completedFuture(len);
                    }
                };
        int fd = t.anonInodeGetFd("oom", ops, OpenFlags.O_RDWR);
        assertErrno(Errno.ENOMEM, () -> t.write(fd, new byte[100]));
        assertErrno(Errno.ENOMEM, () -> t.writev(fd, new byte[][] {new byte[10], new byte[20]}));
        assertEquals(0, written[0]);
        full[0] = false;
        assertEquals(100, t.write(fd, new byte[100]));
        t.close(fd);
    }

    /** Makes every allocation of new file data in the root file system fail as a full heap. */
    private void failAllocations() {
        EngineInternals.installRootHooks(
                fs.vfs(),
                new WriterHooks() {
                    @Override
                    public void allocatingData(Inode inode, long bytes) {
                        if (bytes > 0) {
                            throw new OutOfMemoryError("test: the heap is full");
                        }
                    }
                });
    }
}
