package dev.seqvfs.nio;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileOwnerAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.spi.FileSystemProvider;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code seqvfs} scheme's provider: {@code FileSystems.newFileSystem(URI.create(
 * "seqvfs://name/"), env)} makes a file system on a new SeqVFS instance and registers it under
 * {@code name} (so {@code Path.of(URI.create("seqvfs://name/a/b"))} finds it) until it is closed.
 * The environment's keys, all optional: {@code uid}, {@code gid} (numbers, 0 by default), {@code
 * groups} ({@code int[]}, a list or "1,2"), {@code umask} (022), {@code size} (bytes, tmpfs's
 * {@code size=}), {@code nr_inodes}, {@code readOnly}, {@code proc} (mount procfs at {@code
 * /proc}), {@code workingDirectory}, {@code engine} (an existing {@code SeqVfs} to view). An
 * unknown key, a value of the wrong kind (a number that is not one, a negative id, size or inode
 * limit, a umask outside 0 to 0777, a flag other than {@code true}/{@code false}), or a URI that is
 * more than {@code seqvfs://name/} (a path, a query, a fragment, a port, user information) is
 * {@link IllegalArgumentException} naming the key or the URI, and nothing is made.
 *
 * <p>Every call maps to the engine's system calls as the JDK's Linux provider ({@code
 * UnixFileSystemProvider}, JDK 17) maps to the kernel's, and fails with the same {@link
 * java.nio.file.FileSystemException} subclass and reason ({@link Errors}). Thread-safe; the
 * registry is a concurrent map.
 */
public final class SeqVfsFileSystemProvider extends FileSystemProvider {
    /** The URI scheme. */
    public static final String SCHEME = "seqvfs";

    private static volatile SeqVfsFileSystemProvider instance;

    /**
     * The registered file systems by name: one registry per JVM, shared by every instance of the
     * provider (the service loader's and the one a {@link SeqVfsDefaultFileSystemProvider} makes
     * before the service loader runs), so a {@code seqvfs://name/} URI finds its file system
     * whichever instance it reaches.
     */
    private static final Map<String, SeqVfsFileSystem> filesystems = new ConcurrentHashMap<>();

    /** Creates the provider; the JDK's service loader calls this once. */
    public SeqVfsFileSystemProvider() {
        synchronized (SeqVfsFileSystemProvider.class) {
            if (instance == null) {
                instance = this;
            }
        }
    }

    /** {@return the installed provider (the service loader's, or a new one when there is none)} */
    static SeqVfsFileSystemProvider instance() {
        SeqVfsFileSystemProvider p = instance;
        if (p == null) {
            for (FileSystemProvider fp : FileSystemProvider.installedProviders()) {
                if (fp instanceof SeqVfsFileSystemProvider s) {
                    return s;
                }
            }
            p = new SeqVfsFileSystemProvider();
        }
        return instance;
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    private static String nameOf(URI uri) {
        if (!SCHEME.equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("URI scheme is not \"" + SCHEME + "\"");
        }
        String name = uri.getAuthority();
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("URI has no file system name: " + uri);
        }
        return name;
    }

    @Override
    public SeqVfsFileSystem newFileSystem(URI uri, Map<String, ?> env) {
        String name = nameOf(uri);
        String p = uri.getRawPath();
        if (p != null && !p.isEmpty() && !p.equals("/")) {
            throw new IllegalArgumentException(
                    "URI names a path, not a file system (seqvfs://NAME/): " + uri);
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException(
                    "URI has a query or fragment component (options go in the env map): " + uri);
        }
        if (uri.getRawUserInfo() != null || uri.getPort() != -1) {
            throw new IllegalArgumentException(
                    "URI has user information or a port: a file system name is all it takes: "
                            + uri);
        }
        SeqVfsFileSystem.Builder b = SeqVfsFileSystem.builder().name(name).fromEnv(env);
        synchronized (filesystems) {
            if (filesystems.containsKey(name)) {
                throw new FileSystemAlreadyExistsException(name);
            }
            SeqVfsFileSystem fs = new SeqVfsFileSystem(this, b);
            filesystems.put(name, fs);
            return fs;
        }
    }

