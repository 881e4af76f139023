package dev.seqvfs.nio;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.file.ClosedFileSystemException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.WatchService;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * A {@code java.nio.file} view of one SeqVFS instance through one task: its credentials decide
 * every permission check (a file system made for uid 1000 gets {@code AccessDeniedException} where
 * that user would get {@code EACCES}), its umask applies to every create, and its descriptor table
 * holds every open channel. Made by {@link #builder()} or {@code FileSystems.newFileSystem(
 * URI.create("seqvfs://name/"), env)} ({@link SeqVfsFileSystemProvider} lists the keys).
 *
 * <p><b>Thread-safety.</b> Every method may be called by any thread; the task is shared as the
 * threads of one process share theirs. <b>Closing</b> ({@link #close}) closes every channel and
 * directory stream opened through it, ends the task and, when this file system made its engine,
 * closes the engine; afterwards every call through it throws {@link ClosedFileSystemException}.
 * Closing is idempotent.
 */
public final class SeqVfsFileSystem extends FileSystem {
    private final SeqVfsFileSystemProvider provider;
    private final String name;

    /** The engine; set once, in the constructor or (a deferred file system) by {@link #bind}. */
    private volatile SeqVfs vfs;

    private final boolean ownsEngine;

    /** The task; set once, with {@link #vfs}. */
    private volatile VfsTask task;

    /** What makes the engine and task of a deferred file system, {@code null} once bound. */
    private Supplier<Bound> deferred;

    /** The thread binding a deferred file system, to refuse a call it makes on it meanwhile. */
    private Thread binding;

    private final SeqVfsPath root;
    private final SeqVfsPath empty;
    private final SeqVfsPath cwd;
    private final SeqVfsFileStore store;
    private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
    private final LockTable locks = new LockTable();
    private final int umask;
    private final String workingDirectory;
    private volatile boolean closed;

    /** Whether this is the JVM's default file system, which cannot be closed. */
    private volatile boolean permanent;

    /**
     * The engine and task of a deferred file system, made on its first call.
     *
     * @param vfs the engine (the file system does not close it)
     * @param task the task the file system calls through
     */
    record Bound(SeqVfs vfs, VfsTask task) {}

    /**
     * Creates a file system whose engine is made on its first call that needs it ({@link #task()});
     * until then it parses paths and nothing else. For the JVM's default file system, which the JDK
     * asks for while code that itself parses paths (its module image reader) may not yet run
     * ({@link SeqVfsDefaultFileSystemProvider}).
     *
     * @param provider the provider
     * @param name the name in the {@code seqvfs} scheme
     * @param workingDirectory the working directory, absolute
     * @param deferred makes the engine and the task, once
     */
    SeqVfsFileSystem(
            SeqVfsFileSystemProvider provider,
            String name,
            String workingDirectory,
            Supplier<Bound> deferred) {
        this.provider = provider;
        this.name = name;
        this.root = new SeqVfsPath(this, new byte[] {'/'});
        this.empty = new SeqVfsPath(this, new byte[0]);
        this.ownsEngine = false;
        this.deferred = Objects.requireNonNull(deferred);
        this.umask = 022;
        this.workingDirectory = workingDirectory;
        this.cwd = SeqVfsPath.parse(this, workingDirectory);
        this.store = new SeqVfsFileStore(this);
    }

    /** Makes a deferred file system's engine and task, once. */
    private synchronized void bind() {
        if (task != null) {
            return;
        }
        if (binding == Thread.currentThread()) {
            throw new IllegalStateException(
                    "a file-system call while the default file system's engine is being made");
        }
        binding = Thread.currentThread();
        try {
            Bound b = deferred.get();
            vfs = b.vfs();
            task = b.task();
            deferred = null;
        } finally {
            binding = null;
        }
    }

    SeqVfsFileSystem(SeqVfsFileSystemProvider provider, Builder b) {
        this.provider = provider;
        this.name = b.name;
        this.root = new SeqVfsPath(this, new byte[] {'/'});
        this.empty = new SeqVfsPath(this, new byte[0]);
        this.umask = b.umask;
        this.workingDirectory = b.workingDirectory;
        if (b.engine != null) {
            this.vfs = b.engine;
            this.ownsEngine = b.ownsGivenEngine;
        } else {
            StringBuilder opts = new StringBuilder();
            if (b.maxBytes >= 0) {
                opts.append("size=").append(b.maxBytes);
            }
            if (b.maxInodes >= 0) {
                opts.append(opts.length() > 0 ? "," : "").append("nr_inodes=").append(b.maxInodes);
            }
            this.vfs = SeqVfs.create(config(b.proc, opts.toString()));
            this.ownsEngine = true;
        }
        try {
            if (b.readOnly && ownsEngine && b.initialTree == null) {
                VfsTask admin = vfs.newTask(Credentials.ROOT);
                try {
                    for (String dir : b.directories) {
                        mkdirs(admin, dir);
                    }
                    admin.mount(
                            null, "/", null, MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY, null);
                } finally {
                    admin.close();
                }
            }
            this.task = vfs.newTask(Credentials.of(b.uid, b.gid, b.groups));
            task.umask(b.umask);
            if (!b.readOnly || b.initialTree != null) {
                for (String dir : b.directories) {
                    mkdirs(dir);
                }
            }
        } catch (VfsException e) {
            if (ownsEngine) {
                vfs.close();
            }
            throw e;
        }
        this.cwd = SeqVfsPath.parse(this, b.workingDirectory);
        this.store = new SeqVfsFileStore(this);
        if (b.initialTree != null) {
            try {
                copyIn(b.initialTree);
                if (b.readOnly && ownsEngine) {
                    VfsTask admin = vfs.newTask(Credentials.ROOT);
                    try {
                        admin.mount(
                                null,
                                "/",
                                null,
                                MountFlags.MS_REMOUNT | MountFlags.MS_RDONLY,
                                null);
                    } finally {
                        admin.close();
                    }
                }
            } catch (IOException | RuntimeException e) {
                task.close();
                if (ownsEngine) {
                    vfs.close();
                }
                throw new java.io.UncheckedIOException(
                        e instanceof IOException io ? io : new IOException(e));
            }
        }
        if (!"/".equals(b.workingDirectory)) {
            // relative paths reach the engine as they are: its task's working directory must be
            // the one toAbsolutePath resolves against
            try {
                task.chdir(b.workingDirectory);
            } catch (VfsException e) {
                task.close();
                if (ownsEngine) {
                    vfs.close();
                }
                throw new IllegalArgumentException(
                        "working directory " + b.workingDirectory + ": " + Errors.reason(e.errno()),
                        e);
            }
        }
    }

    /** The builder's initial tree: a walk of {@code source} copied under the root. */
    private void copyIn(Path source) throws IOException {
        java.nio.file.Files.walkFileTree(
                source,
                new java.nio.file.SimpleFileVisitor<>() {
                    private SeqVfsPath target(Path p) {
                        SeqVfsPath t = root;
                        for (Path n : source.relativize(p)) {
                            if (!n.toString().isEmpty()) {
                                t = t.resolve(n.toString());
                            }
                        }
                        return t;
                    }

                    @Override
                    public java.nio.file.FileVisitResult preVisitDirectory(
                            Path dir, java.nio.file.attribute.BasicFileAttributes attrs)
                            throws IOException {
                        SeqVfsPath t = target(dir);
                        if (!t.equals(root)) {
                            try {
                                java.nio.file.Files.createDirectory(t);
                            } catch (java.nio.file.FileAlreadyExistsException e) {
                                // a directory the builder made already
                            }
                        }
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }

                    @Override
                    public java.nio.file.FileVisitResult visitFile(
                            Path file, java.nio.file.attribute.BasicFileAttributes attrs)
                            throws IOException {
                        SeqVfsPath t = target(file);
                        if (attrs.isSymbolicLink()) {
                            java.nio.file.Files.createSymbolicLink(
                                    t,
                                    getPath(java.nio.file.Files.readSymbolicLink(file).toString()));
                        } else if (attrs.isRegularFile()) {
                            java.nio.file.Files.write(t, java.nio.file.Files.readAllBytes(file));
                            permissions(file, t);
                        }
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }

                    @Override
                    public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException e)
                            throws IOException {
                        if (e != null) {
                            throw e;
                        }
                        SeqVfsPath t = target(dir);
                        if (!t.equals(root)) {
                            permissions(dir, t);
                        }
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }

                    private void permissions(Path from, SeqVfsPath to) throws IOException {
                        java.util.Set<java.nio.file.attribute.PosixFilePermission> perms;
                        try {
                            perms = java.nio.file.Files.getPosixFilePermissions(from);
                        } catch (UnsupportedOperationException e) {
                            return; // a source without POSIX permissions (a zip): the umask's
                        }
                        java.nio.file.Files.setPosixFilePermissions(to, perms);
                    }
                });
    }

    /** Resolved configurations by (procfs, root options): made once, as a suite makes many. */
    private static final Map<String, Config> CONFIGS = new ConcurrentHashMap<>();

    private static Config config(boolean proc, String rootOptions) {
        return CONFIGS.computeIfAbsent(
                proc + "|" + rootOptions,
                k ->
                        ConfigFactory.parseMap(
                                        Map.of(
                                                "seqvfs.proc.mount",
                                                proc ? "on" : "off",
                                                "seqvfs.root.options",
                                                rootOptions))
                                .withFallback(ConfigFactory.load())
                                .resolve());
    }

    private void mkdirs(String dir) {
        mkdirs(task, dir);
    }

    /** Makes {@code dir} and its missing parents (mode 0755, less the umask) as {@code t}. */
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

    /**
     * {@return a builder of a new, empty file system: root 01777 owned by root, the caller root
     * with umask 022, no size or inode limit but the engine's heap-bound defaults, read-write}
     */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the file system's name: the authority of its URIs ({@code seqvfs://name/})} */
    public String name() {
        return name;
    }

    /** {@return the engine this file system is a view of (for the {@code VfsTask} API)} */
    public SeqVfs engine() {
        if (vfs == null) {
            bind();
        }
        return vfs;
    }

    /**
     * Forks this file system ({@link SeqVfs#fork()}): a new, unregistered file system named {@code
     * name}, with this one's credentials, umask and working directory, over a fork of its engine,
     * which it owns (closing it closes the fork). The fork has this engine's contents at one
     * instant and shares their data pages, copy on write; from then on neither side sees the
     * other's writes. Open channels, directory streams, watch services and file locks are not
     * forked. Thread-safe. The cost is linear in the number of files (README, "Forks").
     *
     * @param name the fork's name (the authority of its URIs)
     * @return the fork, open; close it
     * @throws java.nio.file.ClosedFileSystemException if this file system is closed
     * @throws dev.seqvfs.protocol.VfsException as {@link SeqVfs#fork()}: {@code EIO} if the engine
     *     is closed, {@code ENOSPC} if the copy does not fit its limits
     */
    public SeqVfsFileSystem fork(String name) {
        checkOpen();
        Credentials c = task.cred();
        SeqVfs forked = vfs.fork();
        Builder b =
                builder()
                        .name(name)
                        .user(c.uid(), c.gid(), c.groups())
                        .umask(umask)
                        .workingDirectory(workingDirectory)
                        .engine(forked);
        b.ownsGivenEngine = true;
        try {
            return new SeqVfsFileSystem(provider, b);
        } catch (RuntimeException e) {
            forked.close();
            throw e;
        }
    }

    /** {@return the task through which this file system makes its calls} */
    public VfsTask task() {
        checkOpen();
        VfsTask t = task;
        if (t == null) {
            bind();
            t = task;
        }
        return t;
    }

    SeqVfsPath rootDirectory() {
        return root;
    }

    SeqVfsPath emptyPath() {
        return empty;
    }

    SeqVfsPath workingDirectory() {
        return cwd;
    }

    LockTable locks() {
        return locks;
    }

    void checkOpen() {
        if (closed) {
            throw new ClosedFileSystemException();
        }
    }

    /** Registers something closed with the file system ({@link #close}). */
    void opened(AutoCloseable c) {
        open.add(c);
        if (closed) {
            open.remove(c);
            throw new ClosedFileSystemException();
        }
    }

    /** Makes this the JVM's default file system: {@link #close()} then refuses. */
    void makePermanent() {
        permanent = true;
    }

    /** {@return whether this is the JVM's default file system} */
    boolean isPermanent() {
        return permanent;
    }

    void closedOne(AutoCloseable c) {
        open.remove(c);
    }

    @Override
    public SeqVfsFileSystemProvider provider() {
        return provider;
    }

    /**
     * Closes every channel and stream opened through this file system, ends its task and (when it
     * made its engine) closes the engine, releasing its memory; unregisters its name. Idempotent.
     *
     * @throws IOException never in practice; declared by {@link FileSystem}
     * @throws UnsupportedOperationException for the JVM's default file system ({@link
     *     SeqVfsDefaultFileSystemProvider}), which cannot be closed
     */
    @Override
    public void close() throws IOException {
        if (permanent) {
            throw new UnsupportedOperationException("the default file system cannot be closed");
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (AutoCloseable c : List.copyOf(open)) {
            try {
                c.close();
            } catch (Exception e) {
                // closing anyway: the task's end releases what is left
            }
        }
        open.clear();
        try {
            if (task != null) {
                task.close();
            }
        } finally {
            if (ownsEngine) {
                vfs.close();
            }
            provider.removed(this);
        }
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public boolean isReadOnly() {
        return store.isReadOnly();
    }

    @Override
    public String getSeparator() {
        return "/";
    }

    @Override
    public Iterable<Path> getRootDirectories() {
        checkOpen();
        return List.of(root);
    }

    @Override
    public Iterable<FileStore> getFileStores() {
        checkOpen();
        return List.of(store);
    }

    SeqVfsFileStore store() {
        return store;
    }

    @Override
    public Set<String> supportedFileAttributeViews() {
        return SeqVfsFileStore.VIEWS;
    }

    @Override
    public SeqVfsPath getPath(String first, String... more) {
        Objects.requireNonNull(first);
        String p = first;
        if (more.length > 0) {
            StringBuilder sb = new StringBuilder(first);
            for (String m : more) {
                if (!m.isEmpty()) {
                    if (sb.length() > 0) {
                        sb.append('/');
                    }
                    sb.append(m);
                }
            }
            p = sb.toString();
        }
        return SeqVfsPath.parse(this, p);
    }

    /**
     * Returns a matcher for {@code glob:} or {@code regex:} patterns, as the JDK's: the glob syntax
     * of {@link FileSystem#getPathMatcher} ({@code *} within a name, {@code **} across names,
     * {@code ?}, {@code [...]} with {@code !}, {@code {a,b}}, {@code \} escapes) matched against
     * {@link Path#toString()}.
     *
     * @throws IllegalArgumentException for a pattern without {@code syntax:}
     * @throws UnsupportedOperationException for another syntax
     * @throws java.util.regex.PatternSyntaxException for a bad pattern
     */
    @Override
    public PathMatcher getPathMatcher(String syntaxAndPattern) {
        int pos = syntaxAndPattern.indexOf(':');
        if (pos <= 0) {
            throw new IllegalArgumentException();
        }
        String syntax = syntaxAndPattern.substring(0, pos);
        String input = syntaxAndPattern.substring(pos + 1);
        String expr;
        if (syntax.equalsIgnoreCase("glob")) {
            expr = Globs.toRegex(input);
        } else if (syntax.equalsIgnoreCase("regex")) {
            expr = input;
        } else {
            throw new UnsupportedOperationException(
                    "Syntax '" + syntax.toLowerCase(Locale.ROOT) + "' not recognized");
        }
        Pattern pattern = Pattern.compile(expr);
        return path -> pattern.matcher(path.toString()).matches();
    }

    /**
     * Returns a lookup by number: SeqVFS has no user database, so a principal's name is its id in
     * decimal ({@code "1000"}), {@code "root"} for 0; any other name is {@link
     * java.nio.file.attribute.UserPrincipalNotFoundException}.
     */
    @Override
    public UserPrincipalLookupService getUserPrincipalLookupService() {
        return Principals.LOOKUP;
    }

    /**
     * Makes a {@code WatchService} on the engine's inotify: one inotify descriptor in this file
     * system's task; pushed by the writers' events, never polled (see {@code SeqVfsWatchService}).
     * This file system's close closes it.
     *
     * @return a new watch service
     * @throws IOException {@code EMFILE} (the task's descriptor table is full)
     * @throws java.nio.file.ClosedFileSystemException if this file system is closed
     */
    @Override
    public WatchService newWatchService() throws IOException {
        checkOpen();
        SeqVfsWatchService w = new SeqVfsWatchService(this);
        opened(w);
        return w;
    }

    boolean isDirectoryQuietly(SeqVfsPath p) {
        try {
            return task().stat(p.filename()).isDirectory();
        } catch (VfsException e) {
            return false;
        }
    }

    /** {@code toRealPath}, as the JDK's {@code UnixPath.toRealPath}; SYMLOOP_MAX = 40 links. */
    SeqVfsPath realPath(SeqVfsPath abs, boolean follow) throws IOException {
        checkOpen();
        if (!follow) {
            SeqVfsPath result = root;
            for (int i = 0; i < abs.getNameCount(); i++) {
                SeqVfsPath element = abs.getName(i);
                String e = element.toString();
                if (e.equals(".")) {
                    continue;
                }
                if (e.equals("..")) {
                    Stat st = lstat(result);
                    if (!st.isSymlink()) {
                        result = result.getParent() == null ? root : result.getParent();
                        continue;
                    }
                }
                result = result.resolve(element);
            }
            lstat(result);
            return result;
        }
        Deque<String> names = new ArrayDeque<>();
        for (int i = abs.getNameCount() - 1; i >= 0; i--) {
            names.push(abs.getName(i).toString());
        }
        SeqVfsPath result = root;
        int links = 0;
        while (!names.isEmpty()) {
            String n = names.pop();
            if (n.isEmpty() || n.equals(".")) {
                continue;
            }
            if (n.equals("..")) {
                result = result.getParent() == null ? root : result.getParent();
                continue;
            }
            SeqVfsPath candidate = result.resolve(n);
            Stat st;
            try {
                st = task().lstat(candidate.filename());
            } catch (VfsException e) {
                throw Errors.translate(e, abs, null);
            }
            if (st.isSymlink()) {
                if (++links > 40) {
                    throw Errors.translate(Errno.ELOOP, abs.toString(), null);
                }
                String target = task().readlink(candidate.filename());
                SeqVfsPath t = SeqVfsPath.parse(this, target);
                for (int i = t.getNameCount() - 1; i >= 0; i--) {
                    names.push(t.getName(i).toString());
                }
                if (t.isAbsolute()) {
                    result = root;
                }
                continue;
            }
            if (!names.isEmpty() && !st.isDirectory()) {
                throw Errors.translate(Errno.ENOTDIR, abs.toString(), null);
            }
            result = candidate;
        }
        return result;
    }

    private Stat lstat(SeqVfsPath p) throws IOException {
        try {
            return task().lstat(p.filename());
        } catch (VfsException e) {
            throw Errors.translate(e, p, null);
        }
    }

    /**
     * Builds a {@link SeqVfsFileSystem}: {@link #build()} makes an unregistered one (its paths'
     * URIs do not resolve through {@code Path.of(URI)}); {@code FileSystems.newFileSystem}
     * registers it by name. Not thread-safe; use it on one thread.
     */
    public static final class Builder {
        private String name = "anonymous-" + ANONYMOUS.incrementAndGet();
        private int uid;
        private int gid;
        private int[] groups = new int[0];
        private int umask = 022;
        private long maxBytes = -1;
        private long maxInodes = -1;
        private boolean readOnly;
        private boolean proc;
        private String workingDirectory = "/";
        private SeqVfs engine;

        /** Whether the file system closes {@link #engine} (a fork's, made for it). */
        private boolean ownsGivenEngine;

        private List<String> directories = List.of();
        private Path initialTree;

        /** Numbers the builders' default names. */
        private static final java.util.concurrent.atomic.AtomicLong ANONYMOUS =
                new java.util.concurrent.atomic.AtomicLong();

        private Builder() {}

        /**
         * Sets the name (the authority of the URIs).
         *
         * @param name the name; unless set, {@code anonymous-N}, a name no other builder gives
         *     ({@code default} is the JVM's default file system's, {@link
         *     SeqVfsDefaultFileSystemProvider})
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name);
            return this;
        }

        /**
         * Sets the credentials every call is made with.
         *
         * @param uid the user id (0, root, by default)
         * @param gid the group id
         * @param groups the supplementary groups
         * @return this builder
         * @throws IllegalArgumentException if an id is negative (Linux's ids are unsigned; -1 means
         *     "no change" to {@code chown}, never an owner)
         */
        public Builder user(int uid, int gid, int... groups) {
            this.uid = id("uid", uid);
            this.gid = id("gid", gid);
            int[] g = groups.clone();
            for (int x : g) {
                id("groups", x);
            }
            this.groups = g;
            return this;
        }

        private static int id(String what, int v) {
            if (v < 0) {
                throw new IllegalArgumentException("seqvfs option " + what + ": negative: " + v);
            }
            return v;
        }

        /**
         * Sets the umask of every create.
         *
         * @param umask the mask; {@code 022} by default
         * @return this builder
         * @throws IllegalArgumentException if it is not in {@code 0} to {@code 0777}
         */
        public Builder umask(int umask) {
            if (umask < 0 || umask > 0777) {
                throw new IllegalArgumentException(
                        "seqvfs option umask: not in 0 to 0777: 0" + Integer.toOctalString(umask));
            }
            this.umask = umask;
            return this;
        }

        /**
         * Limits the file data, as tmpfs's {@code size=}: a write past it fails with {@code
         * FileSystemException} "No space left on device".
         *
         * @param bytes the limit in bytes, rounded up to 4096-byte pages; 0 is no limit
         * @return this builder
         * @throws IllegalArgumentException if it is negative
         */
        public Builder maxBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("seqvfs option size: negative: " + bytes);
            }
            this.maxBytes = bytes;
            return this;
        }

        /**
         * Limits the inodes, as tmpfs's {@code nr_inodes=} (the root counts).
         *
         * @param inodes the limit; 0 is no limit
         * @return this builder
         * @throws IllegalArgumentException if it is negative
         */
        public Builder maxInodes(long inodes) {
            if (inodes < 0) {
                throw new IllegalArgumentException("seqvfs option nr_inodes: negative: " + inodes);
            }
            this.maxInodes = inodes;
            return this;
        }

        /**
         * Makes the file system read-only (its root remounted {@code MS_RDONLY}): every write is
         * {@code FileSystemException} "Read-only file system".
         *
         * @param readOnly whether it is
         * @return this builder
         */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /**
         * Mounts procfs at {@code /proc} (off by default: the root is empty, as Jimfs's).
         *
         * @param proc whether to
         * @return this builder
         */
        public Builder proc(boolean proc) {
            this.proc = proc;
            return this;
        }

        /**
         * Creates directories (and their parents) before the file system is handed out (before it
         * is made read-only), mode 0755 less the umask.
         *
         * @param paths absolute paths
         * @return this builder
         */
        public Builder directories(String... paths) {
            this.directories = List.of(paths);
            return this;
        }

        /**
         * Copies a tree into the root before the file system is handed out (before it is made
         * read-only): every directory and regular file under {@code source}, of any provider (a
         * host directory, a zip file system's root, test resources), with the source's permission
         * bits, owned by the file system's user. Symbolic links are copied as links.
         *
         * @param source a directory
         * @return this builder
         */
        public Builder initialTree(Path source) {
            this.initialTree = Objects.requireNonNull(source);
            return this;
        }

        /**
         * Sets the working directory relative paths resolve against ({@link Path#toAbsolutePath},
         * and every call given a relative path). It must be a directory once the file system is
         * built (make it with {@link #directories} or the initial tree): {@link #build()} throws
         * {@link IllegalArgumentException} naming it otherwise.
         *
         * @param dir an absolute path; {@code "/"} by default
         * @return this builder
         */
        public Builder workingDirectory(String dir) {
            if (!dir.startsWith("/")) {
                throw new IllegalArgumentException("not absolute: " + dir);
            }
            this.workingDirectory = dir;
            return this;
        }

        /**
         * Makes the file system a view of an existing engine (another user's view of the same
         * files, say) instead of a new one; closing the view leaves the engine open. The limits,
         * {@code readOnly} and {@code proc} then do not apply.
         *
         * @param engine the engine
         * @return this builder
         */
        public Builder engine(SeqVfs engine) {
            this.engine = Objects.requireNonNull(engine);
            return this;
        }

        /**
         * Builds the file system, unregistered.
         *
         * @return the file system
         * @throws dev.seqvfs.protocol.VfsException if the engine refuses the options
         */
        public SeqVfsFileSystem build() {
            return new SeqVfsFileSystem(SeqVfsFileSystemProvider.instance(), this);
        }

        Builder fromEnv(Map<String, ?> env) {
            for (Map.Entry<String, ?> e : env.entrySet()) {
                String key = e.getKey();
                Object v = e.getValue();
                if (v == null) {
                    throw new IllegalArgumentException("seqvfs option " + key + ": no value");
                }
                switch (key) {
                    case "uid":
                        uid = id(key, toInt(key, v));
                        break;
                    case "gid":
                        gid = id(key, toInt(key, v));
                        break;
                    case "groups":
                        int[] g = toInts(key, v);
                        for (int x : g) {
                            id(key, x);
                        }
                        groups = g;
                        break;
                    case "umask":
                        umask(toInt(key, v));
                        break;
                    case "size":
                        maxBytes(toLong(key, v));
                        break;
                    case "nr_inodes":
                        maxInodes(toLong(key, v));
                        break;
                    case "readOnly":
                        readOnly = toBoolean(key, v);
                        break;
                    case "proc":
                        proc = toBoolean(key, v);
                        break;
                    case "workingDirectory":
                        workingDirectory(v.toString());
                        break;
                    case "engine":
                        if (!(v instanceof SeqVfs engineValue)) {
                            throw new IllegalArgumentException(
                                    "seqvfs option engine: not a SeqVfs: "
                                            + v.getClass().getName());
                        }
                        engine(engineValue);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown seqvfs option: " + key);
                }
            }
            return this;
        }

        /** {@return {@code v} as an int: a number, or a decimal, {@code 0x} or {@code 0} text} */
        private static int toInt(String key, Object v) {
            if (v instanceof Number n) {
                long l = n.longValue();
                if (l != (int) l || n.doubleValue() != l) {
                    throw new IllegalArgumentException(
                            "seqvfs option " + key + ": not an int: " + v);
                }
                return (int) l;
            }
            try {
                return Integer.decode(v.toString().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "seqvfs option " + key + ": not a number: \"" + v + "\"", e);
            }
        }

        /** {@return {@code v} as a long: a number, or a decimal, {@code 0x} or {@code 0} text} */
        private static long toLong(String key, Object v) {
            if (v instanceof Number n) {
                if (n.doubleValue() != n.longValue()) {
                    throw new IllegalArgumentException(
                            "seqvfs option " + key + ": not a whole number: " + v);
                }
                return n.longValue();
            }
            try {
                return Long.decode(v.toString().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "seqvfs option " + key + ": not a number: \"" + v + "\"", e);
            }
        }

        /**
         * {@return {@code v} as a boolean: a {@code Boolean}, or {@code true}/{@code false} text}
         */
        private static boolean toBoolean(String key, Object v) {
            if (v instanceof Boolean b) {
                return b;
            }
            String t = v.toString().trim();
            if (t.equalsIgnoreCase("true")) {
                return true;
            }
            if (t.equalsIgnoreCase("false")) {
                return false;
            }
            throw new IllegalArgumentException(
                    "seqvfs option " + key + ": not true or false: \"" + v + "\"");
        }

        private static int[] toInts(String key, Object v) {
            if (v instanceof int[] a) {
                return a.clone();
            }
            if (v instanceof List<?> l) {
                int[] a = new int[l.size()];
                for (int i = 0; i < a.length; i++) {
                    Object x = l.get(i);
                    if (x == null) {
                        throw new IllegalArgumentException("seqvfs option " + key + ": a null id");
                    }
                    a[i] = toInt(key, x);
                }
                return a;
            }
            String s = v.toString().trim();
            if (s.isEmpty()) {
                return new int[0];
            }
            String[] parts = s.split(",", -1);
            int[] a = new int[parts.length];
            for (int i = 0; i < a.length; i++) {
                a[i] = toInt(key, parts[i]);
            }
            return a;
        }

        String name() {
            return name;
        }
    }

    @Override
    public String toString() {
        return SeqVfsFileSystemProvider.SCHEME + "://" + name + "/";
    }
}
