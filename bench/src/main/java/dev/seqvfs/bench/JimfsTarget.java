package dev.seqvfs.bench;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.nio.file.FileSystem;
import java.nio.file.Path;

/** A fresh Jimfs with the Unix configuration (basic attribute view only). */
final class JimfsTarget extends NioTarget {
    private final FileSystem fs = Jimfs.newFileSystem(Configuration.unix());

    @Override
    public Path path(String absolute) {
        return fs.getPath(absolute);
    }

    @Override
    public void close() throws Exception {
        fs.close();
    }
}
