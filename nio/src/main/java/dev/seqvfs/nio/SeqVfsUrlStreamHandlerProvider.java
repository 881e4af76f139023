package dev.seqvfs.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.net.spi.URLStreamHandlerProvider;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code seqvfs:} URLs, registered through {@code META-INF/services}: {@code new
 * URL("seqvfs://name/a/b").openStream()} reads the file {@code /a/b} of the registered file system
 * {@code name} ({@code Path.toUri().toURL()} gives such a URL), so a {@link
 * java.net.URLClassLoader} loads classes and resources from SeqVFS. A connection's input stream is
 * {@code Files.newInputStream}, its output stream (with {@code setDoOutput(true)}) {@code
 * Files.newOutputStream}; its length and modification time come from the file's attributes; a
 * missing file is {@link java.io.FileNotFoundException}, as {@code file:} URLs have it.
 * Thread-safe.
 */
public final class SeqVfsUrlStreamHandlerProvider extends URLStreamHandlerProvider {
    /** Creates the provider; the JDK's service loader calls this. */
    public SeqVfsUrlStreamHandlerProvider() {}

    @Override
    public URLStreamHandler createURLStreamHandler(String protocol) {
        if (!SeqVfsFileSystemProvider.SCHEME.equals(protocol)) {
            return null;
        }
        return new URLStreamHandler() {
            @Override
            protected URLConnection openConnection(URL u) {
                return new Connection(u);
            }
        };
    }

    private static final class Connection extends URLConnection {
        private Path path;

        Connection(URL url) {
            super(url);
        }

        @Override
        public void connect() throws IOException {
            if (path == null) {
                try {
                    path = SeqVfsFileSystemProvider.instance().getPath(url.toURI());
                } catch (URISyntaxException | RuntimeException e) {
                    throw new IOException("not a seqvfs file: " + url, e);
                }
                connected = true;
            }
        }

        @Override
        public InputStream getInputStream() throws IOException {
            connect();
            try {
                return Files.newInputStream(path);
            } catch (NoSuchFileException e) {
                java.io.FileNotFoundException f =
                        new java.io.FileNotFoundException(path.toString());
                f.initCause(e);
                throw f;
            }
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            connect();
            if (!getDoOutput()) {
                throw new java.net.ProtocolException("doOutput is false");
            }
            return Files.newOutputStream(
                    path,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
        }

        @Override
        public long getContentLengthLong() {
            try {
                connect();
                return Files.size(path);
            } catch (IOException e) {
                return -1;
            }
        }

        @Override
        public long getLastModified() {
            try {
                connect();
                return Files.getLastModifiedTime(path).toMillis();
            } catch (IOException e) {
                return 0;
            }
        }
    }
}
