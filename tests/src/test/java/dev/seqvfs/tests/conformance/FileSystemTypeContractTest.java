package dev.seqvfs.tests.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.tests.support.FileSystemContract;
import dev.seqvfs.tests.support.VfsFixture;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract every registered file-system type keeps, whatever it stores or computes, run against
 * each type as the instance's root and mounted on a tmpfs directory: a root that is a directory
 * whose {@code ..} is itself, {@code statfs} consistent with {@code stat}, listings whose entries
 * {@code lstat} agrees with (inode number and {@code d_type}) and whose cookies resume a listing
 * exactly where it stopped, {@code /proc/mounts} naming the type, and {@code mount(2)}'s errors
 * ({@code EPERM} for a non-root caller, {@code EINVAL} for an option the type does not know, {@code
 * ENODEV} for a type nobody registered). Linux's own types keep these (checked on Linux 6.18 for
 * tmpfs and proc).
 */
@FileSystemContract(virtualTypes = true)
class FileSystemTypeContractTest {
    /**
     * Most directories the listing checks visit (a computed tree such as /proc grows with tasks).
     */
    private static final int MAX_DIRS = 64;

    @RegisterExtension final VfsFixture fs = new VfsFixture();

    @Test
    void root_isADirectoryWhoseDotDotIsItself() {
        VfsTask t = fs.root();
        Stat root = t.stat("/");
        assertEquals(FileType.DIRECTORY, root.type());
        assertTrue(root.nlink() >= 2, "a directory has at least two links");
        assertEquals(root.ino(), t.stat("/..").ino());
        List<DirEntry> first = listOneByOne(t, "/");
        assertEquals(".", first.get(0).name());
        assertEquals("..", first.get(1).name());
        assertEquals(root.ino(), first.get(0).ino());
        assertEquals(root.ino(), first.get(1).ino());
    }

    @Test
    void statfs_ofTheRoot_agreesWithStat() {
        VfsTask t = fs.root();
        StatFs s = t.statfs("/");
        assertEquals(t.stat("/").dev(), s.fsid(), "f_fsid is the superblock's device");
        assertEquals(Limits.NAME_MAX, s.namelen());
        assertTrue(s.bsize() > 0);
        assertTrue(s.bfree() <= s.blocks() && s.bavail() <= s.blocks());
        assertTrue(s.ffree() <= s.files());
        assertEquals(0, s.flags() & MountFlags.ST_RDONLY, "the root is mounted read-write");
    }

    @Test
    void listings_agreeWithLstat_andEveryCookieResumesExactly() {
        VfsTask t = fs.root();
        Deque<String> todo = new ArrayDeque<>(List.of("/"));
        Set<String> seen = new HashSet<>();
        while (!todo.isEmpty() && seen.size() < MAX_DIRS) {
            String dir = todo.poll();
            if (!seen.add(dir)) {
                continue;
            }
            long dev = t.lstat(dir).dev();
            List<DirEntry> all = t.readdir(dir);
            assertEquals(
                    all.stream().map(DirEntry::name).distinct().count(),
                    all.size(),
                    "no name twice in " + dir);
            for (DirEntry e : all) {
                if (e.name().equals(".") || e.name().equals("..")) {
                    continue;
                }
                String path = (dir.equals("/") ? "" : dir) + "/" + e.name();
                Stat st;
                try {
                    st = t.lstat(path);
                } catch (VfsException gone) {
                    // A computed entry may vanish between the listing and the lookup (a
                    // descriptor closed); one that stays must agree.
                    assertEquals(Errno.ENOENT, gone.errno(), path);
                    continue;
                }
                assertEquals(st.ino(), e.ino(), "d_ino of " + path);
                assertEquals(st.type(), e.type(), "d_type of " + path);
                assertEquals(
                        dev, st.dev(), "one device below " + dir + " (no mount here): " + path);
                if (st.type() == FileType.DIRECTORY) {
                    todo.add(path);
                } else if (st.type() == FileType.SYMLINK) {
                    assertFalse(t.readlink(path).isEmpty(), "readlink " + path);
                }
            }
            List<String> resumed = names(listOneByOne(t, dir));
            assertEquals(
                    List.of(".", ".."),
                    resumed.subList(0, 2),
                    "getdents starts with . and .. in " + dir);
            assertEquals(
                    names(all),
                    resumed.subList(2, resumed.size()),
                    "a listing resumed at every cookie, " + dir);
        }
    }

