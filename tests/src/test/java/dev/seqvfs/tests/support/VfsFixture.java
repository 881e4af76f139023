package dev.seqvfs.tests.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.fs.FileSystemType;
import dev.seqvfs.engine.fs.FileSystemTypes;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh SeqVFS instance per test, with a root task, and the {@link Fsck} invariant check after
 * every test (it fails the test if the tree is inconsistent). Inside a {@link FileSystemContract}
 * suite the instance's root is a superblock of the invocation's file-system type.
 *
 * <p>With {@link #checkingEndState()} (every stress and chaos test uses it) a passing test must
 * also leave nothing behind: after it, the fixture closes every task it made ({@link #task}),
 * removes everything under the root (unmounting what is mounted there), checks that the root's
 * {@code statfs} counters (inode slots and blocks in use) are back at their values from before the
 * test, and runs {@link Fsck} expecting no open file. A leaked inode, a lost block charge, a
 * descriptor left open, or a name that cannot be removed fails the test.
 *
 * <p>On a durable type ({@link FileSystemType#FS_DURABLE}, persistfs) the root's source is a fresh
 * data directory per test ({@code seqvfs.root.source}; {@code
 * -Dseqvfs.contract.root-options=store=postgresql,schema=contract_{id}} puts each test in a
 * PostgreSQL schema of its own instead, {@code {id}} unique to the test, dropped after it), and a
 * passing test is also a remount test: the fixture lists the whole tree (every name's inode number,
 * type, mode, owner, link count, size, mtime and ctime, a symbolic link's target and a regular
 * file's content digest), closes the instance (an unmount), builds a new one on the same data
 * directory, and requires the same listing and a clean {@link Fsck} there. Access times are left
 * out (the listing's reads may move them, as {@code relatime} allows). Extended attributes are
 * listed too.
 *
 * <pre>{@code
 * @RegisterExtension final VfsFixture fs = new VfsFixture();
 * @Test void mkdir_existing_failsWithEEXIST() { fs.root().mkdir("/a", 0755); ... }
 * }</pre>
 */
public final class VfsFixture implements BeforeEachCallback, AfterEachCallback {
    private static final int PAGE = 4096;
    private final Config config;
    private SeqVfs vfs;
    private VfsTask root;
    private boolean expectNoOpenFiles = true;
    private boolean checkEndState;
    private final List<VfsTask> tasks = new ArrayList<>();
    private long[] baseline;
    private Config instanceConfig;
    private boolean durable;
    private String storeId;
    private final List<Path> dataDirs = new ArrayList<>();

    /** A fixture with the default configuration. */
    public VfsFixture() {
        this(ConfigFactory.empty());
    }

    /**
     * A fixture with {@code overrides} (HOCON) over the defaults, for example {@code
     * seqvfs.tmpfs.max-inodes = 10}.
     */
    public VfsFixture(String overrides) {
        this(ConfigFactory.parseString(overrides));
    }

    private VfsFixture(Config config) {
        // Suites specify trees from an empty root: no /proc unless a test asks for it.
        this.config = config.withFallback(ConfigFactory.parseString("seqvfs.proc.mount = off"));
    }

    /** Returns the instance. */
    public SeqVfs vfs() {
        return vfs;
    }

    /** Returns a task with root credentials. */
    public VfsTask root() {
        return root;
    }

    /**
     * Returns a new task with the given ids; with {@link #checkingEndState()} the fixture closes it
     * after the test.
     */
    public VfsTask task(int uid, int gid, int... groups) {
        VfsTask t = vfs.newTask(Credentials.of(uid, gid, groups));
        synchronized (tasks) {
            tasks.add(t);
        }
        return t;
    }

    /**
     * Makes the after-test check the end state too (see the class comment): every stress and chaos
     * test ends this way, so that a leak fails the test that made it.
     *
     * @return this fixture
     */
    public VfsFixture checkingEndState() {
        checkEndState = true;
        return this;
    }

    /**
     * Tells the after-test check that files are left open on purpose (inode counts then need not be
     * exact).
     */
    public void allowOpenFiles() {
        expectNoOpenFiles = false;
    }

    /**
     * Returns the file-system type of this test's root: the contract invocation's ({@link
     * FileSystemContract}), else the configuration's ({@code tmpfs} by default).
     */
    public String rootType() {
        return vfs.rootType();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        String type = FileSystemContract.Types.typeOf(context);
        Config c =
                type == null
                        ? config
                        : ConfigFactory.parseString("seqvfs.root.type = \"" + type + "\"")
                                .withFallback(config);
        c = c.withFallback(ConfigFactory.defaultApplication());
        FileSystemType t =
                FileSystemTypes.installed()
                        .get(c.hasPath("seqvfs.root.type") ? c.getString("seqvfs.root.type") : "");
        durable = t != null && (t.flags() & FileSystemType.FS_DURABLE) != 0;
        if (durable && !c.hasPath("seqvfs.root.source")) {
            c =
                    ConfigFactory.parseMap(
                                    java.util.Map.of("seqvfs.root.source", newDataDir().toString()))
                            .withFallback(c);
        }
        String options = System.getProperty("seqvfs.contract.root-options", "");
        if (durable && !options.isBlank()) {
            // e.g. store=postgresql,schema=contract_{id}: {id} is unique to this test
            storeId = "t" + Long.toHexString(System.nanoTime());
            c =
                    ConfigFactory.parseMap(
                                    java.util.Map.of(
                                            "seqvfs.root.options",
                                            options.replace("{id}", storeId)))
                            .withFallback(c);
        }
        instanceConfig = c;
        vfs = SeqVfs.create(c);
        root = vfs.newTask(Credentials.ROOT);
        expectNoOpenFiles = true;
        synchronized (tasks) {
            tasks.clear();
        }
        baseline = used(root, "/");
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            if (context.getExecutionException().isEmpty()) {
                if (checkEndState) {
                    checkEndState(context.getDisplayName());
                }
                List<String> problems = Fsck.check(vfs, expectNoOpenFiles);
                assertEquals(List.of(), problems, "fsck after " + context.getDisplayName());
                if (durable) {
                    checkRemount(context.getDisplayName());
                }
            }
        } finally {
            try {
                if (vfs != null) {
                    vfs.close();
                }
            } finally {
                deleteDataDirs();
                dropStoreSchema();
            }
        }
    }

    /**
     * Drops the PostgreSQL schema a {@code seqvfs.contract.root-options} of {@code
     * store=postgresql,schema=...{id}} gave this test, on the server {@code
     * seqvfs.persistfs.postgresql} names.
     */
    private void dropStoreSchema() {
        String options = System.getProperty("seqvfs.contract.root-options", "");
        if (storeId == null || !options.contains("store=postgresql")) {
            return;
        }
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("schema=([^,]*)")
                        .matcher(options.replace("{id}", storeId));
        storeId = null;
        if (!m.find()) {
            return;
        }
        Config pg = ConfigFactory.load().getConfig("seqvfs.persistfs.postgresql");
        try (java.sql.Connection db =
                java.sql.DriverManager.getConnection(
                        pg.getString("url"), pg.getString("user"), pg.getString("password"))) {
            db.createStatement().execute("DROP SCHEMA IF EXISTS " + m.group(1) + " CASCADE");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("cannot drop schema " + m.group(1), e);
        }
    }

    /**
     * {@return the source to give {@code mount(2)} for a new superblock of {@code type}}: a fresh
     * data directory (deleted after the test) for a durable type, else {@code "none"}
     *
     * @param type a registered file-system type's name
     */
    public String mountSource(String type) {
        FileSystemType t = FileSystemTypes.installed().get(type);
        if (t != null && (t.flags() & FileSystemType.FS_DURABLE) != 0) {
            return newDataDir().toString();
        }
        return "none";
    }

    private Path newDataDir() {
        try {
            Path d = Files.createTempDirectory("seqvfs-fixture-");
            dataDirs.add(d);
            return d;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes the data directories, retrying a few times: a database may still be closing its files
     * for a moment after the unmount returns.
     */
    private void deleteDataDirs() {
        for (Path d : dataDirs) {
            for (int attempt = 0; ; attempt++) {
                try (Stream<Path> walk = Files.walk(d)) {
                    for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                    break;
                } catch (IOException | UncheckedIOException e) {
                    if (attempt == 20) {
                        throw new IllegalStateException("cannot delete " + d, e);
                    }
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
        dataDirs.clear();
    }

    /**
     * Lists the tree, remounts the durable root, and requires the same listing and a clean fsck.
     */
    private void checkRemount(String test) {
        for (VfsTask t : tasksMade()) {
            t.close();
        }
        List<String> before = listing();
        root.close();
        vfs.close();
        vfs = SeqVfs.create(instanceConfig);
        root = vfs.newTask(Credentials.ROOT);
        List<String> after = listing();
        // what was mounted is not remounted: a mount point's own directory is what was under it
        List<String> points = new ArrayList<>();
        for (String l : before) {
            if (l.endsWith(" (a mount point)")) {
                points.add(l.substring(0, l.length() - " (a mount point)".length()));
            }
        }
        before = withoutMountPoints(before, points);
        after = withoutMountPoints(after, points);
        assertEquals(
                String.join("\n", before),
                String.join("\n", after),
                "the tree after a remount of the data directory, after " + test);
        assertEquals(List.of(), Fsck.check(vfs, true), "fsck after a remount, after " + test);
    }

    private static List<String> withoutMountPoints(List<String> lines, List<String> points) {
        List<String> out = new ArrayList<>();
        for (String l : lines) {
            boolean under = false;
            for (String p : points) {
                under |= l.startsWith(p + " ") || l.startsWith(p + "/");
            }
            if (!under) {
                out.add(l);
            }
        }
        return out;
    }

    /**
     * {@return one line per name under the root (depth first, in name order) with what a remount
     * must keep}; names on other file systems (mounts) are not listed.
     */
    public List<String> listing() {
        List<String> out = new ArrayList<>();
        VfsTask t = vfs.newTask(Credentials.ROOT);
        try {
            t.chdir("/");
            Stat r = t.lstat(".");
            out.add("/" + attributes(r) + xattrs(t, "."));
            list(t, "", r.dev(), out);
        } finally {
            t.close();
        }
        return out;
    }

    private static void list(VfsTask t, String prefix, long dev, List<String> out) {
        java.util.Map<String, Long> names = new java.util.TreeMap<>();
        for (DirEntry e : t.readdir(".")) {
            if (!e.name().equals(".") && !e.name().equals("..")) {
                names.put(e.name(), e.ino());
            }
        }
        for (String name : names.keySet()) {
            Stat s = t.lstat(name);
            String path = prefix + "/" + name;
            // a mount point: another device, or a bind mount (the entry's d_ino is what is under
            // it)
            if (s.dev() != dev || s.ino() != names.get(name)) {
                out.add(path + " (a mount point)");
                continue;
            }
            StringBuilder line =
                    new StringBuilder(path).append(attributes(s)).append(xattrs(t, name));
            FileType type = s.type();
            if (type == FileType.SYMLINK) {
                line.append(" -> ").append(t.readlink(name));
            } else if (type == FileType.REGULAR) {
                line.append(" sha256=").append(digest(t, name));
            }
            out.add(line.toString());
            if (type == FileType.DIRECTORY) {
                t.chdir(name);
                list(t, path, dev, out);
                t.chdir("..");
            }
        }
    }

    /** {@return the extended attributes of {@code name} (not followed): each name, value's hash} */
    private static String xattrs(VfsTask t, String name) {
        StringBuilder b = new StringBuilder();
        List<String> names = new ArrayList<>(t.llistxattr(name));
        names.sort(Comparator.naturalOrder());
        for (String n : names) {
            b.append(' ')
                    .append(n)
                    .append('=')
                    .append(java.util.Arrays.hashCode(t.lgetxattr(name, n)));
        }
        return b.toString();
    }

    private static String attributes(Stat s) {
        return " ino="
                + s.ino()
                + " mode="
                + Integer.toOctalString(s.mode())
                + " uid="
                + s.uid()
                + " gid="
                + s.gid()
                + " nlink="
                + s.nlink()
                + " size="
                + s.size()
                + " rdev="
                + s.rdev()
                + " mtime="
                + s.mtimeNanos()
                + " ctime="
                + s.ctimeNanos();
    }

    /**
     * A digest of a regular file's content that reads only its data ({@code SEEK_DATA}), so a
     * sparse file of a terabyte costs what it holds: each non-zero 4 KiB page with its offset. A
     * hole and a run of written zeros digest alike (a type may store either), and the size is
     * listed apart.
     */
    private static String digest(VfsTask t, String name) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        int fd = t.open(name, OpenFlags.O_RDONLY | OpenFlags.O_NOATIME);
        try {
            long size = t.fstat(fd).size();
            byte[] b = new byte[1 << 16];
            long off = 0;
            while (off < size) {
                long data;
                try {
                    data = t.lseek(fd, off, VfsTask.SEEK_DATA);
                } catch (VfsException e) {
                    if (e.errno() == Errno.ENXIO) {
                        break; // only a hole is left
                    }
                    throw e;
                }
                long hole = t.lseek(fd, data, VfsTask.SEEK_HOLE);
                // whole 4 KiB pages at their own offsets: where a region starts does not matter
                for (long at = data / PAGE * PAGE; at < hole; ) {
                    int n = t.pread(fd, b, 0, (int) Math.min(b.length, hole - at), at);
                    if (n <= 0) {
                        break;
                    }
                    for (int p = 0; p < n; p += PAGE) {
                        int len = Math.min(PAGE, n - p);
                        if (!allZero(b, p, len)) {
                            md.update(ByteBuffer.allocate(8).putLong(0, at + p));
                            md.update(b, p, len);
                        }
                    }
                    at += n;
                }
                off = hole;
            }
        } finally {
            t.close(fd);
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static boolean allZero(byte[] b, int from, int n) {
        for (int i = from; i < from + n; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private List<VfsTask> tasksMade() {
        synchronized (tasks) {
            List<VfsTask> made = new ArrayList<>(tasks);
            tasks.clear();
            return made;
        }
    }

    private void checkEndState(String test) {
        for (VfsTask t : tasksMade()) {
            t.close();
        }
        removeAllUnder("/");
        long[] now = used(root, "/");
        assertEquals(baseline[0], now[0], "inode slots in use at the end of " + test);
        assertEquals(baseline[1], now[1], "blocks in use at the end of " + test);
        expectNoOpenFiles = true;
    }

    /**
     * Removes everything under the directory {@code dir} (which stays), by names relative to it, so
     * that a tree deeper than {@code PATH_MAX} goes too; what is mounted below it is emptied,
     * detached and removed. Runs in a task of its own, with root credentials.
     *
     * @param dir an absolute path of a directory
     */
    public void removeAllUnder(String dir) {
        VfsTask cleaner = vfs.newTask(Credentials.ROOT);
        try {
            cleaner.chdir(dir);
            removeTree(cleaner, cleaner.lstat(".").dev());
        } finally {
            cleaner.close();
        }
    }

    /**
     * {@return inode slots and blocks in use on the file system holding {@code path}, from {@code
     * statfs}: {@code files - ffree} and {@code blocks - bfree}}
     *
     * @param t the task that asks
     * @param path a path on the file system
     */
    public static long[] used(VfsTask t, String path) {
        StatFs s = t.statfs(path);
        return new long[] {s.files() - s.ffree(), s.blocks() - s.bfree()};
    }

    /**
     * Removes everything under the working directory of {@code t} (of device {@code dev}), by names
     * relative to it, so that a tree deeper than {@code PATH_MAX} goes too; a directory of another
     * device is a mount: emptied, then detached, then removed.
     */
    private static void removeTree(VfsTask t, long dev) {
        for (DirEntry e : t.readdir(".")) {
            String name = e.name();
            if (name.equals(".") || name.equals("..")) {
                continue;
            }
            if (e.type() != FileType.DIRECTORY && t.lstat(name).type() != FileType.DIRECTORY) {
                t.unlink(name);
                continue;
            }
            long childDev = t.lstat(name).dev();
            t.chdir(name);
            removeTree(t, childDev);
            t.chdir("..");
            if (childDev != dev) {
                t.umount2(name, MountFlags.MNT_DETACH);
            }
            t.rmdir(name);
        }
    }
}