    /**
     * Registers {@code fs} under its name (the default file system, {@code seqvfs://default/}).
     *
     * @throws FileSystemAlreadyExistsException if the name is taken
     */
    void register(SeqVfsFileSystem fs) {
        if (filesystems.putIfAbsent(fs.name(), fs) != null) {
            throw new FileSystemAlreadyExistsException(fs.name());
        }
    }

    void removed(SeqVfsFileSystem fs) {
        filesystems.remove(fs.name(), fs);
    }

    /**
     * {@return the file system of {@code uri}: a registered {@code seqvfs://name/}, or, for a
     * {@code file:} URI while SeqVFS is the JVM's default provider, the default file system} The
     * JDK's {@code Path.of(URI)} gives {@code file:} URIs to {@code
     * FileSystems.getDefault().provider()}, which is this provider then.
     *
     * @throws FileSystemNotFoundException if there is none
     */
    @Override
    public SeqVfsFileSystem getFileSystem(URI uri) {
        if ("file".equalsIgnoreCase(uri.getScheme())) {
            SeqVfsFileSystem d = filesystems.get(SeqVfsDefaultFileSystemProvider.NAME);
            if (d == null || !d.isPermanent()) {
                throw new FileSystemNotFoundException(uri.toString());
            }
            return d;
        }
        SeqVfsFileSystem fs = filesystems.get(nameOf(uri));
        if (fs == null) {
            throw new FileSystemNotFoundException(uri.toString());
        }
        return fs;
    }

    @Override
    public SeqVfsPath getPath(URI uri) {
        SeqVfsFileSystem fs = getFileSystem(uri);
        String p = uri.getPath();
        if (p == null || !p.startsWith("/")) {
            throw new IllegalArgumentException("URI path is not absolute: " + uri);
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("URI has a query or fragment component: " + uri);
        }
        return fs.getPath(p);
    }

    private static SeqVfsPath check(Path p) {
        SeqVfsPath s = SeqVfsPath.check(p);
        s.getFileSystem().checkOpen();
        return s;
    }

    private static VfsTask task(SeqVfsPath p) {
        return p.getFileSystem().task();
    }

    // ---------------------------------------------------------------- channels

    /** Open flags for options, as the JDK's {@code UnixChannelFactory}. */
    static int openFlags(Set<? extends OpenOption> options) {
        boolean read = false;
        boolean write = false;
        boolean append = false;
        boolean truncate = false;
        boolean create = false;
        boolean createNew = false;
        boolean noFollow = false;
        boolean deleteOnClose = false;
        int flags = 0;
        for (OpenOption o : options) {
            if (o == StandardOpenOption.READ) {
                read = true;
            } else if (o == StandardOpenOption.WRITE) {
                write = true;
            } else if (o == StandardOpenOption.APPEND) {
                append = true;
            } else if (o == StandardOpenOption.TRUNCATE_EXISTING) {
                truncate = true;
            } else if (o == StandardOpenOption.CREATE) {
                create = true;
            } else if (o == StandardOpenOption.CREATE_NEW) {
                createNew = true;
            } else if (o == StandardOpenOption.DSYNC) {
                flags |= OpenFlags.O_DSYNC;
            } else if (o == StandardOpenOption.SYNC) {
                flags |= OpenFlags.O_SYNC;
            } else if (o == LinkOption.NOFOLLOW_LINKS) {
                flags |= OpenFlags.O_NOFOLLOW;
            } else if (o == StandardOpenOption.DELETE_ON_CLOSE || o == StandardOpenOption.SPARSE) {
                continue;
            } else if (o == null) {
                throw new NullPointerException();
            } else {
                throw new UnsupportedOperationException(o + " not supported");
            }
        }
        if (!read && !write) {
            if (append) {
                write = true;
            } else {
                read = true;
            }
        }
        if (read && append) {
            throw new IllegalArgumentException("READ + APPEND not allowed");
        }
        if (append && truncate) {
            throw new IllegalArgumentException("APPEND + TRUNCATE_EXISTING not allowed");
        }
        flags |= read && write ? OpenFlags.O_RDWR : write ? OpenFlags.O_WRONLY : OpenFlags.O_RDONLY;
        if (write) {
            if (truncate) {
                flags |= OpenFlags.O_TRUNC;
            }
            if (append) {
                flags |= OpenFlags.O_APPEND;
            }
            if (createNew) {
                flags |= OpenFlags.O_CREAT | OpenFlags.O_EXCL;
            } else if (create) {
                flags |= OpenFlags.O_CREAT;
            }
        }
        if (!(write && createNew) && (noFollow || deleteOnClose)) {
            // UnixChannelFactory: links are followed unless NOFOLLOW_LINKS or DELETE_ON_CLOSE
            flags |= OpenFlags.O_NOFOLLOW;
        }
        return flags;
    }

