package dev.seqvfs.tests.differential;

import static dev.seqvfs.protocol.Inotify.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The same inotify sequences on the host kernel (in a {@code /dev/shm} sandbox, through {@code
 * hostops}) and on SeqVFS: the event streams must be equal, record by record: watch descriptor,
 * mask, name, and the cookies' pairing (cookies are compared by their order of first appearance,
 * since their values are the kernel's counter). Errnos of the failing calls must be equal too.
 *
 * <pre>
 * /w/   watched in every scenario       /x/   a second directory (cross-directory renames)
 * </pre>
 *
 * <p>Opens that create or truncate ({@code IN_CREATE}/{@code IN_MODIFY} around {@code IN_OPEN}),
 * {@code truncate(2)} by path, {@code IN_UNMOUNT} and {@code IN_EXCL_UNLINK} are compared too.
 */
class InotifyDifferentialTest {
    private static final int AT_FDCWD = OpenFlags.AT_FDCWD;
    private static final HexFormat HEX = HexFormat.of();

    @BeforeEach
    void host() {
        String why = HostKernel.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
    }

    /** One side: the calls a scenario makes. Answers are strings: a number, or "E errno". */
    private interface Sys extends AutoCloseable {
        String mkdir(String p);

        String mknod(String p);

        String open(String p, int flags);

        String write(int fd);

        String read(int fd, int len);

        /** {@code lseek} to 0, then {@code getdents64(2)} to the end: the number of entries. */
        String getdents(int fd);

        String close(int fd);

        String ftruncate(int fd);

        String truncate(String p);

        /** Mounts a fresh tmpfs on {@code p}. */
        String mountTmpfs(String p);

        String umount(String p);

        String chmod(String p, int mode);

        /** {@code fchmod(2)}: on the host {@code fchmodat2(fd, "", mode, AT_EMPTY_PATH)}. */
        String fchmod(int fd, int mode);

        /** {@code fchown(2)}: on the host {@code fchownat(fd, "", uid, gid, AT_EMPTY_PATH)}. */
        String fchown(int fd, int uid, int gid);

        String link(String a, String b);

        String unlink(String p);

        String rmdir(String p);

        String rename(String a, String b);

        String init(int flags);

        String addWatch(int fd, String p, int mask);

        String rmWatch(int fd, int wd);

        /** Every event queued, as "wd mask cookie name" lines, cookies as in the kernel. */
        List<String> events(int fd);

        @Override
        void close();
    }

    private static String s(String v) {
        return "s" + HEX.formatHex(v.getBytes(StandardCharsets.UTF_8));
    }

    private static final class Host implements Sys {
        final HostSide h = new HostSide();

        private String c(String line) {
            String r = h.call(line);
            return r.startsWith("O ") ? r.substring(2) : r;
        }

        @Override
        public String mkdir(String p) {
            return c("MKDIR " + AT_FDCWD + " " + s(p) + " 493");
        }

        @Override
        public String mknod(String p) {
            return c("MKNOD " + AT_FDCWD + " " + s(p) + " " + 0100644);
        }

        @Override
        public String open(String p, int flags) {
            return c("OPEN " + AT_FDCWD + " " + s(p) + " " + flags + " 420");
        }

        @Override
        public String write(int fd) {
            return c("WRITE " + fd + " 1");
        }

        @Override
        public String read(int fd, int len) {
            return c("READ " + fd + " " + len);
        }

        @Override
        public String getdents(int fd) {
            return c("GETDENTS " + fd).split(" ")[0];
        }

        @Override
        public String close(int fd) {
            return c("CLOSE " + fd);
        }

        @Override
        public String ftruncate(int fd) {
            return c("FTRUNCATE " + fd + " 0");
        }

        @Override
        public String truncate(String p) {
            return c("TRUNCATE " + s(p) + " 0");
        }

        @Override
        public String mountTmpfs(String p) {
            return c("MOUNT " + s("none") + " " + s(p) + " " + s("tmpfs") + " 0 n");
        }

        @Override
        public String umount(String p) {
            return c("UMOUNT " + s(p) + " 0");
        }

        @Override
        public String chmod(String p, int mode) {
            return c("CHMOD " + AT_FDCWD + " " + s(p) + " " + mode + " 0");
        }

