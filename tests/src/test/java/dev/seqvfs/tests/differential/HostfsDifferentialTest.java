package dev.seqvfs.tests.differential;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code hostfs} mount against the host directory it shows: the host is the oracle. A tree is
 * made on the host's {@code /dev/shm} (drawn below), mounted at {@code /h} of a tmpfs-rooted SeqVFS
 * instance, and every path of it is compared: {@code lstat} and {@code stat} (type and mode, inode
 * number, link count, owner, size, the three times to the nanosecond), listings (names, {@code
 * d_ino}, {@code d_type}), link targets, file contents (whole, at offsets, in small reads), and the
 * errno of what fails on the host ({@code ENOENT}, {@code ENOTDIR}, {@code ELOOP}), as the JDK's
 * provider reports it. Changes are {@code EROFS} (the host allows them; a hostfs superblock is
 * read-only), and a change made on the host is seen by the next lookup.
 *
 * <pre>
 * /dev/shm/seqvfs-hostfs-N/
 *   a.txt          "alpha" (mode 0640)
 *   big            200,000 bytes
 *   empty          0 bytes
 *   hard           a hard link of a.txt
 *   d/             mode 0750
 *     e/           empty directory
 *     f            "in d"
 *   ünï çødé       a non-ASCII name, "utf8"
 *   lnk            -> a.txt
 *   dlnk           -> d
 *   dangling       -> nowhere
 *   loop1, loop2   -> each other
 *   secret/        mode 0700, holding "s"
 * </pre>
 */
@Timeout(60)
class HostfsDifferentialTest {
    private Path host;
    private SeqVfs vfs;
    private VfsTask t;

