package dev.seqvfs.nio;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.engine.fs.hostfs.HostfsType;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.VfsException;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;

/**
 * SeqVFS as the JVM's default file-system provider: run a program with {@code
 * -Djava.nio.file.spi.DefaultFileSystemProvider=dev.seqvfs.nio.SeqVfsDefaultFileSystemProvider}
 * (and SeqVFS on the class path) and its {@code Path.of}, {@code Paths.get}, {@code File.toPath()}
 * and {@code Files} calls reach a fresh SeqVFS instance instead of the host. The JDK calls the
 * constructor with its own provider ({@code FileSystems.getDefault}'s {@code
 * DefaultFileSystemHolder}), which this class keeps for {@code hostfs}.
 *
 * <p>What the instance holds from the start: a tmpfs root; {@code /proc} (SeqVFS's procfs); an
 * empty {@code /tmp} (mode {@code 1777}) and the working directory ({@code user.dir}, made empty
 * unless a mount shows it); and, read-only through {@code hostfs} at their host paths, {@code
 * java.home}, the directory of every class-path and module-path entry ({@code java.class.path},
 * {@code jdk.module.path}: a directory itself, a jar's parent) and every directory listed in the
 * system property {@value #HOSTFS_PROPERTY} (separated by {@link File#pathSeparator}). A directory
 * inside one already mounted is not mounted again. The JVM's own needs (its modules, class loading)
 * never go through {@code java.nio.file}; these mounts are for code that reads the JDK's or the
 * application's files by path. Everything written lands in SeqVFS's memory and is gone when the JVM
 * exits.
 *
 * <p>The file system's task runs as the JVM's user (the owner of the host's {@code /proc/self}),
 * with umask {@code 022}. Paths are {@link SeqVfsPath}s; their provider is the {@code seqvfs}
 * scheme's ({@link SeqVfsFileSystemProvider}), and {@code toUri()} gives {@code
 * seqvfs://default/...}, which {@code Path.of(URI)} and {@code URL.openStream()} take back; {@code
 * file:} URIs reach the same paths through this provider. The default file system cannot be closed
 * ({@link UnsupportedOperationException}), as the JDK's.
 *
 * <p>The JDK asks for the file system while it initializes {@code FileSystems.getDefault()}, when
 * no code may use a path yet (the JDK's own image reader, which the configuration loader reaches,
 * parses one). So that call returns at once a file system that only parses paths, and the engine is
 * made on the first call that needs it, as an ordinary {@code java.nio.file} client: loading the
 * configuration, starting the actor system, mounting. A file-system call that this making itself
 * would make is refused ({@link IllegalStateException}); none does today. Thread-safe.
 */
public final class SeqVfsDefaultFileSystemProvider extends FileSystemProvider {
    /** The system property listing more host directories to mount read-only. */
    public static final String HOSTFS_PROPERTY = "seqvfs.default.hostfs";

    /** The name of the default file system in the {@code seqvfs} scheme. */
    public static final String NAME = "default";

    private final FileSystemProvider original;
    private final SeqVfsFileSystemProvider inner;
    private volatile SeqVfsFileSystem fs;

    /**
     * Called by the JDK with its own default provider.
     *
     * @param original the JDK's default provider (the host's files), kept for {@code hostfs}
     */
    public SeqVfsDefaultFileSystemProvider(FileSystemProvider original) {
        this.original = original;
        HostfsType.useOriginalProvider(original);
        this.inner = new SeqVfsFileSystemProvider();
    }

    /** {@return {@code "file"}, as the JDK requires of a default provider} */
    @Override
    public String getScheme() {
        return "file";
    }

    /** {@return the default file system, made on the first call} */
    private SeqVfsFileSystem fs() {
        SeqVfsFileSystem f = fs;
        if (f == null) {
            synchronized (this) {
                f = fs;
                if (f == null) {
                    f =
                            new SeqVfsFileSystem(
                                    inner, NAME, System.getProperty("user.dir", "/"), this::build);
                    f.makePermanent();
                    inner.register(f);
                    fs = f;
                }
            }
        }
        return f;
    }

    /**
     * Makes the engine, its mounts and the file system's task, on the first call that needs them.
     */
    private SeqVfsFileSystem.Bound build() {
        Config config =
                ConfigFactory.parseMap(Map.of("seqvfs.proc.mount", "on"))
                        .withFallback(ConfigFactory.load())
                        .resolve();
        SeqVfs vfs = SeqVfs.create(config);
        String cwd = System.getProperty("user.dir", "/");
        try (VfsTask admin = vfs.newTask(Credentials.ROOT)) {
            for (String dir : hostDirectories()) {
                mkdirs(admin, dir);
                admin.mount(dir, dir, "hostfs", MountFlags.MS_RDONLY, null);
            }
            mkdirs(admin, "/tmp");
            admin.chmod("/tmp", 01777);
            mkdirs(admin, cwd);
            int[] owner = jvmUser();
            admin.chown(cwd, owner[0], owner[1]);
        } catch (VfsException e) {
            vfs.close();
            throw e;
        }
        int[] owner = jvmUser();
        VfsTask task = vfs.newTask(Credentials.of(owner[0], owner[1]));
        task.umask(022);
        return new SeqVfsFileSystem.Bound(vfs, task);
    }

    /**
     * The host directories mounted: {@code java.home}, the class and module paths' directories and
     * {@value #HOSTFS_PROPERTY}, absolute, without those inside another.
     */
    static List<String> hostDirectories() {
        TreeSet<String> dirs = new TreeSet<>();
        addDir(dirs, System.getProperty("java.home"), false);
        for (String prop : List.of("java.class.path", "jdk.module.path", HOSTFS_PROPERTY)) {
            String v = System.getProperty(prop);
            if (v == null) {
                continue;
            }
            for (String e : v.split(File.pathSeparator)) {
                addDir(dirs, e, true);
            }
        }
        List<String> out = new ArrayList<>();
        for (String d : dirs) {
            boolean inside = false;
            for (String o : out) {
                if (o.equals("/") || d.startsWith(o + "/")) {
                    inside = true;
                    break;
                }
            }
            if (!inside) {
                out.add(d);
            }
        }
        return out;
    }

