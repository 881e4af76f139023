package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * persistfs as the root of an instance: what the namespace calls made is what the next instance on
 * the same data directory finds (names, types, modes, owners, link counts, inode numbers, symbolic
 * links), and fsck is clean on both sides.
 */
class PersistfsRemountTest {
    @TempDir Path data;

    static Config config(Path data) {
        return PersistfsType.rootConfig(data);
    }

    /** Every path under {@code dir} to its lstat, in name order. */
    static Map<String, String> tree(VfsTask t, String dir) {
        Map<String, String> out = new TreeMap<>();
        for (DirEntry e : t.readdir(dir)) {
            if (e.name().equals(".") || e.name().equals("..") || e.name().equals("proc")) {
                // (procfs is mounted on /proc: computed, not stored)
                continue;
            }
            String p = (dir.equals("/") ? "" : dir) + "/" + e.name();
            Stat s = t.lstat(p);
            String link = s.isSymlink() ? " -> " + t.readlink(p) : "";
            out.put(
                    p,
                    "ino="
                            + s.ino()
                            + " mode="
                            + Integer.toOctalString(s.mode())
                            + " nlink="
                            + s.nlink()
                            + " uid="
                            + s.uid()
                            + " gid="
                            + s.gid()
                            + link);
            if (s.isDirectory()) {
                out.putAll(tree(t, p));
            }
        }
        return out;
    }

    @Test
    void namespaceCalls_surviveTheInstance_andANewOneRecoversTheSameTree() {
        Map<String, String> before;
        long firstNewIno;
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/a", 0755);
            t.mkdir("/a/b", 0700);
            t.close(t.open("/a/b/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0640));
            t.close(t.open("/a/gone", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.unlink("/a/gone");
            t.link("/a/b/f", "/a/hard");
            t.symlink("b/f", "/a/sym");
            t.mknod("/a/fifo", Mode.S_IFIFO | 0600, 0);
            t.chmod("/a/b/f", 0604);
            t.chown("/a/sym", 1000, 1000);
            t.mkdir("/a/x", 0755);
            t.rename("/a/x", "/a/y");
            t.mkdir("/d", 0755);
            t.rmdir("/d");
            t.close(t.open("/a/r1", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.close(t.open("/a/r2", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            t.rename("/a/r1", "/a/r2");
            before = tree(t, "/");
            assertEquals(List.of(), Fsck.check(vfs, true));
            firstNewIno = 0;
        }
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            assertEquals(before, tree(t, "/"));
            assertEquals(List.of(), Fsck.check(vfs, true));
            // numbers are never given twice: a new file's number is above every recovered one
            t.close(t.open("/new", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            long newIno = t.stat("/new").ino();
            for (String v : before.values()) {
                long ino = Long.parseLong(v.substring(4, v.indexOf(' ')));
                assertTrue(newIno > ino, "new inode " + newIno + " reuses or precedes " + v);
            }
            assertTrue(newIno > firstNewIno);
        }
    }

    @Test
    void aRenameBetweenDirectories_isExdev_andChangesNothing() {
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/p", 0755);
            t.mkdir("/q", 0755);
            t.close(t.open("/p/f", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644));
            VfsException e = assertThrows(VfsException.class, () -> t.rename("/p/f", "/q/f"));
            assertEquals(Errno.EXDEV, e.errno());
            assertTrue(t.stat("/p/f").isRegular());
        }
    }

    @Test
    void aForkOfAnInstanceWithADurableRoot_isEinval_forItWouldWriteTheSameJournals() {
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsException e = assertThrows(VfsException.class, vfs::fork);
            assertEquals(Errno.EINVAL, e.errno());
        }
    }

    @Test
    void aSecondMountOfTheSameDataDirectory_isEbusy() {
        try (SeqVfs vfs = SeqVfs.create(config(data))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/mnt", 0755);
            VfsException e =
                    assertThrows(
                            VfsException.class,
                            () -> t.mount(null, "/mnt", "persistfs", 0, "data_dir=" + data));
            assertEquals(Errno.EBUSY, e.errno());
        }
    }
}
