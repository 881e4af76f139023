package dev.seqvfs.nio;

import dev.seqvfs.protocol.MountFlags;
import dev.seqvfs.protocol.StatFs;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileOwnerAttributeView;
import java.nio.file.attribute.FileStoreAttributeView;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.Set;

/**
 * The root file system's store: sizes and the read-only flag from {@code statfs(2)} of {@code /},
 * read at each call (lock-free in the engine). Type {@code "tmpfs"}, name the file system's name.
 * Thread-safe.
 */
final class SeqVfsFileStore extends FileStore {
    static final Set<String> VIEWS = Set.of("basic", "posix", "unix", "owner", "user");

    private final SeqVfsFileSystem fs;

    SeqVfsFileStore(SeqVfsFileSystem fs) {
        this.fs = fs;
    }

    StatFs statfs() throws IOException {
        fs.checkOpen();
        try {
            return fs.task().statfs("/");
        } catch (VfsException e) {
            throw Errors.translate(e, fs.rootDirectory(), null);
        }
    }

    @Override
    public String name() {
        return fs.name();
    }

    @Override
    public String type() {
        return "tmpfs";
    }

    @Override
    public boolean isReadOnly() {
        try {
            return (statfs().flags() & MountFlags.ST_RDONLY) != 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public long getTotalSpace() throws IOException {
        StatFs s = statfs();
        return s.blocks() * s.bsize();
    }

    @Override
    public long getUsableSpace() throws IOException {
        StatFs s = statfs();
        return s.bavail() * s.bsize();
    }

    @Override
    public long getUnallocatedSpace() throws IOException {
        StatFs s = statfs();
        return s.bfree() * s.bsize();
    }

    @Override
    public long getBlockSize() throws IOException {
        return statfs().bsize();
    }

    @Override
    public boolean supportsFileAttributeView(Class<? extends FileAttributeView> type) {
        return type == BasicFileAttributeView.class
                || type == PosixFileAttributeView.class
                || type == FileOwnerAttributeView.class
                || type == UserDefinedFileAttributeView.class;
    }

    @Override
    public boolean supportsFileAttributeView(String name) {
        return VIEWS.contains(name);
    }

    @Override
    public <V extends FileStoreAttributeView> V getFileStoreAttributeView(Class<V> type) {
        return null;
    }

    @Override
    public Object getAttribute(String attribute) throws IOException {
        switch (attribute) {
            case "totalSpace":
                return getTotalSpace();
            case "usableSpace":
                return getUsableSpace();
            case "unallocatedSpace":
                return getUnallocatedSpace();
            default:
                throw new UnsupportedOperationException("'" + attribute + "' not recognized");
        }
    }

    @Override
    public String toString() {
        return "/ (" + fs.name() + ")";
    }
}