        @Override
        public String fchmod(int fd, int mode) {
            return c("CHMOD " + fd + " " + s("") + " " + mode + " " + OpenFlags.AT_EMPTY_PATH);
        }

        @Override
        public String fchown(int fd, int uid, int gid) {
            return c(
                    "CHOWN "
                            + fd
                            + " "
                            + s("")
                            + " "
                            + uid
                            + " "
                            + gid
                            + " "
                            + OpenFlags.AT_EMPTY_PATH);
        }

        @Override
        public String link(String a, String b) {
            return c("LINK " + AT_FDCWD + " " + s(a) + " " + AT_FDCWD + " " + s(b) + " 0");
        }

        @Override
        public String unlink(String p) {
            return c("UNLINK " + AT_FDCWD + " " + s(p) + " 0");
        }

        @Override
        public String rmdir(String p) {
            return c("UNLINK " + AT_FDCWD + " " + s(p) + " " + OpenFlags.AT_REMOVEDIR);
        }

        @Override
        public String rename(String a, String b) {
            return c("RENAME " + AT_FDCWD + " " + s(a) + " " + AT_FDCWD + " " + s(b) + " 0");
        }

        @Override
        public String init(int flags) {
            return c("INOTIFY_INIT1 " + flags);
        }

        @Override
        public String addWatch(int fd, String p, int mask) {
            return c("INOTIFY_ADD_WATCH " + fd + " " + s(p) + " " + Integer.toUnsignedString(mask));
        }

        @Override
        public String rmWatch(int fd, int wd) {
            return c("INOTIFY_RM_WATCH " + fd + " " + wd);
        }

        @Override
        public List<String> events(int fd) {
            String[] f = c("INOTIFY_READ " + fd).split(" ");
            int n = Integer.parseInt(f[0]);
            List<String> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String name = f[4 + 4 * i];
                out.add(
                        f[1 + 4 * i]
                                + " "
                                + Integer.toHexString(Integer.parseUnsignedInt(f[2 + 4 * i]))
                                + " "
                                + f[3 + 4 * i]
                                + " "
                                + (name.equals("n") ? "-" : HostSide.unhex(name)));
            }
            return out;
        }

