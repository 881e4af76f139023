package dev.seqvfs.engine.fs.hostfs;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;

/**
 * Maps what the host's provider throws back to the errno it came from. The JDK's Linux provider
 * ({@code UnixException.translateToIOException}) turns {@code ENOENT} into {@link
 * NoSuchFileException}, {@code EACCES} into {@link AccessDeniedException}, {@code EEXIST} into
 * {@link FileAlreadyExistsException} and every other errno into a {@link FileSystemException} whose
 * reason is {@code strerror(errno)}; so the reason names the errno, and this class reads it back
 * ({@link Errno#message()}). An exception it cannot place is {@code EIO}, as a network file system
 * reports a server's failure it has no number for.
 *
 * <p>Stateless; thread-safe.
 */
final class HostErrors {
    private HostErrors() {}

    /**
     * {@return the errno {@code e} stands for}
     *
     * @param e what the host's provider threw
     */
    static Errno errno(IOException e) {
        if (e instanceof NoSuchFileException) {
            return Errno.ENOENT;
        }
        if (e instanceof AccessDeniedException) {
            return Errno.EACCES;
        }
        if (e instanceof FileAlreadyExistsException) {
            return Errno.EEXIST;
        }
        if (e instanceof NotDirectoryException) {
            return Errno.ENOTDIR;
        }
        if (e instanceof DirectoryNotEmptyException) {
            return Errno.ENOTEMPTY;
        }
        if (e instanceof FileSystemLoopException) {
            return Errno.ELOOP;
        }
        if (e instanceof NotLinkException) {
            return Errno.EINVAL;
        }
        String reason = e instanceof FileSystemException f ? f.getReason() : e.getMessage();
        if (reason != null) {
            for (Errno n : Errno.values()) {
                if (reason.equals(n.message()) || reason.startsWith(n.message() + " ")) {
                    return n;
                }
            }
        }
        return Errno.EIO;
    }

    /**
     * {@return a {@link VfsException} for what the host threw}
     *
     * @param e what the host's provider threw
     * @param op the call it failed in
     */
    static VfsException translate(IOException e, Syscall op) {
        return new VfsException(errno(e), op, null);
    }
}
