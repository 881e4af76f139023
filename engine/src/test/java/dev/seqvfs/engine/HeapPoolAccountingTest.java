package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_WRONLY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.sb.HeapPool;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.StatFs;
import org.junit.jupiter.api.Test;

/**
 * The JVM's {@link HeapPool} seen from instances: the tmpfs superblocks of two instances charge the
 * same pool; a mounted tmpfs with {@code size=} charges it and its unmount gives it back; one with
 * {@code size=0} stays out; {@code statfs} of a root shows the pool's free blocks when they are
 * fewer than its own; {@code close()} gives back whatever its superblocks held, files still in
 * them. Every test leaves the pool where it found it.
 */
class HeapPoolAccountingTest {
    private static final int MIB = 1 << 20;

    private static SeqVfs instance() {
        return SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"));
    }

    private static void write(VfsTask t, String path, int len) {
        int fd = t.open(path, O_CREAT | O_WRONLY, 0644);
        assertEquals(len, t.write(fd, new byte[len]));
        t.close(fd);
    }

    @Test
    void twoInstances_chargeOnePool_andCloseGivesBackWhatTheirFilesHold() {
        long base = HeapPool.JVM.free();
        SeqVfs a = instance();
        SeqVfs b = instance();
        try (VfsTask ta = a.newTask(Credentials.ROOT);
                VfsTask tb = b.newTask(Credentials.ROOT)) {
            write(ta, "/f", MIB);
            write(tb, "/f", MIB);
            assertEquals(base - 2L * MIB, HeapPool.JVM.free());
            StatFs s = ta.statfs("/");
            assertTrue(HeapPool.JVM.free() / 4096 < s.blocks() - MIB / 4096, "b's bytes count");
            assertEquals(HeapPool.JVM.free() / 4096, s.bfree(), "the pool is the smaller");
            assertEquals(s.bfree(), s.bavail());
            ta.unlink("/f");
            assertEquals(base - MIB, HeapPool.JVM.free());
        } finally {
            a.close();
        }
        assertEquals(base - MIB, HeapPool.JVM.free());
        b.close();
        assertEquals(base, HeapPool.JVM.free(), "b's file went back at close");
    }

    @Test
    void mountedTmpfs_chargesThePoolWithASize_notWithSizeZero_andUnmountGivesItBack() {
        long base = HeapPool.JVM.free();
        try (SeqVfs vfs = instance();
                VfsTask t = vfs.newTask(Credentials.ROOT)) {
            t.mkdir("/m", 0755);
            t.mount("none", "/m", "tmpfs", 0, "size=1m");
            write(t, "/m/f", MIB / 2);
            assertEquals(base - MIB / 2, HeapPool.JVM.free());
            t.umount("/m");
            assertEquals(base, HeapPool.JVM.free(), "the unmount gave its bytes back");
            t.mount("none", "/m", "tmpfs", 0, "size=0");
            write(t, "/m/g", MIB);
            assertEquals(base, HeapPool.JVM.free(), "size=0: no limit, out of the pool");
            assertEquals(Long.MAX_VALUE / 4096, t.statfs("/m").blocks());
            t.umount("/m");
            t.mount("none", "/m", "tmpfs", 0, "size=50%");
            assertEquals(
                    HeapPool.percentOfRam(50, Runtime.getRuntime().maxMemory()) / 4096,
                    t.statfs("/m").blocks());
            t.umount("/m");
        }
        assertEquals(base, HeapPool.JVM.free());
    }
}
