package dev.seqvfs.tests.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh SeqVFS instance per test, with a root task, and the {@link Fsck} invariant check after
 * every test (it fails the test if the tree is inconsistent). Inside a {@link FileSystemContract}
 * suite the instance's root is a superblock of the invocation's file-system type.
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

    /** Returns a new task with the given ids. */
    public VfsTask task(int uid, int gid, int... groups) {
        return vfs.newTask(Credentials.of(uid, gid, groups));
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
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            if (context.getExecutionException().isEmpty()) {
                List<String> problems = Fsck.check(vfs, expectNoOpenFiles);
                assertEquals(List.of(), problems, "fsck after " + context.getDisplayName());
            }
        } finally {
            vfs.close();
        }
    }
}
