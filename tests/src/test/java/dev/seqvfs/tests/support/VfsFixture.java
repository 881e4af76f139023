package dev.seqvfs.tests.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.StatFs;
import java.util.ArrayList;
import java.util.List;
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
 * <pre>{@code
 * @RegisterExtension final VfsFixture fs = new VfsFixture();
 * @Test void mkdir_existing_failsWithEEXIST() { fs.root().mkdir("/a", 0755); ... }
 * }</pre>
 */
public final class VfsFixture implements BeforeEachCallback, AfterEachCallback {
    private final Config config;
    private SeqVfs vfs;
    private VfsTask root;
    private boolean expectNoOpenFiles = true;
    private boolean checkEndState;
    private final List<VfsTask> tasks = new ArrayList<>();
    private long[] baseline;

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
        vfs = SeqVfs.create(c.withFallback(ConfigFactory.defaultApplication()));
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
            }
        } finally {
            vfs.close();
        }
    }

    private void checkEndState(String test) {
        List<VfsTask> made;
        synchronized (tasks) {
            made = new ArrayList<>(tasks);
        }
        for (VfsTask t : made) {
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
