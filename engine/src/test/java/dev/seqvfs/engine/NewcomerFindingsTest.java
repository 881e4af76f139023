package dev.seqvfs.engine;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_DIRECTORY;
import static dev.seqvfs.protocol.OpenFlags.O_EXCL;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression tests for what a newcomer's break-it pass found, one per case, each checked against
 * the host kernel (Linux 6.18 tmpfs) or the man page; every test ends with {@link Fsck} clean.
 */
class NewcomerFindingsTest {
    SeqVfs vfs;
    VfsTask t;

    @BeforeEach
    void up() {
        vfs =
                SeqVfs.create(
                        ConfigFactory.parseString(
                                "seqvfs.fd.rlimit-nofile = 8\nseqvfs.tmpfs.max-inodes = 64\nseqvfs.proc.mount = off"));
        t = vfs.newTask(Credentials.ROOT);
    }

    @AfterEach
    void down() {
        t.close();
        assertEquals(List.of(), Fsck.check(vfs, true));
        vfs.close();
    }

    private static Errno errno(Runnable r) {
        return assertThrows(VfsException.class, r::run).errno();
    }

    @Test
    void task_afterExit_failsWithESRCH_andChangesNothing() {
        VfsTask u = vfs.newTask(Credentials.ROOT);
        u.close();
        long inodes = vfs.namespace().rootMount().superblock().usedInodes();
        assertEquals(Errno.ESRCH, errno(() -> u.stat("/")));
        assertEquals(Errno.ESRCH, errno(() -> u.mkdir("/zz", 0755)));
        assertEquals(Errno.ESRCH, errno(() -> u.open("/g", O_CREAT | O_RDWR, 0644)));
        assertEquals(Errno.ESRCH, errno(() -> u.chdir("/")));
        assertEquals(inodes, vfs.namespace().rootMount().superblock().usedInodes());
        assertEquals(Errno.ENOENT, errno(() -> t.stat("/g")));
    }

    @Test
    void openCreat_atRlimitNofile_failsWithEMFILE_andCreatesNothing() {
        int[] fds = new int[8];
        for (int i = 0; i < 8; i++) {
            fds[i] = t.open("/", O_RDONLY | O_DIRECTORY);
        }
        assertEquals(Errno.EMFILE, errno(() -> t.open("/new", O_CREAT | O_EXCL | O_RDWR, 0644)));
        assertEquals(Errno.ENOENT, errno(() -> t.stat("/new")));
        t.closeRange(0, -1, 0);
    }

    @Test
    void anonInodeGetFd_nullOps_failsWithEINVAL() {
        assertEquals(Errno.EINVAL, errno(() -> t.anonInodeGetFd(null, null, 0)));
    }

    @Test
    void write_nullBuffers_failWithEFAULT() {
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        assertEquals(Errno.EFAULT, errno(() -> t.write(fd, null)));
        assertEquals(Errno.EFAULT, errno(() -> t.writev(fd, new byte[][] {null})));
        assertEquals(Errno.EFAULT, errno(() -> t.readv(fd, new byte[][] {null})));
        t.close(fd);
    }

    @Test
    void bytePaths_invalidUtf8_stayDistinctAndRoundTripExactly() {
        t.mkdir(Filename.of(new byte[] {'/', (byte) 0xff}), 0755);
        t.mkdir(Filename.of(new byte[] {'/', (byte) 0xfe}), 0755);
        List<DirEntry> names = t.readdir("/");
        assertEquals(2, names.size());
        for (DirEntry e : names) {
            byte[] raw = PathNames.toBytes(PathNames.toInternal(e.name(), (Syscall) null));
            assertEquals(1, raw.length);
            assertTrue(raw[0] == (byte) 0xff || raw[0] == (byte) 0xfe);
        }
        assertArrayEquals(
                new byte[] {'x', (byte) 0xc3},
                PathNames.toBytes(
                        PathNames.toInternal(
                                PathNames.fromBytes(new byte[] {'x', (byte) 0xc3}),
                                (Syscall) null)));
        assertEquals(Errno.EINVAL, errno(() -> t.mkdir("/\uD800", 0755)));
        t.rmdir(Filename.of(new byte[] {'/', (byte) 0xff}));
        t.rmdir(PathNames.fromBytes(new byte[] {'/', (byte) 0xfe}));
    }