    private static void addDir(TreeSet<String> dirs, String entry, boolean fileMeansParent) {
        if (entry == null || entry.isBlank()) {
            return;
        }
        File f = new File(entry).getAbsoluteFile();
        if (fileMeansParent && f.isFile()) {
            f = f.getParentFile();
        }
        if (f != null && f.isDirectory()) {
            dirs.add(f.toPath().normalize().toString());
        }
    }

    private static void mkdirs(VfsTask t, String dir) {
        StringBuilder p = new StringBuilder();
        for (String n : dir.split("/")) {
            if (n.isEmpty()) {
                continue;
            }
            p.append('/').append(n);
            try {
                t.mkdir(p.toString(), 0755);
            } catch (VfsException e) {
                if (e.errno() != Errno.EEXIST) {
                    throw e;
                }
            }
        }
    }

    /** The JVM's uid and gid: the owner of the host's {@code /proc/self}, else root. */
    private int[] jvmUser() {
        try {
            Path self = original.getFileSystem(URI.create("file:///")).getPath("/proc/self");
            Map<String, Object> a = original.readAttributes(self, "unix:uid,gid");
            return new int[] {(Integer) a.get("uid"), (Integer) a.get("gid")};
        } catch (IOException | RuntimeException e) {
            return new int[] {0, 0};
        }
    }

    /**
     * {@return the default file system for {@code file:///}}
     *
     * @param uri {@code file:///}
     */
    @Override
    public FileSystem getFileSystem(URI uri) {
        checkUri(uri);
        return fs();
    }

    /**
     * Refuses: the default file system exists already.
     *
     * @throws FileSystemAlreadyExistsException always
     */
    @Override
    public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
        checkUri(uri);
        throw new FileSystemAlreadyExistsException();
    }

    /** {@return the default file system's path of a {@code file:} URI} */
    @Override
    public Path getPath(URI uri) {
        checkUri(uri);
        String p = uri.getPath();
        if (p == null || !p.startsWith("/")) {
            throw new IllegalArgumentException("URI path component is not absolute: " + uri);
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("URI has a query or fragment component: " + uri);
        }
        return fs().getPath(p);
    }

    private static void checkUri(URI uri) {
        if (!"file".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("URI scheme is not \"file\"");
        }
        if (uri.getRawAuthority() != null && !uri.getRawAuthority().isEmpty()) {
            throw new IllegalArgumentException("URI has an authority component");
        }
    }

    // Everything else is the seqvfs provider's, which owns the paths.

    @Override
    public SeekableByteChannel newByteChannel(
            Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        return inner.newByteChannel(path, options, attrs);
    }

    @Override
    public FileChannel newFileChannel(
            Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        return inner.newFileChannel(path, options, attrs);
    }

    @Override
    public AsynchronousFileChannel newAsynchronousFileChannel(
            Path path,
            Set<? extends OpenOption> options,
            ExecutorService executor,
            FileAttribute<?>... attrs)
            throws IOException {
        return inner.newAsynchronousFileChannel(path, options, executor, attrs);
    }

    @Override
    public DirectoryStream<Path> newDirectoryStream(
            Path dir, DirectoryStream.Filter<? super Path> filter) throws IOException {
        return inner.newDirectoryStream(dir, filter);
    }

    @Override
    public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
        inner.createDirectory(dir, attrs);
    }

    @Override
    public void createSymbolicLink(Path link, Path target, FileAttribute<?>... attrs)
            throws IOException {
        inner.createSymbolicLink(link, target, attrs);
    }

    @Override
    public void createLink(Path link, Path existing) throws IOException {
        inner.createLink(link, existing);
    }

    @Override
    public void delete(Path path) throws IOException {
        inner.delete(path);
    }

    @Override
    public Path readSymbolicLink(Path link) throws IOException {
        return inner.readSymbolicLink(link);
    }

    @Override
    public void copy(Path source, Path target, CopyOption... options) throws IOException {
        inner.copy(source, target, options);
    }

    @Override
    public void move(Path source, Path target, CopyOption... options) throws IOException {
        inner.move(source, target, options);
    }

    @Override
    public boolean isSameFile(Path path, Path path2) throws IOException {
        return inner.isSameFile(path, path2);
    }

    @Override
    public boolean isHidden(Path path) throws IOException {
        return inner.isHidden(path);
    }

    @Override
    public FileStore getFileStore(Path path) throws IOException {
        return inner.getFileStore(path);
    }

    @Override
    public void checkAccess(Path path, AccessMode... modes) throws IOException {
        inner.checkAccess(path, modes);
    }

    @Override
    public <V extends FileAttributeView> V getFileAttributeView(
            Path path, Class<V> type, LinkOption... options) {
        return inner.getFileAttributeView(path, type, options);
    }

    @Override
    public <A extends BasicFileAttributes> A readAttributes(
            Path path, Class<A> type, LinkOption... options) throws IOException {
        return inner.readAttributes(path, type, options);
    }

    @Override
    public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options)
            throws IOException {
        return inner.readAttributes(path, attributes, options);
    }

    @Override
    public void setAttribute(Path path, String attribute, Object value, LinkOption... options)
            throws IOException {
        inner.setAttribute(path, attribute, value, options);
    }

    @Override
    public String toString() {
        return "SeqVfsDefaultFileSystemProvider[over " + original + "]";
    }
}
