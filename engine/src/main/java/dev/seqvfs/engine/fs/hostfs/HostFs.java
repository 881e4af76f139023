package dev.seqvfs.engine.fs.hostfs;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fs.FileOperations;
import dev.seqvfs.engine.fs.InodeOperations;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeOwner;
import dev.seqvfs.engine.inode.SpecialInode;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.engine.inode.Xattrs;
import dev.seqvfs.engine.walk.WalkContext;
import dev.seqvfs.protocol.FileType;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The inodes of one hostfs superblock, made on lookup from what the host shows ({@code
 * hostfs_iget}, {@code read_name}): a {@code lstat} of the host file through the host's provider
 * ({@code unix:*} attributes) gives the mode, owner, size, link count, times and inode number. So a
 * {@code stat} through SeqVFS shows the host's values as of the lookup that reached the file. A
 * directory's listing is the host's, each entry {@code lstat}ed for its inode number and type; its
 * cookies are a hash of the name, so a listing resumed after a host change still lists every
 * untouched name once. Symbolic links keep their host target, and an absolute one resolves in the
 * SeqVFS namespace (as User-mode Linux's hostfs).
 *
 * <p>A FIFO, socket or device node of the host is one inode for the mount's life (its attributes
 * those of its first lookup): a FIFO opened through hostfs is a SeqVFS pipe shared by the tasks
 * that open it, never the host's. A symbolic link's target is resolved in the SeqVFS namespace, so
 * nothing reached through a hostfs mount leads out of its host directory on the host.
 *
 * <p>Deviations: the inode numbers are the host's, so two host file systems under one mount may
 * show the same number; a host name that is not valid UTF-8 is not reachable; an inode made by one
 * lookup is not the one the next makes, so an inotify watch on a hostfs file sees only what SeqVFS
 * itself does to that inode, and nothing the host does. The host is accessed with the JVM's own
 * rights; the task's rights are checked by SeqVFS against the host's mode bits.
 *
 * <p>Thread-safe: it holds no mutable state; every call does blocking host I/O on the caller's
 * thread (a walk, a {@code read}), never on an actor.
 */
final class HostFs {
    private final FileSystemProvider provider;
    private final Path root;
    private InodeOwner owner;

    /** The FIFOs, sockets and device nodes looked up, by host inode number (see instantiate). */
    private final Map<Long, Inode> specials = new ConcurrentHashMap<>();

    /**
     * Creates the operations over the host directory {@code root}; {@link #bind} must follow.
     *
     * @param provider the host's provider
     * @param root the host directory, a path of {@code provider}
     */
    HostFs(FileSystemProvider provider, Path root) {
        this.provider = provider;
        this.root = root;
    }

    /** Binds the superblock that owns the inodes. */
    void bind(InodeOwner sb) {
        this.owner = sb;
    }

    /** {@return the host directory mounted} */
    Path root() {
        return root;
    }

    /** {@return the host's provider} */
    FileSystemProvider provider() {
        return provider;
    }

    /** The inode operations of a hostfs directory whose host path is {@code host}. */
    InodeOperations dirOps(Path host) {
        return new DirOps(host);
    }