    static int modeOf(FileAttribute<?>[] attrs, int dflt) {
        int mode = dflt;
        for (FileAttribute<?> a : attrs) {
            if (a.name().equals("posix:permissions") || a.name().equals("unix:permissions")) {
                @SuppressWarnings("unchecked")
                Set<PosixFilePermission> perms = (Set<PosixFilePermission>) a.value();
                mode = SeqVfsFileAttributes.mode(perms);
            } else {
                throw new UnsupportedOperationException(
                        "'" + a.name() + "' not supported as initial attribute");
            }
        }
        return mode;
    }

    @Override
    public FileChannel newFileChannel(
            Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        SeqVfsPath p = check(path);
        int flags = openFlags(options);
        int mode = modeOf(attrs, 0666);
        int acc = flags & OpenFlags.O_ACCMODE;
        VfsTask t = task(p);
        byte[] b = p.bytes();
        if ((flags & OpenFlags.O_EXCL) != 0
                && b.length > 0
                && b[b.length - 1] == '.'
                && (b.length == 1 || b[b.length - 2] == '/')) {
            // UnixChannelFactory: "throw exception if file name is "." to avoid confusing error"
            throw Errors.translate(Errno.EEXIST, p.toString(), null);
        }
        int fd;
        try {
            fd = t.open(p.filename(), flags | OpenFlags.O_CLOEXEC, mode);
        } catch (VfsException e) {
            if (e.errno() == Errno.ELOOP && (flags & OpenFlags.O_NOFOLLOW) != 0) {
                // UnixChannelFactory: "to avoid confusing message"
                throw new IOException(Errors.reason(Errno.ELOOP) + " (NOFOLLOW_LINKS specified)");
            }
            throw Errors.translate(e, p, null);
        }
        SeqVfsFileChannel ch =
                new SeqVfsFileChannel(
                        p.getFileSystem(),
                        fd,
                        p,
                        acc != OpenFlags.O_WRONLY,
                        acc != OpenFlags.O_RDONLY,
                        options.contains(StandardOpenOption.DELETE_ON_CLOSE),
                        options.contains(StandardOpenOption.APPEND));
        try {
            p.getFileSystem().opened(ch);
        } catch (RuntimeException e) {
            ch.close();
            throw e;
        }
        return ch;
    }

    /**
     * Opens an {@link java.nio.channels.AsynchronousFileChannel} on the engine's async calls
     * ({@code SeqVfsAsynchronousFileChannel}): completion handlers run on {@code executor}, or on
     * the thread that completes the call when it is {@code null}.
     */
    @Override
    public java.nio.channels.AsynchronousFileChannel newAsynchronousFileChannel(
            Path path,
            Set<? extends OpenOption> options,
            java.util.concurrent.ExecutorService executor,
            FileAttribute<?>... attrs)
            throws IOException {
        if (options.contains(StandardOpenOption.APPEND)) {
            throw new UnsupportedOperationException("APPEND not allowed");
        }
        SeqVfsPath p = check(path);
        int flags = openFlags(options);
        int mode = modeOf(attrs, 0666);
        int acc = flags & OpenFlags.O_ACCMODE;
        int fd;
        try {
            fd = task(p).open(p.filename(), flags | OpenFlags.O_CLOEXEC, mode);
        } catch (VfsException e) {
            throw Errors.translate(e, p, null);
        }
        SeqVfsAsynchronousFileChannel ch =
                new SeqVfsAsynchronousFileChannel(
                        p.getFileSystem(),
                        fd,
                        acc != OpenFlags.O_WRONLY,
                        acc != OpenFlags.O_RDONLY,
                        executor);
        p.getFileSystem().opened(ch);
        return ch;
    }

    @Override
    public SeekableByteChannel newByteChannel(
            Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        return newFileChannel(path, options, attrs);
    }