    @Test
    void lazyUnmount_directoryFdInside_keepsWorking() {
        t.mkdir("/m", 0755);
        t.mount("x", "/m", "tmpfs", 0, null);
        t.mkdir("/m/dir", 0755);
        int m = t.open("/m", O_RDONLY | O_DIRECTORY);
        t.umount2("/m", MountFlags.MNT_DETACH);
        int f = t.openat(m, "new", O_CREAT | O_RDWR, 0644);
        int d = t.openat(m, "dir", O_RDONLY | O_DIRECTORY, 0);
        t.fchdir(m);
        t.chdir("/");
        t.closeRange(0, -1, 0);
        assertTrue(f >= 0 && d >= 0);
    }

    @Test
    void write_byUnprivilegedOwner_clearsSetuidAndSetgidWithGroupExec() {
        t.chmod("/", 01777);
        VfsTask u = vfs.newTask(Credentials.of(1000, 1000));
        int fd = u.open("/own", O_CREAT | O_RDWR, 0755);
        u.fchmod(fd, 06755);
        u.write(fd, new byte[] {1});
        assertEquals(0755, u.fstat(fd).permissions());
        u.close(fd);
        u.close();
        t.unlink("/own");
    }

    @Test
    void chmod_ofARemovedWorkingDirectory_succeeds() {
        t.mkdir("/gone", 0755);
        t.chdir("/gone");
        t.rmdir("/gone");
        t.chmod(".", 0700);
        assertEquals(0700, t.stat(".").permissions());
        t.chdir("/");
    }

    @Test
    void link_whenInodeSlotsAreExhausted_failsWithENOSPC_andUnlinkReturnsTheSlot() {
        t.mknod("/f", Mode.S_IFREG | 0644, 0);
        int made = 0;
        try {
            while (true) {
                t.mknod("/n" + made, Mode.S_IFREG | 0644, 0);
                made++;
            }
        } catch (VfsException e) {
            assertEquals(Errno.ENOSPC, e.errno());
        }
        assertEquals(Errno.ENOSPC, errno(() -> t.link("/f", "/f2")));
        t.unlink("/n0");
        t.link("/f", "/f2");
        assertEquals(Errno.ENOSPC, errno(() -> t.mknod("/x", Mode.S_IFREG | 0644, 0)));
        t.unlink("/f2");
        t.mknod("/x", Mode.S_IFREG | 0644, 0);
        for (int i = 1; i < made; i++) {
            t.unlink("/n" + i);
        }
        t.unlink("/x");
        t.unlink("/f");
    }

    @Test
    void mount_badOptions_failWithEINVAL() {
        t.mkdir("/fl", 0755);
        assertEquals(Errno.EINVAL, errno(() -> t.mount("x", "/fl", "tmpfs", 0, "nr_inodes=-1")));
        assertEquals(Errno.EINVAL, errno(() -> t.mount("x", "/fl", null, 0, null)));
    }

    @Test
    void fileSize_upToLlongMax_andAnOverflowingWriteIsEINVAL() {
        int fd = t.open("/f", O_CREAT | O_RDWR, 0644);
        t.ftruncate(fd, Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, t.fstat(fd).size());
        assertEquals(
                Errno.EINVAL, errno(() -> t.pwrite(fd, new byte[10], 0, 10, Long.MAX_VALUE - 5)));
        t.ftruncate(fd, 0);
        t.close(fd);
    }

    @Test
    void getcwd_deeperThanPathMax_failsWithENAMETOOLONG() {
        String name = "d".repeat(200);
        for (int i = 0; i < 25; i++) {
            t.mkdir(name, 0755);
            t.chdir(name);
        }
        assertEquals(Errno.ENAMETOOLONG, errno(() -> t.getcwd()));
        for (int i = 0; i < 25; i++) {
            t.chdir("..");
            t.rmdir(name);
        }
    }

    @Test
    void eventfd_initialValueOutsideUnsignedInt_failsWithEINVAL() {
        assertEquals(Errno.EINVAL, errno(() -> t.eventfd(-1, 0)));
        assertEquals(Errno.EINVAL, errno(() -> t.eventfd(1L << 32, 0)));
    }
}
