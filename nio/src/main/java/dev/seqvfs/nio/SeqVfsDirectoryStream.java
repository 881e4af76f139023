package dev.seqvfs.nio;

import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.DirEntry;
import dev.seqvfs.protocol.VfsException;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A directory stream over one open directory descriptor, read with {@code getdents} in batches of
 * {@value #BATCH}: each batch comes from one directory snapshot, and every name untouched during
 * the listing appears exactly once ({@code readdir} semantics; {@code .} and {@code ..} skipped).
 * As the JDK's {@code UnixDirectoryStream}: one iterator only ({@link IllegalStateException}), an
 * iterator of a closed stream has nothing more, a filter's {@link IOException} is a {@link
 * DirectoryIteratorException}. Thread-safe (the iterator is meant for one thread at a time; {@code
 * close} may come from any).
 */
final class SeqVfsDirectoryStream implements DirectoryStream<Path> {
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
}