    @Override
    public DirectoryStream<Path> newDirectoryStream(
            Path dir, DirectoryStream.Filter<? super Path> filter) throws IOException {
        SeqVfsPath p = check(dir);
        if (filter == null) {
            throw new NullPointerException();
        }
        int fd;
        try {
            fd = task(p).open(p.filename(), OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY, 0);
        } catch (VfsException e) {
            throw Errors.forDirectory(e, p);
        }
        SeqVfsDirectoryStream s = new SeqVfsDirectoryStream(p.getFileSystem(), p, fd, filter);
        p.getFileSystem().opened(s);
        return s;
    }

    // ---------------------------------------------------------------- the namespace

    @Override
    public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
        SeqVfsPath p = check(dir);
        try {
            task(p).mkdir(p.filename(), modeOf(attrs, 0777));
        } catch (VfsException e) {
            throw Errors.translate(e, p, null);
        }
    }

    @Override
    public void createSymbolicLink(Path link, Path target, FileAttribute<?>... attrs)
            throws IOException {
        SeqVfsPath p = check(link);
        SeqVfsPath t = SeqVfsPath.check(target);
        if (attrs.length > 0) {
            modeOf(attrs, 0);
            throw new UnsupportedOperationException(
                    "Initial file attributes not supported when creating symbolic link");
        }
        try {
            task(p).symlink(t.filename(), p.filename());
        } catch (VfsException e) {
            throw Errors.translate(e, p, null);
        }
    }

    @Override
    public void createLink(Path link, Path existing) throws IOException {
        SeqVfsPath p = check(link);
        SeqVfsPath e0 = check(existing);
        try {
            task(p).link(e0.filename(), p.filename());
        } catch (VfsException e) {
            throw Errors.translate(e, p, e0);
        }
    }

    @Override
    public void delete(Path path) throws IOException {
        SeqVfsPath p = check(path);
        VfsTask t = task(p);
        Stat st;
        try {
            st = t.lstat(p.filename());
        } catch (VfsException e) {
            throw Errors.translate(e, p, null);
        }
        try {
            if (st.isDirectory()) {
                t.rmdir(p.filename());
            } else {
                t.unlink(p.filename());
            }
        } catch (VfsException e) {
            throw Errors.forDelete(e, p);
        }
    }

    @Override
    public Path readSymbolicLink(Path link) throws IOException {
        SeqVfsPath p = check(link);
        try {
            return SeqVfsPath.parse(p.getFileSystem(), task(p).readlink(p.filename()));
        } catch (VfsException e) {
            throw Errors.forReadLink(e, p);
        }
    }

    @Override
    public void copy(Path source, Path target, CopyOption... options) throws IOException {
        SeqVfsPath s = check(source);
        SeqVfsPath d = check(target);
        boolean replace = false;
        boolean attrs = false;
        boolean follow = true;
        for (CopyOption o : options) {
            if (o == StandardCopyOption.REPLACE_EXISTING) {
                replace = true;
            } else if (o == StandardCopyOption.COPY_ATTRIBUTES) {
                attrs = true;
            } else if (o == LinkOption.NOFOLLOW_LINKS) {
                follow = false;
            } else if (o == null) {
                throw new NullPointerException();
            } else {
                throw new UnsupportedOperationException("Unsupported copy option");
            }
        }
        Copies.copy(s, d, replace, attrs, follow);
    }

    @Override
    public void move(Path source, Path target, CopyOption... options) throws IOException {
        SeqVfsPath s = check(source);
        SeqVfsPath d = check(target);
        boolean replace = false;
        boolean atomic = false;
        for (CopyOption o : options) {
            if (o == StandardCopyOption.REPLACE_EXISTING) {
                replace = true;
            } else if (o == StandardCopyOption.ATOMIC_MOVE) {
                atomic = true;
            } else if (o == StandardCopyOption.COPY_ATTRIBUTES || o == LinkOption.NOFOLLOW_LINKS) {
                continue;
            } else if (o == null) {
                throw new NullPointerException();
            } else {
                throw new UnsupportedOperationException("Unsupported copy option");
            }
        }
        VfsTask t = task(s);
        VfsTask td = task(d);
        boolean crossFs = s.getFileSystem() != d.getFileSystem();
        if (atomic && crossFs) {
            // two file systems are two devices: rename(2) says EXDEV
            throw new AtomicMoveNotSupportedException(
                    s.toString(), d.toString(), Errors.reason(Errno.EXDEV));
        }
        if (atomic) {
            try {
                t.rename(s.filename(), d.filename());
            } catch (VfsException e) {
                if (e.errno() == Errno.EXDEV) {
                    throw new AtomicMoveNotSupportedException(
                            s.toString(), d.toString(), Errors.reason(e.errno()));
                }
                throw Errors.translate(e, s, d);
            }
            return;
        }
        Stat sst;
        try {
            sst = t.lstat(s.filename());
        } catch (VfsException e) {
            throw Errors.translate(e, s, null);
        }
        Stat dst = null;
        try {
            dst = td.lstat(d.filename());
        } catch (VfsException e) {
            // as UnixCopyFile: a target that cannot be looked up is taken as absent
        }
        if (dst != null) {
            if (!crossFs && dst.dev() == sst.dev() && dst.ino() == sst.ino()) {
                return;
            }
            if (!replace) {
                throw new FileAlreadyExistsException(d.toString());
            }
            try {
                if (dst.isDirectory()) {
                    td.rmdir(d.filename());
                } else {
                    td.unlink(d.filename());
                }
            } catch (VfsException e) {
                if (dst.isDirectory()
                        && (e.errno() == Errno.EEXIST || e.errno() == Errno.ENOTEMPTY)) {
                    throw new DirectoryNotEmptyException(d.toString());
                }
                throw Errors.translate(e, d, null);
            }
        }
        if (crossFs) {
            // as UnixCopyFile.move across devices: copy, then delete the source; a directory
            // moves only when empty
            boolean empty;
            try {
                empty = !sst.isDirectory() || t.readdir(s.filename()).isEmpty();
            } catch (VfsException e) {
                throw Errors.translate(e, s, null);
            }
            if (!empty) {
                throw new DirectoryNotEmptyException(s.toString());
            }
            Copies.copy(s, d, false, true, false);
            delete(s);
            return;
        }
        try {
            t.rename(s.filename(), d.filename());
        } catch (VfsException e) {
            if (e.errno() == Errno.EXDEV) {
                Copies.copy(s, d, false, true, false);
                delete(s);
                return;
            }
            if (e.errno() == Errno.EEXIST || e.errno() == Errno.ENOTEMPTY) {
                throw new DirectoryNotEmptyException(s.toString());
            }
            throw Errors.translate(e, s, d);
        }
    }

    @Override
    public boolean isSameFile(Path path, Path path2) throws IOException {
        SeqVfsPath p = check(path);
        if (p.equals(path2)) {
            return true;
        }
        if (!(path2 instanceof SeqVfsPath q) || q.getFileSystem() != p.getFileSystem()) {
            return false;
        }
        Stat a = Copies.stat(p, true);
        Stat b = Copies.stat(q, true);
        return a.dev() == b.dev() && a.ino() == b.ino();
    }

    @Override
    public boolean isHidden(Path path) {
        SeqVfsPath p = check(path);
        SeqVfsPath name = p.getFileName();
        return name != null && name.toString().startsWith(".");
    }

    @Override
    public FileStore getFileStore(Path path) throws IOException {
        SeqVfsPath p = check(path);
        Copies.stat(p, true);
        return p.getFileSystem().store();
    }

    @Override
    public void checkAccess(Path path, AccessMode... modes) throws IOException {
        SeqVfsPath p = check(path);
        int m = 0;
        for (AccessMode a : modes) {
            switch (a) {
                case READ:
                    m |= Mode.R_OK;
                    break;
                case WRITE:
                    m |= Mode.W_OK;
                    break;
                case EXECUTE:
                    m |= Mode.X_OK;
                    break;
            }
        }
        try {
            task(p).access(p.filename(), m);
        } catch (VfsException e) {
            throw Errors.translate(e, p, null);
        }
    }

    // ---------------------------------------------------------------- attributes

    @Override
    @SuppressWarnings("unchecked")
    public <V extends FileAttributeView> V getFileAttributeView(
            Path path, Class<V> type, LinkOption... options) {
        SeqVfsPath p = SeqVfsPath.check(path);
        boolean follow = Options.followLinks(options);
        if (type == BasicFileAttributeView.class
                || type == PosixFileAttributeView.class
                || type == FileOwnerAttributeView.class) {
            return (V) new Views.Posix(p, follow);
        }
        if (type == UserDefinedFileAttributeView.class) {
            return (V) new Views.User(p, follow);
        }
        if (type == null) {
            throw new NullPointerException();
        }
        return null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <A extends BasicFileAttributes> A readAttributes(
            Path path, Class<A> type, LinkOption... options) throws IOException {
        SeqVfsPath p = check(path);
        if (type == BasicFileAttributes.class || type == PosixFileAttributes.class) {
            return (A) new Views.Posix(p, Options.followLinks(options)).readAttributes();
        }
        if (type == null) {
            throw new NullPointerException();
        }
        throw new UnsupportedOperationException();
    }

    @Override
    public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options)
            throws IOException {
        SeqVfsPath p = check(path);
        boolean follow = Options.followLinks(options);
        int colon = attributes.indexOf(':');
        String view = colon < 0 ? "basic" : attributes.substring(0, colon);
        String names = colon < 0 ? attributes : attributes.substring(colon + 1);
        if (view.equals("user")) {
            Views.User u = new Views.User(p, follow);
            Map<String, Object> out = new HashMap<>();
            Iterable<String> which =
                    names.equals("*") ? u.list() : java.util.List.of(names.split(","));
            for (String n : which) {
                ByteBuffer b = ByteBuffer.allocate(u.size(n));
                u.read(n, b);
                out.put(n, b.array());
            }
            return out;
        }
        if (!SeqVfsFileStore.VIEWS.contains(view)) {
            throw new UnsupportedOperationException("View '" + view + "' not available");
        }
        Stat st = new Views.Posix(p, follow).stat();
        return AttributeMaps.read(view, names, st);
    }

    @Override
    public void setAttribute(Path path, String attribute, Object value, LinkOption... options)
            throws IOException {
        SeqVfsPath p = check(path);
        boolean follow = Options.followLinks(options);
        int colon = attribute.indexOf(':');
        String view = colon < 0 ? "basic" : attribute.substring(0, colon);
        String name = colon < 0 ? attribute : attribute.substring(colon + 1);
        Views.Posix v = new Views.Posix(p, follow);
        switch (view + ":" + name) {
            case "basic:lastModifiedTime":
            case "posix:lastModifiedTime":
            case "unix:lastModifiedTime":
                v.setTimes((FileTime) value, null, null);
                return;
            case "basic:lastAccessTime":
            case "posix:lastAccessTime":
            case "unix:lastAccessTime":
                v.setTimes(null, (FileTime) value, null);
                return;
            case "basic:creationTime":
            case "posix:creationTime":
            case "unix:creationTime":
                v.setTimes(null, null, (FileTime) value);
                return;
            case "posix:permissions":
            case "unix:permissions":
                @SuppressWarnings("unchecked")
                Set<PosixFilePermission> perms = (Set<PosixFilePermission>) value;
                v.setPermissions(perms);
                return;
            case "posix:owner":
            case "owner:owner":
            case "unix:owner":
                v.setOwner((UserPrincipal) value);
                return;
            case "posix:group":
            case "unix:group":
                v.setGroup((GroupPrincipal) value);
                return;
            case "unix:mode":
                v.setMode((Integer) value);
                return;
            case "unix:uid":
                v.setIds((Integer) value, -1);
                return;
            case "unix:gid":
                v.setIds(-1, (Integer) value);
                return;
            default:
                break;
        }
        if (view.equals("user")) {
            ByteBuffer b = value instanceof byte[] a ? ByteBuffer.wrap(a) : (ByteBuffer) value;
            new Views.User(p, follow).write(name, b);
            return;
        }
        if (!SeqVfsFileStore.VIEWS.contains(view)) {
            throw new UnsupportedOperationException("View '" + view + "' not available");
        }
        throw new IllegalArgumentException("'" + attribute + "' not recognized");
    }

    /** {@return a file system's path for {@code fs}: used by {@link FileSystem#provider()}} */
    @Override
    public String toString() {
        return "SeqVfsFileSystemProvider[" + SCHEME + "]";
    }
}
