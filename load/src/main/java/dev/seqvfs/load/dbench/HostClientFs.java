package dev.seqvfs.load.dbench;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A replay client's calls on the host kernel through {@code java.nio}, blocking (the host replay
 * runs one plain thread per client), for the reference figure of {@code --compare host}. Every call
 * completes before it returns; the futures are already done.
 *
 * <p>Where {@code java.nio} has no exact system call, the nearest is used: {@code fstat} is a
 * {@code stat} of the name the file was opened by (nio has no {@code fstat} that returns times); a
 * directory open stats the path first (nio cannot pass {@code O_DIRECTORY}); {@code unlink} is
 * {@link File#delete()} (one {@code unlink} call, then {@link Files#delete} only to learn the errno
 * of a failure); {@code rmdir} is {@link Files#delete} ({@code lstat} + {@code rmdir}); {@code
 * rename} is an atomic {@link Files#move} (one {@code rename}); {@code statfs} is {@link
 * FileStore#getUsableSpace()} on a store looked up once ({@code statvfs}). Errors come back as the
 * errno the kernel gave: nio's exception classes and reason strings ({@code strerror}) are mapped
 * back to {@link Errno}.
 */
final class HostClientFs implements ClientFs<HostClientFs.Handle> {
    private static final FileAttribute<Set<PosixFilePermission>> MODE_600 =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final Set<OpenOption> RDWR =
            Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE);
    private static final Set<OpenOption> RDWR_CREAT =
            Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
    private static final Set<OpenOption> RDWR_CREAT_TRUNC =
            Set.of(
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING);
    private static final Set<OpenOption> RDONLY = Set.of(StandardOpenOption.READ);

    /** An open file: its channel, the path it was opened by, its record locks. */
    static final class Handle {
        final FileChannel channel;
        final Path path;
        Map<Long, FileLock> locks;

        Handle(FileChannel channel, Path path) {
            this.channel = channel;
            this.path = path;
        }
    }

    private final String base;
    private final ByteBuffer buf;
    private final Set<Handle> open = new HashSet<>();
    private FileStore store;

    HostClientFs(Path base, int bufferBytes) {
        this.base = base.toString();
        this.buf = ByteBuffer.allocateDirect(bufferBytes);
    }

    @Override
    public String base() {
        return base;
    }

    @Override
    public CompletableFuture<Handle> open(String path, int flags, int mode) {
        Path p = Path.of(path);
        try {
            FileChannel ch;
            if ((flags & OpenFlags.O_DIRECTORY) != 0) {
                if (!Files.readAttributes(p, BasicFileAttributes.class).isDirectory()) {
                    throw new VfsException(Errno.ENOTDIR, Syscall.OPEN, path);
                }
                ch = FileChannel.open(p, RDONLY);
            } else if ((flags & OpenFlags.O_ACCMODE) != OpenFlags.O_RDWR) {
                ch = FileChannel.open(p, RDONLY);
            } else if ((flags & OpenFlags.O_CREAT) == 0) {
                ch = FileChannel.open(p, RDWR);
            } else {
                ch =
                        FileChannel.open(
                                p,
                                (flags & OpenFlags.O_TRUNC) != 0 ? RDWR_CREAT_TRUNC : RDWR_CREAT,
                                MODE_600);
            }
            Handle h = new Handle(ch, p);
            open.add(h);
            return CompletableFuture.completedFuture(h);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(errno(e, Syscall.OPEN, path));
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Void> close(Handle h) {
        open.remove(h);
        try {
            h.channel.close();
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(errno(e, Syscall.CLOSE, null));
        }
    }

    @Override
    public int pread(Handle h, int len, long pos) {
        buf.clear().limit(len);
        try {
            return Math.max(0, h.channel.read(buf, pos));
        } catch (IOException e) {
            throw errno(e, Syscall.PREAD, null);
        }
    }

    @Override
    public int pwrite(Handle h, int len, long pos) {
        buf.clear().limit(len);
        try {
            return h.channel.write(buf, pos);
        } catch (IOException e) {
            throw errno(e, Syscall.PWRITE, null);
        }
    }

    @Override
    public FileInfo stat(String path) {
        return stat(Path.of(path), path);
    }

    private static FileInfo stat(Path p, String path) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            return new FileInfo(
                    a.isDirectory(),
                    a.lastAccessTime().to(TimeUnit.NANOSECONDS),
                    a.lastModifiedTime().to(TimeUnit.NANOSECONDS));
        } catch (IOException e) {
            throw errno(e, Syscall.STAT, path);
        }
    }

    @Override
    public FileInfo fstat(Handle h) {
        return stat(h.path, h.path.toString());
    }

    @Override
    public void statfs(String path) {
        try {
            if (store == null) {
                store = Files.getFileStore(Path.of(path));
            }
            store.getUsableSpace();
        } catch (IOException e) {
            throw errno(e, Syscall.STATFS, path);
        }
    }

    @Override
    public void fsync(Handle h) {
        try {
            h.channel.force(true);
        } catch (IOException e) {
            throw errno(e, Syscall.FSYNC, null);
        }
    }

    @Override
    public void lock(Handle h, long start, long len) {
        try {
            FileLock l = h.channel.tryLock(start, len, false);
            if (l == null) {
                throw new VfsException(Errno.EAGAIN, Syscall.FCNTL, null);
            }
            if (h.locks == null) {
                h.locks = new HashMap<>();
            }
            h.locks.put(start * 31 + len, l);
        } catch (OverlappingFileLockException e) {
            throw new VfsException(Errno.EAGAIN, Syscall.FCNTL, null);
        } catch (IOException e) {
            throw errno(e, Syscall.FCNTL, null);
        }
    }

    @Override
    public void unlock(Handle h, long start, long len) {
        FileLock l = h.locks == null ? null : h.locks.remove(start * 31 + len);
        if (l == null) {
            return; // POSIX: unlocking a range that holds no lock succeeds
        }
        try {
            l.release();
        } catch (IOException e) {
            throw errno(e, Syscall.FCNTL, null);
        }
    }

    @Override
    public CompletableFuture<Void> utimes(String path, long atimeNanos, long mtimeNanos) {
        try {
            Files.getFileAttributeView(Path.of(path), BasicFileAttributeView.class)
                    .setTimes(
                            FileTime.from(mtimeNanos, TimeUnit.NANOSECONDS),
                            FileTime.from(atimeNanos, TimeUnit.NANOSECONDS),
                            null);
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(errno(e, Syscall.UTIMENSAT, path));
        }
    }

    @Override
    public CompletableFuture<Void> mkdir(String path, int mode) {
        try {
            if (mode == 0700) {
                Files.createDirectory(
                        Path.of(path),
                        PosixFilePermissions.asFileAttribute(
                                EnumSet.of(
                                        PosixFilePermission.OWNER_READ,
                                        PosixFilePermission.OWNER_WRITE,
                                        PosixFilePermission.OWNER_EXECUTE)));
            } else {
                Files.createDirectory(Path.of(path));
            }
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(errno(e, Syscall.MKDIR, path));
        }
    }

    @Override
    public CompletableFuture<Void> rmdir(String path) {
        Path p = Path.of(path);
        try {
            if (!Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .isDirectory()) {
                throw new VfsException(Errno.ENOTDIR, Syscall.RMDIR, path);
            }
            Files.delete(p);
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(errno(e, Syscall.RMDIR, path));
        } catch (VfsException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Void> unlink(String path) {
        if (new File(path).delete()) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            Files.delete(Path.of(path)); // only to learn the errno
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(errno(e, Syscall.UNLINK, path));
        }
    }

    @Override
    public CompletableFuture<Void> rename(String from, String to) {
        try {
            Files.move(Path.of(from), Path.of(to), StandardCopyOption.ATOMIC_MOVE);
            return CompletableFuture.completedFuture(null);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(errno(e, Syscall.RENAME, from));
        }
    }

    @Override
    public CompletableFuture<List<String>> list(String dir) {
        List<String> names = new ArrayList<>();
        names.add(".");
        names.add("..");
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of(dir))) {
            for (Path p : ds) {
                names.add(p.getFileName().toString());
            }
            return CompletableFuture.completedFuture(names);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(errno(e, Syscall.OPEN, dir));
        }
    }

    @Override
    public void close() {
        for (Handle h : open) {
            try {
                h.channel.close();
            } catch (IOException e) {
                // closing at the end of the run: nothing left to do about it
            }
        }
        open.clear();
    }

    /** Maps a {@code java.nio} failure back to the kernel's errno. */
    static VfsException errno(IOException e, Syscall op, String path) {
        Errno n;
        if (e instanceof NoSuchFileException) {
            n = Errno.ENOENT;
        } else if (e instanceof FileAlreadyExistsException) {
            n = Errno.EEXIST;
        } else if (e instanceof DirectoryNotEmptyException) {
            n = Errno.ENOTEMPTY;
        } else if (e instanceof NotDirectoryException) {
            n = Errno.ENOTDIR;
        } else if (e instanceof AccessDeniedException) {
            n = Errno.EACCES;
        } else if (e instanceof FileSystemException f && f.getReason() != null) {
            n = byMessage(f.getReason());
        } else {
            n = byMessage(e.getMessage());
        }
        return new VfsException(n, op, path);
    }

    private static Errno byMessage(String reason) {
        if (reason != null) {
            for (Errno x : Errno.values()) {
                if (reason.startsWith(x.message())) {
                    return x;
                }
            }
        }
        return Errno.EIO;
    }
}
