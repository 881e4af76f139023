package dev.seqvfs.nio;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileLock;

/**
 * A POSIX record lock held through a {@link SeqVfsFileChannel}: valid until released or until its
 * channel closes. Thread-safe (volatile state; the release is idempotent).
 */
final class SeqVfsFileLock extends FileLock {
    private volatile boolean valid = true;

    SeqVfsFileLock(SeqVfsFileChannel channel, long position, long size, boolean shared) {
        super(channel, position, size, shared);
    }

    @Override
    public boolean isValid() {
        return valid && channel().isOpen();
    }

    void invalidate() {
        valid = false;
    }

    @Override
    public void release() throws IOException {
        if (!channel().isOpen()) {
            throw new ClosedChannelException();
        }
        if (valid) {
            valid = false;
            ((SeqVfsFileChannel) channel()).unlock(this);
        }
    }
}