    /**
     * {@code lstat} of a host file as SeqVFS attributes.
     *
     * @throws IOException what the host says
     */
    @SuppressWarnings("unchecked")
    Attrs hostAttrs(Path host) throws IOException {
        Map<String, Object> a = provider.readAttributes(host, "unix:*", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        long size = (Long) a.get("size");
        InodeAttrs attrs =
                new InodeAttrs(
                        mode,
                        ((Integer) a.get("nlink")).longValue(),
                        (Integer) a.get("uid"),
                        (Integer) a.get("gid"),
                        (Long) a.get("rdev"),
                        size,
                        (size + 511) / 512,
                        nanos(a.get("lastAccessTime")),
                        nanos(a.get("lastModifiedTime")),
                        nanos(a.get("ctime")),
                        Xattrs.EMPTY);
        return new Attrs((Long) a.get("ino"), attrs);
    }

    private static long nanos(Object t) {
        return ((FileTime) t).to(TimeUnit.NANOSECONDS);
    }

    /** A host file's inode number and attributes. */
    record Attrs(long ino, InodeAttrs attrs) {}

    /**
     * Makes the inode for the host file {@code host}, named {@code name} in {@code parent}.
     *
     * @throws IOException what the host says
     */
    Inode instantiate(Path host, DirectoryInode parent, String name) throws IOException {
        Attrs a = hostAttrs(host);
        FileType type = a.attrs().type();
        switch (type) {
            case DIRECTORY:
                return new DirectoryInode(
                        a.ino(),
                        owner,
                        new DirOps(host),
                        HostFileOperations.DIRECTORY,
                        a.attrs(),
                        parent,
                        name);
            case SYMLINK:
                return new SymlinkInode(
                        a.ino(),
                        owner,
                        InodeOperations.GENERIC,
                        a.attrs(),
                        PathNames.toInternal(
                                provider.readSymbolicLink(host).toString(), Syscall.READLINK));
            case REGULAR:
                return new HostInode(
                        a.ino(),
                        owner,
                        InodeOperations.GENERIC,
                        HostFileOperations.REGULAR,
                        a.attrs(),
                        host);
            default:
                // A FIFO, socket or device node of the host: one inode per host file for the
                // mount's life, so that two tasks opening a FIFO meet at one pipe (a FIFO's pipe
                // is the VFS's, not the host's, as a host FIFO seen through UML's hostfs).
                return specials.computeIfAbsent(
                        a.ino(),
                        ino ->
                                new SpecialInode(
                                        ino,
                                        owner,
                                        InodeOperations.GENERIC,
                                        FileOperations.NONE,
                                        a.attrs()));
        }
    }

    /** {@return the cookie of {@code name} in a listing: a hash, past . and .. (3 and up)} */
    static long cookie(String name) {
        long h = 1125899906842597L;
        for (int i = 0; i < name.length(); i++) {
            h = 31 * h + name.charAt(i);
        }
        h ^= h >>> 29;
        h *= 0xbf58476d1ce4e5b9L;
        h ^= h >>> 32;
        return 3 + (h >>> 2);
    }

    /** The operations of one hostfs directory: names are looked up and listed on the host. */
    private final class DirOps implements InodeOperations {
        private final Path host;

        DirOps(Path host) {
            this.host = host;
        }

        @Override
        public boolean hasLookup() {
            return true;
        }

        @Override
        public Inode lookup(Inode dir, String name, WalkContext caller) {
            Path child = host.resolve(PathNames.toExternal(name));
            try {
                return instantiate(child, (DirectoryInode) dir, name);
            } catch (java.nio.file.NoSuchFileException e) {
                return null;
            } catch (IOException e) {
                throw HostErrors.translate(e, Syscall.STAT);
            }
        }

        @Override
        public List<Dentry> list(Inode dir, WalkContext caller) {
            List<Dentry> out = new ArrayList<>();
            try (DirectoryStream<Path> s = provider.newDirectoryStream(host, p -> true)) {
                for (Path p : s) {
                    String name =
                            PathNames.toInternal(p.getFileName().toString(), Syscall.GETDENTS);
                    Inode i;
                    try {
                        i = instantiate(p, (DirectoryInode) dir, name);
                    } catch (java.nio.file.NoSuchFileException gone) {
                        continue; // removed on the host since it was listed
                    }
                    out.add(new Dentry(name, i, cookie(name), 0));
                }
            } catch (IOException e) {
                throw HostErrors.translate(e, Syscall.GETDENTS);
            } catch (DirectoryIteratorException e) {
                throw HostErrors.translate(e.getCause(), Syscall.GETDENTS);
            }
            out.sort(Comparator.comparingLong(Dentry::cookie));
            return out;
        }
    }
}