    @BeforeEach
    void setUp() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(HostKernel.SHM), "no /dev/shm");
        host = Files.createTempDirectory(HostKernel.SHM, "seqvfs-hostfs-");
        Files.writeString(host.resolve("a.txt"), "alpha");
        Files.setPosixFilePermissions(
                host.resolve("a.txt"), PosixFilePermissions.fromString("rw-r-----"));
        byte[] big = new byte[200_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + (i >> 9));
        }
        Files.write(host.resolve("big"), big);
        Files.createFile(host.resolve("empty"));
        Files.createLink(host.resolve("hard"), host.resolve("a.txt"));
        Files.createDirectories(host.resolve("d/e"));
        Files.setPosixFilePermissions(
                host.resolve("d"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.writeString(host.resolve("d/f"), "in d");
        Files.writeString(host.resolve("ünï çødé"), "utf8");
        Files.createSymbolicLink(host.resolve("lnk"), Path.of("a.txt"));
        Files.createSymbolicLink(host.resolve("dlnk"), Path.of("d"));
        Files.createSymbolicLink(host.resolve("dangling"), Path.of("nowhere"));
        Files.createSymbolicLink(host.resolve("loop1"), Path.of("loop2"));
        Files.createSymbolicLink(host.resolve("loop2"), Path.of("loop1"));
        Files.createDirectory(host.resolve("secret"));
        Files.writeString(host.resolve("secret/s"), "s");
        Files.setPosixFilePermissions(
                host.resolve("secret"), PosixFilePermissions.fromString("rwx------"));
        vfs =
                SeqVfs.create(
                        ConfigFactory.parseString("seqvfs.root.type = tmpfs")
                                .withFallback(ConfigFactory.defaultApplication()));
        t = vfs.newTask(Credentials.ROOT);
        t.mkdir("/h", 0755);
        t.mount(host.toString(), "/h", "hostfs", MountFlags.MS_RDONLY, null);
    }

    @AfterEach
    void tearDown() throws IOException {
        if (vfs != null) {
            t.umount("/h");
            assertEquals(List.of(), Fsck.check(vfs, true), "fsck");
            vfs.close();
        }
        if (host != null) {
            try (Stream<Path> s = Files.walk(host)) {
                List<Path> all = new ArrayList<>(s.toList());
                java.util.Collections.reverse(all);
                for (Path p : all) {
                    Files.delete(p);
                }
            }
        }
    }

    /** Every path of the tree: lstat, stat, listing, link target and content as the host's. */
    @Test
    void everyPath_showsWhatTheHostShows() throws IOException {
        List<Path> all;
        try (Stream<Path> s = Files.walk(host)) {
            all = s.toList();
        }
        assertTrue(all.size() >= 15, "the tree");
        for (Path p : all) {
            String v = "/h" + (p.equals(host) ? "" : "/" + host.relativize(p));
            assertStat(hostStat(p, LinkOption.NOFOLLOW_LINKS), t.lstat(v), "lstat " + v);
            if (Files.exists(p)) {
                if (!p.equals(host)) {
                    assertStat(hostStat(p), t.stat(v), "stat " + v);
                }
            } else {
                assertEquals(hostErrno(() -> hostStat(p)), vfsErrno(() -> t.stat(v)), "stat " + v);
            }
            if (Files.isSymbolicLink(p)) {
                assertEquals(Files.readSymbolicLink(p).toString(), t.readlink(v), "readlink " + v);
            }
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                assertListing(p, v);
            }
            if (Files.isRegularFile(p)) {
                assertArrayEquals(Files.readAllBytes(p), readAll(v, 7919), "content of " + v);
            }
        }
    }

    private void assertListing(Path p, String v) throws IOException {
        TreeSet<String> hostNames = new TreeSet<>();
        try (Stream<Path> s = Files.list(p)) {
            s.forEach(c -> hostNames.add(c.getFileName().toString()));
        }
        TreeSet<String> names = new TreeSet<>();
        for (DirEntry e : t.readdir(v)) {
            if (e.name().equals(".") || e.name().equals("..")) {
                continue;
            }
            names.add(e.name());
            Stat st = t.lstat(v + "/" + e.name());
            assertEquals(st.ino(), e.ino(), "d_ino of " + e.name());
            assertEquals(st.type(), e.type(), "d_type of " + e.name());
        }
        assertEquals(hostNames, names, "listing of " + v);
        // a listing resumed one entry at a time gives the same names
        int fd = t.open(v, OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY);
        try {
            TreeSet<String> one = new TreeSet<>();
            List<DirEntry> got;
            while (!(got = t.getdents(fd, 1)).isEmpty()) {
                one.add(got.get(0).name());
            }
            one.remove(".");
            one.remove("..");
            assertEquals(hostNames, one, "getdents(1) of " + v);
        } finally {
            t.close(fd);
        }
    }

    @Test
    void reads_atOffsets_areTheHostsBytes() throws IOException {
        byte[] big = Files.readAllBytes(host.resolve("big"));
        int fd = t.open("/h/big", OpenFlags.O_RDONLY);
        try {
            for (long pos : new long[] {0, 1, 4095, 4096, 65_537, 199_990, 200_000, 300_000}) {
                byte[] buf = new byte[100];
                int n = t.pread(fd, buf, 0, buf.length, pos);
                int want = (int) Math.max(0, Math.min(100, big.length - pos));
                assertEquals(want, n, "pread at " + pos);
                for (int i = 0; i < n; i++) {
                    assertEquals(big[(int) pos + i], buf[i], "byte " + (pos + i));
                }
            }
            assertEquals(200_000, t.lseek(fd, 0, 2), "SEEK_END is the host's size");
        } finally {
            t.close(fd);
        }
    }

    /** Failing lookups fail with the host's errno. */
    @Test
    void lookupErrors_areTheHosts() {
        for (String rel :
                List.of("missing", "a.txt/x", "d/missing/x", "loop1", "loop1/x", "dangling")) {
            Path p = host.resolve(rel);
            String v = "/h/" + rel;
            assertEquals(hostErrno(() -> hostStat(p)), vfsErrno(() -> t.stat(v)), "stat " + v);
            assertEquals(
                    hostErrno(() -> Files.readAllBytes(p)),
                    vfsErrno(() -> t.open(v, OpenFlags.O_RDONLY)),
                    "open " + v);
        }
        assertEquals(Errno.ENOTDIR, vfsErrno(() -> t.readdir("/h/a.txt")));
        assertEquals(Errno.EINVAL, vfsErrno(() -> t.readlink("/h/a.txt")));
        assertEquals(Errno.EISDIR, vfsErrno(() -> t.open("/h/d", OpenFlags.O_RDWR)));
    }

    /** The host's mode bits deny a task what they deny it on the host (uid 1000, not root). */
    @Test
    void permissions_ofTheHostsModeBits_deny() {
        VfsTask user = vfs.newTask(Credentials.of(1000, 1000));
        try {
            assertEquals(Errno.EACCES, vfsErrno(() -> user.stat("/h/secret/s")));
            assertEquals(Errno.EACCES, vfsErrno(() -> user.readdir("/h/secret")));
            assertEquals(Errno.EACCES, vfsErrno(() -> user.open("/h/a.txt", OpenFlags.O_RDONLY)));
            assertEquals("s", new String(readAll("/h/secret/s", 10), StandardCharsets.UTF_8));
        } finally {
            user.close();
        }
    }

    /** Every change is EROFS (EEXIST for a name that exists), and the host is left as it was. */
    @Test
    void changes_areEROFS_andTheHostIsUntouched() throws IOException {
        assertEquals(Errno.EROFS, vfsErrno(() -> t.mkdir("/h/new", 0755)));
        assertEquals(Errno.EEXIST, vfsErrno(() -> t.mkdir("/h/d", 0755)));
        assertEquals(
                Errno.EROFS,
                vfsErrno(() -> t.open("/h/new", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644)));
        assertEquals(Errno.EROFS, vfsErrno(() -> t.open("/h/a.txt", OpenFlags.O_WRONLY)));
        assertEquals(Errno.EROFS, vfsErrno(() -> t.unlink("/h/a.txt")));
        assertEquals(Errno.EROFS, vfsErrno(() -> t.rmdir("/h/d/e")));
        assertEquals(Errno.EROFS, vfsErrno(() -> t.rename("/h/a.txt", "/h/b.txt")));
        assertEquals(Errno.EROFS, vfsErrno(() -> t.chmod("/h/a.txt", 0777)));
        assertEquals(Errno.EROFS, vfsErrno(() -> t.truncate("/h/a.txt", 0)));
        assertEquals(Errno.EROFS, vfsErrno(() -> t.symlink("x", "/h/s2")));
        t.mount(null, "/h", null, MountFlags.MS_REMOUNT, null);
        assertEquals(Errno.EROFS, vfsErrno(() -> t.mkdir("/h/new", 0755)), "stays read-only");
        assertTrue(Files.notExists(host.resolve("new")));
        assertEquals("alpha", Files.readString(host.resolve("a.txt")));
    }

    /**
     * A FIFO of the host is one SeqVFS pipe for the tasks that open it through the mount (its pipe
     * is the VFS's, as a FIFO's is on Linux), writable although the mount is read-only.
     */
    @Test
    void aHostFifo_isOnePipeForTheTasksThatOpenIt() throws Exception {
        Process mk = new ProcessBuilder("mkfifo", host.resolve("fifo").toString()).start();
        Assumptions.assumeTrue(mk.waitFor() == 0, "no mkfifo");
        assertStat(
                hostStat(host.resolve("fifo"), LinkOption.NOFOLLOW_LINKS),
                t.lstat("/h/fifo"),
                "fifo");
        assertEquals(dev.seqvfs.protocol.FileType.FIFO, t.lstat("/h/fifo").type());
        int r = t.open("/h/fifo", OpenFlags.O_RDONLY | OpenFlags.O_NONBLOCK);
        int w = t.open("/h/fifo", OpenFlags.O_WRONLY);
        try {
            assertEquals(2, t.write(w, "hi".getBytes(StandardCharsets.UTF_8)));
            byte[] b = new byte[8];
            assertEquals(2, t.read(r, b, 0, b.length));
            assertEquals("hi", new String(b, 0, 2, StandardCharsets.UTF_8));
        } finally {
            t.close(w);
            t.close(r);
        }
    }

    /** What the host changes is what the next lookup shows. */
    @Test
    void hostChanges_areSeenByTheNextLookup() throws IOException {
        Files.writeString(host.resolve("later"), "new on the host");
        assertEquals(
                "new on the host", new String(readAll("/h/later", 64), StandardCharsets.UTF_8));
        Files.delete(host.resolve("later"));
        assertEquals(Errno.ENOENT, vfsErrno(() -> t.stat("/h/later")));
    }

    @Test
    void mount_errors() {
        t.mkdir("/m", 0755);
        assertEquals(
                Errno.ENOENT, vfsErrno(() -> t.mount(host + "/missing", "/m", "hostfs", 0, null)));
        assertEquals(
                Errno.ENOTDIR, vfsErrno(() -> t.mount(host + "/a.txt", "/m", "hostfs", 0, null)));
        assertEquals(
                Errno.EINVAL, vfsErrno(() -> t.mount(host.toString(), "/m", "hostfs", 0, "rw=1")));
        assertEquals(Errno.EINVAL, vfsErrno(() -> t.mount("relative", "/m", "hostfs", 0, null)));
        // UML's form: the host directory as the mount data
        t.mount("none", "/m", "hostfs", 0, host + "/d,ro");
        assertEquals("in d", new String(readAll("/m/f", 64), StandardCharsets.UTF_8));
        t.umount("/m");
    }

    private byte[] readAll(String path, int chunk) {
        int fd = t.open(path, OpenFlags.O_RDONLY);
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[chunk];
            int n;
            while ((n = t.read(fd, buf, 0, buf.length)) > 0) {
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        } finally {
            t.close(fd);
        }
    }

    private static void assertStat(Map<String, Object> h, Stat s, String what) {
        assertEquals(((Integer) h.get("mode")).intValue(), s.mode(), what + ": mode");
        assertEquals(((Long) h.get("ino")).longValue(), s.ino(), what + ": ino");
        assertEquals(((Integer) h.get("nlink")).longValue(), s.nlink(), what + ": nlink");
        assertEquals(((Integer) h.get("uid")).intValue(), s.uid(), what + ": uid");
        assertEquals(((Integer) h.get("gid")).intValue(), s.gid(), what + ": gid");
        assertEquals(((Long) h.get("size")).longValue(), s.size(), what + ": size");
        assertEquals(nanos(h.get("lastModifiedTime")), s.mtimeNanos(), what + ": mtime");
        assertEquals(nanos(h.get("ctime")), s.ctimeNanos(), what + ": ctime");
    }

    private static long nanos(Object t) {
        return ((FileTime) t).to(TimeUnit.NANOSECONDS);
    }

    private static Map<String, Object> hostStat(Path p, LinkOption... o) throws IOException {
        return Files.readAttributes(p, "unix:*", o);
    }

    /** A host call that must fail; its errno as the JDK's provider reports it. */
    private static Errno hostErrno(HostCall call) {
        IOException e = assertThrows(IOException.class, call::run);
        if (e instanceof NoSuchFileException) {
            return Errno.ENOENT;
        }
        if (e instanceof AccessDeniedException) {
            return Errno.EACCES;
        }
        String reason = e instanceof FileSystemException f ? f.getReason() : e.getMessage();
        for (Errno n : Errno.values()) {
            // (the JDK adds " or unable to access attributes of symbolic link" to ELOOP)
            if (reason != null
                    && (reason.equals(n.message()) || reason.startsWith(n.message() + " "))) {
                return n;
            }
        }
        throw new AssertionError("unplaced host failure", e);
    }

    private static Errno vfsErrno(org.junit.jupiter.api.function.Executable call) {
        return assertThrows(VfsException.class, call).errno();
    }

    @FunctionalInterface
    private interface HostCall {
        void run() throws IOException;
    }
}
