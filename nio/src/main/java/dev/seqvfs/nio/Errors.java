package dev.seqvfs.nio;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;

/**
 * Turns an engine errno into the exception the JDK's Linux provider throws for it ({@code
 * sun.nio.fs.UnixException.translateToIOException} and the call-specific cases of {@code
 * UnixFileSystemProvider}, JDK 17): {@code EACCES} is {@link AccessDeniedException}, {@code ENOENT}
 * {@link NoSuchFileException}, {@code EEXIST} {@link FileAlreadyExistsException}, {@code ELOOP} a
 * {@link FileSystemException} whose reason is {@code strerror} + " or unable to access attributes
 * of symbolic link", anything else a {@link FileSystemException} whose reason is the errno's {@code
 * strerror} text ("Not a directory"); the file names are the paths as given. Stateless.
 */
final class Errors {
    private Errors() {}

    /** The JDK's reason for {@code e}'s errno. */
    static String reason(Errno e) {
        return e.message();
    }

    /**
     * {@return the JDK's exception for {@code e}, naming {@code file} and {@code other}}
     *
     * @param e the engine's failure
     * @param file the path the call was given
     * @param other the second path ({@code null} for calls with one)
     */
    static IOException translate(VfsException e, Path file, Path other) {
        String f = file == null ? null : file.toString();
        String o = other == null ? null : other.toString();
        return translate(e.errno(), f, o);
    }

    static IOException translate(Errno errno, String f, String o) {
        switch (errno) {
            case EACCES:
                return new AccessDeniedException(f, o, null);
            case ENOENT:
                return new NoSuchFileException(f, o, null);
            case EEXIST:
                return new FileAlreadyExistsException(f, o, null);
            case ELOOP:
                return new FileSystemException(
                        f, o, reason(errno) + " or unable to access attributes of symbolic link");
            default:
                return new FileSystemException(f, o, reason(errno));
        }
    }

    /** {@code delete}: {@code EEXIST}/{@code ENOTEMPTY} of {@code rmdir} is non-empty. */
    static IOException forDelete(VfsException e, Path file) {
        if (e.errno() == Errno.ENOTEMPTY || e.errno() == Errno.EEXIST) {
            return new DirectoryNotEmptyException(file.toString());
        }
        return translate(e, file, null);
    }

    /** {@code newDirectoryStream}: {@code ENOTDIR} is {@link NotDirectoryException}. */
    static IOException forDirectory(VfsException e, Path dir) {
        if (e.errno() == Errno.ENOTDIR) {
            return new NotDirectoryException(dir.toString());
        }
        return translate(e, dir, null);
    }

    /** {@code readSymbolicLink}: {@code EINVAL} is {@link NotLinkException}. */
    static IOException forReadLink(VfsException e, Path link) {
        if (e.errno() == Errno.EINVAL) {
            return new NotLinkException(link.toString());
        }
        return translate(e, link, null);
    }

    /** I/O on an open channel: a plain {@link IOException} with the reason, as the JDK's. */
    static IOException forIo(VfsException e) {
        return new IOException(reason(e.errno()));
    }
}