        @Override
        public void close() {
            h.close();
        }
    }

    private static final class Vfs implements Sys {
        final SeqVfs vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"));
        final VfsTask t = vfs.newTask(Credentials.ROOT);

        private static String run(java.util.function.IntSupplier r) {
            try {
                return Integer.toString(r.getAsInt());
            } catch (VfsException e) {
                return "E " + e.errno().number();
            }
        }

        private static String run(Runnable r) {
            return run(
                    () -> {
                        r.run();
                        return 0;
                    });
        }

        @Override
        public String mkdir(String p) {
            return run(() -> t.mkdir(p, 0755));
        }

        @Override
        public String mknod(String p) {
            return run(() -> t.mknod(p, 0100644, 0));
        }

        @Override
        public String open(String p, int flags) {
            return run(() -> t.open(p, flags, 0644));
        }

        @Override
        public String write(int fd) {
            return run(() -> t.write(fd, new byte[] {'x'}));
        }

        @Override
        public String read(int fd, int len) {
            return run(() -> t.read(fd, new byte[len], 0, len));
        }

        @Override
        public String getdents(int fd) {
            return run(
                    () -> {
                        // as hostops: from the start, to the end
                        t.lseek(fd, 0, VfsTask.SEEK_SET);
                        int n = 0;
                        for (int k; (k = t.getdents(fd, 4096).size()) > 0; ) {
                            n += k;
                        }
                        return n;
                    });
        }

        @Override
        public String close(int fd) {
            return run(() -> t.close(fd));
        }

        @Override
        public String ftruncate(int fd) {
            return run(() -> t.ftruncate(fd, 0));
        }

        @Override
        public String truncate(String p) {
            return run(() -> t.truncate(p, 0));
        }

        @Override
        public String mountTmpfs(String p) {
            return run(() -> t.mount("none", p, "tmpfs", 0, null));
        }

        @Override
        public String umount(String p) {
            return run(() -> t.umount(p));
        }

        @Override
        public String chmod(String p, int mode) {
            return run(() -> t.chmod(p, mode));
        }

        @Override
        public String fchmod(int fd, int mode) {
            return run(() -> t.fchmod(fd, mode));
        }

        @Override
        public String fchown(int fd, int uid, int gid) {
            return run(() -> t.fchown(fd, uid, gid));
        }

        @Override
        public String link(String a, String b) {
            return run(() -> t.link(a, b));
        }

        @Override
        public String unlink(String p) {
            return run(() -> t.unlink(p));
        }

        @Override
        public String rmdir(String p) {
            return run(() -> t.rmdir(p));
        }

        @Override
        public String rename(String a, String b) {
            return run(() -> t.rename(a, b));
        }

        @Override
        public String init(int flags) {
            return run(() -> t.inotifyInit1(flags));
        }

        @Override
        public String addWatch(int fd, String p, int mask) {
            return run(() -> t.inotifyAddWatch(fd, p, mask));
        }

        @Override
        public String rmWatch(int fd, int wd) {
            return run(() -> t.inotifyRmWatch(fd, wd));
        }

        @Override
        public List<String> events(int fd) {
            List<String> out = new ArrayList<>();
            byte[] b = new byte[65536];
            while (true) {
                int n;
                try {
                    n = t.read(fd, b, 0, b.length);
                } catch (VfsException e) {
                    return out;
                }
                ByteBuffer bb = ByteBuffer.wrap(b, 0, n).order(ByteOrder.LITTLE_ENDIAN);
                while (bb.hasRemaining()) {
                    int wd = bb.getInt();
                    int mask = bb.getInt();
                    int cookie = bb.getInt();
                    int len = bb.getInt();
                    String name = "-";
                    if (len > 0) {
                        byte[] nb = new byte[len];
                        bb.get(nb);
                        int k = 0;
                        while (k < len && nb[k] != 0) {
                            k++;
                        }
                        name = new String(nb, 0, k, StandardCharsets.UTF_8);
                    }
                    out.add(
                            wd
                                    + " "
                                    + Integer.toHexString(mask)
                                    + " "
                                    + Integer.toUnsignedString(cookie)
                                    + " "
                                    + name);
                }
            }
        }

        @Override
        public void close() {
            vfs.close();
        }
    }

    /** A scenario: calls on one side, returning its transcript (answers, then events). */
    private interface Scenario {
        List<String> run(Sys s);
    }

    /** Replaces each cookie by the order of its first appearance (0 stays 0). */
    private static List<String> normalized(List<String> transcript) {
        Map<String, Integer> cookies = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (String line : transcript) {
            String[] f = line.split(" ", 4);
            if (f.length == 4 && line.startsWith("ev ")) {
                // "ev wd mask cookie name" is split as [ev, wd, mask, "cookie name"]
                String[] g = f[3].split(" ", 2);
                String c =
                        g[0].equals("0")
                                ? "0"
                                : "c" + cookies.computeIfAbsent(g[0], k -> cookies.size() + 1);
                out.add("ev " + f[1] + " " + f[2] + " " + c + " " + g[1]);
            } else {
                out.add(line);
            }
        }
        return out;
    }

    private static void events(Sys s, int fd, List<String> out) {
        for (String e : s.events(fd)) {
            out.add("ev " + e);
        }
    }

    private static void same(Scenario sc) {
        List<String> host;
        List<String> vfs;
        try (Sys h = new Host()) {
            host = normalized(sc.run(h));
        }
        try (Sys v = new Vfs()) {
            vfs = normalized(sc.run(v));
        }
        assertEquals(String.join("\n", host), String.join("\n", vfs));
    }

    @Test
    void namespaceChangesInAWatchedDirectory() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS));
                    out.add(s.mknod("/w/a"));
                    out.add(s.chmod("/w/a", 0600));
                    out.add(s.link("/w/a", "/w/b"));
                    out.add(s.unlink("/w/b"));
                    out.add(s.rename("/w/a", "/w/c"));
                    out.add(s.mkdir("/w/d"));
                    out.add(s.rename("/w/d", "/w/e"));
                    out.add(s.rmdir("/w/e"));
                    out.add(s.mknod("/w/r"));
                    out.add(s.rename("/w/c", "/w/r")); // over an existing name
                    out.add(s.unlink("/w/r"));
                    events(s, fd, out);
                    return out;
                });
    }

    /**
     * {@code IN_ATTRIB} of a change made through a descriptor (fchmod, fchown) reaches the watch on
     * the directory the file was opened in, with its name; a chmod of a subdirectory reaches its
     * parent's watch with the subdirectory's name and {@code IN_ISDIR} (fsnotify_change).
     */
    @Test
    void attribByDescriptor_andOfASubdirectory_reachTheParentsWatch() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mknod("/w/a"));
                    out.add(s.mkdir("/w/d"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS));
                    int f = Integer.parseInt(s.open("/w/a", OpenFlags.O_RDONLY));
                    out.add(s.fchmod(f, 0600));
                    out.add(s.fchown(f, 0, 0));
                    out.add(s.close(f));
                    out.add(s.chmod("/w/d", 0700));
                    int d = Integer.parseInt(s.open("/w/d", OpenFlags.O_RDONLY));
                    out.add(s.fchmod(d, 0750));
                    out.add(s.getdents(d));
                    out.add(s.close(d));
                    events(s, fd, out);
                    return out;
                });
    }

    @Test
    void openWriteReadCloseFtruncate_ofAnExistingFile() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mknod("/w/a"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS));
                    int f = Integer.parseInt(s.open("/w/a", OpenFlags.O_WRONLY));
                    out.add(s.write(f));
                    out.add(s.write(f)); // merged with the unread IN_MODIFY before it
                    out.add(s.close(f));
                    f = Integer.parseInt(s.open("/w/a", OpenFlags.O_RDONLY));
                    out.add(s.read(f, 16));
                    out.add(s.close(f));
                    f = Integer.parseInt(s.open("/w/a", OpenFlags.O_WRONLY));
                    out.add(s.ftruncate(f));
                    out.add(s.close(f));
                    events(s, fd, out);
                    return out;
                });
    }

    @Test
    void opensThatCreateOrTruncate_andTruncateByPath() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mknod("/w/t"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS));
                    out.add(s.addWatch(fd, "/w/t", IN_ALL_EVENTS));
                    int f =
                            Integer.parseInt(
                                    s.open("/w/n", OpenFlags.O_CREAT | OpenFlags.O_WRONLY));
                    out.add(s.close(f));
                    // O_CREAT of an existing name with O_TRUNC: a truncate, not a create
                    f =
                            Integer.parseInt(
                                    s.open(
                                            "/w/n",
                                            OpenFlags.O_CREAT
                                                    | OpenFlags.O_TRUNC
                                                    | OpenFlags.O_WRONLY));
                    out.add(s.close(f));
                    // O_TRUNC of an empty file still reports IN_MODIFY
                    f = Integer.parseInt(s.open("/w/t", OpenFlags.O_TRUNC | OpenFlags.O_RDWR));
                    out.add(s.write(f));
                    out.add(s.close(f));
                    out.add(s.truncate("/w/t"));
                    out.add(s.truncate("/w/n"));
                    out.add(s.truncate("/w/missing"));
                    events(s, fd, out);
                    return out;
                });
    }

    @Test
    void unmountOfAWatchedFileSystem_reportsUnmountThenIgnored() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mkdir("/m"));
                    out.add(s.mountTmpfs("/m"));
                    out.add(s.mkdir("/m/d"));
                    out.add(s.mknod("/m/d/f"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS)); // not in the mount
                    out.add(s.addWatch(fd, "/m", IN_CREATE)); // the mount's root
                    out.add(s.addWatch(fd, "/m/d", IN_DELETE));
                    out.add(s.addWatch(fd, "/m/d/f", IN_ATTRIB));
                    events(s, fd, out);
                    out.add(s.umount("/m"));
                    events(s, fd, out);
                    out.add(s.mknod("/w/after"));
                    events(s, fd, out);
                    return out;
                });
    }

    @Test
    void exclUnlink_dropsEventsOfAnUnlinkedChild() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mkdir("/v"));
                    out.add(s.mknod("/w/a"));
                    out.add(s.mknod("/v/a"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS | IN_EXCL_UNLINK));
                    out.add(s.addWatch(fd, "/v", IN_ALL_EVENTS));
                    int a = Integer.parseInt(s.open("/w/a", OpenFlags.O_RDWR));
                    int b = Integer.parseInt(s.open("/v/a", OpenFlags.O_RDWR));
                    out.add(s.unlink("/w/a"));
                    out.add(s.unlink("/v/a"));
                    out.add(s.write(a));
                    out.add(s.write(b));
                    out.add(s.close(a));
                    out.add(s.close(b));
                    events(s, fd, out);
                    return out;
                });
    }

    @Test
    void watchesOnAFileAndItsDirectory_unlinkOrder_deleteSelfAndIgnored() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mknod("/w/a"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS));
                    out.add(s.addWatch(fd, "/w/a", IN_ALL_EVENTS));
                    out.add(s.chmod("/w/a", 0600));
                    out.add(s.unlink("/w/a"));
                    events(s, fd, out);
                    return out;
                });
    }

    @Test
    void renameOverAWatchedFile_reportsItsAttribDeleteSelfAndIgnored() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mknod("/w/c"));
                    out.add(s.mknod("/w/r"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS));
                    out.add(s.addWatch(fd, "/w/r", IN_ALL_EVENTS));
                    out.add(s.addWatch(fd, "/w/c", IN_ALL_EVENTS));
                    out.add(s.rename("/w/c", "/w/r"));
                    events(s, fd, out);
                    return out;
                });
    }

    @Test
    void rmdirOfAWatchedDirectory_andItsParentsWatch() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mkdir("/w/d"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS));
                    out.add(s.addWatch(fd, "/w/d", IN_ALL_EVENTS));
                    out.add(s.rmdir("/w/d"));
                    events(s, fd, out);
                    return out;
                });
    }

    @Test
    void crossDirectoryRename_pairsByCookie_andMovesSelf() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mkdir("/x"));
                    out.add(s.mknod("/w/a"));
                    out.add(s.mkdir("/w/d"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_ALL_EVENTS));
                    out.add(s.addWatch(fd, "/x", IN_ALL_EVENTS));
                    out.add(s.addWatch(fd, "/w/a", IN_ALL_EVENTS));
                    out.add(s.rename("/w/a", "/x/b"));
                    out.add(s.rename("/w/d", "/x/d"));
                    out.add(s.rename("/x/b", "/w/a"));
                    events(s, fd, out);
                    return out;
                });
    }

    @Test
    void watchDescriptors_rmWatch_maskAdd_andErrors() {
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    out.add(s.mknod("/w/f"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_CREATE));
                    out.add(s.addWatch(fd, "/w/", IN_DELETE));
                    out.add(s.addWatch(fd, "/w", IN_MASK_ADD | IN_CREATE));
                    out.add(s.mknod("/w/g"));
                    out.add(s.unlink("/w/g"));
                    out.add(s.rmWatch(fd, 1));
                    out.add(s.rmWatch(fd, 1));
                    out.add(s.addWatch(fd, "/w", 0));
                    out.add(s.addWatch(fd, "/w/f", IN_ONLYDIR | IN_CREATE));
                    out.add(s.addWatch(fd, "/nope", IN_CREATE));
                    out.add(s.addWatch(fd, "/w", IN_MASK_CREATE | IN_MASK_ADD | IN_CREATE));
                    out.add(s.addWatch(fd, "/w", IN_CREATE));
                    out.add(s.addWatch(fd, "/w", IN_MASK_CREATE | IN_CREATE));
                    out.add(s.init(OpenFlags.O_APPEND));
                    out.add(s.mknod("/w/h"));
                    out.add(s.read(fd, 16)); // too small for the next event
                    events(s, fd, out);
                    out.add(s.read(fd, 64)); // empty, non-blocking
                    return out;
                });
    }

    @Test
    void aFullQueue_reportsOneOverflow() throws Exception {
        // FileInputStream, not Files.readString: on this JDK 17 the latter returned "1" for this
        // procfs file (whose st_size is 0)
        String max;
        try (var in = new java.io.FileInputStream("/proc/sys/fs/inotify/max_queued_events")) {
            max = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
        }
        Assumptions.assumeTrue(
                max.equals(Integer.toString(MAX_QUEUED_EVENTS)),
                "the host's max_queued_events is " + max);
        same(
                s -> {
                    List<String> out = new ArrayList<>();
                    out.add(s.mkdir("/w"));
                    int fd = Integer.parseInt(s.init(IN_NONBLOCK));
                    out.add(s.addWatch(fd, "/w", IN_CREATE));
                    for (int i = 0; i < MAX_QUEUED_EVENTS + 5; i++) {
                        s.mknod("/w/f" + i);
                    }
                    events(s, fd, out);
                    out.add(s.mknod("/w/after"));
                    events(s, fd, out);
                    return out;
                });
    }
}
