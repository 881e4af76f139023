package dev.seqvfs.nio;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileOwnerAttributeView;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A directory stream over one open directory descriptor, read with {@code getdents} in batches of
 * {@value #BATCH}: each batch comes from one directory snapshot, and every name untouched during
 * the listing appears exactly once ({@code readdir} semantics; {@code .} and {@code ..} skipped).
 * As the JDK's {@code UnixDirectoryStream}: one iterator only ({@link IllegalStateException}), an
 * iterator of a closed stream has nothing more, a filter's {@link IOException} is a {@link
 * DirectoryIteratorException}. Thread-safe (the iterator is meant for one thread at a time; {@code
 * close} may come from any).
 */
final class SeqVfsDirectoryStream implements SecureDirectoryStream<Path> {
    private static final int BATCH = 256;

    private final SeqVfsFileSystem fs;
    private final VfsTask task;
    private final SeqVfsPath dir;
    private final int fd;
    private final Filter<? super Path> filter;
    private volatile boolean closed;
    private boolean iterated;

    SeqVfsDirectoryStream(SeqVfsFileSystem fs, SeqVfsPath dir, int fd, Filter<? super Path> f) {
        this.fs = fs;
        this.task = fs.task();
        this.dir = dir;
        this.fd = fd;
        this.filter = f;
    }

