package dev.seqvfs.nio;

/**
 * A file's identity, as {@link java.nio.file.attribute.BasicFileAttributes#fileKey()} returns it:
 * the device and inode numbers, printed as the JDK's {@code UnixFileKey} prints itself. Immutable.
 *
 * @param dev the device number ({@code st_dev})
 * @param ino the inode number ({@code st_ino})
 */
record FileKey(long dev, long ino) {
    /**
     * {@return the key of the file open on {@code fd}}
     *
     * @throws java.io.IOException as {@code fstat} fails, translated as a channel's I/O error
     */
    static FileKey of(dev.seqvfs.engine.VfsTask task, int fd) throws java.io.IOException {
        try {
            var st = task.fstat(fd);
            return new FileKey(st.dev(), st.ino());
        } catch (dev.seqvfs.protocol.VfsException e) {
            throw Errors.forIo(e);
        }
    }

    @Override
    public String toString() {
        return "(dev=" + Long.toHexString(dev) + ",ino=" + ino + ")";
    }
}
