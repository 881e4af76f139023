package dev.seqvfs.nio;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Stat;
import dev.seqvfs.protocol.Timespec;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.protocol.Xattr;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.ProviderMismatchException;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The attribute views: {@link Posix} (also the {@code basic} and {@code owner} views) over {@code
 * stat}, {@code chmod}, {@code chown}, {@code utimensat}; {@link User} over the engine's extended
 * attributes in the {@code user.} namespace, with the JDK's Linux messages ({@code
 * LinuxUserDefinedFileAttributeView}). Views are cheap, immutable and thread-safe; each call is one
 * engine call (reads lock-free).
 */
final class Views {
    private Views() {}

    static Timespec timespec(FileTime t) {
        if (t == null) {
            return Timespec.OMIT;
        }
        long nanos = t.to(TimeUnit.NANOSECONDS);
        return new Timespec(
                Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    /**
     * {@code chmod} without following a final symbolic link, as the JDK's Linux provider does it
     * (Linux has no {@code lchmod}): {@code openat(O_RDONLY | O_NOFOLLOW)}, then {@code fchmod}, so
     * a symbolic link fails with {@code ELOOP} and its target is never changed. {@code O_NONBLOCK}:
     * a FIFO's open does not wait for a writer.
     *
     * @throws VfsException as the open or the {@code fchmod} fails
     */
    static void chmodNoFollow(VfsTask t, int dirfd, CharSequence path, int mode) {
        int fd =
                t.openat(
                        dirfd,
                        path,
                        OpenFlags.O_RDONLY | OpenFlags.O_NOFOLLOW | OpenFlags.O_NONBLOCK,
                        0);
        try {
            t.fchmod(fd, mode);
        } finally {
            t.close(fd);
        }
    }

    /** The {@code basic}, {@code posix} and {@code owner} views of one path. */
    static final class Posix implements PosixFileAttributeView {
        private final SeqVfsPath path;
        private final boolean follow;

        Posix(SeqVfsPath path, boolean follow) {
            this.path = path;
            this.follow = follow;
        }

        private VfsTask task() {
            return path.getFileSystem().task();
        }

        @Override
        public String name() {
            return "posix";
        }

        Stat stat() throws IOException {
            try {
                return follow ? task().stat(path.filename()) : task().lstat(path.filename());
            } catch (VfsException e) {
                throw Errors.translate(e, path, null);
            }
        }

        @Override
        public SeqVfsFileAttributes readAttributes() throws IOException {
            return new SeqVfsFileAttributes(stat());
        }

        @Override
        public void setTimes(
                FileTime lastModifiedTime, FileTime lastAccessTime, FileTime createTime)
                throws IOException {
            if (lastModifiedTime == null && lastAccessTime == null) {
                return;
            }
            try {
                task().utimensat(
                                OpenFlags.AT_FDCWD,
                                path.filename(),
                                timespec(lastAccessTime),
                                timespec(lastModifiedTime),
                                follow ? 0 : OpenFlags.AT_SYMLINK_NOFOLLOW);
            } catch (VfsException e) {
                throw Errors.translate(e, path, null);
            }
        }

        @Override
        public void setPermissions(Set<PosixFilePermission> perms) throws IOException {
            setMode(SeqVfsFileAttributes.mode(perms));
        }

        private void chown(int uid, int gid) throws IOException {
            try {
                if (follow) {
                    task().chown(path.filename(), uid, gid);
                } else {
                    task().lchown(path.filename(), uid, gid);
                }
            } catch (VfsException e) {
                throw Errors.translate(e, path, null);
            }
        }

        @Override
        public void setOwner(UserPrincipal owner) throws IOException {
            if (!(owner instanceof Principals.User u)) {
                throw new ProviderMismatchException();
            }
            chown(u.id(), -1);
        }

        @Override
        public void setGroup(GroupPrincipal group) throws IOException {
            if (!(group instanceof Principals.Group g)) {
                throw new ProviderMismatchException();
            }
            chown(-1, g.id());
        }

        /**
         * {@code chmod}; with {@code NOFOLLOW_LINKS} {@link #chmodNoFollow}: a symbolic link fails
         * with {@code ELOOP} ("... or unable to access attributes of symbolic link").
         */
        void setMode(int mode) throws IOException {
            try {
                if (follow) {
                    task().chmod(path.filename(), mode);
                } else {
                    chmodNoFollow(task(), OpenFlags.AT_FDCWD, path.filename(), mode);
                }
            } catch (VfsException e) {
                throw Errors.translate(e, path, null);
            }
        }

        void setIds(int uid, int gid) throws IOException {
            chown(uid, gid);
        }

        @Override
        public UserPrincipal getOwner() throws IOException {
            return readAttributes().owner();
        }
    }

    /** The {@code user} view: the {@code user.} extended attributes of one path. */
    static final class User implements UserDefinedFileAttributeView {
        private final SeqVfsPath path;
        private final boolean follow;

        User(SeqVfsPath path, boolean follow) {
            this.path = path;
            this.follow = follow;
        }

        @Override
        public String name() {
            return "user";
        }

        /** Opens the file as the JDK's {@code openForAttributeAccess}: {@code O_RDONLY}. */
        private int open() throws IOException {
            try {
                return path.getFileSystem()
                        .task()
                        .open(
                                path.filename(),
                                OpenFlags.O_RDONLY | (follow ? 0 : OpenFlags.O_NOFOLLOW),
                                0);
            } catch (VfsException e) {
                throw Errors.translate(e, path, null);
            }
        }

        private void close(int fd) {
            try {
                path.getFileSystem().task().close(fd);
            } catch (VfsException e) {
                // nothing to do: the descriptor is gone either way
            }
        }

        private String full(String name) throws FileSystemException {
            String n = Xattr.USER_PREFIX + name;
            if (n.getBytes(StandardCharsets.UTF_8).length > Xattr.XATTR_NAME_MAX) {
                throw new FileSystemException(path.toString(), null, "'" + n + "' is too big");
            }
            return n;
        }

        private FileSystemException fail(String what, VfsException e) {
            return new FileSystemException(
                    path.toString(), null, what + ": " + Errors.reason(e.errno()));
        }

        @Override
        public List<String> list() throws IOException {
            int fd = open();
            try {
                List<String> out = new ArrayList<>();
                for (String n : path.getFileSystem().task().flistxattr(fd)) {
                    if (n.startsWith(Xattr.USER_PREFIX)) {
                        out.add(n.substring(Xattr.USER_PREFIX.length()));
                    }
                }
                return List.copyOf(out);
            } catch (VfsException e) {
                throw fail("Unable to get list of extended attributes", e);
            } finally {
                close(fd);
            }
        }

        @Override
        public int size(String name) throws IOException {
            String n = full(name);
            int fd = open();
            try {
                return path.getFileSystem().task().fgetxattr(fd, n).length;
            } catch (VfsException e) {
                throw fail("Unable to get size of extended attribute '" + name + "'", e);
            } finally {
                close(fd);
            }
        }

        @Override
        public int read(String name, ByteBuffer dst) throws IOException {
            if (dst.isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer");
            }
            String n = full(name);
            int fd = open();
            try {
                byte[] v = path.getFileSystem().task().fgetxattr(fd, n);
                if (v.length > dst.remaining()) {
                    throw new FileSystemException(
                            path.toString(),
                            null,
                            "Error reading extended attribute '"
                                    + name
                                    + "': Insufficient space in buffer");
                }
                dst.put(v);
                return v.length;
            } catch (VfsException e) {
                throw fail("Error reading extended attribute '" + name + "'", e);
            } finally {
                close(fd);
            }
        }

        @Override
        public int write(String name, ByteBuffer src) throws IOException {
            String n = full(name);
            int fd = open();
            try {
                byte[] v = new byte[src.remaining()];
                src.duplicate().get(v);
                path.getFileSystem().task().fsetxattr(fd, n, v, 0);
                src.position(src.position() + v.length);
                return v.length;
            } catch (VfsException e) {
                throw fail("Error writing extended attribute '" + name + "'", e);
            } finally {
                close(fd);
            }
        }

        @Override
        public void delete(String name) throws IOException {
            String n = full(name);
            int fd = open();
            try {
                path.getFileSystem().task().fremovexattr(fd, n);
            } catch (VfsException e) {
                throw fail("Unable to delete extended attribute '" + name + "'", e);
            } finally {
                close(fd);
            }
        }
    }
}