    @Override
    public synchronized Iterator<Path> iterator() {
        if (closed) {
            throw new IllegalStateException("Directory stream is closed");
        }
        if (iterated) {
            throw new IllegalStateException("Iterator already obtained");
        }
        iterated = true;
        return new Iterator<>() {
            private final ArrayDeque<Path> pending = new ArrayDeque<>();
            private boolean eof;

            @Override
            public boolean hasNext() {
                while (pending.isEmpty() && !eof && !closed) {
                    fill();
                }
                return !pending.isEmpty() && !closed;
            }

            private void fill() {
                java.util.List<DirEntry> batch;
                try {
                    fs.checkOpen();
                    batch = task.getdents(fd, BATCH);
                } catch (VfsException e) {
                    throw new DirectoryIteratorException(Errors.translate(e, dir, null));
                }
                if (batch.isEmpty()) {
                    eof = true;
                    return;
                }
                for (DirEntry e : batch) {
                    String n = e.name();
                    if (n.equals(".") || n.equals("..")) {
                        continue;
                    }
                    Path p = dir.resolve(n);
                    try {
                        if (filter == null || filter.accept(p)) {
                            pending.add(p);
                        }
                    } catch (IOException x) {
                        throw new DirectoryIteratorException(x);
                    }
                }
            }

            @Override
            public Path next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return pending.poll();
            }
        };
    }

    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        fs.closedOne(this);
        try {
            task.close(fd);
        } catch (VfsException e) {
            // the descriptor went with the task
        }
    }

    private void ensureOpen() {
        fs.checkOpen();
        if (closed) {
            throw new java.nio.file.ClosedDirectoryStreamException();
        }
    }

    private static SeqVfsPath rel(Path p) {
        SeqVfsPath s = SeqVfsPath.check(p);
        return s;
    }

    @Override
    public SecureDirectoryStream<Path> newDirectoryStream(Path path, LinkOption... options)
            throws IOException {
        SeqVfsPath p = rel(path);
        ensureOpen();
        if (p.isAbsolute()) {
            return (SecureDirectoryStream<Path>) fs.provider().newDirectoryStream(p, x -> true);
        }
        int nf = Options.followLinks(options) ? 0 : dev.seqvfs.protocol.OpenFlags.O_NOFOLLOW;
        int dfd;
        try {
            dfd =
                    task.openat(
                            fd,
                            p.filename(),
                            dev.seqvfs.protocol.OpenFlags.O_RDONLY
                                    | dev.seqvfs.protocol.OpenFlags.O_DIRECTORY
                                    | nf,
                            0);
        } catch (VfsException e) {
            throw Errors.forDirectory(e, p);
        }
        SeqVfsDirectoryStream s = new SeqVfsDirectoryStream(fs, dir.resolve(p), dfd, x -> true);
        fs.opened(s);
        return s;
    }

    @Override
    public SeekableByteChannel newByteChannel(
            Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        SeqVfsPath p = rel(path);
        ensureOpen();
        if (p.isAbsolute()) {
            return fs.provider().newByteChannel(p, options, attrs);
        }
        int flags = SeqVfsFileSystemProvider.openFlags(options);
        int mode = SeqVfsFileSystemProvider.modeOf(attrs, 0666);
        int acc = flags & dev.seqvfs.protocol.OpenFlags.O_ACCMODE;
        int cfd;
        try {
            cfd =
                    task.openat(
                            fd,
                            p.filename(),
                            flags | dev.seqvfs.protocol.OpenFlags.O_CLOEXEC,
                            mode);
        } catch (VfsException e) {
            throw Errors.translate(e, p, null);
        }
        SeqVfsFileChannel ch =
                new SeqVfsFileChannel(
                        fs,
                        cfd,
                        dir.resolve(p),
                        acc != dev.seqvfs.protocol.OpenFlags.O_WRONLY,
                        acc != dev.seqvfs.protocol.OpenFlags.O_RDONLY,
                        options.contains(java.nio.file.StandardOpenOption.DELETE_ON_CLOSE),
                        options.contains(java.nio.file.StandardOpenOption.APPEND));
        fs.opened(ch);
        return ch;
    }

    @Override
    public void deleteFile(Path path) throws IOException {
        SeqVfsPath p = rel(path);
        ensureOpen();
        try {
            task.unlinkat(fd, p.filename(), 0);
        } catch (VfsException e) {
            throw Errors.translate(e, p, null);
        }
    }

    @Override
    public void deleteDirectory(Path path) throws IOException {
        SeqVfsPath p = rel(path);
        ensureOpen();
        try {
            task.unlinkat(fd, p.filename(), dev.seqvfs.protocol.OpenFlags.AT_REMOVEDIR);
        } catch (VfsException e) {
            if (e.errno() == dev.seqvfs.protocol.Errno.EEXIST
                    || e.errno() == dev.seqvfs.protocol.Errno.ENOTEMPTY) {
                // UnixSecureDirectoryStream.implDelete names no file here
                throw new DirectoryNotEmptyException(null);
            }
            throw Errors.translate(e, p, null);
        }
    }

    @Override
    public void move(Path srcpath, SecureDirectoryStream<Path> targetdir, Path targetpath)
            throws IOException {
        SeqVfsPath s = rel(srcpath);
        SeqVfsPath t = rel(targetpath);
        if (!(targetdir instanceof SeqVfsDirectoryStream td)) {
            throw new ProviderMismatchException();
        }
        ensureOpen();
        td.ensureOpen();
        try {
            task.renameat2(fd, s.filename(), td.fd, t.filename(), 0);
        } catch (VfsException e) {
            if (e.errno() == dev.seqvfs.protocol.Errno.EXDEV) {
                throw new AtomicMoveNotSupportedException(
                        s.toString(), t.toString(), Errors.reason(e.errno()));
            }
            throw Errors.translate(e, s, t);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V extends FileAttributeView> V getFileAttributeView(Class<V> type) {
        return getFileAttributeView(null, type);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V extends FileAttributeView> V getFileAttributeView(
            Path path, Class<V> type, LinkOption... options) {
        SeqVfsPath p = path == null ? null : rel(path);
        if (p != null && p.isAbsolute()) {
            return fs.provider().getFileAttributeView(p, type, options);
        }
        if (type == BasicFileAttributeView.class
                || type == PosixFileAttributeView.class
                || type == FileOwnerAttributeView.class) {
            return (V) new AtView(p, Options.followLinks(options));
        }
        return null;
    }

    /** The {@code basic}/{@code posix}/{@code owner} view of a name relative to this directory. */
    private final class AtView implements PosixFileAttributeView {
        private final SeqVfsPath name;
        private final boolean follow;

        AtView(SeqVfsPath name, boolean follow) {
            this.name = name;
            this.follow = follow;
        }

        private IOException fail(VfsException e) {
            return Errors.translate(e, name == null ? dir : name, null);
        }

        @Override
        public String name() {
            return "posix";
        }

        @Override
        public SeqVfsFileAttributes readAttributes() throws IOException {
            ensureOpen();
            try {
                return new SeqVfsFileAttributes(
                        name == null
                                ? task.fstat(fd)
                                : task.fstatat(
                                        fd,
                                        name.filename(),
                                        follow
                                                ? 0
                                                : dev.seqvfs.protocol.OpenFlags
                                                        .AT_SYMLINK_NOFOLLOW));
            } catch (VfsException e) {
                throw fail(e);
            }
        }

        @Override
        public void setTimes(
                java.nio.file.attribute.FileTime lastModifiedTime,
                java.nio.file.attribute.FileTime lastAccessTime,
                java.nio.file.attribute.FileTime createTime)
                throws IOException {
            if (lastModifiedTime == null && lastAccessTime == null) {
                return;
            }
            ensureOpen();
            try {
                task.utimensat(
                        fd,
                        name == null ? null : name.filename(),
                        Views.timespec(lastAccessTime),
                        Views.timespec(lastModifiedTime),
                        name == null || follow
                                ? 0
                                : dev.seqvfs.protocol.OpenFlags.AT_SYMLINK_NOFOLLOW);
            } catch (VfsException e) {
                throw fail(e);
            }
        }

        @Override
        public void setPermissions(Set<java.nio.file.attribute.PosixFilePermission> perms)
                throws IOException {
            ensureOpen();
            int mode = SeqVfsFileAttributes.mode(perms);
            try {
                if (name == null) {
                    task.fchmod(fd, mode);
                } else if (follow) {
                    task.fchmodat(fd, name.filename(), mode, 0);
                } else {
                    // as the JDK's UnixSecureDirectoryStream: ELOOP, the link's target untouched
                    Views.chmodNoFollow(task, fd, name.filename(), mode);
                }
            } catch (VfsException e) {
                throw fail(e);
            }
        }

        private void chown(int uid, int gid) throws IOException {
            ensureOpen();
            try {
                if (name == null) {
                    task.fchown(fd, uid, gid);
                } else {
                    task.fchownat(
                            fd,
                            name.filename(),
                            uid,
                            gid,
                            follow ? 0 : dev.seqvfs.protocol.OpenFlags.AT_SYMLINK_NOFOLLOW);
                }
            } catch (VfsException e) {
                throw fail(e);
            }
        }

        @Override
        public void setOwner(java.nio.file.attribute.UserPrincipal owner) throws IOException {
            if (!(owner instanceof Principals.User u)) {
                throw new ProviderMismatchException();
            }
            chown(u.id(), -1);
        }

        @Override
        public void setGroup(java.nio.file.attribute.GroupPrincipal group) throws IOException {
            if (!(group instanceof Principals.Group g)) {
                throw new ProviderMismatchException();
            }
            chown(-1, g.id());
        }

        @Override
        public java.nio.file.attribute.UserPrincipal getOwner() throws IOException {
            return readAttributes().owner();
        }
    }
}