    /** getdents with room for one entry at a time: each call resumes at the last cookie. */
    private static List<DirEntry> listOneByOne(VfsTask t, String dir) {
        int fd = t.open(dir, OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            List<DirEntry> out = new ArrayList<>();
            while (true) {
                List<DirEntry> one = t.getdents(fd, 1);
                if (one.isEmpty()) {
                    return out;
                }
                assertEquals(1, one.size());
                out.addAll(one);
            }
        } finally {
            t.close(fd);
        }
    }

    private static List<String> names(List<DirEntry> l) {
        List<String> out = new ArrayList<>();
        for (DirEntry e : l) {
            out.add(e.name());
        }
        return out;
    }

    @Test
    void openOfTheRoot_fstatEqualsStat() {
        VfsTask t = fs.root();
        int fd = t.open("/", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            Stat a = t.fstat(fd);
            Stat b = t.stat("/");
            assertEquals(b.ino(), a.ino());
            assertEquals(b.dev(), a.dev());
            assertEquals(b.mode(), a.mode());
        } finally {
            t.close(fd);
        }
    }

    @Test
    void mountedOnATmpfsDirectory_isListedInProcMounts_andUnmountsCleanly() {
        String type = fs.rootType();
        try (SeqVfs host =
                SeqVfs.create(
                        ConfigFactory.parseString("seqvfs.root.type = tmpfs")
                                .withFallback(ConfigFactory.defaultApplication()))) {
            VfsTask t = host.newTask(Credentials.ROOT);
            t.mkdir("/mnt", 0755);
            long tmpfsDev = t.stat("/mnt").dev();
            String source = fs.mountSource(type);
            t.mount(source, "/mnt", type, 0, null);
            Stat mnt = t.stat("/mnt");
            assertNotEquals(tmpfsDev, mnt.dev(), "a new superblock");
            assertEquals(FileType.DIRECTORY, mnt.type());
            assertEquals(t.statfs("/mnt").fsid(), mnt.dev());
            // show_vfsmnt: the source given to mount(2), the flags, relatime by default
            assertTrue(mounts(t).contains(source + " /mnt " + type + " rw,relatime"), mounts(t));
            t.umount("/mnt");
            assertEquals(tmpfsDev, t.stat("/mnt").dev());
            assertFalse(mounts(t).contains(" /mnt "), mounts(t));
        }
    }

    @Test
    void mountReadOnly_statfsSaysRdonly() {
        String type = fs.rootType();
        try (SeqVfs host =
                SeqVfs.create(
                        ConfigFactory.parseString("seqvfs.root.type = tmpfs")
                                .withFallback(ConfigFactory.defaultApplication()))) {
            VfsTask t = host.newTask(Credentials.ROOT);
            t.mkdir("/mnt", 0755);
            String source = fs.mountSource(type);
            t.mount(source, "/mnt", type, MountFlags.MS_RDONLY, null);
            assertEquals(MountFlags.ST_RDONLY, t.statfs("/mnt").flags() & MountFlags.ST_RDONLY);
            assertTrue(mounts(t).contains(source + " /mnt " + type + " ro,relatime"), mounts(t));
            t.umount("/mnt");
        }
    }

    @Test
    void mount_errors_changeNothing() {
        String type = fs.rootType();
        try (SeqVfs host =
                SeqVfs.create(
                        ConfigFactory.parseString("seqvfs.root.type = tmpfs")
                                .withFallback(ConfigFactory.defaultApplication()))) {
            VfsTask t = host.newTask(Credentials.ROOT);
            t.mkdir("/mnt", 0755);
            String before = mounts(t);
            String source = fs.mountSource(type);
            assertErrno(Errno.EINVAL, () -> t.mount(source, "/mnt", type, 0, "no_such_option=1"));
            assertErrno(
                    Errno.ENODEV, () -> t.mount("none", "/mnt", type + "-not-registered", 0, null));
            VfsTask user = host.newTask(Credentials.of(1000, 1000));
            assertErrno(Errno.EPERM, () -> user.mount(source, "/mnt", type, 0, null));
            user.close();
            assertEquals(before, mounts(t));
        }
    }

    private static String mounts(VfsTask t) {
        int fd = t.open("/proc/mounts", OpenFlags.O_RDONLY);
        try {
            byte[] b = new byte[1 << 16];
            int n = t.read(fd, b, 0, b.length);
            return new String(b, 0, n, StandardCharsets.UTF_8);
        } finally {
            t.close(fd);
        }
    }

    private static void assertErrno(Errno expected, Runnable call) {
        try {
            call.run();
        } catch (VfsException e) {
            assertEquals(expected, e.errno(), e.getMessage());
            return;
        }
        throw new AssertionError("expected " + expected);
    }
}
